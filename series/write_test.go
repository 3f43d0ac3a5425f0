package series

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWrite_EntryPointsAgree runs the same calls through Write, WriteMany,
// WriteSync and WriteKinds and wants the same error from each, in the one
// order of checks: closed, then empty, then the table, then the readings.
func TestWrite_EntryPointsAgree(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	sc := sensorSchema(Chunks)
	good := Reading{Time: t0, Values: []float64{1, 2}}
	future := Reading{Time: t0.Add(48 * time.Hour), Values: []float64{1, 2}}

	// A store with its table, one without, and one closed.
	withTable := openStore(t, openEngine(t, clk), testOptions(t, clk), sc)
	noTable := mustOpen(t, ctx, openEngine(t, clk), testOptions(t, clk), sc)
	t.Cleanup(func() { noTable.Close() })
	closed := openStore(t, openEngine(t, clk), testOptions(t, clk), sc)
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}

	// paths writes readings rs of series id through each entry point.
	paths := map[string]func(st *Store, id string, rs []Reading) error{
		"Write": func(st *Store, id string, rs []Reading) error {
			return mustKind(t, st, sc.Name).Write(ctx, id, rs...)
		},
		"WriteSync": func(st *Store, id string, rs []Reading) error {
			return mustKind(t, st, sc.Name).WriteSync(ctx, id, rs...)
		},
		"WriteMany": func(st *Store, id string, rs []Reading) error {
			return mustKind(t, st, sc.Name).WriteMany(ctx, []SeriesReadings{{ID: id, Readings: rs}})
		},
		"WriteKinds": func(st *Store, id string, rs []Reading) error {
			return st.WriteKinds(ctx, []KindReadings{{Kind: sc.Name, Series: []SeriesReadings{{ID: id, Readings: rs}}}})
		},
	}
	cases := []struct {
		name string
		st   *Store
		id   string
		rs   []Reading
		want error // nil: the call succeeds
	}{
		{"closed", closed, "s1", []Reading{good}, ErrClosed},
		{"closed, empty", closed, "s1", nil, ErrClosed},
		{"closed, table missing", closed, "s1", []Reading{good}, ErrClosed},
		{"empty", withTable, "s1", nil, nil},
		{"empty, table missing", noTable, "s1", nil, nil},
		{"empty, invalid id", withTable, "bad#id", nil, nil},
		{"invalid id", withTable, "bad#id", []Reading{good}, ErrInvalidID},
		{"far future", withTable, "s1", []Reading{good, future}, ErrInvalidReading},
		{"table missing", noTable, "s1", []Reading{good}, ErrTableNotFound},
		{"table missing, invalid id", noTable, "bad#id", []Reading{good}, ErrTableNotFound},
		{"table missing, far future", noTable, "s1", []Reading{future}, ErrTableNotFound},
	}
	for _, c := range cases {
		for name, write := range paths {
			err := write(c.st, c.id, c.rs)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("%s: %s = %v, want %v", c.name, name, err, c.want)
			}
		}
	}
	// Nothing refused was written.
	if rd, err := mustKind(t, withTable, sc.Name).Latest(ctx, "s1"); err == nil {
		t.Errorf("after the refusals, Latest = %v, want none", rd.Time)
	}
	if s := noTable.Stats(); s.Buffered != 0 {
		t.Errorf("the store without a table buffered %d readings", s.Buffered)
	}
}

// TestStore_WriteKinds_KindTwice: a kind named twice in one WriteKinds
// call is one kind: its RejectDifferent rule sees the readings of both,
// and the call takes its locks once.
func TestStore_WriteKinds_KindTwice(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	sc := Schema{Name: "B", Fields: []string{"v"}, Duplicates: RejectDifferent}
	st := openStore(t, openEngine(t, clk), testOptions(t, clk), sc)
	at := func(v float64) Reading { return Reading{Time: t0, Values: []float64{v}} }
	one := func(rs ...Reading) KindReadings {
		return KindReadings{Kind: "B", Series: []SeriesReadings{{ID: "y", Readings: rs}}}
	}
	if err := st.WriteKinds(ctx, []KindReadings{one(at(1)), one(at(2))}); !errors.Is(err, ErrConflict) {
		t.Fatalf("two values at one instant in one call: %v, want ErrConflict", err)
	}
	if err := st.WriteKinds(ctx, []KindReadings{one(at(1)), one(at(1))}); err != nil {
		t.Fatalf("one reading twice: %v", err)
	}
	page, err := mustKind(t, st, "B").Range(ctx, "y", Query{})
	if err != nil {
		t.Fatal(err)
	}
	wantReadings(t, page.Readings, []Reading{at(1)})
}
