package series

import (
	"context"
	"fmt"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// readingLayout is the ItemPerReading layout: one item per reading,
// pk = SENSOR#id (#S07), sk = 2024-12-01T14:30:00.000Z#<seq>. This file
// also holds what it shares with dayLayout (day.go): the reading item,
// its stream and its design.
type readingLayout struct{ k *Kind }

func (l readingLayout) puts(id string, recs []rec) ([]table.Item, apos, error) {
	k := l.k
	items := make([]table.Item, len(recs))
	for i := range recs {
		r := &recs[i]
		items[i] = k.readingItem(k.rawPK(id, k.shardOf(r.t)), orderKey(r.t, r.seq), id, r)
	}
	return items, lastOwnRank(recs), nil
}

// lastOwnRank is the rank of the last of recs in every layout but Chunks:
// its sequence number.
func lastOwnRank(recs []rec) apos {
	if len(recs) == 0 {
		return apos{}
	}
	return apos{seq: recs[len(recs)-1].seq}
}

func (l readingLayout) stream(id string, sh int, lo, hi int64, reverse bool, pageSize int) *stream {
	k := l.k
	p := &pager{tbl: k.st.tbl, q: table.Query{Hash: k.rawPK(id, sh), Range: skRange(ts(lo), ts(hi-1)+"#~", hi), Reverse: reverse, PageSize: pageSize}}
	return k.itemStream(func(ctx context.Context) (table.Item, error) { return p.next(ctx) }, l.decodeRec)
}

func (l readingLayout) decode(item table.Item) (*rbatch, error) {
	return l.k.singleBatch(item, l.decodeRec)
}

// decodeRec decodes the reading of an item.
func (l readingLayout) decodeRec(item table.Item) (rec, error) {
	sk, _ := getS(item, attrSK)
	t, seq, err := keys.ParseUnique(sk)
	if err != nil {
		return rec{}, fmt.Errorf("series: bad sort key %q: %w", sk, err)
	}
	return l.k.readingOf(item, sk, timeMs(t), seq)
}

// newKeys is true: an item's sort key holds its reading's sequence
// number.
func (l readingLayout) newKeys() bool { return true }

func (l readingLayout) indexFrom(lo int64) int64 { return lo }

func (l readingLayout) indexed(field string) []string { return []string{field} }

// readingItem is the item of one reading of series id under keys pk and
// sk (ItemPerReading, DayPartitioned).
func (k *Kind) readingItem(pk, sk, id string, r *rec) table.Item {
	it := table.Item{attrPK: strAV(pk), attrSK: strAV(sk)}
	putValues(it, &k.s, r.vals, r.tags)
	k.putTTL(it, r.t, k.s.Retention.Raw)
	k.putMetric(it, id, r.t, r.seq)
	return it
}

// readingOf returns the reading at ms with sequence number seq whose
// values and tags item holds (sort key sk, for errors).
func (k *Kind) readingOf(item table.Item, sk string, ms int64, seq uint64) (rec, error) {
	vals, tags, err := getValues(item, &k.s)
	if err != nil {
		return rec{}, fmt.Errorf("series: item %q: %w", sk, err)
	}
	return rec{t: ms, seq: seq, vals: vals, tags: tags}, nil
}

// itemStream is the stream of the readings of the items next returns,
// one item a reading, decoded by decode.
func (k *Kind) itemStream(next func(context.Context) (table.Item, error), decode func(table.Item) (rec, error)) *stream {
	return &stream{fill: func(ctx context.Context) (*rbatch, error) {
		item, err := next(ctx)
		if item == nil || err != nil {
			return nil, err
		}
		return k.singleBatch(item, decode)
	}}
}

// singleBatch is the batch of the one reading of an item.
func (k *Kind) singleBatch(item table.Item, decode func(table.Item) (rec, error)) (*rbatch, error) {
	r, err := decode(item)
	if err != nil {
		return nil, err
	}
	b := k.newBatch(1)
	b.add(&r, 0)
	return b, nil
}

// pager reads the items of a query a backend page at a time, each page
// under the context of the call that needs it.
type pager struct {
	tbl    *table.Table
	q      table.Query // PageSize: items of a backend page (0: as many as fit)
	items  []table.Item
	cursor string
	end    bool
}

// next returns the next item, nil at the end.
func (p *pager) next(ctx context.Context) (table.Item, error) {
	for len(p.items) == 0 {
		if p.end {
			return nil, nil
		}
		q := p.q
		q.Cursor, q.Limit, q.PageSize = p.cursor, p.q.PageSize, 0
		pg, err := p.tbl.Query(ctx, &q)
		if err != nil {
			return nil, err
		}
		p.items, p.cursor, p.end = pg.Items, pg.Cursor, pg.Cursor == ""
	}
	item := p.items[0]
	p.items[0] = nil
	p.items = p.items[1:]
	return item, nil
}

func (l readingLayout) describe(r *rawDesign) ([]design.Entity, error) {
	return describeReadings(r, false)
}

// describeReadings is the design of the items of one reading, in
// partitions of a day if day.
func describeReadings(r *rawDesign, day bool) ([]design.Entity, error) {
	k := r.d.k
	t, values, raw, rawPK := r.t, r.values, r.raw, r.rawPK
	e := design.Entity{
		Name:        "Reading",
		Description: "One reading: each field and tag a plain attribute, readable by any DynamoDB tool; at least one write unit per reading.",
		Attributes:  append(append([]design.Attribute{idAttr, seqAttr}, values...), ttlAttr),
		TTL:         attrTTL,
		Retention:   raw + " (raw tier) after the reading.",
	}
	real := map[string]string{}
	if !day {
		e.Keys = map[string]design.Template{attrPK: rawPK, attrSK: design.Template("{timestamp}" + keys.Sep + phSeq)}
		e.Attributes = append(e.Attributes, tsAttr("timestamp", "Time of the reading, UTC, to the millisecond."), dayAttr)
		real[attrPK], real[attrSK] = k.rawPK(designID, 0), orderKey(t, designSeq)
		r.rangePattern.Key = "pk = " + string(rawPK) + " AND sk BETWEEN {from} AND {to}#~"
		r.rangePattern.Params = []design.Attribute{tsAttr("from", "Start of the range."), tsAttr("to", "The last millisecond of the range.")}
		r.newest.Key = "pk = " + string(rawPK)
	} else {
		dayPK := design.Template(k.dayPK(phID, 0, phDay))
		e.Description = "One reading in the partition of its day: unbounded series (calendars) read by whole days; a range reads one partition per day."
		e.Keys = map[string]design.Template{attrPK: dayPK, attrSK: design.Template("{timeOfDay}" + keys.Sep + phSeq)}
		e.Attributes = append(e.Attributes,
			design.Attribute{Name: "day", Format: design.LayoutDay, Description: "The UTC day of the reading."},
			design.Attribute{Name: "timeOfDay", Format: design.LayoutTimeOfDay, Description: "Time of the reading within its day, UTC."},
			tsAttr("timestamp", "Time of the reading (the metric index's key; not stored on its own)."))
		real[attrPK] = k.dayPK(designID, 0, periodKey(t, keys.Day))
		real[attrSK] = keys.TimeOfDay(msTime(t)) + keys.Sep + hex16(designSeq)
		r.rangePattern.Key = "pk = " + string(dayPK) + " AND sk BETWEEN {fromTime} AND {toTime}#~"
		r.rangePattern.Description += " One query per day of the range, in order."
		r.rangePattern.Params = []design.Attribute{
			{Name: "fromTime", Format: design.LayoutTimeOfDay, Description: "from's time of day on the first day, 00:00:00.000 on the others."},
			{Name: "toTime", Format: design.LayoutTimeOfDay, Description: "The last millisecond's time of day on the last day, 23:59:59.999 on the others."},
		}
		r.newest.Key = "pk = " + string(dayPK)
		r.newest.Description += " Day partitions newest first, until N readings."
	}
	r.d.metricKeys(e.Keys, real, "timestamp", t, designSeq)
	if err := example(&e, real, "day", periodKey(t, keys.Day), "timestamp", ts(t)); err != nil {
		return nil, err
	}
	raws := []design.Entity{e}
	r.rangePattern.Returns, r.newest.Returns = []string{"Reading"}, []string{"Reading"}
	if day {
		daysPK := design.Template(k.daysPK(phID))
		dir := design.Entity{
			Name:        "DayDirectory",
			Description: "A day that holds readings of the series, written with them: a read queries the directory once, then the partitions of the days it lists, so days without readings cost nothing.",
			Keys:        map[string]design.Template{attrPK: daysPK, attrSK: "{day}"},
			Attributes: []design.Attribute{idAttr,
				{Name: "day", Format: design.LayoutDay, Description: "The UTC day."},
				ttlAttr},
			TTL:       attrTTL,
			Retention: r.raw + " (raw tier) after the end of the day.",
		}
		if err := example(&dir, map[string]string{attrPK: k.daysPK(designID), attrSK: periodKey(t, keys.Day)}); err != nil {
			return nil, err
		}
		raws = append(raws, dir)
		r.rangePattern.Description += " The days come from the day directory first (Days of a range)."
		r.patterns = append(r.patterns, design.AccessPattern{
			Name: "Days of a range", Description: "Kind.Range, Iter and All: the days of [from, to) that hold readings, one query before the day partitions.",
			Key: "pk = " + string(daysPK) + " AND sk BETWEEN {fromDay} AND {toDay}", Returns: []string{"DayDirectory"},
			Params: []design.Attribute{
				{Name: "fromDay", Format: design.LayoutDay, Description: "The day of from."},
				{Name: "toDay", Format: design.LayoutDay, Description: "The day of the range's last millisecond."},
			},
			Frequency: "every read of the kind",
		})
	}
	return raws, nil
}

func (l readingLayout) remove(ctx context.Context, id string, lo, hi int64) error {
	k := l.k
	for sh := 0; sh < k.s.Shards; sh++ {
		q := &table.Query{Hash: k.rawPK(id, sh), Range: skRange(ts(lo), ts(hi-1)+"#~", hi)}
		if err := k.removeItems(ctx, q, nil); err != nil {
			return err
		}
	}
	return nil
}
