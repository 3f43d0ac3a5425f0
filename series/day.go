package series

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// dayLayout is the DayPartitioned layout: one item per reading in a
// partition per day, pk = SENSOR#id (#S07) #2024-12-01,
// sk = 14:30:00.000#<seq>, and a day directory, an item per day that
// holds readings (pk = SENSOR#id#P, sk = 2024-12-01), written with the
// readings. A read queries the directory once, then the partitions of
// the days it lists, so that days without readings cost nothing, however
// far apart the readings are.
type dayLayout struct{ k *Kind }

func (l dayLayout) puts(id string, recs []rec) ([]table.Item, apos, error) {
	k := l.k
	items := make([]table.Item, 0, len(recs)+1)
	for i := range recs {
		r := &recs[i]
		day := periodStart(r.t, keys.Day)
		if i == 0 || day != periodStart(recs[i-1].t, keys.Day) {
			// recs are sorted: a directory item per day.
			d := table.Item{attrPK: strAV(k.daysPK(id)), attrSK: strAV(periodKey(day, keys.Day))}
			k.putTTL(d, periodEnd(day, keys.Day)-1, k.s.Retention.Raw)
			items = append(items, d)
		}
		pk := k.dayPK(id, k.shardOf(r.t), periodKey(r.t, keys.Day))
		items = append(items, k.readingItem(pk, keys.TimeOfDay(msTime(r.t))+keys.Sep+hex16(r.seq), id, r))
	}
	return items, lastOwnRank(recs), nil
}

func (l dayLayout) stream(id string, sh int, lo, hi int64, reverse bool, pageSize int) *stream {
	k := l.k
	// The days of [lo, hi) that hold readings, from the directory, in
	// the order of the read.
	first, last := periodStart(lo, keys.Day), periodStart(hi-1, keys.Day)
	dir := &pager{tbl: k.st.tbl, q: table.Query{Hash: k.daysPK(id), Range: table.Between(periodKey(first, keys.Day), periodKey(last, keys.Day)), Reverse: reverse}}
	var p *pager
	next := func(ctx context.Context) (table.Item, error) {
		for {
			if p == nil {
				d, err := dir.next(ctx)
				if d == nil || err != nil {
					return nil, err
				}
				dk, _ := getS(d, attrSK)
				t, g, err := keys.ParseTimeSeries(dk)
				if err != nil || g != keys.Day {
					return nil, fmt.Errorf("series: bad day directory key %q of %s", dk, k.entity(id))
				}
				day := timeMs(t)
				loK, hiK := "00:00:00.000", "23:59:59.999#~"
				if day == first {
					loK = keys.TimeOfDay(msTime(lo))
				}
				if day == last {
					hiK = keys.TimeOfDay(msTime(hi-1)) + "#~"
				}
				p = &pager{tbl: k.st.tbl, q: table.Query{Hash: k.dayPK(id, sh, dk), Range: table.Between(loK, hiK), Reverse: reverse, PageSize: pageSize}}
			}
			item, err := p.next(ctx)
			if item != nil || err != nil {
				return item, err
			}
			p = nil
		}
	}
	return k.itemStream(next, l.decodeRec)
}

func (l dayLayout) decode(item table.Item) (*rbatch, error) {
	return l.k.singleBatch(item, l.decodeRec)
}

// decodeRec decodes the reading of an item: its day from the partition
// key, its time of day and sequence number from the sort key.
func (l dayLayout) decodeRec(item table.Item) (rec, error) {
	sk, _ := getS(item, attrSK)
	pk, _ := getS(item, attrPK)
	i := strings.LastIndexByte(pk, '#')
	tod, sq, ok := strings.Cut(sk, keys.Sep)
	var day time.Time
	var off time.Duration
	var err error
	if i >= 0 {
		day, _, err = keys.ParseTimeSeries(pk[i+1:])
	}
	if err == nil && ok {
		off, err = keys.ParseTimeOfDay(tod)
	}
	seq, ok2 := parseHex16(sq)
	if i < 0 || !ok || !ok2 || err != nil {
		return rec{}, fmt.Errorf("series: bad day-partitioned key %q %q", pk, sk)
	}
	return l.k.readingOf(item, sk, timeMs(day.Add(off)), seq)
}

// newKeys is false: a day's directory item is put again by every
// flush with readings of the day.
func (l dayLayout) newKeys() bool { return false }

func (l dayLayout) indexFrom(lo int64) int64 { return lo }

func (l dayLayout) indexed(field string) []string { return []string{field} }

func (l dayLayout) describe(r *rawDesign) ([]design.Entity, error) { return describeReadings(r, true) }

// remove removes the readings of the days of [lo, hi) that the day
// directory lists, then the directory's entries of the days left empty.
func (l dayLayout) remove(ctx context.Context, id string, lo, hi int64) error {
	k := l.k
	first, last := periodStart(lo, keys.Day), periodStart(hi-1, keys.Day)
	dir := &table.Query{Hash: k.daysPK(id), Range: table.Between(periodKey(first, keys.Day), periodKey(last, keys.Day)), Consistent: true}
	var empty []table.WriteRequest
	for d, err := range k.st.tbl.QueryAll(ctx, dir) {
		if err != nil {
			return err
		}
		dk, _ := getS(d, attrSK)
		t, g, err := keys.ParseTimeSeries(dk)
		if err != nil || g != keys.Day {
			return fmt.Errorf("series: bad day directory key %q of %s", dk, k.entity(id))
		}
		day := timeMs(t)
		loK, hiK := "00:00:00.000", "23:59:59.999#~"
		whole := true
		if day < lo {
			loK, whole = keys.TimeOfDay(msTime(lo)), false
		}
		if periodEnd(day, keys.Day) > hi {
			hiK, whole = keys.TimeOfDay(msTime(hi-1))+"#~", false
		}
		left := false
		for sh := 0; sh < k.s.Shards; sh++ {
			pk := k.dayPK(id, sh, dk)
			if err := k.removeItems(ctx, &table.Query{Hash: pk, Range: table.Between(loK, hiK)}, nil); err != nil {
				return err
			}
			if !whole && !left {
				p, err := k.st.tbl.Query(ctx, &table.Query{Hash: pk, Limit: 1, Consistent: true})
				if err != nil {
					return err
				}
				left = len(p.Items) > 0
			}
		}
		if !left {
			empty = append(empty, table.DeleteRequest(table.K(k.daysPK(id), dk)))
		}
	}
	return k.st.batchWrite(ctx, empty)
}
