// Package analytics is privacy-friendly web analytics on one DynamoDB
// table, over any timetable.API (the embedded engine or DynamoDB): sites
// and goals, the recording of page views and custom events, sessions,
// aggregates per hour, day and month, realtime counters and the reads a
// dashboard makes.
//
// # Keys
//
// The table's design is Design (`timetable design analytics`
// prints it). Every key this package writes is one of that design's
// templates filled in, so the document and the code cannot drift: site
// SITE#{id}/METADATA; page views PV#{timestamp}#{id} with GSI1
// SITE#{id}/DATE#{date}; custom events EVENT#{timestamp}#{id}; sessions
// SESSION#{start}.{visitor} with GSI2 VISITOR#{visitorId}; goals
// GOAL#{id}; stats STATS#{period}#{start} with GSI1 PERIOD#{period}#{start};
// realtime REALTIME#{minute}; and, added to the seed's design, Top items
// (a breakdown's values ranked by count in the sort key), Pending marks
// (days to aggregate again), the daily Salt, hit buckets (HitBucket
// HITS#{date} and its parts HitBucketPart HITPART#{date}#{written}#{part}:
// a day's hits in compressed columns, docs/format/hits.md, and its visits
// HitBucketVisits HITVIS#{date}#{written}#{part}), and imported
// days IMPORTED#{date}.
//
// # Imported figures
//
// Store.Import keeps the daily figures imported from another tool
// (Plausible's CSV export, read by package plausiblecsv) as items of
// their own, one per site and UTC day, never merged into the collected
// aggregates: ImportedDays reads them for a caller that asks to add them
// (the Stats API's include.imports), CollectedDays gives the collected
// ones in the same shape for an export, and DeleteImported removes them.
//
// # Recording
//
// Store.Record writes one item per hit, with a ttl of Retention.Raw from
// the hit's time (never from the time of writing), adds the hit to its
// minute's realtime item (string sets of visitors and "visitor path"
// pairs, so retries count nothing twice) and marks its day as pending.
// Those counters are gathered in memory for up to a second, so a crash
// loses the last second's: Store.RebuildRealtime recounts the recent
// minutes from the raw hits when a Store opens, and the hits and day marks
// are durable once the writes of Record are (on the embedded engine, once
// its log is synced), so the aggregation, which recomputes whole days from
// the raw hits, neither loses nor double-counts a hit after a crash.
// Store.VisitorID hashes a random salt of the day (kept in the table, the
// previous days' salts deleted), the site, the IP and the user agent; the
// IP is not stored and nothing is stored in the browser.
//
// # Sessions and aggregates
//
// Sessions are formed by the aggregation from the raw hits, so that late
// events are counted as if they had come in time: a visitor's hits more
// than SessionTimeout (30 minutes) apart start a new session; sessions end
// at midnight UTC (visitor ids change then); an engagement event extends
// its session's duration but opens none; a session bounces with at most
// one page view and no interactive event.
//
// Store.AggregateDay recomputes a day whole: 24 hourly stats, the daily
// stats and Top items, the day's session items, then the month by merging
// its days; and, once the day is over, its hit bucket, which keeps its
// hits after the raw hits expire. Writing replaces what was there, so a
// re-run never double-counts. Store.AggregatePending does the days Record
// marked; a day aggregated before it is over stays marked, needing no
// work until hits come or it ends and its bucket is written. The Store
// runs it in the background every Options.AggregateEvery (a minute by
// default) from Open to Close. Page views, events and visitors belong to the period
// of the hit; visits, bounces, durations, entry and exit pages, sources,
// UTM, country, browser, OS, device and goal conversions to the period the
// visit started in. All counts are additive; unique visitors are a
// HyperLogLog sketch (github.com/axiomhq/hyperloglog, precision 14, about
// 0.8% standard error) merged by union, never summed. Custom events are
// also counted by the value of each of their properties
// (PropDimension(name), at most 100 names a period), and the visits that
// converted any goal give Summary.ConversionRate.
//
// # Reads
//
// Summary and Breakdown cover a range with the fewest months, days and
// hours and merge their stats; Breakdown of one whole day or month reads
// its Top items in sort-key order. TimeSeries gives a metric per hour, day
// or month. ReadAggregates reads once the aggregates that many ranges need
// (an AggregateReads lists them: the time buckets of a series), one query
// per run of periods of a tier, and the Aggregates it returns give each
// range's Summary, Summaries and Breakdown in memory, merged as the Store's
// own methods merge them (which use it too). Realtime reads the last five minutes with queries bounded on
// both sides: the per-minute counters and, for its live feed, the raw
// hits. Visits forms the visits of a range from the hits by the
// aggregation's own rules, for the questions the aggregates cannot answer
// (filters, two dimensions, funnels; package statsapi uses it): each day
// from its hit bucket, or from its raw hits while they are all kept and
// it has no bucket or hits came since it was written (today, late hits),
// with the same answers either way; a read that asks neither hits nor
// goals (a count of whole visits) takes a bucketed day's visits from the
// visits its bucket keeps (HitBucketVisits, formed when it was written),
// not from its hits. A day whose hits are no longer kept
// either way is refused with an *ExpiredError. RawVisits collects them;
// FunnelSteps follows a Funnel's goals through them. Reads drop items
// whose ttl has passed, since DynamoDB deletes them late.
//
// # Sharing
//
// A Site may be Public; a SharedLink gives read access to one site to
// whoever holds its slug, of which only a SHA-256 is stored
// (CheckSharedLink). Enforcing them is the server's job.
//
// # Servers sharing a table
//
// Any number of Stores (servers) may share one table and give the answers
// one Store gives:
//
//   - Hits are items with random ids and day marks are upserts, so
//     whichever Store records a hit, the aggregation sees it.
//   - AggregatePending aggregates a site under the site's lease, the item
//     SITE#{siteId}/LEASE#aggregate (entity Lease), taken with a
//     conditional put (table.TakeLease) by Options.LeaseOwner, so that one
//     Store at a time aggregates a site. A claim lasts LeaseDuration (three
//     times AggregateEvery, at least 30 seconds: 3 minutes by default),
//     is renewed before each day once a third of it has passed, and is
//     released when the site is done and by Close; a Store that dies
//     mid-pass holds the site until its claim ends, and the next pass of
//     any Store then does the days it left (they are still marked). The
//     Stores' clocks must agree to well within a claim. Aggregating a day
//     again replaces its aggregates, so a claim that ends mid-pass (a
//     stalled holder) costs work twice, never a count twice. A day's hit
//     bucket is switched to a new set of parts by a conditional put that
//     refuses an older set, so a stalled holder cannot bring an old one
//     back, and readers read the set the HitBucket item names.
//   - The day's salt is made once, by a conditional put: every Store
//     gives a visitor the same id that day, and another id the next. Not
//     covered: a Store whose clock lags the others' at midnight, and that
//     has not yet read the old day's salt, makes that salt again once a
//     Store ahead has deleted it, so its ids differ for the lag.
//   - Realtime counters are added to (ADD to a number and to string
//     sets), never overwritten: the counters of a minute are the sum of
//     every Store's hits. RebuildRealtime replaces them, so a Store that
//     opens while others record may count twice, in the realtime view only,
//     the hits the others gather in memory during that second.
//   - Changes made through one Store reach the others within these
//     bounds: whether a site is public, its shared links, goals and funnels
//     at once (they are read from the table on each use, strongly
//     consistent; a goal counts from the next aggregation of a day); a site
//     added, changed or deleted reaches Record within
//     Options.SiteCacheTTL (10 seconds by default), and package collect's
//     Collector within its own SiteCacheTTL (10 seconds); through the
//     Store itself, at once in both (SiteChanges empties the collector's
//     cache); the site list
//     (Sites) is read from GSI1, eventually consistent, so a site just
//     added may be missed by a pass that starts within DynamoDB's index
//     lag.
//
// # Retention
//
// Raw hits and sessions 30 days, hourly stats 90 days, daily stats, Top
// items and hit buckets 2 years, monthly stats kept (Options.Retention),
// each from the end of its period. A day whose raw hits may have expired
// is not recomputed (ErrExpired).
//
// A Store is safe for concurrent use.
package analytics
