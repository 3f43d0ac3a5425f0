// The timetable analytics dashboard: sign-in, site list and a site's
// dashboard, or a shared link's read-only view; for a caller that may
// manage them, a site's settings (goals, funnels, shared links) and new
// sites. Its state (site, view, range, comparison, filters, chart metric)
// lives in the URL, so a link gives the same view. It reads only the
// server's own routes.

import { API, ApiError } from "./api.js";
import { lineChart } from "./chart.js";
import { errorNotice, h } from "./dom.js";
import * as fmt from "./format.js";
import { newSitePanel, renderSettings } from "./settings.js";

const settings = JSON.parse(document.getElementById("settings").textContent || "{}");
const TOKEN_KEY = "timetable.token";
const REALTIME_EVERY = 10000;

const PERIODS = [
  ["day", "Today"],
  ["7d", "Last 7 days"],
  ["30d", "Last 30 days"],
  ["month", "This month"],
  ["6mo", "Last 6 months"],
  ["12mo", "Last 12 months"],
  ["custom", "Custom range"],
];

const PANELS = [
  { id: "pages", title: "Pages", tabs: [["event:page", "Top pages"], ["visit:entry_page", "Entry pages"], ["visit:exit_page", "Exit pages"]] },
  { id: "sources", title: "Sources", tabs: [["visit:source", "Sources"], ["visit:utm_source", "UTM source"], ["visit:utm_medium", "UTM medium"], ["visit:utm_campaign", "UTM campaign"]] },
  { id: "countries", title: "Countries", tabs: [["visit:country", "Countries"]] },
  { id: "devices", title: "Devices", tabs: [["visit:device", "Devices"], ["visit:browser", "Browsers"], ["visit:os", "OS"]] },
];

const view = () => document.getElementById("view");

// ---------- State in the URL ----------

const share = settings.share ? { site: settings.share, slug: new URLSearchParams(location.search).get("auth") || "" } : null;

function readState() {
  const q = new URLSearchParams(location.search);
  const period = PERIODS.some(([p]) => p === q.get("period")) ? q.get("period") : "30d";
  const filters = [];
  for (const f of q.getAll("f")) {
    const [op, dim, ...rest] = f.split(",");
    if (op && dim && rest.length) filters.push([op, dim, [rest.join(",")]]);
  }
  const m = q.get("metric");
  const v = q.get("view");
  return {
    site: share ? share.site : q.get("site") || "",
    // view: "" (the dashboard, or the site list without a site), "sites"
    // (the site list, even with one site), "settings" (a site's).
    view: !share && (v === "sites" || v === "settings") ? v : "",
    period,
    from: q.get("from") || "",
    to: q.get("to") || "",
    compare: q.get("compare") !== "0",
    filters,
    metric: fmt.METRICS.some((x) => x.key === m) ? m : "visitors",
    prop: q.get("prop") || "",
    funnel: q.get("funnel") || "",
  };
}

function stateURL(s) {
  const q = new URLSearchParams();
  if (share) q.set("auth", share.slug);
  else if (s.site) q.set("site", s.site);
  if (s.view) q.set("view", s.view);
  if (s.site && !s.view) {
    if (s.period !== "30d") q.set("period", s.period);
    if (s.period === "custom") {
      q.set("from", s.from);
      q.set("to", s.to);
    }
    if (!s.compare) q.set("compare", "0");
    for (const [op, dim, vals] of s.filters) q.append("f", [op, dim, vals[0]].join(","));
    if (s.metric !== "visitors") q.set("metric", s.metric);
    if (s.prop) q.set("prop", s.prop);
    if (s.funnel) q.set("funnel", s.funnel);
  }
  const qs = q.toString();
  return location.pathname + (qs ? "?" + qs : "");
}

let state = readState();

// go changes the state, records it in the URL (a new history entry unless
// replace) and renders.
function go(change, replace) {
  const moved = (change.site !== undefined && change.site !== state.site) || (change.view !== undefined && change.view !== state.view);
  state = { ...state, ...change };
  const url = stateURL(state);
  if (url !== location.pathname + location.search) history[replace ? "replaceState" : "pushState"](null, "", url);
  if (moved || !dash) render();
  else dash.refresh();
}

window.addEventListener("popstate", () => {
  const prev = state;
  state = readState();
  if (state.site !== prev.site || state.view !== prev.view || !dash) render();
  else dash.refresh();
});

// ---------- Sign-in ----------

function token() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  } catch {
    return "";
  }
}

function setToken(t) {
  try {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage refused (private mode): the token lives until the page closes
  }
  api.token = t;
}

const api = new API({ token: share ? "" : token(), share: share ? share.slug : "" });

function renderAccount() {
  const box = document.getElementById("account");
  box.replaceChildren();
  if (share) {
    box.append(h("span", { class: "readonly", text: "Shared link · read-only" }));
  } else if (settings.auth && api.token) {
    box.append(h("span", { text: "Signed in" }), h("button", { class: "btn", type: "button", onclick: signOut, text: "Sign out" }));
  }
}

function signOut() {
  setToken("");
  go({ site: "", view: "" });
}

