package series

import (
	"context"
	"sync"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// layout is how a kind keeps its raw readings: one type per Layout, each
// from a seed pattern (readingLayout, dayLayout, chunkLayout,
// bucketLayout). The store's write path (Store.apply) and read paths
// (Kind.Iter, Aggregate's raw units, MetricRange, the design) call it
// without asking which one it is; what only some layouts do is an extra
// interface below, found by type assertion.
type layout interface {
	// puts returns the items holding readings recs of series id (one
	// batch entry: sorted, the duplicate rule applied), which the store
	// puts with BatchWriteItem; none for a layout that is a merger.
	puts(id string, recs []rec) ([]table.Item, error)
	// stream returns the readings of shard sh of series id in [lo, hi),
	// in order (newest first if reverse), a backend page of pageSize
	// items at a time (0: as many as fit).
	stream(id string, sh int, lo, hi int64, reverse bool, pageSize int) *stream
	// decode decodes the readings of a raw item, as the metric index
	// projects it.
	decode(item table.Item) (*rbatch, error)
	// indexFrom returns the earliest time a raw item that may hold a
	// reading at lo is indexed under in the metric index (its data's
	// start).
	indexFrom(lo int64) int64
	// indexed returns the attributes of its raw items the metric index
	// must project for MetricRange to read field.
	indexed(field string) []string
	// describe returns the design entities of its raw items, and sets the
	// keys of the range and newest-readings access patterns of d.
	describe(d *rawDesign) ([]design.Entity, error)
}

// A merger is a layout that adds readings to the items holding them in
// place (a read-modify-write), after the puts of a batch: Buckets.
type merger interface {
	// merge adds recs (as for puts) to their items; it is idempotent.
	merge(ctx context.Context, id string, recs []rec) error
}

// A unitReader is a layout with its own way of folding raw readings
// into aggregates (Chunks: stored aggregates of whole chunks); the others
// fold the readings of an iteration (see Kind.rawUnits).
type unitReader interface {
	units(ctx context.Context, id string, lo, hi int64, pending []rec, bucket func(int64) int64, fn func(start int64, u unit)) error
}

// newLayout returns the layout of kind k, after its schema.
func newLayout(k *Kind) layout {
	switch k.s.Layout {
	case ItemPerReading:
		return readingLayout{k}
	case DayPartitioned:
		return dayLayout{k}
	case Buckets:
		return bucketLayout{k}
	}
	return chunkLayout{k}
}

// newKind returns the kind of schema s (normalized) in store st (nil for
// a design).
func newKind(st *Store, s Schema) *Kind {
	k := &Kind{st: st, s: s, admitting: new([admitStripes]sync.Mutex), dir: new(seriesDir)}
	k.lay = newLayout(k)
	return k
}
