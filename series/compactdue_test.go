package series

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// mergedCreated returns the creation time of each merged chunk item of
// series id (every shard), by sort key.
func mergedCreated(t testing.TB, k *Kind, id string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for sh := 0; sh < k.s.Shards; sh++ {
		for it, err := range k.st.tbl.QueryAll(context.Background(), &table.Query{Hash: k.rawPK(id, sh), Consistent: true}) {
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseCItem(it)
			if err != nil {
				t.Fatal(err)
			}
			if c.merged {
				out[fmt.Sprint(sh, c.sk)] = c.created
			}
		}
	}
	return out
}

// writtenStore opens a store of compactSchema(shards) on the in-memory engine
// whose clock is past the end of the first two days from t0 and their
// late window, so that readings of those days are readings of closed
// days.
func writtenStore(t *testing.T, shards int) (*Store, *Kind, *clock) {
	clk := newClock(t0.Add(48*time.Hour + 10*time.Minute))
	st := openStore(t, openEngine(t, clk), testOptions(t, clk), compactSchema(shards))
	return st, mustKind(t, st, "C"), clk
}

// compactWrittenPass runs a pass of written days over k.
func compactWrittenPass(t testing.TB, st *Store, k *Kind) {
	t.Helper()
	st.compactMu.Lock()
	defer st.compactMu.Unlock()
	if err := k.compactWritten(context.Background(), st.opts.CompactGrace); err != nil {
		t.Fatal(err)
	}
}

// kicked reports whether a pass of written days was asked for, and takes
// the request.
func kicked(st *Store) bool {
	select {
	case <-st.written.kick:
		return true
	default:
		return false
	}
}

// inDay returns the readings of rs in the day from day.
func inDay(rs []Reading, day time.Time) []Reading {
	return slices.DeleteFunc(slices.Clone(rs), func(r Reading) bool { return r.Time.Before(day) || !r.Time.Before(day.Add(24*time.Hour)) })
}

// twoDays returns readings of two days from t0, one every 10 minutes,
// in time order.
func twoDays() []Reading {
	var rs []Reading
	for i := range 2 * 144 {
		rs = append(rs, Reading{Time: t0.Add(time.Duration(i) * 10 * time.Minute), Values: []float64{float64(i), float64(i % 7)}, Tags: []string{"x"}})
	}
	return rs
}