function signIn(message) {
  stopDash();
  renderAccount();
  const input = h("input", { id: "token", name: "token", type: "password", autocomplete: "current-password", required: true, spellcheck: "false" });
  const err = h("p", { class: "notice error", role: "alert", hidden: !message, text: message || "" });
  const form = h("form", {
    onsubmit: async (ev) => {
      ev.preventDefault();
      const t = input.value.trim();
      if (!t) return;
      const probe = new API({ token: t });
      try {
        await probe.sites();
      } catch (e) {
        if (e.status === 401) {
          err.textContent = "This token was not accepted: " + e.message;
          err.hidden = false;
          input.focus();
          return;
        }
        // 403 and others: the token is valid but may not list every site.
      }
      setToken(t);
      render();
    },
  },
    h("div", { class: "field" }, h("label", { for: "token", text: "API token" }), input,
      h("small", { class: "muted", id: "token-hint" }, "Make one with ", h("code", { text: "timetable token create --scopes read" }),
        " (", h("code", { text: "--scopes admin" }), " to manage sites, goals, funnels and shared links here; ",
        h("code", { text: "--site ID" }), " to limit it to a site). It is kept in this tab only, until you sign out or close it.")),
    h("button", { class: "btn primary", type: "submit", text: "Sign in" }),
  );
  view().replaceChildren(h("section", { class: "narrow card" }, h("h1", { text: "Sign in" }), err, form,
    h("p", { class: "muted" }, "The server's API, its DynamoDB endpoint and metrics are listed at ", h("a", { href: "/about", text: "/about" }), ".")));
  input.focus();
}

// ---------- Site list ----------

// renderSites shows the sites the caller may read; with one only, and
// the list not asked for (view=sites), it opens that site's dashboard.
// A caller that may create sites gets the form that adds one.
async function renderSites() {
  stopDash();
  renderAccount();
  const box = h("section", { class: "narrow" }, h("h1", { text: "Sites" }), h("p", { class: "muted", text: "Loading…" }));
  view().replaceChildren(box);
  let list;
  try {
    list = await api.siteList();
  } catch (e) {
    if (e.status === 401) return signIn(api.token ? "Your token was not accepted: " + e.message : "");
    box.replaceChildren(h("h1", { text: "Sites" }), errorNotice(e, renderSites));
    return;
  }
  const { sites, canCreate } = list;
  if (sites.length === 1 && state.view !== "sites") return go({ site: sites[0].id, view: "", filters: [], prop: "", funnel: "" }, true);
  const created = (s) => go({ site: s.id, view: "", filters: [], prop: "", funnel: "" });
  const items = sites.length
    ? h("ul", { class: "sites" }, sites.map((s) =>
      h("li", {}, h("a", {
        href: "?site=" + encodeURIComponent(s.id),
        onclick: (ev) => {
          ev.preventDefault();
          go({ site: s.id, view: "", filters: [], prop: "", funnel: "" });
        },
      }, h("strong", { text: s.name || s.id }), h("span", { class: "muted", text: s.domains.join(", ") })))))
    : h("p", { class: "notice", id: "no-sites", text: canCreate
      ? "No sites yet. Add one below, then put its script tag in your pages."
      : "There is no site this token may read. An admin can add sites in this dashboard, or make a token for yours (timetable token create --scopes read --site ID)." });
  box.replaceChildren(h("h1", { text: "Sites" }), items, canCreate ? newSitePanel(api, created) : null);
  (box.querySelector(".sites a") || box.querySelector("#site-domains"))?.focus();
}

// ---------- Dashboard ----------

let dash = null;

function stopDash() {
  if (dash) dash.stop();
  dash = null;
}

function render() {
  if (share) {
    renderAccount();
    if (!share.slug) return denied("This shared link has no key (?auth=…).");
    if (!dash) dash = new Dashboard();
    return dash.load();
  }
  if (settings.auth && !api.token && !state.site) return signIn("");
  if (!state.site || state.view === "sites") return renderSites();
  renderAccount();
  stopDash();
  if (state.view === "settings") return openSettings();
  dash = new Dashboard();
  dash.load();
}

// settingsFocus is the section the next settings view shows first.
let settingsFocus = "";

// openSettings shows the settings of the site of the state, for a caller
// that may manage it.
async function openSettings() {
  view().replaceChildren(h("p", { class: "muted", text: "Loading…" }));
  let site;
  try {
    site = await api.site(state.site);
  } catch (e) {
    if (failed(e)) return;
    return view().replaceChildren(h("section", { class: "narrow" }, errorNotice(e, openSettings)));
  }
  if (!site.canManage) {
    return view().replaceChildren(h("section", { class: "narrow card", role: "alert" }, h("h1", { text: "Settings" }),
      h("p", { text: "This token may read this site but not change it: its settings need an admin token (timetable token create --scopes admin)." })));
  }
  const focus = settingsFocus;
  settingsFocus = "";
  await renderSettings(view(), api, site, {
    back: () => go({ view: "" }),
    sites: () => go({ site: "", view: "" }),
    changed: () => {},
  }, focus);
}

// manage opens the settings of the site at section ("goals", "funnels").
function manage(section) {
  settingsFocus = section || "";
  go({ view: "settings" });
}

function denied(message) {
  stopDash();
  view().replaceChildren(h("section", { class: "narrow card", role: "alert" }, h("h1", { text: "Not available" }), h("p", { text: message })));
}

// failed answers an error that concerns the whole view: a refused token
// or shared link; it reports whether it did.
function failed(e) {
  if (!(e instanceof ApiError)) return false;
  if (share && (e.status === 401 || e.status === 403 || e.status === 404)) {
    denied("This shared link is not valid, or it was revoked. Ask the site's owner for a new one.");
    return true;
  }
  if (!share && e.status === 401) {
    signIn(api.token ? "Your token was not accepted: " + e.message : "Sign in to see this site.");
    return true;
  }
  return false;
}

