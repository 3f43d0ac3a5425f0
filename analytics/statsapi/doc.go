// Package statsapi answers queries shaped like Plausible's Stats API v2
// (POST /api/v2/query) from an analytics.Store: Parse reads and checks the
// JSON request, Query.Run computes it, and the Response marshals to
// Plausible's answer, {"results": [...], "meta": {...}, "query": {...}}.
// Bad requests are *Error, answered 400 {"error": "..."} in Plausible's
// words where this package has them.
//
// # Metrics, dimensions and filters
//
// Metrics: visitors, visits, pageviews, views_per_visit, bounce_rate
// (percent, an integer), visit_duration (seconds, an integer), events
// (page views and custom events, as Plausible counts them),
// conversion_rate (percent of visits that converted; it needs an
// event:goal dimension or filter) and percentage (a row's share of the
// total, it needs a dimension). Dimensions: event:page, event:name,
// event:goal, event:props:NAME, visit:entry_page, visit:exit_page,
// visit:source, visit:utm_source, visit:utm_medium, visit:utm_campaign,
// visit:country, visit:browser, visit:os, visit:device, and the time
// buckets time, time:hour, time:day, time:week and time:month. Filters are
// [op, dimension, [values]] with is, is_not, contains and contains_not,
// combined with ["and", [...]], ["or", [...]] and ["not", filter].
//
// # Two ways to answer
//
// A query without filters, with at most one dimension besides time, whose
// metrics the aggregates hold, is answered from the aggregates: fast, and
// over any range the aggregates still cover. Run reads the aggregates that
// a range and all its time buckets need once
// (analytics.Store.ReadAggregates: at most a query per tier for hours and
// days, and for weeks and months of a UTC site; weeks and months of a zone
// off UTC add a query per bucket for the hours around its start) and
// computes each bucket in memory. A breakdown from the
// aggregates has the one count they keep per value: page views for
// event:page, custom events for event:name and event:props:NAME,
// converted visits for event:goal and visits for the visit: dimensions
// (plus percentage, and conversion_rate for event:goal). Any other query
// (filters, two dimensions, visitors per page, ...) is computed from the
// hits with the aggregation's own sessions (analytics.Store.Visits: the
// days' hit buckets, kept 2 years by default, and the raw hits of the
// days not bucketed yet), streamed day by day, the visits that its filters
// on visit: dimensions refuse left out before their hits are formed; it is
// refused with a 400 saying why, and from which day on a range can be
// read, when its range (or its comparison's) reaches days whose hits are
// no longer kept. Meta.ComputedFrom then says "raw_hits".
//
// On that path, an event: filter selects hits and a visit: filter
// selects visits (with all their hits); visit figures (visits, bounce
// rate, duration) count the visits that have a selected hit, by the
// time the visit started; hit figures (page views, events, visitors)
// count the selected hits by their time. Conversion rates are converted
// visits over visits (the aggregates keep visits, not visitors, per
// goal), the denominator ignoring the event:goal conditions.
//
// # Dates and time zones
//
// Date ranges are read in the site's time zone: "day" is today, "7d",
// "28d", "30d" and "91d" are that many days before today (today left
// out), "month" and "year" the current calendar month and year, "6mo"
// and "12mo" that many calendar months ending with this one, "all" from
// the site's creation to the end of today, and ["YYYY-MM-DD",
// "YYYY-MM-DD"] whole days (both included) or two RFC 3339 date-times
// (both included, to the second). The aggregates are UTC hours, days and
// months, so a day of a site in another time zone is covered by the UTC
// days it holds whole and by hours at its ends; ranges are widened to
// whole UTC hours (a zone off UTC by a fraction of an hour is read to
// the hour). Hourly aggregates are kept 90 days: beyond them, the edge
// hours of a non-UTC day are gone and such a range counts its whole UTC
// days only. The path through the hits is exact to the millisecond.
//
// # Bounds
//
// A query's work is bounded whatever it asks: dates run from 2000-01-01 to
// the end of next year (hits are stamped with the server's clock, so
// there are none after now), the time buckets of a range are at most
// Options.MaxBuckets (DefaultMaxBuckets, 10,000: a year of hours fits),
// more being an *Error naming the bound, and Run checks its context as it
// goes through the buckets and the raw visits.
package statsapi
