package series

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestStore_Grow(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	st := openStore(t, openEngine(t, clk), testOptions(t, clk))
	lim := &Limits{MaxKinds: 2, MaxFields: 3, MaxTags: 2}

	k, err := st.Grow(ctx, Schema{Name: "cpu", Fields: []string{"idle", "idle"}, Tags: []string{"host"}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if sc := k.Schema(); !slices.Equal(sc.Fields, []string{"idle"}) || !slices.Equal(sc.Tags, []string{"host"}) {
		t.Fatalf("defined %v %v", sc.Fields, sc.Tags)
	}
	// Growing appends what is missing, in order, and keeps the rest.
	k, err = st.Grow(ctx, Schema{Name: "cpu", Fields: []string{"user", "idle"}, Tags: []string{"dc"}, Meta: Meta{Type: "gauge"}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	sc := k.Schema()
	if !slices.Equal(sc.Fields, []string{"idle", "user"}) || !slices.Equal(sc.Tags, []string{"host", "dc"}) || sc.Meta.Type != "gauge" {
		t.Fatalf("grown %v %v %+v", sc.Fields, sc.Tags, sc.Meta)
	}
	// Nothing new: the same kind, no write.
	if k2, err := st.Grow(ctx, Schema{Name: "cpu", Fields: []string{"user"}}, lim); err != nil || k2 != k {
		t.Fatalf("grow with nothing new: %v, same kind %v", err, k2 == k)
	}
	// Caps, naming what they cap; nothing changes.
	for _, c := range []struct {
		sc    Schema
		limit string
	}{
		{Schema{Name: "cpu", Fields: []string{"a", "b"}}, "fields"},
		{Schema{Name: "cpu", Tags: []string{"zone"}}, "tags"},
	} {
		_, err := st.Grow(ctx, c.sc, lim)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != c.limit || !errors.Is(err, ErrLimit) {
			t.Fatalf("grow %v: %v, want the limit on %s", c.sc, err, c.limit)
		}
	}
	if _, err := st.Grow(ctx, Schema{Name: "mem", Fields: []string{"used"}}, lim); err != nil {
		t.Fatal(err)
	}
	_, err = st.Grow(ctx, Schema{Name: "disk", Fields: []string{"used"}}, lim)
	if le := (*LimitError)(nil); !errors.As(err, &le) || le.Limit != "kinds" || le.Max != 2 {
		t.Fatalf("third kind: %v, want the limit on kinds", err)
	}
	if _, err := st.Kind("disk"); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("refused kind defined: %v", err)
	}
	// A field named as a tag of the kind is refused.
	if _, err := st.Grow(ctx, Schema{Name: "cpu", Fields: []string{"host"}}, nil); !errors.Is(err, ErrInvalidSchema) {
		t.Fatalf("field named as a tag: %v", err)
	}
	if got := mustKind(t, st, "cpu").Schema(); !slices.Equal(got.Fields, []string{"idle", "user"}) || !slices.Equal(got.Tags, []string{"host", "dc"}) {
		t.Fatalf("after refusals %v %v", got.Fields, got.Tags)
	}
}

// TestStore_Grow_Concurrent grows one new kind from many goroutines of
// two Stores on one table, each adding a field and a tag of its own: every
// field and tag must be in the stored schema and in both Stores' views
// (run with -race).
func TestStore_Grow_Concurrent(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		a := openStore(t, api, opts)
		o2 := *opts
		other := mustOpen(t, ctx, api, &o2)
		defer other.Close()
		const n = 24
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			st := a
			if i%2 == 1 {
				st = other
			}
			wg.Go(func() {
				k, err := st.Grow(ctx, Schema{Name: "new", Fields: []string{"shared", fmt.Sprintf("f%02d", i)}, Tags: []string{fmt.Sprintf("t%02d", i)}}, nil)
				if err == nil {
					err = k.Write(ctx, "s", Reading{Time: t0, Values: []float64{1}})
				}
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		stored, err := a.storedSchema(ctx, "new")
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []*Store{a, other} {
			// A Store's view may lag the table; one more Grow of nothing
			// new brings it level only if it already is.
			if err := st.refreshKinds(ctx); err != nil {
				t.Fatal(err)
			}
			sc := mustKind(t, st, "new").Schema()
			if !slices.Equal(sc.Fields, stored.Fields) || !slices.Equal(sc.Tags, stored.Tags) {
				t.Fatalf("a store sees %v %v, stored %v %v", sc.Fields, sc.Tags, stored.Fields, stored.Tags)
			}
		}
		if len(stored.Fields) != n+1 || len(stored.Tags) != n {
			t.Fatalf("stored %d fields and %d tags, want %d and %d: %v %v", len(stored.Fields), len(stored.Tags), n+1, n, stored.Fields, stored.Tags)
		}
		for i := range n {
			if !slices.Contains(stored.Fields, fmt.Sprintf("f%02d", i)) || !slices.Contains(stored.Tags, fmt.Sprintf("t%02d", i)) {
				t.Fatalf("field or tag %d lost: %v %v", i, stored.Fields, stored.Tags)
			}
		}
	})
}

func TestSchema_MetaJSON(t *testing.T) {
	sc := Schema{Name: "up", Fields: []string{"value"}, Meta: Meta{Type: "gauge", Help: "1 if up", Unit: "seconds"}}
	b, err := sc.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got Schema
	if err := got.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if got.Meta != sc.Meta {
		t.Fatalf("meta %+v from %s", got.Meta, b)
	}
	long := sc
	long.Meta.Help = string(make([]byte, MaxMetaBytes+1))
	if _, err := long.normalize(); !errors.Is(err, ErrInvalidSchema) {
		t.Fatalf("long help: %v", err)
	}
}