class Dashboard {
  constructor() {
    this.gen = 0;
    this.timer = 0;
    this.tabs = {};
    this.site = { id: state.site, name: "", domains: [], timeZone: "", canManage: false };
    this.sites = [];
    this.canCreate = false;
    this.goalNames = new Map();
    this.onVisible = () => {
      if (!document.hidden) this.pollRealtime();
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  stop() {
    this.gen++;
    clearTimeout(this.timer);
    document.removeEventListener("visibilitychange", this.onVisible);
  }

  async load() {
    view().replaceChildren(h("p", { class: "muted", text: "Loading…" }));
    const g = this.gen;
    const [site, sites] = await Promise.allSettled([api.site(state.site), share ? Promise.resolve({ sites: [] }) : api.siteList()]);
    if (g !== this.gen) return;
    if (site.status === "rejected" && failed(site.reason)) return;
    if (site.status === "rejected" && site.reason.status === 404 && !share) {
      return view().replaceChildren(h("section", { class: "narrow" }, errorNotice(new Error(`there is no site "${state.site}"`)),
        h("p", {}, h("a", { href: "/", text: "All sites" }))));
    }
    if (site.status === "fulfilled" && site.value.id) this.site = site.value;
    if (sites.status === "fulfilled") {
      this.sites = sites.value.sites;
      this.canCreate = sites.value.canCreate;
    }
    const goals = await api.goals(state.site).catch(() => []);
    if (g !== this.gen) return;
    this.goalNames = new Map(goals.map((x) => [String(x.id), x.name || String(x.id)]));
    this.build();
    this.refresh();
  }

  // build makes the page's skeleton; refresh fills it.
  build() {
    const s = this.site;
    this.setup = h("div", { id: "setup" });
    this.chips = h("div", { class: "chips", id: "filters", "aria-label": "Filters" });
    this.figures = h("div", { class: "figures", id: "figures" });
    this.note = h("p", { class: "muted note", role: "status" });
    this.chartBox = h("div", {});
    this.tip = h("p", { class: "tip", "aria-live": "polite" });
    this.chartTable = h("div", {});
    this.live = h("button", { class: "btn live", type: "button", id: "realtime", "aria-describedby": "live-title", onclick: () => document.getElementById("live").focus() },
      h("span", { class: "dot", "aria-hidden": "true" }), h("span", { id: "realtime-count", "data-value": "", text: "–" }), " current visitors");
    const picker = !share && this.sites.length > 1
      ? h("div", { class: "field" }, h("label", { for: "site", text: "Site" }),
        h("select", { id: "site", class: "plain", onchange: (ev) => go({ site: ev.target.value, filters: [], prop: "", funnel: "" }) },
          this.sites.map((x) => h("option", { value: x.id, selected: x.id === s.id, text: x.name || x.id }))))
      : null;
    const period = h("select", { id: "period", class: "plain", onchange: (ev) => this.setPeriod(ev.target.value) },
      PERIODS.map(([p, label]) => h("option", { value: p, selected: p === state.period, text: label })));
    const from = h("input", { id: "from", type: "date", class: "plain", value: state.from });
    const to = h("input", { id: "to", type: "date", class: "plain", value: state.to });
    this.custom = h("form", {
      class: "custom", hidden: state.period !== "custom",
      onsubmit: (ev) => {
        ev.preventDefault();
        if (!from.value || !to.value || from.value > to.value) {
          this.tip.textContent = "Pick a start date on or before the end date.";
          return;
        }
        go({ period: "custom", from: from.value, to: to.value });
      },
    }, h("div", { class: "field" }, h("label", { for: "from", text: "From" }), from),
    h("div", { class: "field" }, h("label", { for: "to", text: "To" }), to),
    h("button", { class: "btn", type: "submit", text: "Apply" }));
    const compare = h("label", { class: "check" }, h("input", { type: "checkbox", id: "compare", checked: state.compare, onchange: (ev) => go({ compare: ev.target.checked }) }), "Compare with the previous period");
    const manageable = !share && s.canManage;
    const links = [
      !share && (this.sites.length > 1 || this.canCreate)
        ? h("a", { href: "?view=sites", id: "all-sites", onclick: (ev) => { ev.preventDefault(); go({ view: "sites" }); } }, this.canCreate ? "All sites · add a site" : "All sites")
        : null,
      manageable
        ? h("a", { href: "?site=" + encodeURIComponent(s.id) + "&view=settings", id: "settings-link", onclick: (ev) => { ev.preventDefault(); manage(); } }, "Settings")
        : null,
    ].filter(Boolean);
    const title = h("div", { class: "grow" }, h("h1", { text: s.name || s.id }),
      h("span", { class: "muted", text: s.domains.join(", ") }),
      links.length ? h("nav", { class: "site-links", "aria-label": "Site" }, links.flatMap((l, i) => (i ? [" · ", l] : [l]))) : null);
    const controls = h("div", { class: "controls" }, title, picker,
      h("div", { class: "field" }, h("label", { for: "period", text: "Date range" }), period), this.custom, compare, this.live);
    const chart = h("section", { class: "card", "aria-labelledby": "chart-title" },
      h("h2", { id: "chart-title", class: "sr-only", text: "Chart" }), this.chartBox,
      h("div", { class: "legend" }, h("span", {}, h("span", { class: "swatch" }), "This period"),
        h("span", { id: "legend-partial", hidden: true }, h("span", { class: "swatch partial" }), "So far (now's bucket)"),
        h("span", { id: "legend-cmp" }, h("span", { class: "swatch cmp" }), h("span", { id: "legend-cmp-text", text: "Previous period" }))),
      this.tip, h("details", { class: "table" }, h("summary", { text: "The chart as a table" }), this.chartTable));
    this.panels = h("div", { class: "panels" });
    for (const p of PANELS) this.panels.append(this.tabbedPanel(p));
    this.panels.append(this.goalsPanel(), this.propsPanel(), this.funnelPanel(), this.livePanel());
    view().replaceChildren(controls, this.chips, this.setup, this.figures, this.note, chart, this.panels);
  }

  setPeriod(p) {
    if (p === "custom") {
      this.custom.hidden = false;
      this.custom.querySelector("input").focus();
      return;
    }
    this.custom.hidden = true;
    go({ period: p, from: "", to: "" });
  }

  dateRange() {
    if (state.period === "custom" && state.from && state.to) return [state.from, state.to];
    return state.period === "custom" ? "30d" : state.period;
  }

  // interval is the chart's time dimension: hours for a day, weeks for
  // six months, months for a year, days otherwise (a custom range by its
  // length).
  interval() {
    const r = this.dateRange();
    if (Array.isArray(r)) {
      const days = (Date.parse(r[1]) - Date.parse(r[0])) / 86400000 + 1;
      return days <= 1 ? "time:hour" : days <= 92 ? "time:day" : days <= 366 ? "time:week" : "time:month";
    }
    return { day: "time:hour", "6mo": "time:week", "12mo": "time:month" }[r] || "time:day";
  }

  base(extra) {
    return { site_id: this.site.id || state.site, date_range: this.dateRange(), filters: state.filters, ...extra };
  }

  refresh() {
    const g = ++this.gen;
    const live = (p) => p.then((v) => (g === this.gen ? v : new Promise(() => {})));
    this.renderChips();
    document.getElementById("legend-cmp").hidden = !state.compare;
    this.loadFigures(live).catch((e) => this.fail(e, this.figures));
    this.loadChart(live).catch((e) => this.fail(e, this.chartBox));
    for (const p of PANELS) this.loadTab(p, live);
    this.loadGoals(live);
    this.loadProps(live);
    this.loadFunnel(live);
    clearTimeout(this.timer);
    this.pollRealtime();
  }

  fail(e, box) {
    if (failed(e)) return;
    box.replaceChildren(errorNotice(e, () => this.refresh()));
  }

  // label is how a dimension's value shows: a goal by its name.
  label(dim, v) {
    if (dim === "event:goal" && this.goalNames.has(String(v))) return this.goalNames.get(String(v));
    return fmt.value(dim, v);
  }

  renderChips() {
    this.chips.replaceChildren(...state.filters.map((f, i) => {
      const text = `${fmt.dimensionName(f[1])} ${f[0] === "is" ? "is" : f[0]} ${this.label(f[1], f[2][0])}`;
      return h("span", { class: "chip" }, h("span", { text }),
        h("button", { type: "button", "aria-label": "Remove filter: " + text, text: "✕", onclick: () => go({ filters: state.filters.filter((_, j) => j !== i) }) }));
    }));
    if (state.filters.length > 1) {
      this.chips.append(h("button", { class: "btn link", type: "button", text: "Clear all filters", onclick: () => go({ filters: [] }) }));
    }
  }

  addFilter(dim, v) {
    if (v === null || v === undefined || dim.startsWith("time")) return;
    const rest = state.filters.filter((f) => f[1] !== dim);
    go({ filters: [...rest, ["is", dim, [String(v)]]] });
  }

  async loadFigures(live) {
    const keys = fmt.METRICS.map((m) => m.key);
    const q = this.base({ metrics: keys });
    if (state.compare) q.include = { comparisons: { mode: "previous_period" } };
    let d;
    this.note.textContent = "";
    try {
      d = await live(api.query(q));
    } catch (e) {
      // A comparison the data cannot answer (beyond the raw retention,
      // say) leaves the figures without it, and says why.
      if (!(q.include && e instanceof ApiError && e.status === 400)) throw e;
      delete q.include;
      d = await live(api.query(q));
      this.note.textContent = "No comparison with the previous period: " + e.message;
    }
    const r = (d.results && d.results[0]) || { metrics: keys.map(() => 0) };
    const cmp = r.comparison || null;
    // An empty previous period (no visits, say before the site's first
    // hit) is shown as such, not as a rise of 100%.
    const visits = keys.indexOf("visits");
    const empty = !!cmp && !(Number(cmp.metrics && cmp.metrics[visits]) > 0);
    this.figures.replaceChildren(...fmt.METRICS.map((m, i) => {
      const v = r.metrics[i] ?? 0;
      const c = cmp ? fmt.compared(m, v, cmp.metrics && cmp.metrics[i], cmp.change && cmp.change[i], empty) : null;
      return h("button", {
        type: "button", class: "figure", "aria-pressed": String(state.metric === m.key), "data-metric": m.key, "data-value": String(v),
        "aria-label": `${m.label}: ${m.fmt(v)}${c ? `, ${c.words}` : ""}. Show in the chart.`,
        onclick: () => go({ metric: m.key }, true),
      }, h("span", { class: "label", text: m.label }), h("span", { class: "value", text: m.fmt(v) }),
      state.compare && c ? h("span", { class: "change " + (c.tone || "flat"), "data-change": c.text, title: c.words, text: c.text }) : null);
    }));
    if (empty && state.compare && r.metrics[visits] > 0) this.note.textContent = "The previous period has no visits: nothing to compare with.";
    const visitors = r.metrics[0] || 0;
    this.setup.replaceChildren();
    if (!visitors && !state.filters.length) {
      // "all" starts at the site's creation, which traffic imported or
      // generated for the past precedes: a year is the test of "no data".
      const all = await live(api.query({ site_id: this.site.id || state.site, date_range: "12mo", metrics: ["visitors"] })).catch(() => null);
      if (all && !((all.results && all.results[0] && all.results[0].metrics[0]) > 0)) this.setup.append(this.snippet());
    }
  }

  // snippet is the empty state of a site with no data yet.
  snippet() {
    const domain = this.site.domains[0] || this.site.id || state.site;
    const code = `<script defer data-domain="${domain}" src="${location.origin}/js/script.js"></script>`;
    const pre = h("pre", { class: "snippet", id: "snippet", text: code });
    const status = h("span", { class: "muted", "aria-live": "polite" });
    return h("div", { class: "notice", role: "status" },
      h("h2", { text: "No data yet" }),
      h("p", {}, "Add this line to the ", h("code", { text: "<head>" }), ` of every page of ${domain}; visits show here within a minute.`),
      pre,
      share ? null : h("button", {
        class: "btn", type: "button", text: "Copy the snippet",
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(code);
            status.textContent = " Copied.";
          } catch {
            getSelection().selectAllChildren(pre);
            status.textContent = " Selected: press Ctrl+C to copy.";
          }
        },
      }), status,
      h("p", { class: "muted" }, "Custom events: ", h("code", { text: "timetable.track('Signup', {props: {plan: 'pro'}})" }), "."),
      h("p", { class: "muted", id: "snippet-local" }, "Testing on your own machine? Add ", h("code", { text: "data-allow-local" }),
        " to the tag and ", h("code", { text: "localhost" }), " to the site's domains", this.site.canManage && !share ? " (Settings)" : "",
        ": nothing is sent from local pages otherwise. There, the browser's console says what happens to each hit."));
  }