// TestCompactWritten_DayMergedOnce ingests two closed days in time order,
// in three flushes: the pass after the second flush merges the first day
// (complete: the buffer holds none of its readings) and leaves the
// second (the buffer holds more of it); the pass after the third merges
// the second day and leaves the first as it was. The timer's pass leaves
// the recorded days to these passes.
func TestCompactWritten_DayMergedOnce(t *testing.T) {
	st, k, clk := writtenStore(t, 3)
	ctx := context.Background()
	rs := twoDays()
	day1, day2 := t0, t0.Add(24*time.Hour)
	// Flush 1: most of day 1; flush 2: the rest of day 1 and the start of
	// day 2; then the rest of day 2 stays buffered.
	writeFlushes(t, st, k, "s1", [][]Reading{rs[:100], rs[100:200]})
	if err := k.Write(ctx, "s1", rs[200:]...); err != nil {
		t.Fatal(err)
	}
	if !kicked(st) {
		t.Fatal("no pass asked for after flushes of closed days")
	}
	// The timer's pass skips the recorded days.
	if err := st.leasedCompact(ctx); err != nil {
		t.Fatal(err)
	}
	if got := mergedCreated(t, k, "s1"); len(got) != 0 {
		t.Fatalf("the timer's pass merged %d items of recorded days", len(got))
	}
	compactWrittenPass(t, st, k)
	first := mergedCreated(t, k, "s1")
	if len(first) != 3 {
		t.Fatalf("after the first pass: %d merged items, want 3 (day 1, a piece per shard)", len(first))
	}
	if !st.written.has("C", "s1", timeMs(day2)) || st.written.has("C", "s1", timeMs(day1)) {
		t.Fatal("the first pass took day 2 (still buffered) or left day 1")
	}
	clk.Advance(time.Minute)
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if !kicked(st) {
		t.Fatal("no pass asked for after the flush of day 2's rest")
	}
	compactWrittenPass(t, st, k)
	second := mergedCreated(t, k, "s1")
	if len(second) != 6 {
		t.Fatalf("after the second pass: %d merged items, want 6", len(second))
	}
	for sk, c := range first {
		if second[sk] != c {
			t.Fatalf("day 1's merged item %s written again by the second pass", sk)
		}
	}
	if st.written.has("C", "s1", timeMs(day2)) {
		t.Fatal("day 2 still recorded after its pass")
	}
	// Reads: every reading once.
	got, err := rangeAll(ctx, k, "s1", Query{From: day1, To: day2.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	wantSnapshot(t, "both days", fmtReadings(got), fmtReadings(rs))

	// Within the grace, the timer's pass reads the markers and not the
	// days this Store merged; after it, it deletes their sources.
	queries := func() int64 { return st.Table().Stats().Ops["Query"].Calls }
	q0 := queries()
	if err := st.leasedCompact(ctx); err != nil {
		t.Fatal(err)
	}
	if q := queries() - q0; q != 1 {
		t.Fatalf("the timer's pass within the grace made %d queries, want 1 (the markers)", q)
	}
	clk.Advance(st.opts.CompactGrace + time.Second)
	if err := st.leasedCompact(ctx); err != nil {
		t.Fatal(err)
	}
	if n, m := chunkItemCount(t, k, "s1"); n != 6 || m != 6 {
		t.Fatalf("after the grace: %d items, %d merged; want 6 merged", n, m)
	}
}

// TestCompactWritten_Bounded writes a closed day of more series than a
// pass merges: the first pass merges compactDaysPerPass days and asks
// for the next, which merges the rest.
func TestCompactWritten_Bounded(t *testing.T) {
	st, k, _ := writtenStore(t, 1)
	ctx := context.Background()
	n := compactDaysPerPass + 5
	id := func(i int) string { return fmt.Sprintf("s%04d", i) }
	for half := range 2 {
		for i := range n {
			r := Reading{Time: t0.Add(time.Duration(half) * time.Hour), Values: []float64{float64(i), 1}}
			if err := k.Write(ctx, id(i), r); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	merged := func() int {
		c := 0
		for i := range n {
			if _, m := chunkItemCount(t, k, id(i)); m > 0 {
				c++
			}
		}
		return c
	}
	kicked(st)
	compactWrittenPass(t, st, k)
	if m := merged(); m != compactDaysPerPass {
		t.Fatalf("the first pass merged %d days, want %d", m, compactDaysPerPass)
	}
	if !kicked(st) {
		t.Fatal("the first pass left days and did not ask for the next")
	}
	compactWrittenPass(t, st, k)
	if m := merged(); m != n {
		t.Fatalf("the two passes merged %d days, want %d", m, n)
	}
	if kicked(st) {
		t.Fatal("the second pass asked for another with nothing left")
	}
}

// TestCompactWritten_LateReadings writes readings into a day after the
// pass merged it: the day is recorded again and merged again, with
// every reading; a close with CompactAtClose then leaves one item per
// shard, without waiting for CompactGrace.
func TestCompactWritten_LateReadings(t *testing.T) {
	clk := newClock(t0.Add(48*time.Hour + 10*time.Minute))
	api := openEngine(t, clk)
	opts := testOptions(t, clk)
	opts.CompactAtClose = true
	ctx := context.Background()
	st := openStore(t, api, opts, compactSchema(3))
	k := mustKind(t, st, "C")
	rs := inDay(twoDays(), t0)
	writeFlushes(t, st, k, "s1", [][]Reading{rs[:50], rs[50:]})
	compactWrittenPass(t, st, k)
	if _, m := chunkItemCount(t, k, "s1"); m != 3 {
		t.Fatalf("%d merged items after the pass, want 3", m)
	}
	clk.Advance(time.Minute)
	late := []Reading{
		{Time: t0.Add(5 * time.Minute), Values: []float64{-1, -1}, Tags: []string{"late"}},
		{Time: t0.Add(23 * time.Hour), Values: []float64{-2, -2}, Tags: []string{"late"}},
	}
	writeFlushes(t, st, k, "s1", [][]Reading{late})
	if !st.written.has("C", "s1", timeMs(t0)) {
		t.Fatal("the late readings' day is not recorded")
	}
	before := mergedCreated(t, k, "s1")
	compactWrittenPass(t, st, k)
	after := mergedCreated(t, k, "s1")
	now := timeMs(clk.Now())
	fresh := 0
	for sk, c := range after {
		if c == now {
			fresh++
			if _, ok := before[sk]; ok {
				t.Fatalf("merged item %s of the second merge existed before it", sk)
			}
		}
	}
	if fresh == 0 {
		t.Fatal("the day was not merged again after its late readings")
	}
	all := append(slices.Clone(rs), late...)
	got, err := rangeAll(ctx, k, "s1", Query{From: t0, To: t0.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(all, func(a, b Reading) int { return a.Time.Compare(b.Time) })
	wantSnapshot(t, "after the second merge", fmtReadings(got), fmtReadings(all))

	// The sources of both merges, deleted without reading the day: a
	// merged item per shard is left.
	if _, err := st.deleteLeftSources(ctx); err != nil {
		t.Fatal(err)
	}
	if n, m := chunkItemCount(t, k, "s1"); n != 3 || m != 3 {
		t.Fatalf("after deleting the sources left: %d items, %d merged; want 3 merged", n, m)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ro := *opts
	ro.CompactAtClose = false
	rst := mustOpen(t, ctx, api, &ro, compactSchema(3))
	defer rst.Close()
	rk := mustKind(t, rst, "C")
	if n, m := chunkItemCount(t, rk, "s1"); n != 3 || m != 3 {
		t.Fatalf("after the close: %d items, %d merged; want 3 merged", n, m)
	}
	got, err = rangeAll(ctx, rk, "s1", Query{From: t0, To: t0.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	wantSnapshot(t, "after the close", fmtReadings(got), fmtReadings(all))
}

// itemSpans is a timetable.API that records, for each item its
// queries return, the memory its string values span, and keeps the
// items alive (so that no later allocation takes their addresses).
type itemSpans struct {
	timetable.API
	mu    sync.Mutex
	spans [][2]uintptr
	keep  []*dynamodb.QueryOutput
}

func (a *itemSpans) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := a.API.Query(ctx, in, optFns...)
	if err != nil {
		return out, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keep = append(a.keep, out)
	for _, item := range out.Items {
		lo, hi := ^uintptr(0), uintptr(0)
		for _, v := range item {
			if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value != "" {
				p := uintptr(unsafe.Pointer(unsafe.StringData(s.Value)))
				lo, hi = min(lo, p), max(hi, p+uintptr(len(s.Value)))
			}
		}
		if lo < hi {
			a.spans = append(a.spans, [2]uintptr{lo, hi})
		}
	}
	return out, nil
}

// within reports whether s lies in the memory of an item returned, with
// more of the item's memory around it.
func (a *itemSpans) within(s string) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, sp := range a.spans {
		if p >= sp[0] && p+uintptr(len(s)) <= sp[1] && sp[1]-sp[0] > uintptr(len(s)) {
			return true
		}
	}
	return false
}

// TestCompactWritten_LeftSourcesOwnMemory merges closed days with a
// grace, so that the Store remembers their sources' keys for the grace:
// none of those keys may share the memory of the item it was read from
// (the embedded engine decodes an item's strings from one copy of it),
// or each would keep its whole item alive for CompactGrace: an ingest of
// past days held some 130 MB so.
func TestCompactWritten_LeftSourcesOwnMemory(t *testing.T) {
	clk := newClock(t0.Add(48*time.Hour + 10*time.Minute))
	api := &itemSpans{API: openEngine(t, clk)}
	st := openStore(t, api, testOptions(t, clk), compactSchema(1))
	k := mustKind(t, st, "C")
	ctx := context.Background()
	const ids = 20
	var day []Reading
	for i := range 24 * 60 {
		day = append(day, Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{float64(i) * 1.37, float64(i%13) + 0.5}, Tags: []string{"somewhere"}})
	}
	for half := range 2 {
		for i := range ids {
			if err := k.Write(ctx, fmt.Sprintf("s%04d", i), day[half*12*60:(half+1)*12*60]...); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	compactWrittenPass(t, st, k)
	st.left.mu.Lock()
	defer st.left.mu.Unlock()
	if st.left.n < ids*24 {
		t.Fatalf("the Store remembers %d sources, want at least %d", st.left.n, ids*24)
	}
	shared := 0
	for _, g := range st.left.groups {
		for _, sk := range g.sks {
			if api.within(sk) {
				shared++
			}
		}
	}
	if shared > 0 {
		t.Fatalf("%d of the %d source keys remembered share their item's memory", shared, st.left.n)
	}
}
