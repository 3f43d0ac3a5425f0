package series

import (
	"strconv"
	"time"

	"github.com/timetable-db/timetable/keys"
)

// Partition and sort keys of the items a kind writes; Name is "SENSOR",
// id "123":
//
//	raw (ItemPerReading, Chunks, Buckets)  SENSOR#123 or SENSOR#123#S07
//	raw (DayPartitioned)                   SENSOR#123#2024-12-01 or SENSOR#123#S07#2024-12-01
//	rollups                                SENSOR#123#H, #D, #M; sk 2024-12-01-14, 2024-12-01, 2024-12
//	latest reading                         SENSOR#123#L; sk L
//	day directory (DayPartitioned)         SENSOR#123#P; sk 2024-12-01
//	rollup markers                         ~DIRTY#SENSOR; sk 123#2024-12-01-14
//	series directory                       ~SERIES#SENSOR; sk 123
//	label names, values, postings          ~LABELS#SENSOR; sk host, ~VALUES#SENSOR#host; sk a, ~POSTINGS#SENSOR#host#a; sk 123 (labelindex.go)
//	plain series (ids not label sets)      ~PLAIN#SENSOR; sk 123
//	label index state                      ~INDEXED; sk SENSOR
//	stored schemas                         ~SCHEMA; sk SENSOR
//	sequence mark                          ~SEQ; sk ~SEQ (seqmark.go)
//	metric index (GSI)                     mpk SENSOR#2024-12-01 (#S03), msk <timestamp>#123#<seq>
//
// Each partition holds keys of one format only.

const (
	latestSK     = "L"
	markerPrefix = "~DIRTY#"
)

func (k *Kind) entity(id string) string { return k.s.Name + keys.Sep + id }

// rawPK is the partition of shard sh of series id (not day-partitioned).
func (k *Kind) rawPK(id string, sh int) string {
	if k.s.Shards <= 1 {
		return k.entity(id)
	}
	return k.entity(id) + keys.Sep + keys.ShardSuffix(sh, k.s.Shards)
}

// dayPK is the partition of one day (key "2024-12-01") of shard sh.
func (k *Kind) dayPK(id string, sh int, day string) string {
	return k.rawPK(id, sh) + keys.Sep + day
}

func (k *Kind) rollupPK(id string, g keys.Granularity) string {
	var c string
	switch g {
	case keys.Hour:
		c = "H"
	case keys.Day:
		c = "D"
	case keys.Month:
		c = "M"
	}
	return k.entity(id) + keys.Sep + c
}

func (k *Kind) latestPK(id string) string { return k.entity(id) + keys.Sep + "L" }

// daysPK is the partition of the day directory of series id
// (DayPartitioned): an item per day that holds readings.
func (k *Kind) daysPK(id string) string { return k.entity(id) + keys.Sep + "P" }

func (k *Kind) markerPK() string { return markerPrefix + k.s.Name }

// shardOf is the shard of readings at time ms (milliseconds): readings of
// one instant share a shard, so that the duplicate rule sees them
// together, and successive instants spread over the shards.
func (k *Kind) shardOf(ms int64) int {
	if k.s.Shards <= 1 {
		return 0
	}
	// splitmix64's finalizer: times a second or a minute apart spread
	// evenly.
	x := uint64(ms)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return int(x % uint64(k.s.Shards))
}

// ts formats milliseconds since the epoch as keys.Timestamp does. The time
// was checked to be in range when the reading was accepted.
func ts(ms int64) string {
	var b [keys.TimestampLen]byte
	return string(appendTS(b[:0], ms))
}

func appendTS(b []byte, ms int64) []byte {
	out, err := keys.AppendTimestamp(b, msTime(ms))
	if err != nil {
		return append(b, "0000-01-01T00:00:00.000Z"...)
	}
	return out
}

func hex16(v uint64) string {
	var b [16]byte
	return string(appendHex16(b[:0], v))
}

func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for i := 60; i >= 0; i -= 4 {
		b = append(b, digits[v>>i&15])
	}
	return b
}

func parseHex16(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 16, 64)
	return v, err == nil
}

// orderKey orders the readings of a kind: the timestamp, then a unique
// suffix. Keys of one kind compare as their readings' (time, suffix).
func orderKey(ms int64, seq uint64) string {
	var b [orderKeyLen]byte
	return string(appendHex16(append(appendTS(b[:0], ms), keys.Sep...), seq))
}

// orderKeyLen is the length of every orderKey.
const orderKeyLen = keys.TimestampLen + len(keys.Sep) + 16

// periodKey is the TimeSeries key of the period of granularity g holding ms.
func periodKey(ms int64, g keys.Granularity) string {
	s, err := keys.TimeSeries(msTime(ms), g)
	if err != nil {
		return ""
	}
	return s
}

// periodStart and periodEnd bound the period of granularity g holding ms.
func periodStart(ms int64, g keys.Granularity) int64 {
	switch g {
	case keys.Hour:
		return ms - floorMod(ms, 3_600_000)
	case keys.Day:
		return ms - floorMod(ms, 86_400_000)
	}
	return timeMs(g.Truncate(msTime(ms)))
}

func periodEnd(ms int64, g keys.Granularity) int64 {
	switch g {
	case keys.Hour:
		return periodStart(ms, g) + 3_600_000
	case keys.Day:
		return periodStart(ms, g) + 86_400_000
	}
	return timeMs(g.Next(msTime(ms)))
}

// ttlOf returns the TTL attribute value for data whose retention counts
// from ms, or 0 for Forever: its expiry in epoch seconds, rounded up, so
// that the backend never deletes (or, as the embedded engine, hides) data
// that reads still return.
func ttlOf(ms int64, ret time.Duration) int64 {
	if ret == Forever {
		return 0
	}
	t := msTime(ms).Add(ret)
	sec := keys.TTL(t)
	if time.Unix(sec, 0).Before(t) {
		sec++
	}
	return sec
}
