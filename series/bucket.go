package series

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// A bucket item (Layout Buckets) holds the readings of one series, shard
// and period, and their aggregates:
//
//	pk  SENSOR#123 (or SENSOR#123#S07)
//	sk  2024-12-01, or 2024-12-01#0001 for an overflow part
//	_r  [{_t: "2024-12-01T08:00:00.000Z", _q: "<seq>", heart_rate: 72}, ...]
//	_n  3                          readings
//	heart_rate  {count, sum, min, max, first, last, first_t, last_t}
//	_v  version, for optimistic concurrency
//	ttl end of the period + raw retention
//
// A write reads the bucket's parts, adds the readings it does not hold yet
// (by sequence number, so a replayed write adds nothing), recomputes the
// aggregates of the part it changes from its readings, and puts it back
// under the condition that its version did not change.

// bucketLayout is the Buckets layout: see the top of this file.
type bucketLayout struct{ k *Kind }

func (l bucketLayout) puts(_ string, recs []rec) ([]table.Item, apos, error) {
	return nil, lastOwnRank(recs), nil
}

// merge adds recs to their buckets, a bucket (shard and period) at a
// time, up to FlushConcurrency at once.
func (l bucketLayout) merge(ctx context.Context, id string, recs []rec) error {
	k := l.k
	ops := k.bucketOps(id, recs)
	return k.st.parallel(ctx, len(ops), func(ctx context.Context, i int) error { return k.mergeBucket(ctx, ops[i]) })
}

func (l bucketLayout) stream(id string, sh int, lo, hi int64, reverse bool, _ int) *stream {
	k := l.k
	g := k.s.BucketPeriod
	loKey, hiKey := periodKey(periodStart(lo, g), g), periodKey(hi-1, g)+"#~"
	if hi >= maxMs {
		hiKey = ""
	}
	q := &table.Query{Hash: k.rawPK(id, sh), Range: skRange(loKey, hiKey, hi), Reverse: reverse, PageSize: 4}
	return k.groupStream(k.groupReader(q, loKey, hiKey, g.Len()), func(item table.Item, _ *colArena) (*rbatch, error) { return k.decodeBucketBatch(item) })
}

func (l bucketLayout) decode(item table.Item) (*rbatch, error) { return l.k.decodeBucketBatch(item) }

// newKeys is false: a merger puts nothing (its merge reads and writes
// its items).
func (l bucketLayout) newKeys() bool { return false }

// indexFrom is the start of lo's bucket period, under which its bucket
// is indexed.
func (l bucketLayout) indexFrom(lo int64) int64 { return periodStart(lo, l.k.s.BucketPeriod) }

func (l bucketLayout) indexed(string) []string { return []string{attrRead} }

// maxBucketBytes bounds the estimated size of one bucket part.
const maxBucketBytes = 300 << 10

// maxBucketConflicts bounds the retries of a bucket write that other
// writers keep beating.
const maxBucketConflicts = 50

type bucketOp struct {
	k      *Kind
	id     string
	shard  int
	period string // TimeSeries key of the bucket's period
	start  int64
	recs   []rec
}

// bucketOps groups sorted readings by shard and bucket period.
func (k *Kind) bucketOps(id string, recs []rec) []*bucketOp {
	byKey := map[string]*bucketOp{}
	var ops []*bucketOp
	for _, r := range recs {
		sh := k.shardOf(r.t)
		p := periodKey(r.t, k.s.BucketPeriod)
		key := strconv.Itoa(sh) + "/" + p
		op := byKey[key]
		if op == nil {
			op = &bucketOp{k: k, id: id, shard: sh, period: p, start: periodStart(r.t, k.s.BucketPeriod)}
			byKey[key] = op
			ops = append(ops, op)
		}
		op.recs = append(op.recs, r)
	}
	return ops
}

// bucketPart is one stored part of a bucket.
type bucketPart struct {
	sk   string
	ver  int64
	recs []rec
}

