// Package series is timetable's time-series store, built on the DynamoDB
// single-table patterns over any timetable.API: the embedded engine or
// DynamoDB itself, with the same results.
//
// # Kinds and readings
//
// A Store holds one table. Each Schema given to Open is a Kind of series
// (sensors, log streams, accounts, calendars): its float fields, string
// tags, storage layout, rollup tiers, retention, write shards and metric
// index. A series is a Kind and an id ("SENSOR", "123"); a Reading is an
// instant, kept to the millisecond, with the kind's values and tags.
//
//	st, err := series.Open(ctx, api, &series.Options{WALDir: dir}, series.Schema{
//		Name:   "SENSOR",
//		Fields: []string{"temperature", "humidity"},
//		Tags:   []string{"location"},
//	})
//	err = st.EnsureTable(ctx)
//	sensors, err := st.Kind("SENSOR") // ErrUnknownKind for a name no schema has
//	err = sensors.Write(ctx, "123", series.Reading{Time: t, Values: []float64{21.5, 40}})
//
// # Schemas at run time
//
// Store.Define adds a kind while the Store runs and stores its schema in
// the table (pk ~SCHEMA, sk the kind's name, the Schema JSON of
// schemajson.go), so every later Open of the table has it, with or
// without schemas of its own. Store.Change changes a kind in the ways its
// stored data can take: fields and tags appended, retention, rollup
// tiers, the duplicate rule, compaction, the metric index; not its
// layout, shards, bucket period or the order of its fields and tags
// (ErrSchemaChange). Readings written before a change read back with the
// new fields absent; readings buffered or in the log at the change are
// written with the new schema. Open compares the schemas it is given
// with the stored ones: an allowed change is applied and stored, any
// other difference is ErrSchemaChange. The log is replayed with the
// kinds loaded. Kind lookups take no lock (the kinds are copied on
// write).
//
// # Series directory
//
// The first flush of a series' readings in a Store's lifetime puts an
// item in its kind's directory (pk ~SERIES#SENSOR, sk the id), which
// Kind.Series lists in id order, by prefix and page; see directory.go for
// its cost. Series written only by versions before the directory have no
// entry until they are written again.
//
// # Label index
//
// With the directory item, that flush puts the series' items in its
// kind's label index: the labels its id stands for (IDLabels: the pairs
// of a label set "k=v,k=v", or series=<id>), their names and values, and
// a posting per label, so that Kind.LabelNames, LabelValues and
// LabelSeries list the names, the values of a name, and the series of a
// value without listing the kind's series; and Kind.PlainSeries lists the
// series whose ids are not label sets. A kind written by an earlier
// version is indexed from its directory by a background pass
// (Store.IndexLabels); Kind.LabelIndexReady says when the index is
// complete. See labelindex.go for the items, their cost and why nothing
// removes them.
//
// # Many series
//
// A flush's work is linear in the number of series it holds, new or not:
// the directory's new ids, the latest readings and the markers are found
// in sets and maps (the marker cache keeps one period per series and
// kind of marker, swept each time it doubles), and a rollup pass groups
// its markers by series once. A flush stops between two table calls
// when its context ends; Store.Shutdown bounds Close's flush that way,
// and with Options.WALDir what it did not write stays in the log.
//
// # A missing table
//
// Open works on a table that does not exist (it has no stored schemas
// then). While the table is known to be missing (found by Open, or by a
// flush or read since), Write, WriteMany, WriteSync and Store.WriteKinds
// fail at once with ErrTableNotFound instead of buffering readings that
// could not be flushed (a call with no readings succeeds, writing
// nothing); EnsureTable creates the table and lets writes through.
//
// # Layouts
//
// Each layout is one of the seed patterns, with its partition key (pk) and
// sort key (sk):
//
//	Chunks (default)  pk SENSOR#123             sk 2024-12-01T14:00:00.000Z#<seq>   compressed chunk of one flush (or merged)
//	ItemPerReading    pk SENSOR#123             sk 2024-12-01T14:30:00.000Z#<seq>   one item per reading
//	DayPartitioned    pk SENSOR#123#2024-12-01  sk 14:30:00.000#<seq>               one item per reading
//	Buckets           pk SENSOR#123             sk 2024-12-01                       readings + count, sum, min, max
//
// <seq> is a sequence number that makes two readings of one instant
// distinct and makes every write idempotent (for a chunk, that of its
// batch's first reading plus the index base _i of its first reading).
// With Schema.Shards, pk ends with a shard suffix (SENSOR#123#S07, before
// the day of DayPartitioned), chosen from the reading's time.
// Chunks are written once, as new items, and never grown in place: DynamoDB
// bills an update on the larger of the item before and after.
//
// Other items, each in partitions of their own (one sort-key format per
// partition):
//
//	latest reading      pk SENSOR#123#L             sk L
//	rollups             pk SENSOR#123#H, #D, #M     sk 2024-12-01-14, 2024-12-01, 2024-12
//	rollup markers      pk ~DIRTY#SENSOR            sk 123#2024-12-01-14
//	compaction markers  pk ~COMPACT#SENSOR          sk 123#2024-12-01-14, 123#2024-12-01
//	series directory    pk ~SERIES#SENSOR           sk 123
//	label names         pk ~LABELS#SENSOR           sk host
//	label values        pk ~VALUES#SENSOR#host      sk a
//	label postings      pk ~POSTINGS#SENSOR#host#a  sk host=a,job=x (a series id)
//	plain series        pk ~PLAIN#SENSOR            sk 123 (an id that is not a label set)
//	label index state   pk ~INDEXED                 sk SENSOR
//	stored schemas      pk ~SCHEMA                  sk SENSOR
//	sequence mark       pk ~SEQ                     sk ~SEQ
//	leases              pk ~LEASE                   sk rollup#SENSOR, compact#SENSOR, seq#0042
//	metric index        GSI "metric": mpk SENSOR#2024-12-01, msk <timestamp>#123#<seq>
//
// Every item carries a "ttl" attribute (epoch seconds) computed from event
// time, except where the retention is Forever.
//
// Layouts lists them; Design returns the table design of a kind in any of
// them, and Fleet.Workload what a fleet of series writes, reads and
// stores in each (the cost model that `timetable cost` prices).
//
// # Writes
//
// Kind.Write goes through a buffer that coalesces the readings of each
// series and writes them every Options.FlushInterval (or FlushSize
// readings): one chunk item per series, hour and shard, and BatchWriteItem
// calls of 25 items. When MaxBuffered readings wait, Write blocks
// (backpressure). With Options.WALDir, Write returns once its readings are
// synced to a write-ahead log, and Open replays what a crash left: no
// acknowledged reading is lost on kill -9. Kind.WriteSync returns once the
// table has its readings, written after the buffered ones (it flushes
// them). Range reads, Latest and Aggregate of the Store see its buffered readings
// at once (each reading once, also while a flush is writing it); stored
// rollups, the metric index and other processes once they are flushed
// (Store.Flush).
//
// # Readings of one instant
//
// A reading's time is kept to the millisecond. Readings of one series at
// one instant follow Schema.Duplicates, on every layout, read and tier:
// LastWins (the default) keeps the last written, KeepAll keeps all in
// write order, RejectDifferent keeps the first and refuses a different
// one (ErrConflict). Write order is the order of the sequence numbers a
// Store gives readings as it accepts them: in call order, then in slice
// order, across flushes, compactions and restarts (they start from the
// clock). Readings of one instant share a shard and, in the Chunks layout,
// are ordered in a chunk by their batch's numbers (each batch's above the
// last's: WriteSync writes after the buffered readings), so their order
// never changes once written. Every read applies the rule the same way:
// Range and Iter give the readings the rule keeps, Latest the last of
// them, Aggregate, rollups, Buckets and MetricRange count them. -0 is
// stored as 0 (DynamoDB's numbers have no sign of zero). A reading more
// than Options.MaxFuture (DefaultMaxFuture, an hour) ahead of the clock
// is refused with ErrInvalidReading by every write path: it would stay the
// series' Latest and hide the readings that follow it.
//
// # Reads
//
// Kind.Latest reads the latest-reading item; Kind.LatestMany reads those of
// hundreds of series with BatchGetItem, retrying unprocessed keys and
// returning those it could not read in an error. Kind.Range, Kind.Iter and
// Kind.All read a time range ([From, To), newest first with Reverse,
// Filter on fields and tags), merging shards in time order. Query.Limit is
// the most readings a read returns in all, Query.PageSize the most of one
// Range page; a page's cursor is built from its last reading (its instant
// and rank there) and carries the limit left, so no flush or compaction
// between pages makes a read skip or repeat a reading.
//
// Bounds are half-open, [from, to), rounded up to the millisecond; a zero
// from is the oldest reading not expired and a zero to has no bound, in
// Range, Iter, All, Aggregate, Rollups, Buckets, Recompute and Compact
// (Aggregate needs From). MetricRange alone reads a zero to as the day
// after now: its index has a partition per day and nothing that names
// the newest. Kind.Aggregate returns count,
// sum, min, max, first and last per step, reading the coarsest rollup tier
// that divides the step and finer data where rollups are not up to date.
// Kind.MetricRange reads one field of every series of a kind over a time
// range from the metric index. No read returns expired data, although the
// backend deletes it late.
//
// The work of a read depends on the data it returns, not on the length of
// its range, and its loops check its context: an Aggregate refuses a range
// of more than AggregateQuery.MaxPeriods periods (DefaultMaxPeriods) and a
// MetricRange one of more than DefaultMaxPeriods days, with
// ErrInvalidQuery, before reading them.
//
// # Rollups
//
// Hourly, daily and monthly rollups are recomputed from their source (raw
// readings, then the finer tier) and put whole, never accumulated, so a
// second run never counts a reading twice. Writes mark the periods they
// touch; Store.Rollup (run every Options.RollupInterval) computes the marked
// periods that ended Options.LateWindow ago, so late readings within the
// window are in the first computation and later ones cause a recomputation.
//
// A flush, or a WriteSync, writes the markers of its periods before its
// items (and again after them for periods that ended LateWindow/2 ago or
// more, which a pass may have taken in between), then the items, then the
// latest readings. So a crash anywhere in it, even of a WriteSync, which
// is not in the write-ahead log, leaves every reading that reached the
// table in a marked period: the rollup pass computes it again, and puts
// the newest reading the period holds as the series' latest reading if
// the stored one is older (one GetItem per period computed from raw
// readings). Kinds without rollups keep hourly markers for that repair.
// The sequence mark, an item raised before the items of a flush whose
// numbers reach it, keeps the sequence numbers of a Store opened again
// (even within the same millisecond) above those written before, so
// readings of one instant keep their write order across restarts.
//
// # Compaction
//
// Each flush writes new chunk items, so with the default 1-minute flush a
// day of a 1 Hz series is 1,440 small items, some 36 read units to read.
// Compaction merges the chunk items of one series, shard and hour into a
// merged chunk item (several if one would pass 300 KB), once the hour
// ended Options.LateWindow ago, and later deletes the items it merged: a
// day of 1 Hz readings of one field becomes 24 items, 6 to 10 read units
// for random walks with two decimals moving up to 5 to 50 cents a step
// (about 40 to 75 KB of chunks). Store.Compact runs a pass (every
// Options.CompactInterval in the background) over the hours that writes
// marked; Kind.Compact compacts a series' hours on demand.
// Schema.NoCompaction turns it off for a kind. Once a day ended
// LateWindow ago, a second pass merges its items into one if they hold at
// most 32 KB of chunks (a day of one-minute readings of three fields is
// some 2.5 KB: one item a day, under 2 bytes a reading), while denser
// days keep an item per hour. A chunk item lies within the hour of its
// key, its first reading, except such a day piece, keyed at 00:00:00.000
// of its day: so a read looks back an hour, and one small query at the
// start of its first day (of each day, newest first) finds a day piece.
// A flush that writes readings of days that ended LateWindow ago (an
// ingest of past readings) starts a pass over those days at once, which
// merges each day whose readings the buffer no longer holds: once, unless
// it gets readings after its merge; at most 512 days a pass, the next
// pass following at once (see compactdue.go).
//
// The contract, on the embedded engine as on DynamoDB, with any number of
// processes reading, writing and compacting one table:
//
//   - Reads (Range, Iter, All, Aggregate, rollups, MetricRange) return
//     every reading exactly once, in the same order, before, during and
//     after a compaction, and after one that stopped half way (a crash,
//     an error): a merged item keeps each reading's position (the chunk it
//     was written in and its index there), and readers give each position
//     once. Cursors taken before a compaction resume at the same reading
//     after it. Rollups and aggregates never count a reading twice.
//   - A merged item is written as a new item; the items it replaces are
//     deleted only Options.CompactGrace (default 10 minutes) after, by a
//     later pass, so a read that saw neither is impossible as long as one
//     day of a read is read within CompactGrace (reads read a day again
//     when its pages were read more than CompactGrace/2 apart, as a paused
//     Iter may) and replicas lag less than that.
//   - With Options.SourceExpiry (timetable serve --source-expiry, on a
//     remote DynamoDB backend only; off by default), the flush
//     chunks a merge replaces are not deleted but expire by the table's
//     time to live (no write units): each is written with an expiry of
//     the end of its day (or its write, if later) plus LateWindow,
//     CompactGrace and SourceExpiry, or its retention's if sooner. Readers
//     take a merged item and its sources as one at any age, so reads are
//     the same whether the sources are there or expired. The risk, stated
//     plainly: readings whose flush chunks no compaction pass merges
//     before they expire (no Store ran the passes for about SourceExpiry
//     after they were written) are lost when they expire. A pass takes
//     the oldest periods first, and warns (Stats.SourcesNearExpiry, the
//     metric timetable_series_sources_near_expiry_total) when it merges
//     flush chunks within SourceExpiry/2 of their expiry. Until they
//     expire, reads of a day also read its flush chunks: a day's read of
//     a 1 Hz series costs 46 read units instead of 7.5.
//   - Compaction is idempotent: running a pass again, or two at once,
//     converges to the same items. Readings that arrive after their hour
//     was compacted are written as new small chunks, read at once, and
//     merged in by a later pass.
//   - Costs: per hour of a series, a marker write by the writers, a
//     strongly consistent read of the hour by each pass, a day marker
//     write; per day, a read of the day; the merged items' write units,
//     and one write unit per item deleted: about 0.02 write units per
//     reading at 1 Hz with 1-minute flushes (0.001 with SourceExpiry,
//     which deletes none of the flush chunks). A merged item of more than
//     150 KB is not rewritten for late readings; they are merged
//     among themselves.
//
// # Several Stores on one table
//
// Any number of Stores (processes, servers) may share a table and give
// the same answers as one; fleet.go has the details.
//
//   - Background passes run once across them: the rollup and the
//     compaction pass of each kind run under a lease in the table (pk
//     ~LEASE, sk rollup#KIND and compact#KIND) that a Store takes or
//     renews at each tick of its timer and holds for three intervals
//     (renewed every interval while a pass runs). A Store that closes
//     releases its leases; one that dies keeps them until they end, and
//     the next Store to tick takes them over: a kind's pass waits at most
//     three intervals. Store.Rollup and Store.Compact called directly take
//     no lease (they run at once; the passes are idempotent), nor does
//     Kind.Compact.
//   - Kinds defined or changed on one Store reach the others within
//     Options.RefreshInterval (DefaultRefreshInterval, 10 seconds), when
//     each reads the stored schemas again and applies them as Open does;
//     a write or Store.Kind naming a kind the Store does not know reads
//     them at once (at most once a second), so a kind defined elsewhere is
//     writable at once. Kinds cannot be deleted.
//   - Nothing one Store writes is overwritten by another's flush: each
//     Store holds a sequence id (a lease, sk seq#NNNN, of an hour renewed
//     every ten minutes, one of 1,024) that is the low bits of its
//     sequence numbers and of its chunk keys, so the items and positions
//     of two Stores never meet, on any layout. (A Store that could not take
//     an id at Open, the table missing or failing, uses a random one until
//     it takes one, at EnsureTable or its next writes.) The latest-reading
//     item, markers, directory and sequence mark are written with
//     conditions or versions, and rollups recomputed whole, so they take
//     writes from several Stores.
//   - Readings of one instant of one series written through several
//     Stores are kept by the duplicate rule in the order of their
//     sequence numbers, which follow each Store's clock; in the Chunks
//     layout a flush's readings take their rank among another Store's
//     from the flush's first number (within a Store, write order as
//     always). The latest-reading item is ordered by that rank, the one
//     readers use, so Latest returns the reading Range keeps last on
//     every layout, through any Store (latest.go). An item written before
//     it held ranks holds its reading's own number, read as that number
//     at index 0: a reading of a later flush replaces it as before.
//
// # Deleting
//
// Kind.Delete removes a series' readings in [from, to) (Range's bounds) on
// every layout and shard, buffered ones included (it flushes first, so a
// restart does not replay them): chunk items and buckets that keep other
// readings are rewritten in place, each remaining reading at its position;
// the latest-reading item and the rollups of the periods it touched are
// recomputed, those of periods inside the range removed. Kind.DeleteSeries
// removes everything a series holds. Both hold the Store's flushes,
// compaction and rollup passes while they run; see delete.go for what a
// crash part way leaves (Delete again completes it).
//
// # Retention
//
// Retention is per tier, from event time (defaults: raw 30 days, hourly 90
// days, daily 2 years, monthly forever). Writes refuse readings already
// expired (ErrExpired).
//
// # Consumed capacity
//
// Store.Table returns the table client, whose Stats report the read and
// write units every operation consumed, on the embedded engine as on
// DynamoDB. Store.Stats adds the Store's own counters (readings accepted
// and refused, buffered, flushes, log bytes, passes) for monitoring.
package series
