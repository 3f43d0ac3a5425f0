// Package demo makes realistic web-analytics traffic for a demonstration
// site, and loads it into an analytics.Store through the store's own
// Record and aggregation code, so that a newcomer sees a full dashboard at
// once and benchmarks have a site of any size.
//
// # Traffic
//
// A Generator is deterministic: the events of a day depend only on the
// seed, the day and the options, never on the days generated before, so
// any day can be made alone and two runs with one seed are identical.
// Visits follow a weekly cycle (weekends quieter), a daily cycle in each
// visitor's time zone (quiet nights, busy working hours and evenings), and
// a growth trend. A visit comes from a source (direct, search engines,
// social sites, a few blogs, UTM campaigns; the click id of paid visits
// waits for a field of analytics.Event), lands
// on an entry page that fits its source, and views pages of a long-tailed
// popularity (a home page, pricing, docs, about 60 blog posts) with
// realistic times on page; about four in ten visits bounce. A share of
// visits goes down the funnel /pricing, /signup, then a "Signup" event,
// with drop-off at each step. Visitors have a country, a device, an OS and
// a browser in plausible proportions; custom events (Signup, Download,
// Outbound Link: Click, 404) carry properties; the last page of a visit
// sends an engagement event, as the tracker does when a page is hidden.
//
// # Loading
//
// Load records the days of a range through analytics.Store.RecordMany
// (or Record, one event at a time) and aggregates each day with
// AggregatePending, as `timetable serve` does. Raw hits live 30 days and
// Record refuses older events, so Load moves a Clock, which the Store and
// the engine both read, through the range: each day is recorded and
// aggregated while its clock says it is that day, and days that have
// since passed the raw retention have their raw hits expire as they would
// in real life. There is one code path and no write around the store.
package demo
