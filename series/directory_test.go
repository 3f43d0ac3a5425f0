package series

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// allSeries pages through the series of k with prefix, limit at a time.
func allSeries(t *testing.T, k *Kind, prefix string, limit int) []string {
	t.Helper()
	var out []string
	cursor := ""
	for pages := 0; ; pages++ {
		ids, next, err := k.Series(context.Background(), prefix, limit, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 && len(ids) > limit {
			t.Fatalf("page of %d ids, limit %d", len(ids), limit)
		}
		out = append(out, ids...)
		if next == "" {
			return out
		}
		if pages > 1000 {
			t.Fatal("no end")
		}
		cursor = next
	}
}

func TestKind_Series(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		st := openStore(t, api, opts, sensorSchema(Chunks), Schema{Name: "OTHER", Fields: []string{"v"}})
		k := mustKind(t, st, "SENSOR")
		var want []string
		write := func(ids ...string) {
			for _, id := range ids {
				if err := k.Write(ctx, id, Reading{Time: t0, Values: []float64{1}}); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			slices.Sort(want)
			want = slices.Compact(want)
		}
		for i := range 25 {
			write(fmt.Sprintf("dev-%02d", i))
		}
		write("a", "b", "é", "dev-3x")
		if err := mustKind(t, st, "OTHER").Write(ctx, "not-a-sensor", Reading{Time: t0}); err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			for _, limit := range []int{0, 1, 4, 29, 100} {
				if got := allSeries(t, k, "", limit); !slices.Equal(got, want) {
					t.Fatalf("%s, limit %d: %q\nwant %q", when, limit, got, want)
				}
			}
			var dev []string
			for _, id := range want {
				if strings.HasPrefix(id, "dev-1") {
					dev = append(dev, id)
				}
			}
			for _, limit := range []int{0, 3} {
				if got := allSeries(t, k, "dev-1", limit); !slices.Equal(got, dev) {
					t.Fatalf("%s, prefix dev-1, limit %d: %q, want %q", when, limit, got, dev)
				}
			}
			if got := allSeries(t, k, "zzz", 0); len(got) != 0 {
				t.Fatalf("%s: prefix zzz: %q", when, got)
			}
		}
		check("buffered")
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		check("flushed")
		// Buffered and flushed together, some series in both.
		write("c", "dev-05", "dev-99")
		check("flushed and buffered")
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// Another store of the table sees the flushed directory.
		st2 := reopen(t, api, opts, sensorSchema(Chunks), Schema{Name: "OTHER", Fields: []string{"v"}})
		k = mustKind(t, st2, "SENSOR")
		check("other store")

		if _, _, err := k.Series(ctx, "", -1, ""); !errors.Is(err, ErrInvalidQuery) {
			t.Fatalf("negative limit: %v", err)
		}
		if _, _, err := k.Series(ctx, "", 0, "not base64!"); !errors.Is(err, ErrBadCursor) {
			t.Fatalf("bad cursor: %v", err)
		}
	})
}

// TestKind_Series_OnePutPerSeries: the directory costs one put per new
// series, not one per flush.
func TestKind_Series_OnePutPerSeries(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), Schema{Name: "V", Fields: []string{"v"}, NoRollups: true, NoCompaction: true})
	batchWrites := func() int64 {
		return st.Table().Stats().Ops["BatchWriteItem"].Calls
	}
	if err := k.Write(ctx, "s", Reading{Time: t0, Values: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	first := batchWrites() // the chunk, then the directory item
	if first != 2 {
		t.Fatalf("first flush: %d BatchWriteItem calls, want 2", first)
	}
	if err := k.Write(ctx, "s", Reading{Time: t0.Add(time.Second), Values: []float64{2}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := batchWrites() - first; n != 1 {
		t.Fatalf("second flush: %d BatchWriteItem calls, want 1 (the chunk only)", n)
	}
}