  async loadChart(live) {
    const m = fmt.metric(state.metric);
    const interval = this.interval();
    const grain = interval.slice("time:".length);
    const hourly = grain === "hour";
    const q = this.base({ metrics: [m.key], dimensions: [interval], include: { time_labels: true } });
    const d = await live(api.query(q));
    // Buckets after now, in the site's time zone, are not drawn.
    const now = fmt.zonedNow(this.site.timeZone);
    const points = series(d, grain, hourly ? now.hour : now.day);
    let compare = null;
    if (state.compare) {
      const prev = previousRange(d, this.dateRange());
      if (prev) {
        const c = await live(api.query({ ...q, date_range: prev })).catch(() => null);
        if (c) compare = series(c, grain);
      }
    }
    // A previous period without data is said, not drawn as a line at 0.
    const noPrev = !!compare && compare.every((p) => !p.value);
    if (noPrev) compare = null;
    if (state.compare) {
      document.querySelector("#legend-cmp .swatch").hidden = noPrev;
      document.getElementById("legend-cmp-text").textContent = noPrev ? "Previous period: no data" : "Previous period";
    }
    document.getElementById("legend-partial").hidden = !points.some((p) => p.partial);
    lineChart(this.chartBox, { points, compare, fmt: m.fmt, name: m.label, tip: this.tip });
    this.chartTable.replaceChildren(h("table", { class: "data" },
      h("thead", {}, h("tr", {}, h("th", { text: { hour: "Hour", day: "Day", week: "Week of", month: "Month" }[grain] }), h("th", { class: "n", text: m.label }), compare ? h("th", { class: "n", text: "Previous period" }) : null)),
      h("tbody", {}, points.filter((p) => p.value !== null).map((p, i) => h("tr", {}, h("td", { text: p.label }), h("td", { class: "n", text: m.fmt(p.value) }),
        compare ? h("td", { class: "n", text: compare[i] ? m.fmt(compare[i].value) : "" }) : null)))));
  }

