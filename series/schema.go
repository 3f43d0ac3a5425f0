package series

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series/internal/chunk"
)

// Layout is how a series kind stores its raw readings. The zero value is
// Chunks, the default.
type Layout uint8

const (
	// Chunks stores the readings of each flush as new compressed chunk
	// items (delta-of-delta timestamps, XOR or decimal floats), one per
	// series, hour and shard, with the chunk's count, sum, min, max, first
	// and last as plain attributes: pk = SENSOR#id, sk = the ISO timestamp
	// of the chunk's first reading and a unique suffix. A chunk never spans
	// two hours and is never updated in place (DynamoDB bills an update on
	// the larger of the item before and after), which keeps storage and
	// write units per reading small.
	Chunks Layout = iota
	// ItemPerReading stores one item per reading: pk = SENSOR#id,
	// sk = 2024-12-01T14:30:00.000Z#<unique>, each field and tag a plain
	// attribute. Simple and queryable by any DynamoDB tool, at one write
	// unit per reading at least.
	ItemPerReading
	// DayPartitioned stores one item per reading in one partition per day:
	// pk = SENSOR#id#2024-12-01, sk = 14:30:00.000#<unique>. It suits
	// unbounded series (a calendar) whose queries are by whole days; a
	// range reads one partition per day.
	DayPartitioned
	// Buckets stores one item per series and period (Schema.BucketPeriod,
	// a day by default) holding the period's readings and its count, sum,
	// min, max, first and last per field: pk = SENSOR#id, sk = 2024-12-01.
	// Each write reads and rewrites the whole bucket (billed on its full
	// size), so buckets suit a few readings per period, such as heart-rate
	// measurements several times a day. A bucket that would pass 300 KB
	// continues in an overflow item (sk = 2024-12-01#0001).
	Buckets
)