// loadBucket reads every part of a bucket, in part order.
func (k *Kind) loadBucket(ctx context.Context, pk, period string, consistent bool) ([]bucketPart, error) {
	var parts []bucketPart
	for item, err := range k.st.tbl.QueryAll(ctx, &table.Query{Hash: pk, Range: table.BeginsWith(period), Consistent: consistent}) {
		if err != nil {
			return nil, fmt.Errorf("series: cannot read bucket %s %s: %w", pk, period, err)
		}
		p, err := k.decodeBucket(item)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func (k *Kind) decodeBucket(item table.Item) (bucketPart, error) {
	var p bucketPart
	p.sk, _ = getS(item, attrSK)
	p.ver, _ = getInt(item, attrVer)
	l, ok := item[attrRead].(*types.AttributeValueMemberL)
	if !ok {
		return p, fmt.Errorf("series: bucket %s has no readings list", p.sk)
	}
	p.recs = make([]rec, 0, len(l.Value))
	for _, av := range l.Value {
		m, ok := av.(*types.AttributeValueMemberM)
		if !ok {
			return p, fmt.Errorf("series: bucket %s: reading is %T", p.sk, av)
		}
		tstr, _ := getS(m.Value, attrTime)
		t, err := keys.ParseTimestamp(tstr)
		if err != nil {
			return p, fmt.Errorf("series: bucket %s: %w", p.sk, err)
		}
		qs, _ := getS(m.Value, attrSeq)
		seq, ok := parseHex16(qs)
		if !ok {
			return p, fmt.Errorf("series: bucket %s: bad sequence %q", p.sk, qs)
		}
		vals, tags, err := getValues(m.Value, &k.s)
		if err != nil {
			return p, fmt.Errorf("series: bucket %s: %w", p.sk, err)
		}
		p.recs = append(p.recs, rec{t: timeMs(t), seq: seq, vals: vals, tags: tags})
	}
	return p, nil
}

// bucketItem encodes one part of a bucket.
func (k *Kind) bucketItem(op *bucketOp, sk string, ver int64, recs []rec) (table.Item, int) {
	list := make([]types.AttributeValue, len(recs))
	u := newUnit(len(k.s.Fields))
	size := 100 + len(sk) + len(op.id) + len(k.s.Name)
	for i := range recs {
		r := &recs[i]
		m := map[string]types.AttributeValue{attrTime: strAV(ts(r.t)), attrSeq: strAV(hex16(r.seq))}
		putValues(m, &k.s, r.vals, r.tags)
		for name, av := range m {
			size += len(name) + 4
			if s, ok := av.(*types.AttributeValueMemberS); ok {
				size += len(s.Value)
			} else {
				size += 21
			}
		}
		list[i] = &types.AttributeValueMemberM{Value: m}
		u.addReading(r.t, apos{seq: r.seq}, r.vals)
	}
	it := table.Item{
		attrPK:   strAV(k.rawPK(op.id, op.shard)),
		attrSK:   strAV(sk),
		attrRead: &types.AttributeValueMemberL{Value: list},
		attrVer:  intAV(ver),
	}
	putUnit(it, &k.s, u)
	k.putTTL(it, periodEnd(op.start, k.s.BucketPeriod), k.s.Retention.Raw)
	part := 0
	if i := strings.IndexByte(sk, '#'); i >= 0 {
		part, _ = strconv.Atoi(sk[i+1:])
	}
	k.putMetric(it, op.id, op.start, uint64(op.shard)<<16|uint64(part))
	return it, size + len(k.s.Fields)*120
}

func partSK(period string, i int) string {
	if i == 0 {
		return period
	}
	return fmt.Sprintf("%s#%04d", period, i)
}

// mergeBucket adds op's readings to their bucket.
func (k *Kind) mergeBucket(ctx context.Context, op *bucketOp) error {
	pk := k.rawPK(op.id, op.shard)
	for attempt := 0; ; attempt++ {
		parts, err := k.loadBucket(ctx, pk, op.period, true)
		if err != nil {
			return err
		}
		have := map[uint64]bool{}
		for _, p := range parts {
			for _, r := range p.recs {
				have[r.seq] = true
			}
		}
		var add []rec
		for _, r := range op.recs {
			if !have[r.seq] {
				add = append(add, r)
			}
		}
		if len(add) == 0 {
			return nil
		}
		// Add to the last part, or start a new one when it would be too
		// large.
		var last bucketPart
		idx := 0
		exists := false
		if len(parts) > 0 {
			last = parts[len(parts)-1]
			idx = len(parts) - 1
			exists = true
		}
		merged := k.settle(append(slices.Clone(last.recs), add...))
		item, size := k.bucketItem(op, partSK(op.period, idx), last.ver+1, merged)
		if size > maxBucketBytes && exists && len(last.recs) > 0 {
			idx++
			exists = false
			item, size = k.bucketItem(op, partSK(op.period, idx), 1, add)
		}
		if size > maxBucketBytes && len(add) > 1 {
			// Too many new readings for one part: write them in halves.
			half := len(add) / 2
			a := &bucketOp{k: k, id: op.id, shard: op.shard, period: op.period, start: op.start, recs: add[:half]}
			b := &bucketOp{k: k, id: op.id, shard: op.shard, period: op.period, start: op.start, recs: add[half:]}
			if err := k.mergeBucket(ctx, a); err != nil {
				return err
			}
			return k.mergeBucket(ctx, b)
		}
		cond := table.Attr(attrPK).NotExists()
		if exists {
			cond = table.Attr(attrVer).Eq(last.ver)
		}
		_, err = k.st.tbl.Put(ctx, item, &table.PutOptions{If: cond})
		if err == nil {
			return nil
		}
		if !table.IsConditionFailed(err) {
			return fmt.Errorf("series: cannot write bucket %s %s: %w", pk, op.period, err)
		}
		if attempt >= maxBucketConflicts {
			return fmt.Errorf("series: bucket %s %s: other writers won %d times: %w", pk, op.period, attempt+1, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Millisecond):
		}
	}
}

// Buckets returns the aggregates of the buckets of series id (Layout
// Buckets) whose periods start in [from, to) (a zero to: no upper bound),
// in time order: each period's count, sum, min, max, first and last per
// field, over the readings Range returns (the parts and shards of a
// period merged, the duplicate rule applied, expired readings left out).
// They are computed from the readings the bucket items hold, which are
// read whole anyway.
func (k *Kind) Buckets(ctx context.Context, id string, from, to time.Time) ([]Period, error) {
	k = k.current()
	if k.s.Layout != Buckets {
		return nil, fmt.Errorf("series: kind %s does not use the Buckets layout", k.s.Name)
	}
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	g := k.s.BucketPeriod
	// The periods that start in [from, to), less those that ended before
	// the raw cutoff.
	cutoff := k.rawCutoff()
	fromMs, hi := span(from, to)
	lo := max(fromMs, periodStart(cutoff, g))
	if lo >= hi {
		return nil, nil
	}
	byStart := map[int64][]rec{}
	for sh := 0; sh < k.s.Shards; sh++ {
		q := &table.Query{Hash: k.rawPK(id, sh), Range: skRange(periodKey(periodStart(lo, g), g), periodKey(hi-1, g)+"#~", hi)}
		for item, err := range k.st.tbl.QueryAll(ctx, q) {
			if err != nil {
				return nil, fmt.Errorf("series: cannot read buckets of %s: %w", k.entity(id), err)
			}
			p, err := k.decodeBucket(item)
			if err != nil {
				return nil, err
			}
			period, _, _ := strings.Cut(p.sk, "#")
			st, _, err := keys.ParseTimeSeries(period)
			if err != nil {
				return nil, fmt.Errorf("series: bucket key %q: %w", p.sk, err)
			}
			start := timeMs(st)
			if start < fromMs || start >= hi {
				continue
			}
			for _, r := range p.recs {
				if r.t >= cutoff {
					byStart[start] = append(byStart[start], r)
				}
			}
		}
	}
	starts := slices.Sorted(maps.Keys(byStart))
	out := make([]Period, 0, len(starts))
	for _, st := range starts {
		recs := byStart[st]
		slices.SortFunc(recs, cmpRec)
		b := k.newBatch(len(recs))
		for i := range recs {
			b.add(&recs[i], 0)
		}
		b = k.resolve(b)
		u := newUnit(len(k.s.Fields))
		for i := range b.t {
			u.addReading(b.t[i], apos{seq: b.seq[i]}, b.vals[i*b.nf:(i+1)*b.nf])
		}
		if u.n > 0 {
			out = append(out, u.period(msTime(st), msTime(periodEnd(st, g))))
		}
	}
	return out, nil
}

// decodeBucketBatch decodes a bucket item's readings.
func (k *Kind) decodeBucketBatch(item table.Item) (*rbatch, error) {
	p, err := k.decodeBucket(item)
	if err != nil {
		return nil, err
	}
	b := k.newBatch(len(p.recs))
	for i := range p.recs {
		b.add(&p.recs[i], 0)
	}
	return b, nil
}

func (l bucketLayout) describe(r *rawDesign) ([]design.Entity, error) {
	s, k := &r.d.s, r.d.k
	t, aggs, raw, rawPK := r.t, r.aggs, r.raw, r.rawPK
	g := s.BucketPeriod
	start := periodStart(t, g)
	e := design.Entity{
		Name:        "Bucket",
		Description: "The readings of one series, shard and period (Schema.BucketPeriod, a " + g.String() + " here) and their aggregates. Each write reads and rewrites the whole bucket under a version condition (billed on its full size): for a few readings per period.",
		Keys:        map[string]design.Template{attrPK: rawPK, attrSK: "{period}"},
		Attributes: append(append([]design.Attribute{idAttr,
			{Name: "period", Format: layoutOf(g), Description: "The bucket's period."},
			{Name: "start", Format: design.LayoutTimestamp, Derived: "the start of the period"},
			{Name: "seq", Derived: "the shard and part number, 16 hex digits"},
			dayAttr,
			{Name: attrRead, Type: "L", Description: "The readings: maps of " + attrTime + " (timestamp), " + attrSeq + " (sequence number), fields and tags."},
			{Name: attrN, Type: "N", Description: "Readings in the bucket."},
			{Name: attrVer, Type: "N", Description: "Version, for optimistic concurrency."},
		}, aggs...), ttlAttr),
		TTL:       attrTTL,
		Retention: raw + " (raw tier) after the end of its period.",
	}
	real := map[string]string{attrPK: k.rawPK(designID, 0), attrSK: partSK(periodKey(t, g), 0)}
	r.d.metricKeys(e.Keys, real, "start", start, 0)
	if err := example(&e, real, "day", periodKey(start, keys.Day), "start", ts(start), "seq", hex16(0)); err != nil {
		return nil, err
	}
	part := e
	part.Name = "BucketPart"
	part.Description = "The continuation of a bucket that would pass 300 KB, as many parts as needed."
	part.Keys = map[string]design.Template{attrPK: rawPK, attrSK: design.Template("{period}" + keys.Sep + "{part}")}
	part.Attributes = append([]design.Attribute{{Name: "part", Description: "Part number, 4 digits from 0001."}}, e.Attributes...)
	real = map[string]string{attrPK: k.rawPK(designID, 0), attrSK: partSK(periodKey(t, g), 1)}
	r.d.metricKeys(part.Keys, real, "start", start, 1)
	if err := example(&part, real, "day", periodKey(start, keys.Day), "start", ts(start)); err != nil {
		return nil, err
	}
	lo, hi := "fromPeriod", "toPeriod"
	r.rangePattern.Key = "pk = " + string(rawPK) + " AND sk BETWEEN {" + lo + "} AND {" + hi + "}#~"
	r.rangePattern.Params = []design.Attribute{
		{Name: lo, Format: layoutOf(g), Description: "The period holding from."},
		{Name: hi, Format: layoutOf(g), Description: "The period holding the range's last millisecond."},
	}
	r.rangePattern.Returns = []string{"Bucket", "BucketPart"}
	r.newest.Key = "pk = " + string(rawPK)
	r.newest.Returns, r.newest.Limit = []string{"Bucket", "BucketPart"}, 4
	return []design.Entity{e, part}, nil
}

// remove removes the readings of [lo, hi) from the buckets of the
// periods of the range, every shard: a bucket's parts are rewritten
// (under the condition that their versions did not change) with the
// readings left, renumbered from 0 if some part is left empty, and the
// parts no longer needed deleted after.
func (l bucketLayout) remove(ctx context.Context, id string, lo, hi int64) error {
	k := l.k
	g := k.s.BucketPeriod
	for sh := 0; sh < k.s.Shards; sh++ {
		pk := k.rawPK(id, sh)
		loKey, hiKey := periodKey(periodStart(lo, g), g), periodKey(hi-1, g)+"#~"
		if hi >= maxMs {
			hiKey = ""
		}
		q := &table.Query{Hash: pk, Range: skRange(loKey, hiKey, hi), Consistent: true, Projection: []string{attrSK}}
		var periods []string
		for item, err := range k.st.tbl.QueryAll(ctx, q) {
			if err != nil {
				return err
			}
			sk, _ := getS(item, attrSK)
			p, _, _ := strings.Cut(sk, "#")
			if len(periods) == 0 || periods[len(periods)-1] != p {
				periods = append(periods, p)
			}
		}
		for _, p := range periods {
			if err := k.removeFromBucket(ctx, id, sh, p, lo, hi); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeFromBucket removes the readings of [lo, hi) from the bucket of
// period p of shard sh of series id, retrying when another writer
// changed it meanwhile.
func (k *Kind) removeFromBucket(ctx context.Context, id string, sh int, p string, lo, hi int64) error {
	pk := k.rawPK(id, sh)
	st, _, err := keys.ParseTimeSeries(p)
	if err != nil {
		return fmt.Errorf("series: bad bucket key %q: %w", p, err)
	}
	op := &bucketOp{k: k, id: id, shard: sh, period: p, start: timeMs(st)}
	for attempt := 0; ; attempt++ {
		parts, err := k.loadBucket(ctx, pk, p, true)
		if err != nil {
			return err
		}
		var left [][]rec // the parts' readings left, empty parts out
		removed := false
		seen := map[uint64]bool{} // a retry may have copied a reading to an earlier part
		for _, pt := range parts {
			var kept []rec
			for _, r := range pt.recs {
				switch {
				case r.t >= lo && r.t < hi:
					removed = true
				case !seen[r.seq]:
					seen[r.seq] = true
					kept = append(kept, r)
				}
			}
			if len(kept) > 0 {
				left = append(left, kept)
			}
		}
		if !removed {
			return nil
		}
		var puts []table.WriteRequest
		var conflict error
		for i, recs := range left {
			ver := int64(1)
			cond := table.Attr(attrPK).NotExists()
			if i < len(parts) {
				ver, cond = parts[i].ver+1, table.Attr(attrVer).Eq(parts[i].ver)
			}
			item, _ := k.bucketItem(op, partSK(p, i), ver, recs)
			if _, err := k.st.tbl.Put(ctx, item, &table.PutOptions{If: cond}); err != nil {
				if !table.IsConditionFailed(err) {
					return fmt.Errorf("series: cannot write bucket %s %s: %w", pk, p, err)
				}
				conflict = err
				break
			}
		}
		if conflict == nil {
			for i := len(left); i < len(parts); i++ {
				puts = append(puts, table.DeleteRequest(table.K(pk, parts[i].sk)))
			}
			return k.st.batchWrite(ctx, puts)
		}
		if attempt >= maxBucketConflicts {
			return fmt.Errorf("series: bucket %s %s: other writers won %d times: %w", pk, p, attempt+1, conflict)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Millisecond):
		}
	}
}