  tabbedPanel(p) {
    const list = h("div", { id: `panel-${p.id}-list`, role: p.tabs.length > 1 ? "tabpanel" : null });
    const heading = h("h2", { id: `panel-${p.id}-title`, text: p.title });
    const head = h("div", { class: "panel-head" }, heading);
    if (p.tabs.length > 1) {
      const tabs = h("div", { class: "tabs", role: "tablist", "aria-labelledby": heading.id });
      p.tabs.forEach(([dim, label], i) => {
        const selected = i === 0;
        tabs.append(h("button", {
          type: "button", role: "tab", class: "tab", id: `tab-${p.id}-${i}`, "data-dimension": dim, "aria-selected": String(selected), "aria-controls": list.id, tabindex: selected ? "0" : "-1", text: label,
          onclick: (ev) => this.selectTab(p, tabs, ev.currentTarget),
          onkeydown: tabKeys(tabs, (t) => {
            t.focus();
            this.selectTab(p, tabs, t);
          }),
        }));
      });
      head.append(tabs);
      list.setAttribute("aria-labelledby", "tab-" + p.id + "-0");
    }
    this.tabs[p.id] = p.tabs[0][0];
    return h("section", { class: "card", id: `panel-${p.id}`, "aria-labelledby": heading.id }, head, list);
  }