// String returns the layout's name, "chunks", "item-per-reading",
// "day-partitioned" or "buckets" (the registry's, layout.go).
func (l Layout) String() string {
	if l.known() {
		return layouts[l].name
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// DuplicateRule is what a kind does with readings of one series at one
// instant (the same millisecond). The zero value is LastWins.
//
// Every layout, shard count, read (Range, Iter, All, Latest, LatestMany,
// Buckets, Aggregate), rollup tier and restart applies the same rule.
// Readings of one instant are ordered by when they were written: a
// Store gives each reading a sequence number as its Write is accepted,
// increasing across calls, flushes and restarts (it starts from the
// clock at Open). Readings written by two Stores at once are ordered by
// those numbers, so by their Stores' clocks.
type DuplicateRule uint8

const (
	// LastWins keeps the reading written last: a retry or a correction
	// replaces the earlier value, so writes are idempotent. Reads return
	// one reading per instant. For measurements; the default.
	LastWins DuplicateRule = iota
	// KeepAll keeps every reading, in write order: events, logs and
	// transactions, where two at one instant are two facts. Reads return
	// them oldest-written first (newest-written first with Reverse).
	KeepAll
	// RejectDifferent keeps the first reading written: writing the same
	// values and tags again is accepted and changes nothing, writing
	// different ones is refused with ErrConflict (Prometheus' rule). A
	// write reads what its series holds at its instants first (one read
	// per series and call), and a Store admits the writes of one series
	// one at a time; two Stores racing to write different readings at
	// one instant may both succeed, and reads keep the first written.
	RejectDifferent
)

// String returns "last-wins", "keep-all" or "reject-different".
func (d DuplicateRule) String() string {
	switch d {
	case LastWins:
		return "last-wins"
	case KeepAll:
		return "keep-all"
	case RejectDifferent:
		return "reject-different"
	}
	return fmt.Sprintf("DuplicateRule(%d)", uint8(d))
}

// Forever, as a retention, keeps data without expiry.
const Forever time.Duration = -1

// Default retentions, from the time of each reading or period (event time).
const (
	DefaultRawRetention     = 30 * 24 * time.Hour
	DefaultHourlyRetention  = 90 * 24 * time.Hour
	DefaultDailyRetention   = 2 * 365 * 24 * time.Hour
	DefaultMonthlyRetention = Forever
)

// Retention is how long each tier keeps its data, counted from event time:
// a reading expires at its time plus Raw, a rollup period at its end plus
// its tier's retention. Expired data gets a TTL attribute in the past, so
// the backend deletes it (DynamoDB does so up to about two days late), and
// reads never return it. A zero field takes the default; Forever keeps.
type Retention struct {
	Raw     time.Duration // default DefaultRawRetention (30 days)
	Hourly  time.Duration // default DefaultHourlyRetention (90 days)
	Daily   time.Duration // default DefaultDailyRetention (2 years)
	Monthly time.Duration // default Forever
}

// Schema describes a kind of series: the readings of every series of that
// kind have the same fields and tags and are stored the same way.
type Schema struct {
	// Name is the entity prefix of the kind's keys, "SENSOR" in
	// "SENSOR#123". Required: letters, digits, '_', '-' and '.', starting
	// with a letter or digit, at most MaxKindName bytes.
	Name string
	// Fields are the names of the float64 fields of a reading, in the order
	// of Reading.Values.
	Fields []string
	// Tags are the names of the string tags of a reading, in the order of
	// Reading.Tags, at most MaxTags. Tags are stored and filtered on,
	// never aggregated.
	Tags []string
	// Layout is how raw readings are stored; default Chunks.
	Layout Layout
	// Duplicates is the rule for readings of one series at one instant;
	// default LastWins.
	Duplicates DuplicateRule
	// NoCompaction turns off the background compaction of the kind's
	// chunks (Chunks layout), and the compaction markers its writes leave
	// (one small write per series and hour). Compaction merges the chunk
	// items of many flushes of one series and hour into one, once the hour
	// is LateWindow old, which is what keeps a day of 1 Hz readings within
	// about 10 read units; turn it off when each hour is written at once
	// anyway (FlushInterval of an hour or more). Kind.Compact still works.
	NoCompaction bool
	// BucketPeriod is the period of one bucket of the Buckets layout:
	// keys.Hour, keys.Day (the default) or keys.Month.
	BucketPeriod keys.Granularity
	// Rollups are the rollup tiers to maintain, among keys.Hour, keys.Day
	// and keys.Month. nil means all three; NoRollups turns them off. Each
	// tier is computed from the next finer one kept (or from the raw
	// readings). After normalisation they are listed finest first. A
	// kind without rollups still has hourly markers (a write and a
	// delete per series and hour written), which let the rollup pass
	// repair a latest reading a crash left stale.
	Rollups   []keys.Granularity
	NoRollups bool
	// Retention is how long each tier keeps data; zero fields take the
	// defaults.
	Retention Retention
	// Shards spreads the writes of each series of the kind over that many
	// partitions (SENSOR#id#S07), for series hotter than one partition
	// takes; each reading's shard is chosen deterministically from its
	// time (the readings of one instant share a shard), and reads query
	// every shard and merge them in time order. 0 or 1: no sharding. At most keys.MaxShards.
	Shards int
	// MetricIndex indexes the raw items of the kind in the table's metric
	// index (a GSI), for "all series, one field, one time range" queries
	// (Kind.MetricRange). It costs a second write of every raw item, of
	// what the query reads only: the index projects the keys, chunk data
	// and source maps, bucket readings, and the fields of the kinds with
	// one item per reading registered when the index is made (a kind of
	// those layouts registered later gets an error from MetricRange until
	// the index is made again); not tags, aggregates or TTL. The write
	// units are those of the projected copy (at least 1 per item).
	MetricIndex bool
	// IndexShards spreads each day's partition of the metric index over
	// that many partitions (by series id); default 1.
	IndexShards int
	// Meta is what the kind's writers said about it: Prometheus remote
	// write keeps a metric's metadata here. Change may set it; it changes
	// nothing else.
	Meta Meta
}

// Meta is what a kind's writers say about it, as Prometheus' metric
// metadata does; each member is at most MaxMetaBytes bytes of UTF-8.
type Meta struct {
	// Type is the metric type: "counter", "gauge", "histogram",
	// "gaugehistogram", "summary", "info", "stateset" or "unknown", or ""
	// when not said.
	Type string
	// Help is a description of what the kind measures.
	Help string
	// Unit is the unit of its values, such as "seconds" or "bytes".
	Unit string
}

// MaxMetaBytes bounds each member of a Meta.
const MaxMetaBytes = 4096

// MaxKindName is the longest kind name, in bytes: Prometheus metric names
// are seldom longer.
const MaxKindName = 255

// Attribute names of the items the store writes. Field and tag names may
// not take these, nor start with '_'.
const (
	attrPK   = "pk"
	attrSK   = "sk"
	attrTTL  = "ttl"
	attrMPK  = "mpk"
	attrMSK  = "msk"
	attrData = "_c" // chunk bytes
	attrTags = "_g" // chunk tag column
	attrN    = "_n" // readings in a chunk, bucket or rollup period
	attrEnd  = "_e" // last reading time of a chunk, ms
	attrRead = "_r" // a bucket's readings
	attrVer  = "_v" // version of a bucket or of a rollup marker
	attrTime = "_t" // a reading's timestamp in a bucket or latest item
	attrSeq  = "_q" // a reading's sequence number (hex) in a bucket or latest item
	attrOrd  = "_o" // the order key of the latest item's reading
	attrDone = "_d" // a rollup item's period was closed when computed
	attrSrc  = "_s" // a merged chunk's source map (see srcmap.go)
	attrBase = "_i" // index of a flushed chunk's first reading among its batch's (see chunkItems)
)

// metricIndex is the name of the metric GSI.
const metricIndex = "metric"

var reserved = map[string]bool{attrPK: true, attrSK: true, attrTTL: true, attrMPK: true, attrMSK: true}

// MaxTags is the most tags a schema may name: every reading with a tag
// holds a slot for each.
const MaxTags = 1024

// normalize checks s and returns a copy with defaults filled in.
func (s Schema) normalize() (Schema, error) {
	bad := func(format string, args ...any) (Schema, error) {
		return Schema{}, fmt.Errorf("%w: schema %q: %s", ErrInvalidSchema, s.Name, fmt.Sprintf(format, args...))
	}
	if !validKindName(s.Name) {
		return bad("name must be 1 to %d letters, digits, '_', '-' or '.', starting with a letter or digit", MaxKindName)
	}
	for _, m := range []string{s.Meta.Type, s.Meta.Help, s.Meta.Unit} {
		if len(m) > MaxMetaBytes || !utf8.ValidString(m) {
			return bad("meta: each member must be at most %d bytes of UTF-8", MaxMetaBytes)
		}
	}
	seen := map[string]bool{}
	for _, list := range [][]string{s.Fields, s.Tags} {
		for _, f := range list {
			switch {
			case f == "" || len(f) > chunk.MaxNameLen || !utf8.ValidString(f):
				return bad("field or tag name %q: must be 1 to %d bytes of UTF-8", f, chunk.MaxNameLen)
			case strings.HasPrefix(f, "_") || reserved[f]:
				return bad("field or tag name %q is reserved (pk, sk, ttl, mpk, msk and names starting with '_')", f)
			case seen[f]:
				return bad("field or tag name %q appears twice", f)
			}
			seen[f] = true
		}
	}
	if len(s.Fields) > chunk.MaxFields {
		return bad("at most %d fields", chunk.MaxFields)
	}
	if len(s.Tags) > MaxTags {
		return bad("at most %d tags", MaxTags)
	}
	if !s.Layout.known() {
		return bad("unknown layout %d", s.Layout)
	}
	if s.Duplicates > RejectDifferent {
		return bad("unknown duplicate rule %d", s.Duplicates)
	}
	switch s.BucketPeriod {
	case 0:
		s.BucketPeriod = keys.Day
	case keys.Hour, keys.Day, keys.Month:
	default:
		return bad("bucket period must be hour, day or month")
	}
	if s.NoRollups {
		s.Rollups = nil
	} else {
		if s.Rollups == nil {
			s.Rollups = []keys.Granularity{keys.Hour, keys.Day, keys.Month}
		}
		var tiers []keys.Granularity
		for _, g := range []keys.Granularity{keys.Hour, keys.Day, keys.Month} {
			for _, r := range s.Rollups {
				if r == g {
					tiers = append(tiers, g)
					break
				}
			}
		}
		for _, r := range s.Rollups {
			if r != keys.Hour && r != keys.Day && r != keys.Month {
				return bad("rollup tier %v: want hour, day or month", r)
			}
		}
		s.Rollups = tiers
		s.NoRollups = len(tiers) == 0
	}
	r := &s.Retention
	for _, p := range []struct {
		d   *time.Duration
		def time.Duration
	}{{&r.Raw, DefaultRawRetention}, {&r.Hourly, DefaultHourlyRetention}, {&r.Daily, DefaultDailyRetention}, {&r.Monthly, DefaultMonthlyRetention}} {
		switch {
		case *p.d == 0:
			*p.d = p.def
		case *p.d < 0 && *p.d != Forever:
			return bad("negative retention (use Forever)")
		}
	}
	if s.Shards <= 0 {
		s.Shards = 1
	}
	if s.Shards > keys.MaxShards {
		return bad("at most %d shards", keys.MaxShards)
	}
	if s.IndexShards <= 0 {
		s.IndexShards = 1
	}
	if s.IndexShards > keys.MaxShards {
		return bad("at most %d index shards", keys.MaxShards)
	}
	s.Fields = append([]string(nil), s.Fields...)
	s.Tags = append([]string(nil), s.Tags...)
	return s, nil
}

func validKindName(s string) bool {
	if s == "" || len(s) > MaxKindName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case (c == '_' || c == '-' || c == '.') && i > 0:
		default:
			return false
		}
	}
	return true
}

