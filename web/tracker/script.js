// timetable's tracking script, served at /js/script.js. This file is the
// readable source; script.min.js is made from it by `go generate ./web`
// and is what the server sends (a test checks that they agree).
//
// Use: <script defer data-domain="example.com" src="https://STATS/js/script.js"></script>
//
// It sets no cookie, stores nothing in the browser and sends no identifier:
// each event is Plausible's Events API payload (n name, u url, d domain,
// r referrer, p props, h hash mode, i interactive; e engaged ms and sd
// scroll depth % for "engagement"), posted as text/plain to data-api.
//
// Attributes of the script tag:
//   data-domain        the site's domain (default location.hostname)
//   data-api           the collect URL (default: this script's origin + /api/event)
//   data-hash          hash-based routing: a change of location.hash is a page view
//   data-outbound      send "Outbound Link: Click" {url} on links to other hosts
//   data-downloads     send "File Download" {url} on links to files; the value is a
//                      comma-separated list of extensions (empty: a common list)
//   data-404           this page is a "not found" page: send "404" {path}
//   data-respect-dnt   "false" sends even when Do-Not-Track or Global Privacy
//                      Control is on (by default nothing is sent then)
//   data-allow-local   send from localhost, 127.x.x.x and file: pages too
//   data-allow-headless  send from automated browsers (navigator.webdriver) too
//   data-debug         log to the console each hit not sent, and why (on by
//                      default on localhost, 127.x.x.x and file: pages)
//
// Nothing is sent either from a browser whose localStorage holds
// timetable_ignore = "true" (the site owner's own, say).
//
// window.timetable(name, {props, interactive}) and window.timetable.track
// (the same function) send a custom event. Calls made before the script
// runs are kept by this stub and sent once it has loaded:
//   window.timetable = window.timetable || function () { (timetable.q = timetable.q || []).push(arguments) }
//
// Nothing it does may throw into the page: each entry point catches.
(function () {
  var w = window, d = document, nav = navigator, loc = location
  var script = d.currentScript
  var stub = w.timetable
  if (stub && stub.loaded) return // loaded twice: the first one tracks
  var queued = (stub && stub.q) || []

  function attr(name) {
    return script && script.getAttribute("data-" + name)
  }
  function flag(name) {
    var v = attr(name)
    return v != null && v != "false"
  }

  var endpoint = attr("api") || (script && script.src ? new URL(script.src).origin : "") + "/api/event"
  var domain = attr("domain") || loc.hostname
  var hashMode = flag("hash")
  var downloads = attr("downloads")
  downloads = downloads == null ? 0 : (downloads || "pdf,xlsx,docx,txt,rtf,csv,exe,key,pps,ppt,pptx,7z,pkg,rar,gz,zip,avi,mov,mp4,mpeg,wmv,midi,mp3,wav,wma,dmg").split(/\s*,\s*/)

  var local = /^localhost$|^127(\.\d+){0,2}\.\d+$|^\[::1?\]$/.test(loc.hostname) || loc.protocol == "file:"
  var debug = flag("debug") || local

  // log says on the console, in debug mode, what happened to a hit: a
  // warning for one not recorded.
  function log(msg, ok) {
    if (debug) console[ok ? "info" : "warn"]("timetable: " + msg)
  }

  // why returns the reason no hit is sent from this page now, "" if they
  // are. It is asked at each hit: an opt-out may be set meanwhile.
  function why() {
    var ignore
    try {
      ignore = w.localStorage.timetable_ignore == "true"
    } catch (e) {}
    if (local && !flag("allow-local")) return "this page is local (" + (loc.hostname || loc.protocol) + "); add data-allow-local to the script tag to send from it"
    if (attr("respect-dnt") != "false" && (nav.doNotTrack == "1" || w.doNotTrack == "1" || nav.globalPrivacyControl === true))
      return "Do-Not-Track or Global Privacy Control is on"
    if (ignore) return "this browser opted out (localStorage.timetable_ignore)"
    if (nav.webdriver && !flag("allow-headless")) return "this is an automated browser (navigator.webdriver); add data-allow-headless to send from it"
    return ""
  }

  // send posts one event; sendBeacon survives the page being left, fetch
  // with keepalive (or XHR) is the fallback. In debug mode fetch is used,
  // to log what the server answered.
  function send(payload) {
    var off = why(),
      hit = payload.n + " of " + payload.u
    if (off) return log(hit + " not sent: " + off)
    var body = JSON.stringify(payload)
    try {
      if (!debug && nav.sendBeacon && nav.sendBeacon(endpoint, body)) return
    } catch (e) {}
    try {
      if (w.fetch) {
        fetch(endpoint, { method: "POST", body: body, keepalive: true, headers: { "Content-Type": "text/plain" } })
          .then(function (r) {
            var dropped = r.headers.get("X-Timetable-Dropped")
            if (dropped) log(hit + " dropped by the server: " + dropped)
            else if (r.ok) log(hit + " recorded", 1)
            else
              return r.text().then(function (t) {
                try {
                  t = JSON.parse(t).message
                } catch (e) {}
                log(hit + " refused by the server (" + r.status + "): " + t)
              })
          })
          .catch(function (e) {
            log(hit + " not sent: " + e)
          })
      } else {
        var x = new XMLHttpRequest()
        x.open("POST", endpoint, true)
        x.setRequestHeader("Content-Type", "text/plain")
        x.send(body)
      }
    } catch (e) {}
  }

  function event(name, url, extra) {
    var p = { n: name, u: url, d: domain, r: d.referrer || null }
    if (hashMode) p.h = 1
    for (var k in extra) p[k] = extra[k]
    return p
  }

  // track sends a custom event (or a page view, for name "pageview").
  function track(name, opts) {
    try {
      opts = opts || {}
      var extra = {}
      if (opts.props) extra.p = opts.props
      if (opts.interactive === false) extra.i = false
      send(event(String(name), loc.href, extra))
    } catch (e) {}
  }

  // Engagement of the current page: time visible, deepest scroll.
  var page // the key (path, or path and hash) of the page viewed
  var pageURL // its URL, for its engagement event
  var visibleSince = 0
  var engaged = 0 // ms visible, not yet sent
  var depth = 0 // deepest scroll, %
  var sentDepth = 0

  function scrolled() {
    var h = Math.max(d.documentElement.scrollHeight, d.body ? d.body.scrollHeight : 0)
    var seen = h ? Math.min(100, Math.round(((w.scrollY + w.innerHeight) / h) * 100)) : 100
    if (seen > depth) depth = seen
  }

  function pause() {
    if (visibleSince) engaged += Date.now() - visibleSince
    visibleSince = 0
  }

  // engage sends what the current page has gathered since the last send,
  // if anything. Time keeps counting while the page stays visible, unless
  // leaving: on pagehide, which comes before visibilitychange when the tab
  // navigates away (and a page restored from the back-forward cache turns
  // visible again).
  function engage(leaving) {
    var visible = visibleSince
    pause()
    scrolled()
    if (pageURL && (engaged > 0 || depth > sentDepth)) {
      send(event("engagement", pageURL, { e: engaged, sd: depth }))
      engaged = 0
      sentDepth = depth
    }
    if (visible && leaving !== 1 && d.visibilityState == "visible") visibleSince = Date.now()
  }

  // pageview sends a page view unless the page has not changed, closing
  // the previous page's engagement first.
  function pageview() {
    try {
      var key = loc.pathname + (hashMode ? loc.hash : "")
      if (key == page) return
      engage()
      page = key
      pageURL = loc.href
      engaged = depth = sentDepth = 0
      visibleSince = d.visibilityState == "visible" ? Date.now() : 0
      scrolled()
      track("pageview")
    } catch (e) {}
  }

  // click sends outbound-link and file-download clicks.
  function click(e) {
    try {
      if (e.type == "auxclick" && e.button != 1) return
      var a = e.target
      while (a && !(a.tagName == "A" && a.href)) a = a.parentNode
      if (!a || !/^https?:$/.test(a.protocol)) return
      var url = a.href.split(/[?#]/)[0]
      var ext = url.split("/").pop().split(".")
      if (flag("outbound") && a.host != loc.host) {
        track("Outbound Link: Click", { props: { url: a.href } })
      } else if (downloads && ext.length > 1 && downloads.indexOf(ext.pop().toLowerCase()) >= 0) {
        track("File Download", { props: { url: url } })
      }
    } catch (err) {}
  }

  try {
    var api = function (name, opts) {
      track(name, opts)
    }
    api.track = api
    api.loaded = 1
    w.timetable = api

    if (hashMode) {
      w.addEventListener("hashchange", pageview)
    } else {
      var h = w.history
      ;["pushState", "replaceState"].forEach(function (m) {
        var orig = h[m]
        if (orig) {
          h[m] = function () {
            var r = orig.apply(this, arguments)
            pageview()
            return r
          }
        }
      })
      w.addEventListener("popstate", pageview)
    }
    d.addEventListener("visibilitychange", function () {
      if (d.visibilityState == "visible") {
        if (!visibleSince) visibleSince = Date.now()
      } else {
        engage()
      }
    })
    w.addEventListener("pagehide", function () {
      engage(1)
    })
    w.addEventListener("pageshow", function (e) {
      if (e.persisted) {
        page = 0 // back from the back-forward cache: a new page view
        pageview()
      }
    })
    w.addEventListener("scroll", scrolled, { passive: true })
    d.addEventListener("click", click)
    d.addEventListener("auxclick", click)

    pageview()
    if (flag("404")) track("404", { props: { path: loc.pathname } })
    for (var i = 0; i < queued.length; i++) track.apply(null, queued[i])
  } catch (e) {}
})()
