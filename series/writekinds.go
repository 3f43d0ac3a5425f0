package series

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// KindReadings is the readings of several series of one kind, for
// Store.WriteKinds.
type KindReadings struct {
	Kind   string
	Series []SeriesReadings
}

// WriteKinds writes the readings of several kinds as one call, as
// Kind.WriteMany does for one: every reading is accepted or none is (an
// unknown kind, an invalid reading, a RejectDifferent conflict in any kind
// refuses the whole call, and the error names the kind and series). It is
// how a request that mixes kinds (InfluxDB line protocol, whose
// measurements are kinds) is written whole or not at all.
func (s *Store) WriteKinds(ctx context.Context, batch []KindReadings) (err error) {
	n := 0
	for _, kb := range batch {
		for _, sr := range kb.Series {
			n += len(sr.Readings)
		}
	}
	defer func() { s.stats.wrote(n, err) }()
	if err := s.Ready(); err != nil {
		return err
	}
	type group struct {
		k  *Kind
		es []entry
	}
	sp := getScratch()
	defer putScratch(sp)
	all := (*sp)[:0]
	var groups []group
	for _, kb := range batch {
		k := s.lookup(kb.Kind)
		if k == nil {
			return fmt.Errorf("%w: %q", ErrUnknownKind, kb.Kind)
		}
		k = k.current()
		var es []entry
		for _, sr := range kb.Series {
			if len(sr.Readings) == 0 {
				continue
			}
			from := len(all)
			if all, err = k.appendPrepared(all, sr.ID, sr.Readings); err != nil {
				*sp = all
				return fmt.Errorf("kind %s, series %q: %w", k.s.Name, sr.ID, err)
			}
			es = append(es, entry{k: k, id: sr.ID, recs: all[from:len(all):len(all)]})
		}
		if len(es) > 0 {
			groups = append(groups, group{k, es})
		}
	}
	*sp = all
	// Kinds are admitted in name order, so that two calls take the
	// RejectDifferent kinds' locks in one order.
	slices.SortStableFunc(groups, func(a, b group) int { return cmp.Compare(a.k.s.Name, b.k.s.Name) })
	// Each kind admits its entries (RejectDifferent holds its series' locks
	// and checks them) and passes what it keeps on; the last adds all to
	// the buffer at once, so the call is buffered, and logged, whole.
	var admit func(ctx context.Context, i int, acc []entry) error
	admit = func(ctx context.Context, i int, acc []entry) error {
		if i == len(groups) {
			if len(acc) == 0 {
				return nil
			}
			return s.buf.add(ctx, acc)
		}
		called := false
		err := groups[i].k.admitted(ctx, groups[i].es, func(ctx context.Context, kept []entry) error {
			called = true
			return admit(ctx, i+1, append(acc, kept...))
		})
		if err == nil && !called {
			// Every reading of this kind was a repeat: the others go on.
			return admit(ctx, i+1, acc)
		}
		return err
	}
	return admit(ctx, 0, nil)
}