  selectTab(p, tabs, tab) {
    for (const t of tabs.children) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
    }
    document.getElementById(`panel-${p.id}-list`).setAttribute("aria-labelledby", tab.id);
    this.tabs[p.id] = tab.dataset.dimension;
    this.loadTab(p, (x) => x);
  }

  async loadTab(p, live) {
    const dim = this.tabs[p.id];
    const box = document.getElementById(`panel-${p.id}-list`);
    const m = breakdownMetric(dim);
    try {
      const d = await live(api.query(this.base({ metrics: [m.key], dimensions: [dim], order_by: [[m.key, "desc"]], pagination: { limit: 10 } })));
      box.replaceChildren(this.rows(dim, d, [{ head: m.head, fmt: fmt.count }]));
    } catch (e) {
      this.fail(e, box);
    }
  }

  // rows renders a breakdown: each row a button that filters by its value.
  rows(dim, d, cols) {
    const results = (d && d.results) || [];
    if (!results.length) return h("p", { class: "empty", text: state.filters.length ? "Nothing matches the filters in this range." : "Nothing in this range." });
    const max = Math.max(1, ...results.map((r) => Number(r.metrics[0]) || 0));
    const filtered = state.filters.some((f) => f[1] === dim);
    return h("div", {},
      h("div", { class: "colhead", "aria-hidden": "true" }, h("span", { text: fmt.dimensionName(dim) }), h("span", { text: cols.map((c) => c.head).join(" · ") })),
      h("ul", { class: "rows" }, results.map((r) => {
        const raw = r.dimensions[0];
        const label = this.label(dim, raw);
        const bar = h("span", { class: "bar", "aria-hidden": "true" });
        bar.style.width = `${((Number(r.metrics[0]) || 0) / max) * 100}%`;
        const vals = cols.map((c, i) => c.fmt(r.metrics[i]));
        return h("li", {}, h("button", {
          type: "button", class: "row", disabled: filtered, "data-dimension": dim, "data-key": raw ?? "", "data-value": String(r.metrics[0]),
          "aria-label": `${label}: ${cols.map((c, i) => `${vals[i]} ${c.head.toLowerCase()}`).join(", ")}.${filtered ? "" : " Filter by it."}`,
          onclick: () => this.addFilter(dim, raw),
        }, bar, h("span", { class: "k", text: label }), h("span", { class: "v" }, vals[0], ...vals.slice(1).map((v) => h("small", { text: v })))));
      })));
  }

  goalsPanel() {
    return h("section", { class: "card", id: "panel-goals", "aria-labelledby": "goals-title" },
      h("div", { class: "panel-head" }, h("h2", { id: "goals-title", text: "Goal conversions" })), h("div", { id: "goals-list" }));
  }

  async loadGoals(live) {
    const box = document.getElementById("goals-list");
    try {
      const d = await live(api.query(this.base({ metrics: ["visits", "conversion_rate"], dimensions: ["event:goal"], order_by: [["visits", "desc"]], pagination: { limit: 20 } })));
      if (!d.results || !d.results.length) {
        const goals = share ? [] : await live(api.goals(this.site.id || state.site).catch(() => []));
        box.replaceChildren(goals.length
          ? h("p", { class: "empty", text: "No conversions in this range." })
          : this.noneYet("goals", "No goals yet. A goal counts the visits that send a custom event (timetable('Signup')) or visit a page (/thanks).", "Add a goal"));
        return;
      }
      box.replaceChildren(this.rows("event:goal", d, [
        { head: "Conversions", fmt: fmt.count },
        { head: "Conversion rate", fmt: (v) => fmt.percent(v, 1) },
      ]));
    } catch (e) {
      this.fail(e, box);
    }
  }

  // noneYet is the empty state of the goals or funnels panel: what they
  // are, and the button that opens the settings to add one when the
  // caller may; else who may.
  noneYet(section, what, action) {
    if (share) return h("p", { class: "empty", text: what });
    if (!this.site.canManage) return h("p", { class: "empty", text: what + " An admin of this site can add them in its settings." });
    return h("div", { class: "empty" }, h("p", { text: what }),
      h("button", { class: "btn", type: "button", id: `add-${section}`, text: action, onclick: () => manage(section) }));
  }

  propsPanel() {
    return h("section", { class: "card", id: "panel-props", "aria-labelledby": "props-title" },
      h("div", { class: "panel-head", id: "props-head" }, h("h2", { id: "props-title", text: "Custom properties" })),
      h("div", { id: "props-list" }));
  }

  // selectProp shows the breakdown of property name, in the URL too, and
  // focuses its tab with focus.
  async selectProp(name, focus) {
    state = { ...state, prop: name };
    history.replaceState(null, "", stateURL(state));
    await this.loadProps((p) => p);
    if (focus) document.querySelector(`#props-tabs [data-prop="${CSS.escape(name)}"]`)?.focus();
  }

  // loadProps lists the property names of the range's custom events as
  // tabs (the state's, else the most used, selected) and breaks the
  // selected one's values down.
  async loadProps(live) {
    const box = document.getElementById("props-list");
    const head = document.getElementById("props-head");
    try {
      const names = (await live(api.properties(this.site.id || state.site, this.dateRange()))).map((p) => p.name);
      head.querySelector(".tabs")?.remove();
      if (!names.length) {
        box.replaceChildren(h("p", { class: "empty" }, "No custom properties in this range. Send them with custom events: ",
          h("code", { text: "timetable('Signup', {props: {plan: 'pro'}})" }), "."));
        return;
      }
      const prop = names.includes(state.prop) ? state.prop : names[0];
      const tabs = h("div", { class: "tabs", role: "tablist", "aria-labelledby": "props-title", id: "props-tabs" });
      names.slice(0, 20).forEach((name, i) => {
        const selected = name === prop;
        tabs.append(h("button", {
          type: "button", role: "tab", class: "tab", id: `tab-props-${i}`, "data-prop": name, "aria-selected": String(selected), "aria-controls": "props-list",
          tabindex: selected ? "0" : "-1", text: name,
          onclick: () => this.selectProp(name),
          onkeydown: tabKeys(tabs, (t) => this.selectProp(t.dataset.prop, true)),
        }));
      });
      head.append(tabs);
      box.setAttribute("role", "tabpanel");
      box.setAttribute("aria-labelledby", tabs.querySelector('[aria-selected="true"]')?.id || "props-title");
      const dim = "event:props:" + prop;
      const d = await live(api.query(this.base({ metrics: ["events"], dimensions: [dim], order_by: [["events", "desc"]], pagination: { limit: 10 } })));
      box.replaceChildren(this.rows(dim, d, [{ head: "Events", fmt: fmt.count }]));
    } catch (e) {
      this.fail(e, box);
    }
  }

  funnelPanel() {
    return h("section", { class: "card", id: "panel-funnel", "aria-labelledby": "funnel-title" },
      h("div", { class: "panel-head", id: "funnel-head" }, h("h2", { id: "funnel-title", text: "Funnel" })), h("div", { id: "funnel-body" }));
  }

  async loadFunnel(live) {
    const body = document.getElementById("funnel-body");
    const head = document.getElementById("funnel-head");
    const site = this.site.id || state.site;
    try {
      const list = await live(api.funnels(site));
      head.querySelector("select")?.parentElement.remove();
      if (!list.length) {
        body.replaceChildren(this.noneYet("funnels", "No funnel yet. A funnel follows visitors through goals in order: pricing page, signup, purchase.", "Add a funnel"));
        return;
      }
      const id = list.some((f) => String(f.id) === state.funnel) ? state.funnel : String(list[0].id);
      if (list.length > 1) {
        head.append(h("div", {}, h("label", { for: "funnel", class: "sr-only", text: "Funnel" }),
          h("select", { id: "funnel", class: "plain", onchange: (ev) => go({ funnel: ev.target.value }, true) },
            list.map((f) => h("option", { value: String(f.id), selected: String(f.id) === id, text: f.name || f.id })))));
      }
      const d = await live(api.funnel(site, id, this.dateRange()));
      body.replaceChildren(funnelSteps(d, (id) => this.label("event:goal", id)));
    } catch (e) {
      this.fail(e, body);
    }
  }

  livePanel() {
    return h("section", { class: "card", id: "live", tabindex: "-1", "aria-labelledby": "live-title" },
      h("div", { class: "panel-head" }, h("h2", { id: "live-title", text: "Realtime (last 5 minutes)" })),
      h("div", { id: "live-pages" }), h("h3", { text: "Live feed" }), h("ul", { class: "feed", id: "feed", "aria-live": "off" }));
  }

  async pollRealtime() {
    clearTimeout(this.timer);
    const g = this.gen;
    if (document.hidden) return;
    try {
      const d = await api.realtime(this.site.id || state.site);
      if (g !== this.gen) return;
      this.renderRealtime(d || {});
    } catch (e) {
      if (g !== this.gen) return;
      if (failed(e)) return;
      document.getElementById("realtime-count").textContent = "?";
      document.getElementById("live-pages").replaceChildren(errorNotice(e));
    }
    if (g === this.gen) this.timer = setTimeout(() => this.pollRealtime(), REALTIME_EVERY);
  }

  renderRealtime(d) {
    const n = Number(d.visitors) || 0;
    const count = document.getElementById("realtime-count");
    count.textContent = fmt.count(n);
    count.dataset.value = String(n);
    const pages = (d.pages || []).map((p) => ({ dimensions: [p.page], metrics: [p.visitors] }));
    const box = document.getElementById("live-pages");
    // An empty window says when the latest page view was: a demo site's
    // traffic ends when it was made, a new site's has not begun.
    const latest = d.latest_pageview
      ? ` The latest page view was ${fmt.relative(d.latest_pageview)} (${new Date(d.latest_pageview).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })}).`
      : " No page view has been recorded in the last 30 days: is the script on the site's pages?";
    box.replaceChildren(pages.length
      ? this.rows("event:page", { results: pages }, [{ head: "Visitors now", fmt: fmt.count }])
      : h("p", { class: "empty", id: "live-empty", text: "No visitors in the last 5 minutes." + latest }));
    const feed = document.getElementById("feed");
    const events = d.events || [];
    feed.replaceChildren(...(events.length ? events.map((e) => h("li", {},
      h("span", {}, h("strong", { text: e.name || "pageview" }), " ", h("span", { text: e.page || "" }),
        h("span", { class: "muted", text: [e.country ? fmt.value("visit:country", e.country) : "", e.browser || ""].filter(Boolean).map((x) => " · " + x).join("") })),
      h("time", { datetime: e.time || "", text: fmt.clock(e.time) }))) : [h("li", { class: "empty", text: "Nothing yet." })]));
  }
}

