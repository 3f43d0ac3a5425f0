package series

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStore_WriteKinds: a call that mixes kinds is accepted whole or
// refused whole, whichever kind refuses, and survives a restart whole.
func TestStore_WriteKinds(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		opts.WALDir = t.TempDir()
		schemas := []Schema{
			{Name: "A", Fields: []string{"v"}},
			{Name: "B", Fields: []string{"v"}, Duplicates: RejectDifferent},
		}
		st := openStore(t, api, opts, schemas...)
		at := func(min int, v float64) Reading {
			return Reading{Time: t0.Add(time.Duration(min) * time.Minute), Values: []float64{v}}
		}
		one := func(kind, id string, rs ...Reading) KindReadings {
			return KindReadings{Kind: kind, Series: []SeriesReadings{{ID: id, Readings: rs}}}
		}
		if err := st.WriteKinds(ctx, []KindReadings{one("A", "x", at(1, 1)), one("B", "y", at(1, 1))}); err != nil {
			t.Fatal(err)
		}
		refusals := []struct {
			name  string
			batch []KindReadings
			want  error
		}{
			{"unknown kind", []KindReadings{one("A", "x", at(2, 2)), one("NOPE", "y", at(2, 2))}, ErrUnknownKind},
			{"invalid id", []KindReadings{one("A", "x", at(2, 2)), one("B", "bad#id", at(2, 2))}, ErrInvalidID},
			{"expired", []KindReadings{one("B", "y", at(2, 2)), one("A", "x", Reading{Time: t0.Add(-400 * 24 * time.Hour), Values: []float64{1}})}, ErrExpired},
			{"conflict", []KindReadings{one("A", "x", at(2, 2)), one("B", "y", at(1, 9))}, ErrConflict},
		}
		for _, r := range refusals {
			if err := st.WriteKinds(ctx, r.batch); !errors.Is(err, r.want) {
				t.Fatalf("%s: %v, want %v", r.name, err, r.want)
			}
		}
		// A repeat in the RejectDifferent kind is dropped and the rest written.
		if err := st.WriteKinds(ctx, []KindReadings{one("B", "y", at(1, 1)), one("A", "x", at(3, 3))}); err != nil {
			t.Fatal(err)
		}
		check := func(st *Store) {
			t.Helper()
			for kind, want := range map[string][]Reading{"A": {at(1, 1), at(3, 3)}, "B": {at(1, 1)}} {
				id := map[string]string{"A": "x", "B": "y"}[kind]
				page, err := mustKind(t, st, kind).Range(ctx, id, Query{})
				if err != nil {
					t.Fatal(err)
				}
				wantReadings(t, page.Readings, want)
			}
		}
		check(st)
		// The log replays what was buffered, whole.
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		st2 := mustOpen(t, ctx, api, opts, schemas...)
		defer st2.Close()
		check(st2)
	})
}
