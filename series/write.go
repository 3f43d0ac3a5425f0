package series

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// writeReq is one call of a write entry point (Kind.Write, WriteMany,
// WriteSync, Store.WriteKinds): the readings of series of one or more
// kinds, buffered or written synchronously. Every entry point builds one
// and passes it to Store.write, so that they check, prepare, admit and
// write the same way.
type writeReq struct {
	kinds []kindReadings
	// sync writes the readings to the table before returning (WriteSync)
	// instead of adding them to the write buffer (and its log).
	sync bool
	// names says what an error about a reading names: nothing (a call of
	// one series), its series, or its kind and series.
	names naming
}

// kindReadings is the readings of one kind in a writeReq: k, or the kind
// named name when k is nil.
type kindReadings struct {
	k      *Kind
	name   string
	series []SeriesReadings
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
	n := 0
	for _, kr := range r.kinds {
		for _, sr := range kr.series {
			n += len(sr.Readings)
		}
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
func (s *Store) write(ctx context.Context, req *writeReq) (err error) {
	n := req.readings()
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
	groups, err := s.prepareReq(req, sp)
	if err != nil {
		return err
	}
	do := s.buf.add
	if req.sync {
		do = s.buf.writeSync
	}
	if len(groups) == 1 {
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

// prepareReq resolves the kinds of req (to the kinds they are now, see
// Kind.current) and checks and converts its readings into *sp's array,
// an entry per series with readings, grouped by kind (a kind named
// twice is one group). The error names what req.names says.
func (s *Store) prepareReq(req *writeReq, sp *[]rec) ([]kindEntries, error) {
	all := (*sp)[:0]
	var groups []kindEntries
	for _, kr := range req.kinds {
		k := kr.k
		if k == nil {
			if k = s.lookup(kr.name); k == nil {
				return nil, fmt.Errorf("%w: %q", ErrUnknownKind, kr.name)
			}
		}
		k = k.current()
		g := slices.IndexFunc(groups, func(g kindEntries) bool { return g.k == k })
		for _, sr := range kr.series {
			if len(sr.Readings) == 0 {
				continue
			}
			from := len(all)
			prepared, err := k.appendPrepared(all, sr.ID, sr.Readings)
			if err != nil {
				switch req.names {
				case nameSeries:
					err = fmt.Errorf("series %q: %w", sr.ID, err)
				case nameKindSeries:
					err = fmt.Errorf("kind %s, series %q: %w", k.s.Name, sr.ID, err)
				}
				return nil, err
			}
			all = prepared
			*sp = all
			if g < 0 {
				g = len(groups)
				groups = append(groups, kindEntries{k: k})
			}
			groups[g].es = append(groups[g].es, entry{k: k, id: sr.ID, recs: all[from:len(all):len(all)]})
		}
	}
	return groups, nil
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