// validID reports whether id can name a series: 1 to 512 bytes of UTF-8
// without '#'.
func validID(id string) bool {
	return id != "" && len(id) <= 512 && utf8.ValidString(id) && !strings.Contains(id, keys.Sep)
}

// retentionOf returns the retention of a tier (0 for raw).
func (s *Schema) retentionOf(g keys.Granularity) time.Duration {
	switch g {
	case keys.Hour:
		return s.Retention.Hourly
	case keys.Day:
		return s.Retention.Daily
	case keys.Month:
		return s.Retention.Monthly
	}
	return s.Retention.Raw
}

// hasTier reports whether the rollup tier g is kept.
func (s *Schema) hasTier(g keys.Granularity) bool {
	for _, r := range s.Rollups {
		if r == g {
			return true
		}
	}
	return false
}

// finer returns the tier that tier g is computed from: the next finer tier
// kept, or 0 for the raw readings. Rollups is finest first.
func (s *Schema) finer(g keys.Granularity) keys.Granularity {
	for i, r := range s.Rollups {
		if r == g && i > 0 {
			return s.Rollups[i-1]
		}
	}
	return 0
}

// coarser returns the tier computed from tier g (g = 0: from the raw
// readings), or 0 if none.
func (s *Schema) coarser(g keys.Granularity) keys.Granularity {
	if g == 0 {
		if len(s.Rollups) > 0 {
			return s.Rollups[0]
		}
		return 0
	}
	for i, r := range s.Rollups {
		if r == g && i+1 < len(s.Rollups) {
			return s.Rollups[i+1]
		}
	}
	return 0
}

// FieldIndex returns the position of the named field in Fields, or -1.
func (s *Schema) FieldIndex(name string) int {
	for i, f := range s.Fields {
		if f == name {
			return i
		}
	}
	return -1
}

// TagIndex returns the position of the named tag in Tags, or -1.
func (s *Schema) TagIndex(name string) int {
	for i, f := range s.Tags {
		if f == name {
			return i
		}
	}
	return -1
}
