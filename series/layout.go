package series

import (
	"context"
	"sync"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// layout is how a kind keeps its raw readings: one type per Layout, each
// from a seed pattern (chunkLayout in chunks.go, readingLayout in
// items.go with what the layouts of an item per reading share, dayLayout
// in day.go, bucketLayout in bucket.go), made by the registry below. The store's write path (Store.apply), read paths
// (Kind.Iter, Aggregate's raw units, MetricRange, the design) and Delete
// call it without asking which one it is. What only some layouts do is a
// capability below (merger, unitReader, compactor), found once, when the
// kind is made (newLayout), and recorded in its kindLayout.
type layout interface {
	// puts returns the items holding readings recs of series id (one
	// batch entry: sorted, the duplicate rule applied), which the store
	// puts with BatchWriteItem (none for a layout that is a merger), and
	// the rank of the last of recs (see ranked): the position readers
	// give it among readings of its instant, which orders the series'
	// latest-reading item.
	puts(id string, recs []rec) ([]table.Item, apos, error)
	// newKeys reports whether the items of puts are new: under keys no
	// stored item has (their keys hold the readings' sequence numbers),
	// or, for an entry written again, stored exactly as put. The store
	// puts them under timetable.WithNewItems, which spares the embedded
	// engine reading the items they replace.
	newKeys() bool
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
	// remove removes the readings of series id in [lo, hi), every
	// shard, from the table (Delete and DeleteSeries). Items that hold
	// readings outside the range too are rewritten without those of the
	// range, in place.
	remove(ctx context.Context, id string, lo, hi int64) error
}

// A merger is a layout that adds readings to the items holding them in
// place (a read-modify-write), after the puts of a batch: Buckets.
type merger interface {
	// merge adds recs (as for puts) to their items; it is idempotent.
	merge(ctx context.Context, id string, recs []rec) error
}

// A unitReader is a layout with its own way of folding raw readings
// into aggregates (Chunks: stored aggregates of whole chunks); the others
// fold the readings of an iteration (see Kind.rawUnits). fn must not
// keep u past its call: its fields may be reused.
type unitReader interface {
	units(ctx context.Context, id string, lo, hi int64, pending []rec, bucket func(int64) int64, fn func(start int64, u unit)) error
}

// A compactor is a layout whose raw items of a period are merged after
// the fact (Chunks: see compact.go). Its kinds' writes leave compaction
// markers unless Schema.NoCompaction, and Kind.Compact does nothing for
// the others.
type compactor interface {
	// compact compacts the hour or day (g) starting at start of series
	// id, every shard, and reports whether it is done (see
	// Kind.compactPeriod), deleting the items that merged chunks
	// written grace ago replace.
	compact(ctx context.Context, id string, g keys.Granularity, start int64, grace time.Duration) (bool, error)
}

// kindLayout is the layout of a kind with its capabilities, each nil if
// the layout lacks it.
type kindLayout struct {
	layout
	merger    merger
	units     unitReader
	compactor compactor
}

// layoutSpec is the registry's entry of a Layout: everything about it
// that is not the code of its items.
type layoutSpec struct {
	name string // String's, and the name the commands take
	json string // MarshalText's (schemajson.go)
	// new returns the layout of kind k.
	new func(k *Kind) layout
	// merges, unitReader and compacts are the capabilities the layout
	// has (TestLayouts_Registry checks them).
	merges, unitReader, compacts bool
	// cost adds the writes, reads and storage of the layout's raw items
	// to the cost model's workload c (cost.go), and returns what one
	// series' raw data of one hour weighs (the hourly rollup reads it).
	cost func(c *costSheet) (hourBytes float64)
}

// layouts is the registry of layouts, by Layout, in the order of
// Layouts. A new layout is a constant in schema.go, a type implementing
// layout (and the capabilities it declares) in its own file, and an
// entry here.
var layouts = [...]layoutSpec{
	Chunks: {
		name: "chunks", json: "chunks",
		new:        func(k *Kind) layout { return chunkLayout{k} },
		unitReader: true, compacts: true,
		cost: chunkCost,
	},
	ItemPerReading: {
		name: "item-per-reading", json: "item_per_reading",
		new:  func(k *Kind) layout { return readingLayout{k} },
		cost: readingCost,
	},
	DayPartitioned: {
		name: "day-partitioned", json: "day_partitioned",
		new:  func(k *Kind) layout { return dayLayout{k} },
		cost: dayCost,
	},
	Buckets: {
		name: "buckets", json: "buckets",
		new:    func(k *Kind) layout { return bucketLayout{k} },
		merges: true,
		cost:   bucketCost,
	},
}

// Layouts returns every layout, in the order documents and estimates
// list them: Chunks, ItemPerReading, DayPartitioned, Buckets.
func Layouts() []Layout {
	out := make([]Layout, len(layouts))
	for i := range layouts {
		out[i] = Layout(i)
	}
	return out
}

// LayoutNamed returns the layout whose String is name, and whether there
// is one.
func LayoutNamed(name string) (Layout, bool) {
	for i := range layouts {
		if layouts[i].name == name {
			return Layout(i), true
		}
	}
	return 0, false
}

// known reports whether l is a registered layout.
func (l Layout) known() bool { return int(l) < len(layouts) }

// newLayout returns the layout of kind k, after its (normalized) schema,
// with its capabilities.
func newLayout(k *Kind) kindLayout {
	l := layouts[k.s.Layout].new(k)
	kl := kindLayout{layout: l}
	kl.merger, _ = l.(merger)
	kl.units, _ = l.(unitReader)
	kl.compactor, _ = l.(compactor)
	return kl
}

// newKind returns the kind of schema s (normalized) in store st (nil for
// a design).
func newKind(st *Store, s Schema) *Kind {
	k := &Kind{st: st, s: s, admitting: new([admitStripes]sync.Mutex), dir: new(seriesDir)}
	k.lay = newLayout(k)
	return k
}
