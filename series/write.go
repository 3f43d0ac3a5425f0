package series

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// writeReq is how one call of a write entry point (Kind.Write,
// WriteMany, WriteSync, Store.WriteKinds) writes: buffered or
// synchronously, what its errors name, and its readings beyond those of
// one series (the readings of series of one or more kinds). Every entry
// point builds one and passes it to Store.write, so that they check,
// prepare, admit and write the same way. It holds the caller's slices as
// they are, so that building one allocates nothing.
type writeReq struct {
	many  []SeriesReadings // of the call's kind (WriteMany)
	kinds []KindReadings   // of the kinds named (WriteKinds)
	// sync writes the readings to the table before returning (WriteSync)
	// instead of adding them to the write buffer (and its log).
	sync bool
	// names says what an error about a reading names: nothing (a call of
	// one series), its series, or its kind and series.
	names naming
}

// naming is what an error about a reading of a writeReq names.
type naming uint8

const (
	nameNothing naming = iota
	nameSeries
	nameKindSeries
)

// readings returns the number of readings of r.
func (r *writeReq) readings() int {
	n := countReadings(r.many)
	for _, kb := range r.kinds {
		n += countReadings(kb.Series)
	}
	return n
}

func countReadings(srs []SeriesReadings) int {
	n := 0
	for _, sr := range srs {
		n += len(sr.Readings)
	}
	return n
}

// write is the one path of every write. Its checks come in one order,
// the first that fails giving the call's error:
//
//  1. the Store is closed: ErrClosed;
//  2. the call has no reading: nil, nothing written (whatever it names);
//  3. the table is known to be missing: ErrTableNotFound;
//  4. kind by kind and series by series, in the call's order: an unknown
//     kind (ErrUnknownKind), then each reading (ErrInvalidID,
//     ErrInvalidReading, ErrExpired; see appendPrepared);
//  5. the duplicate rule of each RejectDifferent kind (ErrConflict), kind
//     by kind in name order;
//
// then the readings kept are added to the write buffer at once (logged,
// with Options.WALDir: a failed log is reported then, by the log) or,
// for a sync request, written to the table. Every reading is accepted or
// none is. The Store's counters count the call's readings and its error.
//
// The call writes readings rs of series id of kind k (none if k is nil)
// and those of req. The one series is passed beside req, not in it, so
// that escape analysis keeps the caller's readings off the heap (it does
// not tell a struct's fields apart, and a series id is kept).
func (s *Store) write(ctx context.Context, k *Kind, id string, rs []Reading, req *writeReq) (err error) {
	n := len(rs) + req.readings()
	defer func() { s.stats.wrote(n, err) }()
	if s.closed.Load() {
		return ErrClosed
	}
	if n == 0 {
		return nil
	}
	if err := s.checkTable(); err != nil {
		return err
	}
	sp := getScratch()
	defer putScratch(sp)
	var one [1]kindEntries
	groups, err := s.prepareReq(k, id, rs, req, sp, one[:0])
	if err != nil {
		return err
	}
	do := s.buf.add
	if req.sync {
		do = s.buf.writeSync
	}
	if len(groups) == 1 { // one kind: no chain
		return groups[0].k.admitted(ctx, groups[0].es, do)
	}
	// Kinds are admitted in name order, so that two calls take the
	// RejectDifferent kinds' locks in one order.
	slices.SortStableFunc(groups, func(a, b kindEntries) int { return cmp.Compare(a.k.s.Name, b.k.s.Name) })
	return admitKinds(ctx, groups, nil, do)
}

// kindEntries is the prepared readings of one kind of a writeReq.
type kindEntries struct {
	k  *Kind
	es []entry
}

// prepareReq resolves the kinds of a write (to the kinds they are now,
// see Kind.current) and checks and converts its readings into *sp's
// array, an entry per series with readings, grouped by kind (a kind
// named twice is one group), appended to groups. The error names what
// req.names says.
func (s *Store) prepareReq(k *Kind, id string, rs []Reading, req *writeReq, sp *[]rec, groups []kindEntries) ([]kindEntries, error) {
	if k != nil {
		n := len(req.many)
		if len(rs) > 0 {
			n++
		}
		g := kindEntries{k: k.current(), es: make([]entry, 0, n)}
		if err := g.prepare(sp, id, rs, req.names); err != nil {
			return nil, err
		}
		for _, sr := range req.many {
			if err := g.prepare(sp, sr.ID, sr.Readings, req.names); err != nil {
				return nil, err
			}
		}
		return append(groups, g), nil
	}
	for _, kb := range req.kinds {
		k := s.kindOrRefresh(kb.Kind)
		if k == nil {
			return nil, fmt.Errorf("%w: %q", ErrUnknownKind, kb.Kind)
		}
		k = k.current()
		i := slices.IndexFunc(groups, func(g kindEntries) bool { return g.k == k })
		if i < 0 {
			i = len(groups)
			groups = append(groups, kindEntries{k: k})
		}
		for _, sr := range kb.Series {
			if err := groups[i].prepare(sp, sr.ID, sr.Readings, req.names); err != nil {
				return nil, err
			}
		}
	}
	return slices.DeleteFunc(groups, func(g kindEntries) bool { return len(g.es) == 0 }), nil
}

// prepare checks and converts readings rs of series id (none: nothing)
// into *sp's array and adds their entry to g.
func (g *kindEntries) prepare(sp *[]rec, id string, rs []Reading, names naming) error {
	if len(rs) == 0 {
		return nil
	}
	all := *sp
	from := len(all)
	all, err := g.k.appendPrepared(all, id, rs)
	if err != nil {
		switch names {
		case nameSeries:
			err = fmt.Errorf("series %q: %w", id, err)
		case nameKindSeries:
			err = fmt.Errorf("kind %s, series %q: %w", g.k.s.Name, id, err)
		}
		return err
	}
	*sp = all
	g.es = append(g.es, entry{k: g.k, id: id, recs: all[from:len(all):len(all)]})
	return nil
}

// admitKinds has each kind of groups admit its entries (a RejectDifferent
// kind holds its series' locks and checks them, see Kind.admitted) and
// pass what it keeps on, accumulated in acc; the last passes them all to
// write at once, so that the call is buffered, and logged, whole. Nothing
// is written if no reading is kept.
func admitKinds(ctx context.Context, groups []kindEntries, acc []entry, write func(context.Context, []entry) error) error {
	if len(groups) == 0 {
		if len(acc) == 0 {
			return nil
		}
		return write(ctx, acc)
	}
	called := false
	err := groups[0].k.admitted(ctx, groups[0].es, func(ctx context.Context, kept []entry) error {
		called = true
		return admitKinds(ctx, groups[1:], append(acc, kept...), write)
	})
	if err == nil && !called {
		// Every reading of this kind was a repeat: the others go on.
		return admitKinds(ctx, groups[1:], acc, write)
	}
	return err
}

// scratch holds the readings of a write until the buffer has copied them.
var scratch = sync.Pool{New: func() any { return new([]rec) }}

// maxPooledScratch is the most readings of a scratch slice kept.
const maxPooledScratch = 1 << 16

func getScratch() *[]rec { return scratch.Get().(*[]rec) }

// putScratch returns sp's slice to the pool, cleared (up to its capacity:
// a write that failed may have filled more) so that it keeps no values
// alive.
func putScratch(sp *[]rec) {
	if cap(*sp) > maxPooledScratch {
		return
	}
	*sp = (*sp)[:0]
	clear((*sp)[:cap(*sp)])
	scratch.Put(sp)
}
