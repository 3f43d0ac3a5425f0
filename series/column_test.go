package series

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// readColumnsText reads field of ids over [from, to) with ReadColumns
// and returns each series' column (or error) as text.
func readColumnsText(ctx context.Context, k *Kind, ids []string, field int, from, to time.Time) []string {
	out := make([]string, len(ids))
	next := 0
	k.ReadColumns(ctx, ids, field, from, to, func(i int, c Column, err error) {
		if i != next {
			out[i] = fmt.Sprintf("given at %d, want %d", i, next)
		}
		next = i + 1
		out[i] += columnText(c, err)
	})
	if next != len(ids) {
		out = append(out, fmt.Sprintf("%d of %d given", next, len(ids)))
	}
	return out
}

func columnText(c Column, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(c.Times, c.Values)
}

// readColumnText is readColumnsText through ReadColumn, series by series.
func readColumnText(ctx context.Context, k *Kind, ids []string, field int, from, to time.Time) []string {
	var out []string
	for _, id := range ids {
		var c Column
		err := k.ReadColumn(ctx, id, field, from, to, &c)
		out = append(out, columnText(c, err))
	}
	return out
}

// TestReadColumns_AsReadColumn: ReadColumns gives each series what
// ReadColumn gives, in order, through compaction (hours merged, then the
// day, merged chunks and their sources both present during the grace
// time), with readings still buffered, ranges that start within a day
// (the day's pieces looked up) or not, a series read twice, an unknown
// series, an invalid id and a field out of range; and while another
// goroutine compacts.
func TestReadColumns_AsReadColumn(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, shards := range []int{1, 2} {
			t.Run(fmt.Sprint("shards=", shards), func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(24*time.Hour + 10*time.Minute))
				st := openStore(t, b.OpenOn(t, clk), testOptions(t, clk), compactSchema(shards))
				k := mustKind(t, st, "C")
				batches := compactReadings()
				for i, id := range []string{"s1", "s2", "s3"} {
					writeFlushes(t, st, k, id, batches[i:])
				}
				ids := []string{"s2", "s1", "none", "s3", "s1", "bad id\x00"}
				ranges := [][2]time.Time{{t0, t0.Add(3 * time.Hour)}, {t0.Add(90 * time.Minute), t0.Add(150 * time.Minute)}, {t0.Add(-time.Hour), t0.Add(48 * time.Hour)}, {}}
				check := func(when string) {
					t.Helper()
					for _, r := range ranges {
						for _, field := range []int{0, 1, 2} {
							got := readColumnsText(ctx, k, ids, field, r[0], r[1])
							want := readColumnText(ctx, k, ids, field, r[0], r[1])
							if !slices.Equal(got, want) {
								t.Fatalf("%s, range %v, field %d:\nReadColumns %q\nReadColumn  %q", when, r, field, got, want)
							}
						}
					}
				}
				check("flushed")
				// Buffered readings too.
				if err := k.Write(ctx, "s1", Reading{Time: t0.Add(100 * time.Minute), Values: []float64{7, 7}}); err != nil {
					t.Fatal(err)
				}
				check("buffered")
				if err := st.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				for round := range 3 {
					if err := st.Compact(ctx); err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf("compaction %d, within its grace time", round))
					clk.Advance(st.opts.CompactGrace + time.Second)
					check(fmt.Sprintf("compaction %d, after its grace time", round))
				}
				if n, m := chunkItemCount(t, k, "s1"); n != m {
					t.Fatalf("%d items, %d merged", n, m)
				}
			})
		}
	})
}

// TestReadColumns_DuringCompaction reads columns of three series while
// compaction merges their hours and then their day: every read gives
// what ReadColumn gave before.
func TestReadColumns_DuringCompaction(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(24*time.Hour + 10*time.Minute))
		st := openStore(t, b.OpenOn(t, clk), testOptions(t, clk), compactSchema(1))
		k := mustKind(t, st, "C")
		batches := compactReadings()
		ids := []string{"s1", "s2", "s3"}
		for i, id := range ids {
			writeFlushes(t, st, k, id, batches[i:])
		}
		from, to := t0.Add(30*time.Minute), t0.Add(3*time.Hour)
		want := readColumnText(ctx, k, ids, 0, from, to)
		var stop atomic.Bool
		var reads atomic.Int64
		var wg sync.WaitGroup
		errc := make(chan error, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if got := readColumnsText(ctx, k, ids, 0, from, to); !slices.Equal(got, want) {
					errc <- fmt.Errorf("a read during compaction gave %q, want %q", got, want)
					return
				}
				reads.Add(1)
			}
		}()
		compactRounds(t, ctx, st, clk, 3)
		for n := reads.Load(); reads.Load() < n+4 && len(errc) == 0; {
			time.Sleep(time.Millisecond)
		}
		stop.Store(true)
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		if n, m := chunkItemCount(t, k, "s1"); n != m {
			t.Fatalf("%d items, %d merged", n, m)
		}
	})
}