// tabKeys returns the keydown handler of the tabs of a tablist: the
// arrow keys, Home and End pick a tab (wrapping around), given to pick.
function tabKeys(tabs, pick) {
  return (ev) => {
    const all = [...tabs.children];
    const at = all.indexOf(ev.currentTarget);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: all.length - 1 }[ev.key];
    if (next === undefined) return;
    ev.preventDefault();
    pick(all[(next + all.length) % all.length]);
  };
}

// breakdownMetric is the count a panel ranks a dimension's values by: the
// one the Stats API keeps in its aggregates (page views per page, visits
// per visit dimension), so that any range it covers is answered.
function breakdownMetric(dim) {
  if (dim === "event:page") return { key: "pageviews", head: "Pageviews" };
  if (dim.startsWith("event:")) return { key: "events", head: "Events" };
  return { key: "visits", head: "Visits" };
}

// series returns a time series' points from a query's answer, one per
// time label of grain ("hour", "day", "week", "month"; buckets without
// results are 0), each with its key ("2024-01-05 13" for an hour, the
// first day's date otherwise). With until (now's key), a bucket whose key
// is after it is in the future: its value is null; and the last bucket
// begun, when now is in it, is partial.
function series(d, grain, until) {
  const key = (s) => String(s).replace("T", " ").slice(0, grain === "hour" ? 13 : 10);
  const byKey = new Map(((d && d.results) || []).map((r) => [key(r.dimensions[0]), Number(r.metrics[0]) || 0]));
  const labels = (d && d.meta && d.meta.time_labels) || [...byKey.keys()];
  const points = labels.map((l) => {
    const k = key(l);
    return { ...fmt.timeLabel(l, grain), key: k, value: until && k > until ? null : byKey.get(k) || 0 };
  });
  if (until) {
    const last = points.findLastIndex((p) => p.value !== null);
    const end = d && d.query && Date.parse(d.query.date_range && d.query.date_range[1]);
    // Now is in the last bucket begun if a later one is in the future or
    // the range ends after now.
    if (last >= 0 && (last < points.length - 1 || end > Date.now())) points[last].partial = true;
  }
  return points;
}

