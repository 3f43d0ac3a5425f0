// Package collect turns the hits a tracker sends over HTTP into
// analytics.Events and records them with analytics.Store.Record: the
// collect endpoint of `timetable serve` (POST /api/event) and its batch of
// server-side events.
//
// # Payload
//
// A hit is Plausible's Events API payload (Decode), so Plausible's own
// tracker works unchanged: a JSON object sent as text/plain (or
// application/json) with the short or long member names n/name, u/url,
// d/domain, r/referrer, p/props (an object or a JSON string of one),
// m/meta (the older name of props), h (hash routing), i (interactive,
// default true), e (engaged time in ms) and sd (scroll depth in percent)
// of an "engagement" event; v (tracker version) and $/revenue are
// ignored, as are unknown members.
//
// # From hit to event
//
// The path comes from the URL (with its fragment in hash mode), UTM
// parameters and ad click ids (gclid, msclkid, fbclid, ...) from its query
// string; they and the referrer give the source (analytics.Source). The
// site is d, a site id or one of a site's domains (a comma-separated list
// of at most MaxDomains names records the hit once in each distinct site
// it names), else the URL's host; the URL's host must be one of the
// site's domains or a subdomain of one. The visitor id is
// analytics.Store.VisitorID of the client's IP and user agent; the IP is
// used for that, for the bot ranges, the rate limit (kept per site and
// IPv4 address or IPv6 /64) and the country, and never stored. The client's IP is the connection's peer, or, when the
// peer is a trusted proxy, the first untrusted address of
// X-Forwarded-For read from the right (else X-Real-IP). Browser, OS and
// device come from github.com/medama-io/go-useragent; the country from a
// CDN's header or a MaxMind-format country database (GeoIP).
//
// # Dropped and refused
//
// Bots (the user-agent parser's, headless browsers and automation tools,
// no user agent, addresses in Options.BotRanges) and referrer spam are
// dropped: Collect returns nil, as Plausible answers 202, and Stats counts
// them by reason. Bad input, unknown sites, foreign domains and clients
// over their rate are refused with errors the server maps to 400, 413,
// 404, 403 and 429.
//
// # Durability
//
// A hit, and a batch, is answered only once it is durable, so that no
// acknowledged hit is lost to a crash, kill -9 included. On the embedded
// engine its writes are made without a sync each and the engine's log is
// then synced, one sync serving every request waiting at the time (group
// commit); on DynamoDB every write is durable when acknowledged. What is
// derived from the hits is rebuilt from them after a crash: the realtime
// counters by analytics.Store.RebuildRealtime, sessions and aggregates by
// the aggregation of the days the hits marked.
//
// A Collector is safe for concurrent use.
package collect
