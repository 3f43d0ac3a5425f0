package series

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// MetricPoint is one value of one field of one series, from MetricRange.
type MetricPoint struct {
	ID    string
	Time  time.Time
	Value float64
}

// MetricRange returns the values of field of every series of the kind
// with a reading in [from, to), ordered by time and then series id: "all
// devices, one metric, one time range". It reads the metric index (a GSI
// partitioned by kind and day, Schema.IndexShards partitions per day), so
// it needs Schema.MetricIndex, and the index is eventually consistent on
// DynamoDB. Readings without the field and expired readings are left out;
// of readings of one series at one instant, the kind's DuplicateRule
// keeps those Range returns.
// A zero from reads from the oldest reading not expired; a zero to is the
// day after now. limit, if positive, bounds the points returned (the
// earliest ones). A range of more than DefaultMaxPeriods days is refused
// with ErrInvalidQuery: the index is read a day at a time.
func (k *Kind) MetricRange(ctx context.Context, field string, from, to time.Time, limit int) ([]MetricPoint, error) {
	k = k.current()
	if !k.s.MetricIndex {
		return nil, fmt.Errorf("%w: %s", ErrNoIndex, k.s.Name)
	}
	fi := k.s.FieldIndex(field)
	if fi < 0 {
		return nil, fmt.Errorf("series: kind %s has no field %q", k.s.Name, field)
	}
	if to.IsZero() {
		to = k.st.now().Add(24 * time.Hour)
	}
	lo, hi := k.bounds(from, to)
	if lo == minMs {
		return nil, fmt.Errorf("%w: kind %s keeps raw readings forever: give from", ErrUnbounded, k.s.Name)
	}
	if lo >= hi {
		return nil, nil
	}
	if err := k.checkProjection(ctx, field); err != nil {
		return nil, err
	}
	// Items whose data starts before lo may hold readings from lo on.
	start := k.lay.indexFrom(lo)
	// The index is read a day partition at a time: the days are bounded
	// as an aggregate's periods are.
	if days := (periodStart(hi-1, keys.Day)-periodStart(start, keys.Day))/86_400_000 + 1; days > DefaultMaxPeriods {
		return nil, fmt.Errorf("%w: the range spans %d days of the metric index, more than the %d one read may cover: narrow the range",
			ErrInvalidQuery, days, DefaultMaxPeriods)
	}
	type part struct{ day, shard int64 }
	var parts []part
	for d := periodStart(start, keys.Day); d < hi; d = periodEnd(d, keys.Day) {
		for sh := 0; sh < k.s.IndexShards; sh++ {
			parts = append(parts, part{d, int64(sh)})
		}
	}
	// A point with its position, to give a reading read from a merged
	// chunk and from its source (while both exist) once.
	type point struct {
		MetricPoint
		seq uint64
		idx uint32
	}
	var (
		mu  sync.Mutex
		all []point
	)
	err := k.st.parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("series: reading the metric index of %s stopped: %w", k.s.Name, context.Cause(ctx))
		}
		p := parts[i]
		q := &table.Query{Index: metricIndex, Hash: k.metricPK(periodKey(p.day, keys.Day), int(p.shard)),
			Range: table.Between(ts(max(start, p.day)), ts(min(hi, periodEnd(p.day, keys.Day))-1)+"#~")}
		var local []point
		for item, err := range k.st.tbl.QueryAll(ctx, q) {
			if err != nil {
				return fmt.Errorf("series: cannot read the metric index of %s: %w", k.s.Name, err)
			}
			msk, _ := getS(item, attrMSK)
			first, last := strings.IndexByte(msk, '#'), strings.LastIndexByte(msk, '#')
			if first < 0 || last <= first {
				return fmt.Errorf("series: bad metric index key %q", msk)
			}
			id := msk[first+1 : last]
			b, err := k.lay.decode(item)
			if err != nil {
				return err
			}
			for i, t := range b.t {
				v := b.vals[i*b.nf+fi]
				if t < lo || t >= hi || math.IsNaN(v) {
					continue
				}
				local = append(local, point{MetricPoint{ID: id, Time: msTime(t), Value: v}, b.seq[i], b.idx[i]})
			}
		}
		mu.Lock()
		all = append(all, local...)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b point) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		if c := cmp.Compare(a.seq, b.seq); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	out := make([]MetricPoint, 0, len(all))
	for i, p := range all {
		if i > 0 && p.Time.Equal(all[i-1].Time) && p.ID == all[i-1].ID {
			if p.seq == all[i-1].seq && p.idx == all[i-1].idx {
				continue // one reading, in a merged chunk and its source
			}
			// Another reading of the instant: the duplicate rule.
			switch k.s.Duplicates {
			case LastWins:
				out[len(out)-1] = p.MetricPoint
				continue
			case RejectDifferent:
				continue
			}
		}
		out = append(out, p.MetricPoint)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// maxProjected is DynamoDB's limit on the attributes the indexes of a
// table project (INCLUDE), over all its indexes.
const maxProjected = 100

// metricProjection returns the attributes the metric index projects
// besides the keys: what MetricRange decodes (chunk data and source maps,
// bucket readings, whatever kind registers later; and what the kinds
// with the index need for their fields: the fields of the kinds that
// keep one item per reading), so that the index holds a copy of the data
// it serves and not of everything else (tags, aggregates, TTL). It
// returns nil, all attributes, if they would pass DynamoDB's limit.
func metricProjection(kinds []*Kind) []string {
	out := []string{attrData, attrSrc, attrBase, attrRead}
	seen := map[string]bool{}
	for _, a := range out {
		seen[a] = true
	}
	for _, k := range kinds {
		if !k.s.MetricIndex {
			continue
		}
		for _, f := range k.s.Fields {
			for _, a := range k.lay.indexed(f) {
				if !seen[a] {
					seen[a] = true
					out = append(out, a)
				}
			}
		}
	}
	if len(out) > maxProjected {
		return nil
	}
	return out
}

// checkProjection returns an error if the table's metric index, made
// before, does not project what MetricRange needs to read field of kind k
// (the fields of a kind with one item per reading are projected by name:
// a kind or field added since the index was made is not).
func (k *Kind) checkProjection(ctx context.Context, field string) error {
	s := k.st
	s.projMu.Lock()
	defer s.projMu.Unlock()
	if !s.projDone {
		out, err := s.tbl.API().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.tbl.Name())})
		if err != nil {
			return fmt.Errorf("series: cannot describe table %s: %w", s.tbl.Name(), s.tableErr(err))
		}
		var ix *types.GlobalSecondaryIndexDescription
		for i, g := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == metricIndex {
				ix = &out.Table.GlobalSecondaryIndexes[i]
			}
		}
		if ix == nil || !indexActive(ix) {
			// Asked again by the next call, until the index is there.
			status := "missing"
			if ix != nil {
				status = string(ix.IndexStatus)
			}
			return fmt.Errorf("%w: table %s, kind %s (index %s; EnsureTable adds it)", ErrIndexNotReady, s.tbl.Name(), k.s.Name, status)
		}
		s.proj = ix.Projection
		s.projDone = true
	}
	p := s.proj
	if p == nil || p.ProjectionType == types.ProjectionTypeAll || p.ProjectionType == "" {
		return nil
	}
	for _, a := range k.lay.indexed(field) {
		if p.ProjectionType != types.ProjectionTypeInclude || !slices.Contains(p.NonKeyAttributes, a) {
			return fmt.Errorf("series: the metric index of table %s does not project %q, which kind %s needs: the index was made before the kind or field was registered (delete the index and run EnsureTable to make it again)", s.tbl.Name(), a, k.s.Name)
		}
	}
	return nil
}
