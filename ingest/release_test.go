package ingest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// releaseBodies are line-protocol bodies decoded one after the other
// with Release between them: each has series, values and tags the one
// before lacks, and lacks some it had, so that a reused array that kept
// anything of the batch before shows in the next.
func releaseBodies() []string {
	var bodies []string
	for round := range 6 {
		var sb strings.Builder
		for i := range 40 + 30*round {
			s := (i + round) % (5 + 7*round)
			switch (i + round) % 3 {
			case 0:
				fmt.Fprintf(&sb, "SENSOR,series=s%d,location=l%d temperature=%d.5,humidity=%di %d\n", s, i%4, i, round, int64(i)*1e9)
			case 1:
				fmt.Fprintf(&sb, "SENSOR,series=s%d temperature=%d %d\n", s, i, int64(i)*1e9)
			default:
				fmt.Fprintf(&sb, "METER,series=m%d kwh=%d %d\n", s, i*round, int64(i)*1e9)
			}
		}
		bodies = append(bodies, sb.String())
	}
	return bodies
}

// TestBatch_Release decodes bodies one after the other, each batch
// released before the next decode reuses its arrays, and compares each
// batch with the same body decoded while the batch before is still held
// (so that the two share no array).
func TestBatch_Release(t *testing.T) {
	for i, body := range releaseBodies() {
		b, err := LineProtocol(strings.NewReader(body), lookupOf(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := LineProtocol(strings.NewReader(body), lookupOf(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := sameBatch(fresh, b); d != "" {
			t.Fatalf("body %d after a released batch: %s", i, d)
		}
		checkShape(t, b, lookupOf())
		b.Release()
		b.Release() // a second Release does nothing
		fresh.Release()
	}
}

// TestBatch_ReleaseConcurrent decodes and releases batches on several
// goroutines at once (run with -race), each checking its batches.
func TestBatch_ReleaseConcurrent(t *testing.T) {
	bodies := releaseBodies()
	want := make([]string, len(bodies))
	for i, body := range bodies {
		b, err := LineProtocol(strings.NewReader(body), lookupOf(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = format(b)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := range 50 {
				i := (g + n) % len(bodies)
				b, err := LineProtocol(strings.NewReader(bodies[i]), lookupOf(), Options{})
				if err != nil {
					t.Error(err)
					return
				}
				if got := format(b); got != want[i] {
					t.Errorf("body %d on goroutine %d:\n%s\nwant\n%s", i, g, got, want[i])
					return
				}
				b.Release()
			}
		})
	}
	wg.Wait()
}

// TestBatch_SpareArraysNotCharged: a small request decoded into the
// large arrays a released batch left is charged (Bytes, which the
// in-flight budget holds) about what it is charged on fresh arrays, not
// for the spares' whole capacity (over 100 times as much here: a budget
// of 1 MiB refused it).
func TestBatch_SpareArraysNotCharged(t *testing.T) {
	var big, small strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&big, "SENSOR,series=s%d temperature=1 %d\n", i%50, 1_700_000_000_000+int64(i))
	}
	for i := range 101 {
		fmt.Fprintf(&small, "SENSOR,series=s%d temperature=1 1700000000000\n", i)
	}
	decode := func(body string) *Batch {
		b, err := LineProtocol(strings.NewReader(body), lookupOf(), Options{Precision: Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Two collections empty the pool of released batches' arrays.
	runtime.GC()
	runtime.GC()
	fresh := decode(small.String())
	want := fresh.Bytes
	for range 3 {
		decode(big.String()).Release()
		b := decode(small.String())
		if b.Bytes > want+want/2 { // a spare array is charged at most twice its length

			t.Fatalf("a small batch on released arrays holds %d bytes, %d on fresh ones", b.Bytes, want)
		}
		b.Release()
	}
}