// previousRange returns the dates of the period before the one a query
// answered for: as long, ending the day before it starts. It reads the
// answer's resolved date_range, else works from the request's.
function previousRange(d, asked) {
  let from, to;
  const r = d && d.query && d.query.date_range;
  if (Array.isArray(r) && r.length === 2) {
    from = String(r[0]).slice(0, 10);
    to = String(r[1]).slice(0, 10);
  } else if (Array.isArray(asked)) {
    [from, to] = asked;
  } else {
    [from, to] = localRange(asked);
  }
  const day = 86400000;
  const f = Date.parse(from + "T00:00:00Z"), t = Date.parse(to + "T00:00:00Z");
  if (isNaN(f) || isNaN(t) || t < f) return null;
  const days = Math.round((t - f) / day) + 1;
  const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
  return [iso(f - days * day), iso(f - day)];
}

// localRange resolves a preset in the viewer's calendar, for a server
// whose answer does not say which dates it read.
function localRange(preset) {
  const now = new Date();
  const iso = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  const back = (n) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - n);
  switch (preset) {
    case "day": return [iso(now), iso(now)];
    case "7d": return [iso(back(7)), iso(back(1))];
    case "30d": return [iso(back(30)), iso(back(1))];
    case "month": return [iso(new Date(now.getFullYear(), now.getMonth(), 1)), iso(new Date(now.getFullYear(), now.getMonth() + 1, 0))];
    case "6mo": return [iso(new Date(now.getFullYear(), now.getMonth() - 5, 1)), iso(new Date(now.getFullYear(), now.getMonth() + 1, 0))];
    case "12mo": return [iso(new Date(now.getFullYear(), now.getMonth() - 11, 1)), iso(new Date(now.getFullYear(), now.getMonth() + 1, 0))];
  }
  return [iso(back(30)), iso(back(1))];
}

// funnelSteps renders a funnel's answer: each step's visitors, its share
// of the first step (conversion_rate) and the drop-off from the step
// before (drop_off), computed from the visitors when the answer lacks
// them.
function funnelSteps(d, goalName) {
  const steps = (d && (d.steps || (d.funnel && d.funnel.steps))) || [];
  if (!steps.length) return h("p", { class: "empty", text: "This funnel has no steps." });
  const first = Number(steps[0].visitors) || 0;
  const list = h("ol", { class: "funnel", id: "funnel-steps" }, steps.map((s, i) => {
    const v = Number(s.visitors) || 0;
    const prev = i ? Number(steps[i - 1].visitors) || 0 : v;
    const share = s.conversion_rate ?? (first ? (v / first) * 100 : 0);
    const lost = s.drop_off ?? prev - v;
    const drop = i && prev ? (lost / prev) * 100 : 0;
    const fill = h("div", { class: "fill" });
    fill.style.width = `${share}%`;
    const name = s.name || s.label || (s.goal ? goalName(s.goal) : `Step ${i + 1}`);
    return h("li", { class: "step", "data-value": String(v) },
      h("div", { class: "meta" }, h("span", {}, h("strong", { text: `${i + 1}. ` }), name),
        h("span", { text: `${fmt.count(v)} visitors · ${fmt.percent(share, 1)}` })),
      h("div", { class: "track", role: "img", "aria-label": `${name}: ${fmt.count(v)} visitors, ${fmt.percent(share, 1)} of the first step` }, fill),
      i ? h("div", { class: "drop", text: `${fmt.count(lost)} dropped off (${fmt.percent(drop, 1)})` }) : null);
  }));
  // The server says when it shortened the range to the raw hits it keeps.
  return d.warning ? h("div", {}, h("p", { class: "note", text: d.warning }), list) : list;
}

render();
