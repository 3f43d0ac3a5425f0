package series

// Regression tests of the read and write contract: paging (Limit is a
// total, PageSize a page, cursors survive flushes and compactions), the
// duplicate rules (LastWins, KeepAll, RejectDifferent) on every read path,
// layout and shard count, before and after Flush, Compact and restarts,
// Latest never older than an acknowledged write, -0 read as +0, and the
// bounds of every read (a zero upper bound is no bound, sub-millisecond
// bounds round up, AggregateQuery.Tier is the tier read).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/keys"
)

// withRule returns s with the duplicate rule r.
func withRule(s Schema, r DuplicateRule) Schema {
	s.Duplicates = r
	return s
}

// paged returns q with page size n.
func paged(q Query, n int) Query {
	q.PageSize = n
	return q
}

// pageSizeOf returns q's page size.
func pageSizeOf(q Query) int { return q.PageSize }

var allRules = []DuplicateRule{LastWins, KeepAll, RejectDifferent}

// rgSchema is the schema of these tests: two fields, one tag.
func rgSchema(l Layout, shards int, rule DuplicateRule) Schema {
	return withRule(Schema{Name: "RG", Fields: []string{"v", "w"}, Tags: []string{"g"}, Layout: l, Shards: shards}, rule)
}

// rd is a reading at t0 plus d with values v (w absent) and tag g.
func rd(d time.Duration, v float64, g string) Reading {
	return Reading{Time: t0.Add(d), Values: []float64{v}, Tags: []string{g}}
}

// at is t0 plus h hours and m minutes.
func at(h, m int) time.Duration { return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute }

// model is what a series must hold under a duplicate rule, given the
// write calls that returned: the readings accepted, in write order.
type model struct {
	rule   DuplicateRule
	nf, nt int
	rs     []Reading
}

func newModel(rule DuplicateRule, s Schema) *model {
	return &model{rule: rule, nf: len(s.Fields), nt: len(s.Tags)}
}

// norm pads a reading to the schema, as reads return it.
func (m *model) norm(r Reading) Reading {
	v := make([]float64, m.nf)
	for i := range v {
		v[i] = math.NaN()
	}
	copy(v, r.Values)
	var g []string
	if m.nt > 0 {
		g = make([]string, m.nt)
		copy(g, r.Tags)
	}
	return Reading{Time: r.Time.UTC().Truncate(time.Millisecond), Values: v, Tags: g}
}

// write records a write call and reports whether it must fail with
// ErrConflict (RejectDifferent: a different reading at an instant the
// series has, or has earlier in the call); such a call writes nothing.
func (m *model) write(rs ...Reading) (conflict bool) {
	call := make([]Reading, len(rs))
	for i, r := range rs {
		call[i] = m.norm(r)
	}
	if m.rule != RejectDifferent {
		m.rs = append(m.rs, call...)
		return false
	}
	have := map[int64]Reading{}
	for _, r := range m.rs {
		have[r.Time.UnixMilli()] = r
	}
	var add []Reading
	for _, r := range call {
		ms := r.Time.UnixMilli()
		if p, ok := have[ms]; ok {
			if !sameReading(p, r) {
				return true
			}
			continue
		}
		have[ms] = r
		add = append(add, r)
	}
	m.rs = append(m.rs, add...)
	return false
}

// want returns the readings reads must return, oldest first.
func (m *model) want() []Reading {
	rs := slices.Clone(m.rs)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Time.Before(rs[j].Time) })
	if m.rule != LastWins {
		return rs
	}
	var out []Reading
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Time.Equal(r.Time) {
			out[n-1] = r
			continue
		}
		out = append(out, r)
	}
	return out
}

// writeFn is Kind.Write or Kind.WriteSync.
type writeFn func(ctx context.Context, id string, rs ...Reading) error

// apply writes rs with w and records them in m, checking that the call
// fails with ErrConflict exactly when the rule says so.
func (m *model) apply(t *testing.T, ctx context.Context, w writeFn, id string, rs ...Reading) {
	t.Helper()
	conflict := m.write(rs...)
	err := w(ctx, id, rs...)
	switch {
	case conflict && !errors.Is(err, ErrConflict):
		t.Errorf("write %s: got error %v, want ErrConflict", brief(rs), err)
	case !conflict && err != nil:
		t.Fatalf("write %s: %v", brief(rs), err)
	}
}

// diffReadings describes how got differs from want, "" if equal.
func diffReadings(got, want []Reading) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d readings, want %d\n  got:%s\n want:%s", len(got), len(want), briefAll(got), briefAll(want))
	}
	for i := range got {
		if !sameReading(got[i], want[i]) {
			return fmt.Sprintf("reading %d: got %s, want %s\n  got:%s\n want:%s", i, briefAll(got[i:i+1]), briefAll(want[i:i+1]), briefAll(got), briefAll(want))
		}
	}
	return ""
}

func briefAll(rs []Reading) string {
	s := ""
	for _, r := range rs {
		s += fmt.Sprintf(" %s%v%v", r.Time.Format("01-02T15:04:05.000"), r.Values, r.Tags)
	}
	return s
}

func reversed(rs []Reading) []Reading {
	out := slices.Clone(rs)
	slices.Reverse(out)
	return out
}

// rangeAll reads q page by page and returns
// every reading.
func rangeAll(ctx context.Context, k *Kind, id string, q Query) ([]Reading, error) {
	var out []Reading
	for pages := 0; ; pages++ {
		if pages > 10000 {
			return out, fmt.Errorf("more than 10000 pages")
		}
		p, err := k.Range(ctx, id, q)
		if err != nil {
			return out, err
		}
		out = append(out, p.Readings...)
		if p.Cursor == "" {
			return out, nil
		}
		if n := pageSizeOf(q); n > 0 && len(p.Readings) > n {
			return out, fmt.Errorf("page of %d readings, page size %d", len(p.Readings), n)
		}
		q.Cursor = p.Cursor
	}
}

func iterAll(ctx context.Context, k *Kind, id string, q Query) ([]Reading, error) {
	it := k.Iter(ctx, id, q)
	defer it.Close()
	var out []Reading
	for it.Next() {
		out = append(out, it.Reading())
	}
	return out, it.Err()
}

// rgPeriods aggregates rs (in read order) by period: start maps a time
// to its period's start, end a start to the period's end.
func rgPeriods(rs []Reading, nf int, start func(time.Time) time.Time, end func(time.Time) time.Time) []Period {
	var out []Period
	for _, r := range rs {
		s := start(r.Time)
		if len(out) == 0 || !out[len(out)-1].Start.Equal(s) {
			out = append(out, Period{Start: s, End: end(s), Fields: make([]Aggregate, nf)})
		}
		p := &out[len(out)-1]
		p.Count++
		for i := 0; i < nf; i++ {
			v := math.NaN()
			if i < len(r.Values) {
				v = r.Values[i]
			}
			if math.IsNaN(v) {
				continue
			}
			if a := &p.Fields[i]; !addSample(a, v, r.Time) {
				a.Last, a.LastTime = v, r.Time
			}
		}
	}
	return out
}

func stepPeriods(rs []Reading, nf int, step time.Duration) []Period {
	return rgPeriods(rs, nf, func(t time.Time) time.Time { return t.Truncate(step) },
		func(s time.Time) time.Time { return s.Add(step) })
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// diffPeriods describes how got differs from want, "" if equal.
func diffPeriods(got, want []Period) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d periods, want %d\n  got: %v\n want: %v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.Count != w.Count || len(g.Fields) != len(w.Fields) {
			return fmt.Sprintf("period %d: got %v, want %v", i, g, w)
		}
		for j := range g.Fields {
			a, b := g.Fields[j], w.Fields[j]
			if a.Count != b.Count || !sameFloat(a.Sum, b.Sum) || !sameFloat(a.Min, b.Min) || !sameFloat(a.Max, b.Max) ||
				!sameFloat(a.First, b.First) || !sameFloat(a.Last, b.Last) || !a.FirstTime.Equal(b.FirstTime) || !a.LastTime.Equal(b.LastTime) {
				return fmt.Sprintf("period %d (%s) field %d: got %+v, want %+v", i, g.Start.Format("01-02T15:04"), j, a, b)
			}
		}
	}
	return ""
}

// readsOpts says which reads checkReads makes besides Range, Iter, All,
// Latest, LatestMany and Aggregate.
type readsOpts struct {
	buffered bool // some readings are buffered: Buckets, a stored view, is not checked
	rollups  bool // the rollups are up to date: Rollups agree too
	pages    bool // also page forward and back
}

// window is the range the aggregates of checkReads cover.
var winFrom, winTo = t0, t0.Add(48 * time.Hour)

// checkReads checks that every read path of series id returns want
// (oldest first): Range both ways (whole and paged), Iter, All, Latest,
// LatestMany, Aggregate (hourly and daily steps), Buckets for the Buckets
// layout (unless o.buffered: like rollups, buckets are what is stored)
// and, with o.rollups, the stored rollups.
func checkReads(t *testing.T, ctx context.Context, k *Kind, id string, want []Reading, phase string, o readsOpts) {
	t.Helper()
	nf := len(k.Schema().Fields)
	check := func(path string, got []Reading, err error, want []Reading) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %s: %v", phase, path, err)
		} else if d := diffReadings(got, want); d != "" {
			t.Errorf("%s: %s: %s", phase, path, d)
		}
	}
	q := Query{From: winFrom, To: winTo}
	p, err := k.Range(ctx, id, q)
	if err == nil && p.Cursor != "" {
		t.Errorf("%s: Range: cursor %q after everything", phase, p.Cursor)
	}
	var got []Reading
	if p != nil {
		got = p.Readings
	}
	check("Range", got, err, want)
	p, err = k.Range(ctx, id, Query{From: winFrom, To: winTo, Reverse: true})
	got = nil
	if p != nil {
		got = p.Readings
	}
	check("Range reverse", got, err, reversed(want))
	got, err = iterAll(ctx, k, id, q)
	check("Iter", got, err, want)
	got = nil
	err = nil
	for r, e := range k.All(ctx, id, Query{From: winFrom, To: winTo, Reverse: true}) {
		if e != nil {
			err = e
			break
		}
		got = append(got, r)
	}
	check("All reverse", got, err, reversed(want))
	if o.pages {
		got, err = rangeAll(ctx, k, id, paged(q, 2))
		check("Range pages of 2", got, err, want)
		got, err = rangeAll(ctx, k, id, paged(Query{From: winFrom, To: winTo, Reverse: true}, 1))
		check("Range reverse pages of 1", got, err, reversed(want))
	}
	if len(want) > 0 {
		last := want[len(want)-1]
		r, err := k.Latest(ctx, id)
		check("Latest", []Reading{r}, err, []Reading{last})
		m, err := k.LatestMany(ctx, []string{id, "none"})
		if err != nil {
			t.Errorf("%s: LatestMany: %v", phase, err)
		} else if len(m) != 1 {
			t.Errorf("%s: LatestMany: %d readings, want 1", phase, len(m))
		} else {
			check("LatestMany", []Reading{m[id]}, nil, []Reading{last})
		}
		p, err := k.Range(ctx, id, Query{From: winFrom, To: winTo, Reverse: true, Limit: 1})
		got = nil
		if p != nil {
			got = p.Readings
		}
		check("Range newest", got, err, []Reading{last})
	}
	for _, step := range []time.Duration{time.Hour, 24 * time.Hour} {
		a, err := k.Aggregate(ctx, id, AggregateQuery{From: winFrom, To: winTo, Step: step})
		if err != nil {
			t.Errorf("%s: Aggregate step %v: %v", phase, step, err)
		} else if d := diffPeriods(a.Periods, stepPeriods(want, nf, step)); d != "" {
			t.Errorf("%s: Aggregate step %v: %s", phase, step, d)
		}
	}
	if k.Schema().Layout == Buckets && !o.buffered {
		g := k.Schema().BucketPeriod
		bs, err := k.Buckets(ctx, id, winFrom, winTo)
		wp := rgPeriods(want, nf, func(t time.Time) time.Time { return msTime(periodStart(timeMs(t), g)) },
			func(s time.Time) time.Time { return msTime(periodEnd(timeMs(s), g)) })
		if err != nil {
			t.Errorf("%s: Buckets: %v", phase, err)
		} else if d := diffPeriods(bs, wp); d != "" {
			t.Errorf("%s: Buckets: %s", phase, d)
		}
	}
	if o.rollups {
		for _, tier := range []Tier{Hourly, Daily} {
			step := time.Hour
			if tier == Daily {
				step = 24 * time.Hour
			}
			ps, err := k.Rollups(ctx, id, tier, winFrom, winTo)
			if err != nil {
				t.Errorf("%s: Rollups %s: %v", phase, tier, err)
			} else if d := diffPeriods(ps, stepPeriods(want, nf, step)); d != "" {
				t.Errorf("%s: Rollups %s: %s", phase, tier, d)
			}
		}
	}
}

// reopen opens a second Store over api and the table of opts; its table
// is dropped by the first one's cleanup.
func reopen(t *testing.T, api timetable.API, opts *Options, schemas ...Schema) *Store {
	t.Helper()
	st, err := Open(context.Background(), api, opts, schemas...)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// onDynamo reports whether b is DynamoDB Local (requests cost
// milliseconds there, waiting on the server: the subtests that share
// nothing run in parallel on it).
func onDynamo(b backend) bool { return b.Name != "engine" }

// Finding 1: a Range page of a read merging streams (the buffer and the
// table, or shards) left the backend iterators on a cancelled context:
// the next page failed with "context canceled".
func TestRange_PagesMergingStreams(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			t.Run(l.String()+"/buffered", func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(time.Hour))
				_, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "P", Fields: []string{"v"}, Layout: l})
				var want []Reading
				for i := 0; i < 10; i++ {
					want = append(want, Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{float64(i)}})
				}
				if err := k.WriteSync(ctx, "s", want...); err != nil {
					t.Fatal(err)
				}
				extra := Reading{Time: t0.Add(10 * time.Minute), Values: []float64{10}}
				if err := k.Write(ctx, "s", extra); err != nil {
					t.Fatal(err)
				}
				want = append(want, extra)
				p, err := k.Range(ctx, "s", paged(Query{From: t0}, 2))
				if err != nil {
					t.Fatal(err)
				}
				wantReadings(t, p.Readings, want[:2])
				if p.Cursor == "" {
					t.Fatal("no cursor after the first page")
				}
				p2, err := k.Range(ctx, "s", paged(Query{From: t0, Cursor: p.Cursor}, 2))
				if err != nil {
					t.Fatalf("second page: %v", err)
				}
				wantReadings(t, p2.Readings, want[2:4])
				for _, rev := range []bool{false, true} {
					got, err := rangeAll(ctx, k, "s", paged(Query{From: t0, Reverse: rev}, 2))
					if err != nil {
						t.Fatalf("reverse %v: %v", rev, err)
					}
					w := want
					if rev {
						w = reversed(want)
					}
					if d := diffReadings(got, w); d != "" {
						t.Errorf("pages, reverse %v: %s", rev, d)
					}
				}
			})
			t.Run(l.String()+"/shards", func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(time.Hour))
				_, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "P", Fields: []string{"v"}, Layout: l, Shards: 2})
				for i := 0; i < 12; i++ {
					for _, id := range []string{"x", "y"} {
						r := Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{float64(i)}}
						if err := k.WriteSync(ctx, id, r); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, id := range []string{"x", "y"} {
					for _, rev := range []bool{false, true} {
						all, err := k.Range(ctx, id, Query{From: t0, Reverse: rev})
						if err != nil {
							t.Fatal(err)
						}
						if len(all.Readings) != 12 {
							t.Fatalf("%s: %d readings, want 12", id, len(all.Readings))
						}
						got, err := rangeAll(ctx, k, id, paged(Query{From: t0, Reverse: rev}, 2))
						if err != nil {
							t.Fatalf("%s, reverse %v: %v", id, rev, err)
						}
						if d := diffReadings(got, all.Readings); d != "" {
							t.Errorf("%s pages, reverse %v: %s", id, rev, d)
						}
					}
				}
			})
		}
	})
}

// Finding 2: a cursor taken from buffered readings resumed at the wrong
// reading once a flush had written them as a chunk (a chunk's readings
// took the chunk's position): a reading came twice, or not at all.
func TestRange_CursorAcrossFlush_Chunks(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		// 10:30, then 10:10, then 10:50, each its own Write.
		mins := []int{30, 10, 50}
		setup := func(t *testing.T, sync bool) (*Store, *Kind, *clock, []Reading) {
			clk := newClock(t0.Add(11 * time.Hour))
			st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "C", Fields: []string{"v"}})
			var want []Reading
			for _, m := range mins {
				r := Reading{Time: t0.Add(at(10, m)), Values: []float64{float64(m)}}
				w := k.Write
				if sync {
					w = k.WriteSync
				}
				if err := w(ctx, "s", r); err != nil {
					t.Fatal(err)
				}
				want = append(want, r)
			}
			sort.Slice(want, func(i, j int) bool { return want[i].Time.Before(want[j].Time) })
			return st, k, clk, want
		}
		// resume reads the first page, runs between, then the rest.
		resume := func(t *testing.T, k *Kind, q Query, between func()) []Reading {
			t.Helper()
			p, err := k.Range(ctx, "s", q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Cursor == "" {
				t.Fatalf("no cursor after %d readings", len(p.Readings))
			}
			between()
			q.Cursor = p.Cursor
			rest, err := rangeAll(ctx, k, "s", q)
			if err != nil {
				t.Fatal(err)
			}
			return append(p.Readings, rest...)
		}
		flush := func(t *testing.T, st *Store) {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		compact := func(t *testing.T, st *Store, clk *clock) {
			// The hour is due; a second pass after CompactGrace deletes
			// the items merged.
			clk.Set(t0.Add(at(11, 10)))
			if err := st.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			clk.Advance(15 * time.Minute)
			if err := st.Compact(ctx); err != nil {
				t.Fatal(err)
			}
		}
		t.Run("forward/flush", func(t *testing.T) {
			st, k, _, want := setup(t, false)
			got := resume(t, k, paged(Query{}, 2), func() { flush(t, st) })
			if d := diffReadings(got, want); d != "" {
				t.Error(d)
			}
		})
		t.Run("reverse/flush", func(t *testing.T) {
			st, k, _, want := setup(t, false)
			got := resume(t, k, paged(Query{Reverse: true}, 1), func() { flush(t, st) })
			if d := diffReadings(got, reversed(want)); d != "" {
				t.Error(d)
			}
		})
		t.Run("forward/flush+compact", func(t *testing.T) {
			st, k, clk, want := setup(t, false)
			got := resume(t, k, paged(Query{}, 2), func() { flush(t, st); compact(t, st, clk) })
			if d := diffReadings(got, want); d != "" {
				t.Error(d)
			}
		})
		t.Run("reverse/flush+compact", func(t *testing.T) {
			st, k, clk, want := setup(t, false)
			got := resume(t, k, paged(Query{Reverse: true}, 1), func() { flush(t, st); compact(t, st, clk) })
			if d := diffReadings(got, reversed(want)); d != "" {
				t.Error(d)
			}
		})
		t.Run("forward/compact", func(t *testing.T) {
			st, k, clk, want := setup(t, true)
			got := resume(t, k, paged(Query{}, 2), func() { compact(t, st, clk) })
			if d := diffReadings(got, want); d != "" {
				t.Error(d)
			}
		})
	})
}

// A cursor resumes right after the last reading returned whatever runs
// between pages: a flush, compactions of the hour and of the day, the
// deletion of the items they merged, a restart. Readings of one instant
// (KeepAll: several, in write order; LastWins: the last) are written
// through the buffer and directly, in every layout, one and two shards;
// each page holds one reading, in both directions.
func TestRange_CursorSurvivesFlushCompactRestart(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		shardCounts := []int{1, 2}
		if onDynamo(b) {
			shardCounts = []int{2}
		}
		for _, rule := range []DuplicateRule{KeepAll, LastWins} {
			for _, l := range allLayouts {
				for _, shards := range shardCounts {
					for _, rev := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/%s/shards=%d/reverse=%v", rule, l, shards, rev), func(t *testing.T) {
							testCursorSurvives(t, b, rule, l, shards, rev)
						})
					}
				}
			}
		}
	})
}

func testCursorSurvives(t *testing.T, b backend, rule DuplicateRule, l Layout, shards int, rev bool) {
	ctx := context.Background()
	clk := newClock(t0.Add(at(12, 0)))
	sc := withRule(Schema{Name: "K", Fields: []string{"v"}, Layout: l, Shards: shards}, rule)
	api, opts := openOn(t, b, clk)
	st, k := openKind(t, api, opts, sc)
	m := newModel(rule, sc)
	r := func(d time.Duration, v float64) Reading { return Reading{Time: t0.Add(d), Values: []float64{v}} }
	m.apply(t, ctx, k.WriteSync, "s", r(at(10, 1), 1), r(at(10, 2), 2), r(at(10, 3), 3))
	m.apply(t, ctx, k.Write, "s", r(at(10, 2), 4), r(at(11, 4), 5), r(at(10, 1), 6))
	m.apply(t, ctx, k.WriteSync, "s", r(at(10, 3), 7), r(at(10, 2), 8))
	m.apply(t, ctx, k.Write, "s", r(at(11, 5), 9), r(at(10, 2), 10), r(at(11, 4), 11))
	want := m.want()
	if rev {
		want = reversed(want)
	}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"flush", func() error { return st.Flush(ctx) }},
		{"compact the hours", func() error { clk.Set(t0.Add(at(12, 10))); return st.Compact(ctx) }},
		{"delete the merged items", func() error { clk.Advance(15 * time.Minute); return st.Compact(ctx) }},
		{"compact the day", func() error { clk.Set(t0.Add(at(24, 10))); return st.Compact(ctx) }},
		{"delete the merged items", func() error { clk.Advance(15 * time.Minute); return st.Compact(ctx) }},
		{"restart", func() error {
			if err := st.Close(); err != nil {
				return err
			}
			clk.Advance(time.Minute)
			st = reopen(t, api, opts, sc)
			k = mustKind(t, st, "K")
			return nil
		}},
	}
	q := paged(Query{From: t0, To: t0.Add(48 * time.Hour), Reverse: rev}, 1)
	var got []Reading
	var after []string // what ran before each page
	for i := 0; ; i++ {
		if i > 3*len(want)+10 {
			t.Fatalf("too many pages: %s", briefAll(got))
		}
		p, err := k.Range(ctx, "s", q)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		got = append(got, p.Readings...)
		for range p.Readings {
			if i == 0 {
				after = append(after, "-")
			} else {
				after = append(after, steps[(i-1)%len(steps)].name)
			}
		}
		if p.Cursor == "" {
			break
		}
		q.Cursor = p.Cursor
		if err := steps[i%len(steps)].fn(); err != nil {
			t.Fatalf("%s: %v", steps[i%len(steps)].name, err)
		}
	}
	if d := diffReadings(got, want); d != "" {
		t.Errorf("%s\n pages after: %v", d, after)
	}
}

// An Iter that reads lazily (small backend pages: PageSize) returns each
// reading once, in order, while flushes and compactions run between its
// readings, with readings of one instant through the buffer and directly.
func TestIter_AcrossFlushAndCompact(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, rule := range []DuplicateRule{KeepAll, LastWins} {
			for _, l := range allLayouts {
				for _, rev := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/reverse=%v", rule, l, rev), func(t *testing.T) {
						ctx := context.Background()
						clk := newClock(t0.Add(at(13, 0)))
						sc := withRule(Schema{Name: "I", Fields: []string{"v"}, Layout: l, Shards: 2}, rule)
						st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
						m := newModel(rule, sc)
						var stored []Reading
						for h := 10; h < 12; h++ {
							for i := 0; i < 8; i++ {
								stored = append(stored, Reading{Time: t0.Add(at(h, i)), Values: []float64{float64(100*h + i)}})
							}
						}
						m.apply(t, ctx, k.WriteSync, "s", stored...)
						r := func(d time.Duration, v float64) Reading { return Reading{Time: t0.Add(d), Values: []float64{v}} }
						m.apply(t, ctx, k.Write, "s", r(at(10, 5), 1), r(at(10, 30), 2))
						m.apply(t, ctx, k.Write, "s", r(at(11, 5), 3), r(at(12, 30), 4), r(at(10, 5), 5))
						want := m.want()
						if rev {
							want = reversed(want)
						}
						it := k.Iter(ctx, "s", paged(Query{From: t0, To: t0.Add(24 * time.Hour), Reverse: rev}, 2))
						defer it.Close()
						var got []Reading
						next := func(n int) {
							for ; n > 0 && it.Next(); n-- {
								got = append(got, it.Reading())
							}
						}
						next(6)
						if err := st.Flush(ctx); err != nil {
							t.Fatal(err)
						}
						next(4)
						clk.Set(t0.Add(at(13, 10)))
						if err := st.Compact(ctx); err != nil {
							t.Fatal(err)
						}
						next(4)
						clk.Advance(15 * time.Minute)
						if err := st.Compact(ctx); err != nil {
							t.Fatal(err)
						}
						next(len(want))
						if err := it.Err(); err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(got, want); d != "" {
							t.Error(d)
						}
					})
				}
			}
		}
	})
}

// raceLatest is an API that makes a flush end inside each read of a
// latest-reading item (Latest's GetItem, LatestMany's BatchGetItem): a
// put of a latest-reading item waits until such a read has returned, and
// the read returns only once a put is done and the flush over. Every wait
// is bounded (a Store may order its reads and flushes otherwise); none is
// a time assertion.
type raceLatest struct {
	timetable.API
	st atomic.Pointer[Store]

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each change
	waiting int           // reads returned, waiting for a put
	puts    int           // puts of latest items done
}

func newRaceLatest(api timetable.API) *raceLatest {
	return &raceLatest{API: api, changed: make(chan struct{})}
}

// raceWait bounds each wait of raceLatest.
const raceWait = 20 * time.Millisecond

// update changes the state with fn.
func (r *raceLatest) update(fn func()) {
	r.mu.Lock()
	fn()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// wait waits until ok holds, or raceWait.
func (r *raceLatest) wait(ok func() bool) {
	deadline := time.NewTimer(raceWait)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		done, c := ok(), r.changed
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-c:
		case <-deadline.C:
			return
		}
	}
}

func isLatestKey(k map[string]types.AttributeValue) bool {
	pk, ok := k[attrPK].(*types.AttributeValueMemberS)
	return ok && strings.HasSuffix(pk.Value, keys.Sep+"L")
}

// read runs a read of latest items, then waits for a put of one and the
// end of the flush.
func (r *raceLatest) read(fn func()) {
	r.mu.Lock()
	p0 := r.puts
	r.mu.Unlock()
	fn()
	r.update(func() { r.waiting++ })
	r.wait(func() bool { return r.puts > p0 })
	r.update(func() { r.waiting-- })
	if st := r.st.Load(); st != nil {
		done := make(chan struct{})
		go func() {
			st.Flush(context.Background())
			close(done)
		}()
		t := time.NewTimer(raceWait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	}
}

func (r *raceLatest) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (out *dynamodb.GetItemOutput, err error) {
	if !isLatestKey(in.Key) {
		return r.API.GetItem(ctx, in, o...)
	}
	r.read(func() { out, err = r.API.GetItem(ctx, in, o...) })
	return out, err
}

func (r *raceLatest) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (out *dynamodb.BatchGetItemOutput, err error) {
	r.read(func() { out, err = r.API.BatchGetItem(ctx, in, o...) })
	return out, err
}

func (r *raceLatest) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if !isLatestKey(in.Item) {
		return r.API.PutItem(ctx, in, o...)
	}
	r.wait(func() bool { return r.waiting > 0 })
	out, err := r.API.PutItem(ctx, in, o...)
	r.update(func() { r.puts++ })
	return out, err
}

// Finding 3: Latest read the table's latest item, then the buffer; a
// flush that ended between the two made it miss the newest reading,
// already acknowledged. A writer writes increasing times through the
// buffer (FlushSize 1: each Write wakes the background flusher) and waits
// for a read after each; the reader checks that Latest and LatestMany
// never return a reading older than the last one acknowledged before the
// call.
func TestLatest_NeverStale(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		rounds := 200
		if onDynamo(b) {
			rounds = 20
		}
		for _, l := range allLayouts {
			t.Run(l.String(), func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(24 * time.Hour))
				opts := testOptions(t, clk)
				opts.FlushSize = 1 // FlushInterval -1 turns off the timer only
				api := newRaceLatest(b.OpenOn(t, clk))
				st := openStore(t, api, opts, Schema{Name: "L", Fields: []string{"v"}, Layout: l})
				api.st.Store(st)
				k := mustKind(t, st, "L")
				// The writer hands the reader each acknowledged value and
				// waits for its read: a read never overlaps a Write, and
				// the background flush of the reading runs as it reads.
				acks := make(chan int)
				step, quit := make(chan struct{}), make(chan struct{})
				defer close(quit)
				var werr error
				go func() {
					defer close(acks)
					for i := 0; i < rounds; i++ {
						if err := k.Write(ctx, "s", Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{float64(i)}}); err != nil {
							werr = err
							return
						}
						select {
						case acks <- i:
						case <-quit:
							return
						}
						select {
						case <-step:
						case <-quit:
							return
						}
					}
				}()
				stale, n := 0, 0
				var first string
				for a := range acks {
					v, what := -1.0, "Latest"
					if n++; n%2 == 0 {
						r, err := k.Latest(ctx, "s")
						if err == nil {
							v = r.Values[0]
						} else if !errors.Is(err, ErrNotFound) {
							t.Fatal(err)
						}
					} else {
						what = "LatestMany"
						m, err := k.LatestMany(ctx, []string{"s"})
						if err != nil {
							t.Fatal(err)
						}
						if r, ok := m["s"]; ok {
							v = r.Values[0]
						}
					}
					if v < float64(a) {
						if stale == 0 {
							first = fmt.Sprintf("%s returned reading %v after reading %d was acknowledged", what, v, a)
						}
						stale++
					}
					step <- struct{}{}
				}
				if werr != nil {
					t.Fatal(werr)
				}
				if stale > 0 {
					t.Errorf("%d stale answers in %d rounds; the first: %s", stale, rounds, first)
				}
				r, err := k.Latest(ctx, "s")
				if err != nil || r.Values[0] != float64(rounds-1) {
					t.Errorf("Latest at the end: %v, %v; want %d", r, err, rounds-1)
				}
			})
		}
	})
}

// Finding 4: readings of one instant had no stable order: a chunk's
// readings took its smallest sequence number as their position, so a
// flush could put a later-written reading first, a cursor skip one, and
// Latest (by sequence number) disagree with Range's newest; across a
// restart, a Store's random sequence numbers could order its writes
// before those of the Store before it.
func TestDuplicates_TieOrderStable(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		t.Run("chunks/sync-between-buffered", func(t *testing.T) {
			clk := newClock(t0.Add(12 * time.Hour))
			sc := withRule(Schema{Name: "T", Fields: []string{"v"}}, KeepAll)
			st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
			// y and bb are flushed in one chunk, a is written before bb.
			y := Reading{Time: t0.Add(at(10, 10)), Values: []float64{9}}
			a := Reading{Time: t0.Add(at(10, 30)), Values: []float64{1}}
			bb := Reading{Time: t0.Add(at(10, 30)), Values: []float64{2}}
			if err := k.Write(ctx, "s", y); err != nil {
				t.Fatal(err)
			}
			if err := k.WriteSync(ctx, "s", a); err != nil {
				t.Fatal(err)
			}
			if err := k.Write(ctx, "s", bb); err != nil {
				t.Fatal(err)
			}
			want := []Reading{y, a, bb}
			checkReads(t, ctx, k, "s", want, "buffered", readsOpts{buffered: true, pages: true})
			// A cursor at a before the flush, resumed after it.
			cursorsAcrossFlush(t, ctx, st, k, "s",
				flushCursor{"forward", paged(Query{From: a.Time}, 1), want[1:]},
				flushCursor{"reverse", paged(Query{Reverse: true}, 1), reversed(want)})
			checkReads(t, ctx, k, "s", want, "flushed", readsOpts{pages: true})
		})
		for _, rule := range []DuplicateRule{KeepAll, LastWins} {
			t.Run("chunks/shards/"+rule.String(), func(t *testing.T) {
				clk := newClock(t0.Add(12 * time.Hour))
				sc := withRule(Schema{Name: "T", Fields: []string{"v"}, Shards: 2}, rule)
				st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
				m := newModel(rule, sc)
				// 40 instants, each written twice in a row, every other
				// pair after a write to another series: whether shards
				// are chosen from the sequence numbers' parity or at
				// random, some pairs straddle the shards with the second
				// reading in the shard whose chunk starts with the oldest
				// sequence number.
				const n = 40
				for i := 0; i < n; i++ {
					tm := t0.Add(at(10, 0) + time.Duration(i)*time.Second)
					if i%2 == 1 {
						if err := k.Write(ctx, "other", Reading{Time: tm, Values: []float64{-1}}); err != nil {
							t.Fatal(err)
						}
					}
					m.apply(t, ctx, k.Write, "s", Reading{Time: tm, Values: []float64{float64(i)}})
					m.apply(t, ctx, k.Write, "s", Reading{Time: tm, Values: []float64{float64(100 + i)}})
				}
				want := m.want()
				checkReads(t, ctx, k, "s", want, "buffered", readsOpts{buffered: true})
				cursorsAcrossFlush(t, ctx, st, k, "s", flushCursor{"forward", paged(Query{}, len(want)/2+1), want})
				checkReads(t, ctx, k, "s", want, "flushed", readsOpts{})
			})
		}
		for _, l := range allLayouts {
			for _, rule := range []DuplicateRule{LastWins, KeepAll} {
				t.Run("restarts/"+l.String()+"/"+rule.String(), func(t *testing.T) {
					clk := newClock(t0.Add(12 * time.Hour))
					sc := withRule(Schema{Name: "T", Fields: []string{"v"}, Layout: l}, rule)
					api, opts := openOn(t, b, clk)
					st := openStore(t, api, opts, sc)
					m := newModel(rule, sc)
					at10 := t0.Add(at(10, 0))
					for i := 0; i < 6; i++ {
						if i > 0 {
							if err := st.Close(); err != nil {
								t.Fatal(err)
							}
							clk.Advance(time.Minute)
							st = reopen(t, api, opts, sc)
						}
						k := mustKind(t, st, "T")
						w := k.WriteSync
						if i%2 == 1 {
							w = k.Write // flushed by Close
						}
						m.apply(t, ctx, w, "s", Reading{Time: at10, Values: []float64{float64(i)}})
						want := m.want()
						got, err := k.Range(ctx, "s", Query{From: t0})
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(got.Readings, want); d != "" {
							t.Errorf("store %d: Range: %s", i, d)
						}
						r, err := k.Latest(ctx, "s")
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings([]Reading{r}, want[len(want)-1:]); d != "" {
							t.Errorf("store %d: Latest: %s", i, d)
						}
						if t.Failed() {
							return
						}
					}
				})
			}
		}
	})
}

// Finding 5: Kind.Buckets merged the shards' stored aggregates without
// the readings' positions, so the first and last of same-instant readings
// came from whichever shard was read first or last.
func TestBuckets_FirstLastOfTies(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, rule := range []DuplicateRule{KeepAll, LastWins} {
			t.Run(rule.String(), func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(25 * time.Hour))
				sc := withRule(Schema{Name: "B", Fields: []string{"v"}, Layout: Buckets, BucketPeriod: keys.Hour, Shards: 2}, rule)
				st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
				m := newModel(rule, sc)
				// Each hour of a day: a pair of readings at its first
				// instant and a pair at its last, each reading its own
				// Write, every other pair after a write to another
				// series: whether shards are chosen from the sequence
				// numbers' parity or at random, some pairs straddle the
				// shards with the first reading in the last shard.
				w := 0
				for h := 0; h < 24; h++ {
					for j, d := range []time.Duration{at(h, 0), at(h, 59)} {
						tm := t0.Add(d)
						if w++; w%2 == 0 {
							if err := k.Write(ctx, "other", Reading{Time: tm, Values: []float64{-1}}); err != nil {
								t.Fatal(err)
							}
						}
						m.apply(t, ctx, k.Write, "s", Reading{Time: tm, Values: []float64{float64(1000 + 10*h + j)}})
						m.apply(t, ctx, k.Write, "s", Reading{Time: tm, Values: []float64{float64(2000 + 10*h + j)}})
					}
				}
				if err := st.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				want := m.want()
				bs, err := k.Buckets(ctx, "s", t0, t0.Add(24*time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				if d := diffPeriods(bs, stepPeriods(want, 1, time.Hour)); d != "" {
					t.Errorf("Buckets: %s", d)
				}
				a, err := k.Aggregate(ctx, "s", AggregateQuery{From: t0, To: t0.Add(24 * time.Hour), Step: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				if d := diffPeriods(bs, a.Periods); d != "" {
					t.Errorf("Buckets and Aggregate disagree: %s", d)
				}
				checkReads(t, ctx, k, "s", want, "flushed", readsOpts{})
			})
		}
	})
}

// Finding 6: -0 kept its sign in the Range reads of chunks (and of
// buffered readings) while DynamoDB numbers read back as +0.
func TestNegativeZero(t *testing.T) {
	negz := math.Copysign(0, -1)
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			t.Run(l.String(), func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(12 * time.Hour))
				st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "Z", Fields: []string{"v", "w"}, Layout: l})
				if err := k.WriteSync(ctx, "s", Reading{Time: t0.Add(at(10, 0)), Values: []float64{negz, 1}}); err != nil {
					t.Fatal(err)
				}
				if err := k.Write(ctx, "s", Reading{Time: t0.Add(at(10, 1)), Values: []float64{negz, negz}}); err != nil {
					t.Fatal(err)
				}
				checkZero := func(phase string) {
					t.Helper()
					for _, rev := range []bool{false, true} {
						p, err := k.Range(ctx, "s", Query{From: t0, Reverse: rev})
						if err != nil {
							t.Fatal(err)
						}
						if len(p.Readings) != 2 {
							t.Fatalf("%s: %d readings, want 2", phase, len(p.Readings))
						}
						for _, r := range p.Readings {
							for i, v := range r.Values {
								if (i == 0 && v != 0) || math.Signbit(v) {
									t.Errorf("%s: Range (reverse %v) at %s: field %d is %v (sign bit %v), want +0", phase, rev, r.Time.Format("15:04"), i, v, math.Signbit(v))
								}
							}
						}
					}
					r, err := k.Latest(ctx, "s")
					if err != nil {
						t.Fatal(err)
					}
					if math.Signbit(r.Values[0]) || math.Signbit(r.Values[1]) {
						t.Errorf("%s: Latest %v: want +0", phase, r.Values)
					}
					a, err := k.Aggregate(ctx, "s", AggregateQuery{From: t0, To: t0.Add(24 * time.Hour), Step: time.Hour})
					if err != nil {
						t.Fatal(err)
					}
					if len(a.Periods) != 1 {
						t.Fatalf("%s: Aggregate: %d periods, want 1", phase, len(a.Periods))
					}
					f := a.Periods[0].Fields[0]
					for name, v := range map[string]float64{"min": f.Min, "max": f.Max, "first": f.First, "last": f.Last, "sum": f.Sum} {
						if math.Signbit(v) {
							t.Errorf("%s: Aggregate %s is -0, want +0", phase, name)
						}
					}
					if l == Buckets {
						bs, err := k.Buckets(ctx, "s", t0, t0.Add(24*time.Hour))
						if err != nil {
							t.Fatal(err)
						}
						for _, p := range bs {
							f := p.Fields[0]
							if math.Signbit(f.Min) || math.Signbit(f.Max) || math.Signbit(f.First) || math.Signbit(f.Last) {
								t.Errorf("%s: Buckets %+v: want +0", phase, f)
							}
						}
					}
				}
				checkZero("buffered")
				if err := st.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				checkZero("flushed")
				clk.Set(t0.Add(at(11, 10)))
				if err := st.Compact(ctx); err != nil {
					t.Fatal(err)
				}
				checkZero("compacted")
			})
		}
		// -0 is stored as +0: writing +0 where -0 was written (or the
		// reverse) writes the same reading again.
		t.Run("reject-different", func(t *testing.T) {
			ctx := context.Background()
			clk := newClock(t0.Add(12 * time.Hour))
			sc := withRule(Schema{Name: "Z", Fields: []string{"v"}}, RejectDifferent)
			st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
			for i, c := range []struct {
				first, second float64
				fn            writeFn
			}{{negz, 0, k.Write}, {0, negz, k.Write}, {negz, 0, k.WriteSync}, {0, negz, k.WriteSync}} {
				tm := t0.Add(at(10, i))
				if err := c.fn(ctx, "s", Reading{Time: tm, Values: []float64{c.first}}); err != nil {
					t.Fatal(err)
				}
				if err := c.fn(ctx, "s", Reading{Time: tm, Values: []float64{c.second}}); err != nil {
					t.Errorf("%v after %v at %s: %v", c.second, c.first, tm.Format("15:04"), err)
				}
				if err := st.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				if err := c.fn(ctx, "s", Reading{Time: tm, Values: []float64{c.second}}); err != nil {
					t.Errorf("%v after %v at %s, flushed: %v", c.second, c.first, tm.Format("15:04"), err)
				}
			}
			p, err := k.Range(ctx, "s", Query{From: t0})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Readings) != 4 {
				t.Errorf("%d readings, want 4: %s", len(p.Readings), briefAll(p.Readings))
			}
		})
	})
}

// Finding 7: AggregateQuery.Tier was the finest tier allowed, not the tier
// read: with Step 24h and Tier Hourly, the daily tier was read.
func TestAggregate_TierIsTheTierRead(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(12 * time.Hour))
		sc := Schema{Name: "A", Fields: []string{"v"}}
		st := openStore(t, b.OpenOn(t, clk), testOptions(t, clk), sc, Schema{Name: "D", Fields: []string{"v"}, Rollups: []keys.Granularity{keys.Day}})
		k := mustKind(t, st, "A")
		var rs []Reading
		for i := 0; i < 20; i++ {
			rs = append(rs, Reading{Time: t0.Add(time.Duration(i) * 37 * time.Minute), Values: []float64{float64(i % 7)}})
		}
		if err := k.WriteSync(ctx, "s", rs...); err != nil {
			t.Fatal(err)
		}
		clk.Set(t0.Add(49 * time.Hour))
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		want := stepPeriods(rs, 1, 24*time.Hour)
		for _, c := range []struct {
			tier, want Tier
		}{{Raw, Daily}, {Hourly, Hourly}, {Daily, Daily}} {
			a, err := k.Aggregate(ctx, "s", AggregateQuery{From: t0, To: t0.Add(48 * time.Hour), Step: 24 * time.Hour, Tier: c.tier})
			if err != nil {
				t.Errorf("Tier %s: %v", c.tier, err)
				continue
			}
			if a.Tier != c.want {
				t.Errorf("Tier %s, Step 24h: read the %s tier, want %s", c.tier, a.Tier, c.want)
			}
			if d := diffPeriods(a.Periods, want); d != "" {
				t.Errorf("Tier %s: %s", c.tier, d)
			}
		}
		// A tier that does not divide the step, or is not kept.
		if _, err := k.Aggregate(ctx, "s", AggregateQuery{From: t0, To: t0.Add(48 * time.Hour), Step: time.Hour, Tier: Daily}); err == nil {
			t.Error("Tier Daily, Step 1h: no error")
		}
		if _, err := k.Aggregate(ctx, "s", AggregateQuery{From: t0, To: t0.Add(48 * time.Hour), Step: 24 * time.Hour, Tier: Monthly}); err == nil {
			t.Error("Tier Monthly, Step 24h: no error")
		}
		if _, err := mustKind(t, st, "D").Aggregate(ctx, "s", AggregateQuery{From: t0, To: t0.Add(48 * time.Hour), Step: 24 * time.Hour, Tier: Hourly}); err == nil {
			t.Error("Tier Hourly of a kind that keeps no hourly rollups: no error")
		}
	})
}

// Finding 7: a zero upper bound is no bound for every read: Range (of
// DayPartitioned too, which stopped at the day after now), Aggregate
// (which stopped at now), Rollups (which returned nothing) and Buckets.
func TestBounds_ZeroUpperBound(t *testing.T) {
	eachBackendLayout(t, func(t *testing.T, b backend, l Layout) {
		ctx := context.Background()
		clk := newClock(t0.Add(at(1, 0)))
		opts := testOptions(t, clk)
		opts.MaxFuture = -1 // readings days and years ahead
		st, k := openKind(t, b.OpenOn(t, clk), opts, Schema{Name: "U", Fields: []string{"v"}, Layout: l})
		past := Reading{Time: t0.Add(at(0, 30)), Values: []float64{1}}
		future := Reading{Time: t0.Add(72*time.Hour + at(1, 0)), Values: []float64{2}} // 3 days after the clock
		// Buffered, 2 years after (10 days for DayPartitioned, which
		// reads a day a query).
		far := Reading{Time: t0.AddDate(2, 0, 0), Values: []float64{3}}
		if l == DayPartitioned {
			far.Time = t0.AddDate(0, 0, 10)
		}
		if err := k.WriteSync(ctx, "s", past, future); err != nil {
			t.Fatal(err)
		}
		if err := k.Write(ctx, "s", far); err != nil {
			t.Fatal(err)
		}
		want := []Reading{past, future, far}
		p, err := k.Range(ctx, "s", Query{From: t0, Reverse: true, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffReadings(p.Readings, want[2:]); d != "" {
			t.Errorf("Range newest, zero To: %s", d)
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for _, rev := range []bool{false, true} {
			p, err := k.Range(ctx, "s", Query{From: t0, Reverse: rev})
			if err != nil {
				t.Fatal(err)
			}
			w := want
			if rev {
				w = reversed(want)
			}
			if d := diffReadings(p.Readings, w); d != "" {
				t.Errorf("Range, reverse %v, zero To: %s", rev, d)
			}
		}
		got, err := iterAll(ctx, k, "s", Query{From: t0})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffReadings(got, want); d != "" {
			t.Errorf("Iter, zero To: %s", d)
		}
		a, err := k.Aggregate(ctx, "s", AggregateQuery{From: t0, Step: time.Hour, MaxPeriods: -1}) // 2 years of hours
		if err != nil {
			t.Errorf("Aggregate, zero To: %v", err)
		} else if d := diffPeriods(a.Periods, stepPeriods(want, 1, time.Hour)); d != "" {
			t.Errorf("Aggregate, zero To: %s", d)
		}
		if l == Buckets {
			bs, err := k.Buckets(ctx, "s", t0, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if d := diffPeriods(bs, stepPeriods(want, 1, 24*time.Hour)); d != "" {
				t.Errorf("Buckets, zero to: %s", d)
			}
		}
		// The past hour rolled up.
		clk.Set(t0.Add(at(2, 0)))
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		ps, err := k.Rollups(ctx, "s", Hourly, t0, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffPeriods(ps, stepPeriods(want[:1], 1, time.Hour)); d != "" {
			t.Errorf("Rollups, zero to: %s", d)
		}
	})
}

// Finding 7: bounds finer than a millisecond round up: From = t + 0.5 ms
// starts after a reading at t, To = t + 0.5 ms includes it.
func TestBounds_SubMillisecond(t *testing.T) {
	eachBackendLayout(t, func(t *testing.T, b backend, l Layout) {
		ctx := context.Background()
		clk := newClock(t0.Add(at(12, 0)))
		_, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "M", Fields: []string{"v"}, Layout: l})
		tm := t0.Add(at(10, 0))
		rs := []Reading{
			{Time: tm.Add(-time.Millisecond), Values: []float64{1}},
			{Time: tm, Values: []float64{2}},
			{Time: tm.Add(time.Millisecond), Values: []float64{3}},
		}
		if err := k.WriteSync(ctx, "s", rs...); err != nil {
			t.Fatal(err)
		}
		half := 500 * time.Microsecond
		for _, c := range []struct {
			name     string
			from, to time.Time
			want     []Reading
		}{
			{"From t+0.5ms", tm.Add(half), t0.Add(24 * time.Hour), rs[2:]},
			{"To t+0.5ms", t0, tm.Add(half), rs[:2]},
			{"From t-0.5ms", tm.Add(-half), t0.Add(24 * time.Hour), rs[1:]},
			{"To t-0.5ms", t0, tm.Add(-half), rs[:1]},
		} {
			for _, rev := range []bool{false, true} {
				p, err := k.Range(ctx, "s", Query{From: c.from, To: c.to, Reverse: rev})
				if err != nil {
					t.Fatal(err)
				}
				w := c.want
				if rev {
					w = reversed(w)
				}
				if d := diffReadings(p.Readings, w); d != "" {
					t.Errorf("Range %s, reverse %v: %s", c.name, rev, d)
				}
			}
			a, err := k.Aggregate(ctx, "s", AggregateQuery{From: c.from, To: c.to, Step: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if d := diffPeriods(a.Periods, stepPeriods(c.want, 1, time.Hour)); d != "" {
				t.Errorf("Aggregate %s: %s", c.name, d)
			}
		}
	})
}

// Finding 7: Query.Limit is the total of a read, across Range pages;
// PageSize is the size of a page.
func TestRange_LimitIsTotal(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			for _, shards := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/shards=%d", l, shards), func(t *testing.T) {
					ctx := context.Background()
					clk := newClock(t0.Add(at(12, 0)))
					_, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "N", Fields: []string{"v"}, Layout: l, Shards: shards})
					var rs []Reading
					for i := 0; i < 10; i++ {
						rs = append(rs, Reading{Time: t0.Add(at(10, i)), Values: []float64{float64(i)}})
					}
					if err := k.WriteSync(ctx, "s", rs[:7]...); err != nil {
						t.Fatal(err)
					}
					if err := k.Write(ctx, "s", rs[7:]...); err != nil {
						t.Fatal(err)
					}
					for _, rev := range []bool{false, true} {
						all := rs
						if rev {
							all = reversed(rs)
						}
						// Limit alone: one page of Limit readings, no cursor.
						p, err := k.Range(ctx, "s", Query{Reverse: rev, Limit: 5})
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(p.Readings, all[:5]); d != "" {
							t.Errorf("reverse %v, Limit 5: %s", rev, d)
						}
						if p.Cursor != "" {
							t.Errorf("reverse %v, Limit 5: a cursor after the limit", rev)
						}
						// Limit 5 in pages of 2: 2, 2, 1, the last without a cursor.
						q := paged(Query{Reverse: rev, Limit: 5}, 2)
						got, sizes := rangePages(t, ctx, k, "s", q, 10)
						if d := diffReadings(got, all[:5]); d != "" {
							t.Errorf("reverse %v, Limit 5, pages of 2 (%v): %s", rev, sizes, d)
						}
						if !slices.Equal(sizes, []int{2, 2, 1}) {
							t.Errorf("reverse %v, Limit 5, pages of 2: pages of %v, want [2 2 1]", rev, sizes)
						}
						// A page larger than the limit.
						p, err = k.Range(ctx, "s", paged(Query{Reverse: rev, Limit: 3}, 10))
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(p.Readings, all[:3]); d != "" || p.Cursor != "" {
							t.Errorf("reverse %v, Limit 3, pages of 10: cursor %q, %s", rev, p.Cursor, d)
						}
						// PageSize alone pages through everything.
						got, err = rangeAll(ctx, k, "s", paged(Query{Reverse: rev}, 3))
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(got, all); d != "" {
							t.Errorf("reverse %v, pages of 3: %s", rev, d)
						}
						// A filtered read: the limit counts the readings
						// returned, across pages.
						fq := paged(Query{Reverse: rev, Limit: 5, Filter: []Filter{Field("v").Ne(1), Field("v").Ne(3), Field("v").Ne(8)}}, 2)
						var fall []Reading
						for _, r := range all {
							if v := r.Values[0]; v != 1 && v != 3 && v != 8 {
								fall = append(fall, r)
							}
						}
						got, sizes = rangePages(t, ctx, k, "s", fq, 10)
						if d := diffReadings(got, fall[:5]); d != "" {
							t.Errorf("reverse %v, filtered, Limit 5, pages of 2 (%v): %s", rev, sizes, d)
						}
						// The limit reached at the end of a page, and a
						// limit beyond the readings.
						for _, c := range []struct{ limit, size, n int }{{4, 2, 4}, {20, 3, 10}} {
							got, err := rangeAll(ctx, k, "s", paged(Query{Reverse: rev, Limit: c.limit}, c.size))
							if err != nil {
								t.Fatal(err)
							}
							if d := diffReadings(got, all[:c.n]); d != "" {
								t.Errorf("reverse %v, Limit %d, pages of %d: %s", rev, c.limit, c.size, d)
							}
						}
						// An Iter's cursor resumes a Range after its reading.
						it := k.Iter(ctx, "s", Query{Reverse: rev})
						for n := 0; n < 4 && it.Next(); {
							n++
						}
						cur := it.Cursor()
						it.Close()
						p, err = k.Range(ctx, "s", Query{Reverse: rev, Cursor: cur})
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(p.Readings, all[4:]); d != "" {
							t.Errorf("reverse %v, Range after an Iter's cursor: %s", rev, d)
						}
						// All stops at Limit.
						got = nil
						for r, err := range k.All(ctx, "s", Query{Reverse: rev, Limit: 4}) {
							if err != nil {
								t.Fatal(err)
							}
							got = append(got, r)
						}
						if d := diffReadings(got, all[:4]); d != "" {
							t.Errorf("reverse %v, All Limit 4: %s", rev, d)
						}
						// Iter and All stop at Limit, whatever the page size.
						got, err = iterAll(ctx, k, "s", paged(Query{Reverse: rev, Limit: 4}, 2))
						if err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(got, all[:4]); d != "" {
							t.Errorf("reverse %v, Iter Limit 4: %s", rev, d)
						}
					}
				})
			}
		}
	})
}

// The duplicate rules themselves, on every layout, one and two shards:
// write calls through the buffer and directly, same-instant readings in
// one call and across calls, a different tag, an absent field, before and
// after flushes, across a restart, after rollups and compaction; every
// read agrees with the rule, and RejectDifferent refuses a different
// reading (ErrConflict, nothing of the call written) and accepts the same
// one again.
func TestDuplicates_Rules(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, rule := range allRules {
			for _, l := range allLayouts {
				for _, shards := range []int{1, 2} {
					t.Run(fmt.Sprintf("%s/%s/shards=%d", rule, l, shards), func(t *testing.T) {
						if onDynamo(b) {
							t.Parallel()
						}
						testRule(t, b, rule, l, shards)
					})
				}
			}
		}
	})
}

func testRule(t *testing.T, b backend, rule DuplicateRule, l Layout, shards int) {
	ctx := context.Background()
	clk := newClock(t0.Add(at(12, 0)))
	sc := rgSchema(l, shards, rule)
	api, opts := openOn(t, b, clk)
	st, k := openKind(t, api, opts, sc)
	m := newModel(rule, sc)
	pages := !onDynamo(b)
	// Stored, then buffered over it.
	m.apply(t, ctx, k.WriteSync, "s", rd(at(10, 1), 1, "a"), rd(at(10, 2), 2, "a"), rd(at(10, 3), 3, "a"))
	m.apply(t, ctx, k.Write, "s", rd(at(10, 2), 20, "a"), rd(at(10, 4), 4, "a")) // 10:02 differs from the stored one
	m.apply(t, ctx, k.Write, "s", rd(at(10, 2), 2, "a"), rd(at(10, 5), 5, "a"))  // the same 10:02 again
	m.apply(t, ctx, k.Write, "s", rd(at(10, 6), 6, "a"), rd(at(10, 7), 7, "a"), rd(at(10, 6), 60, "a"))
	m.apply(t, ctx, k.Write, "s", rd(at(10, 1), 1, "b"))                                  // a different tag
	m.apply(t, ctx, k.Write, "s", Reading{Time: t0.Add(at(10, 8)), Values: []float64{8}}) // w absent, no tag
	m.apply(t, ctx, k.WriteSync, "s", Reading{Time: t0.Add(at(10, 8)), Values: []float64{8, math.NaN()}, Tags: []string{""}})
	m.apply(t, ctx, k.Write, "s", rd(at(11, 0), 11, "a"), rd(at(11, 0), 11, "a")) // twice the same in one call
	// A buffered Write, then a WriteSync at its instant: the WriteSync is
	// the later write, though the buffered reading is flushed after it.
	m.apply(t, ctx, k.Write, "s", rd(at(10, 9), 9, "a"))
	m.apply(t, ctx, k.WriteSync, "s", rd(at(10, 9), 90, "a"))
	// WriteMany, the series twice in the call: slice order.
	m.apply(t, ctx, writeMany(k), "s", rd(at(10, 10), 10, "a"), rd(at(10, 11), 11, "a"), rd(at(10, 10), 100, "a"))
	checkReads(t, ctx, k, "s", m.want(), "buffered", readsOpts{buffered: true, pages: pages})
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	checkReads(t, ctx, k, "s", m.want(), "flushed", readsOpts{pages: pages})
	// Over flushed readings: buffered, then stored.
	m.apply(t, ctx, k.Write, "s", rd(at(10, 3), 30, "a"))
	m.apply(t, ctx, k.Write, "s", rd(at(11, 0), 110, "a"), rd(at(11, 30), 12, "a"))
	checkReads(t, ctx, k, "s", m.want(), "buffered over flushed", readsOpts{buffered: true, pages: pages})
	m.apply(t, ctx, k.WriteSync, "s", rd(at(10, 4), 40, "a"))
	m.apply(t, ctx, k.WriteSync, "s", rd(at(10, 4), 4, "a"))
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	checkReads(t, ctx, k, "s", m.want(), "flushed again", readsOpts{})
	// A restart: the new Store's writes are the later ones.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	st = reopen(t, api, opts, sc)
	k = mustKind(t, st, "RG")
	checkReads(t, ctx, k, "s", m.want(), "reopened", readsOpts{})
	m.apply(t, ctx, k.Write, "s", rd(at(10, 5), 50, "a"))
	m.apply(t, ctx, k.WriteSync, "s", rd(at(11, 30), 13, "a"))
	m.apply(t, ctx, k.Write, "s", rd(at(11, 30), 12, "a"), rd(at(11, 45), 14, "a"))
	// At the newest instant: a buffered Write, then a WriteSync.
	m.apply(t, ctx, k.Write, "s", rd(at(11, 50), 15, "a"))
	m.apply(t, ctx, k.WriteSync, "s", rd(at(11, 50), 150, "a"))
	checkReads(t, ctx, k, "s", m.want(), "reopened, buffered", readsOpts{buffered: true, pages: pages})
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Rollups and compaction, once the day is due.
	clk.Set(t0.Add(at(24, 10)))
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	checkReads(t, ctx, k, "s", m.want(), "rolled up and compacted", readsOpts{rollups: true, pages: pages})
	// A late write into the rolled-up day, and a second pass.
	m.apply(t, ctx, k.WriteSync, "s", rd(at(10, 7), 70, "a"))
	clk.Advance(15 * time.Minute)
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	checkReads(t, ctx, k, "s", m.want(), "late write, rolled up and compacted", readsOpts{rollups: true})
}

// RejectDifferent refuses a call holding a different reading, whatever
// else it holds, and writes nothing of it; the call with the same values
// is accepted and changes nothing.
func TestDuplicates_RejectDifferent(t *testing.T) {
	eachBackendLayout(t, func(t *testing.T, b backend, l Layout) {
		ctx := context.Background()
		clk := newClock(t0.Add(at(12, 0)))
		sc := rgSchema(l, 1, RejectDifferent)
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
		stored := rd(at(10, 0), 1, "a")
		buffered := rd(at(10, 10), 2, "a")
		if err := k.WriteSync(ctx, "s", stored); err != nil {
			t.Fatal(err)
		}
		if err := k.Write(ctx, "s", buffered); err != nil {
			t.Fatal(err)
		}
		fresh := rd(at(10, 20), 3, "a")
		for _, c := range []struct {
			name string
			rs   []Reading
		}{
			{"stored, other value", []Reading{fresh, rd(at(10, 0), 9, "a")}},
			{"stored, other tag", []Reading{fresh, rd(at(10, 0), 1, "b")}},
			{"buffered, other value", []Reading{rd(at(10, 10), 9, "a"), fresh}},
			{"buffered, field absent", []Reading{fresh, {Time: t0.Add(at(10, 10)), Tags: []string{"a"}}}},
			{"in the call", []Reading{fresh, rd(at(10, 30), 4, "a"), rd(at(10, 30), 5, "a")}},
		} {
			for _, w := range []struct {
				name string
				fn   writeFn
			}{{"Write", k.Write}, {"WriteSync", k.WriteSync}} {
				if err := w.fn(ctx, "s", c.rs...); !errors.Is(err, ErrConflict) {
					t.Errorf("%s, %s: got %v, want ErrConflict", w.name, c.name, err)
				}
			}
		}
		// WriteMany: a conflict in one series writes nothing of
		// the others.
		err := k.WriteMany(ctx, []SeriesReadings{{ID: "t", Readings: []Reading{fresh}}, {ID: "s", Readings: []Reading{fresh, rd(at(10, 0), 9, "a")}}})
		if !errors.Is(err, ErrConflict) {
			t.Errorf("WriteMany, stored, other value: got %v, want ErrConflict", err)
		}
		err = k.WriteMany(ctx, []SeriesReadings{{ID: "t", Readings: []Reading{fresh}}, {ID: "t", Readings: []Reading{rd(at(10, 20), 4, "a")}}})
		if !errors.Is(err, ErrConflict) {
			t.Errorf("WriteMany, the series twice, other value: got %v, want ErrConflict", err)
		}
		if _, err := k.Latest(ctx, "t"); !errors.Is(err, ErrNotFound) {
			t.Errorf("series t after refused WriteMany calls: Latest: %v, want ErrNotFound", err)
		}
		want := []Reading{stored, buffered}
		checkReads(t, ctx, k, "s", newModelOf(sc, want), "after the refusals", readsOpts{buffered: true})
		// The same readings again: accepted, nothing changes.
		if err := k.Write(ctx, "s", stored, buffered); err != nil {
			t.Errorf("Write of the same readings: %v", err)
		}
		if err := k.WriteSync(ctx, "s", buffered, stored); err != nil {
			t.Errorf("WriteSync of the same readings: %v", err)
		}
		checkReads(t, ctx, k, "s", newModelOf(sc, want), "after the same readings", readsOpts{buffered: true})
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := k.Write(ctx, "s", rd(at(10, 10), 7, "a")); !errors.Is(err, ErrConflict) {
			t.Errorf("Write over a flushed reading: got %v, want ErrConflict", err)
		}
		checkReads(t, ctx, k, "s", newModelOf(sc, want), "flushed", readsOpts{})
	})
}

// Writes of one instant that run at once: LastWins keeps one, KeepAll
// all, RejectDifferent accepts one and refuses the others (one Store);
// every read agrees with the others, and the same readings stay after a
// flush.
func TestDuplicates_ConcurrentWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		instants, writers := 4, 6
		modes := []string{"Write", "WriteSync", "mixed"}
		if onDynamo(b) {
			instants, writers, modes = 2, 4, []string{"mixed"}
		}
		for _, rule := range allRules {
			for _, l := range allLayouts {
				for _, mode := range modes {
					t.Run(fmt.Sprintf("%s/%s/%s", rule, l, mode), func(t *testing.T) {
						ctx := context.Background()
						clk := newClock(t0.Add(at(12, 0)))
						sc := withRule(Schema{Name: "W", Fields: []string{"v"}, Layout: l}, rule)
						st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
						k.WriteSync(ctx, "s", Reading{Time: t0.Add(at(9, 0)), Values: []float64{-1}})
						var wg sync.WaitGroup
						start := make(chan struct{})
						errs := make([][]error, instants)
						for i := range errs {
							errs[i] = make([]error, writers)
							for w := 0; w < writers; w++ {
								wg.Add(1)
								go func() {
									defer wg.Done()
									<-start
									fn := k.Write
									if mode == "WriteSync" || mode == "mixed" && w%2 == 1 {
										fn = k.WriteSync
									}
									errs[i][w] = fn(ctx, "s", Reading{Time: t0.Add(at(10, i)), Values: []float64{float64(100*i + w)}})
								}()
							}
						}
						close(start)
						wg.Wait()
						perInstant := writers
						if rule != KeepAll {
							perInstant = 1
						}
						for i := range errs {
							ok := 0
							var accepted []string
							for w, err := range errs[i] {
								switch {
								case err == nil:
									ok++
									accepted = append(accepted, fmt.Sprintf("%v by %s", 100*i+w, map[bool]string{false: "Write", true: "WriteSync"}[mode == "WriteSync" || mode == "mixed" && w%2 == 1]))
								case rule == RejectDifferent && errors.Is(err, ErrConflict):
								default:
									t.Errorf("instant %d, writer %d: %v", i, w, err)
								}
							}
							if rule == RejectDifferent && ok != 1 {
								t.Errorf("instant %d: %d of %d different writes accepted, want 1: %v", i, ok, writers, accepted)
							}
						}
						check := func(phase string) []Reading {
							t.Helper()
							p, err := k.Range(ctx, "s", Query{From: t0, To: t0.Add(24 * time.Hour)})
							if err != nil {
								t.Fatal(err)
							}
							rs := p.Readings
							if len(rs) != 1+instants*perInstant {
								t.Fatalf("%s: %d readings, want %d: %s", phase, len(rs), 1+instants*perInstant, briefAll(rs))
							}
							for i := 0; i < instants; i++ {
								for j := 0; j < perInstant; j++ {
									r := rs[1+i*perInstant+j]
									if v := r.Values[0]; !r.Time.Equal(t0.Add(at(10, i))) || int(v)/100 != i {
										t.Errorf("%s: reading %d: %s", phase, 1+i*perInstant+j, briefAll([]Reading{r}))
									}
									if rule == RejectDifferent {
										w := int(r.Values[0]) % 100
										if w < 0 || w >= writers || errs[i][w] != nil {
											t.Errorf("%s: instant %d holds %v, from a write refused", phase, i, r.Values[0])
										}
									}
								}
							}
							checkReads(t, ctx, k, "s", rs, phase, readsOpts{buffered: phase == "buffered"})
							return rs
						}
						before := check("buffered")
						if err := st.Flush(ctx); err != nil {
							t.Fatal(err)
						}
						if d := diffReadings(check("flushed"), before); d != "" {
							t.Errorf("the flush changed the readings: %s", d)
						}
					})
				}
			}
		}
	})
}

// A crash leaves buffered readings in the write-ahead log; the next
// Store replays them, and its own writes at their instants are the later
// ones: every rule and layout reads the same before and after the replayed
// readings are flushed.
func TestDuplicates_AcrossCrashReplay(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, rule := range allRules {
			for _, l := range allLayouts {
				t.Run(fmt.Sprintf("%s/%s", rule, l), func(t *testing.T) {
					ctx := context.Background()
					clk := newClock(t0.Add(at(12, 0)))
					sc := withRule(Schema{Name: "R", Fields: []string{"v"}, Layout: l}, rule)
					api, opts := openOn(t, b, clk)
					opts.WALDir = t.TempDir()
					st, k := openKind(t, api, opts, sc)
					m := newModel(rule, sc)
					r := func(d time.Duration, v float64) Reading { return Reading{Time: t0.Add(d), Values: []float64{v}} }
					m.apply(t, ctx, k.WriteSync, "s", r(at(10, 1), 1), r(at(10, 3), 3))
					m.apply(t, ctx, k.Write, "s", r(at(10, 2), 2), r(at(10, 3), 30))
					// Crash: the log is closed, the buffer not flushed.
					st.closeOnce.Do(func() { close(st.stop); st.bg.Wait(); st.closed.Store(true); st.wal.Close() })
					clk.Advance(time.Minute)
					st2 := reopen(t, api, opts, sc)
					k = mustKind(t, st2, "R")
					checkReads(t, ctx, k, "s", m.want(), "replayed", readsOpts{buffered: true})
					m.apply(t, ctx, k.Write, "s", r(at(10, 2), 20))
					m.apply(t, ctx, k.WriteSync, "s", r(at(10, 1), 10), r(at(10, 3), 300))
					checkReads(t, ctx, k, "s", m.want(), "written over the replayed", readsOpts{buffered: true})
					if err := st2.Flush(ctx); err != nil {
						t.Fatal(err)
					}
					checkReads(t, ctx, k, "s", m.want(), "flushed", readsOpts{})
				})
			}
		}
	})
}

// writeMany is a writeFn that writes rs with one WriteMany call, their
// series given twice (the first reading, then the others).
func writeMany(k *Kind) writeFn {
	return func(ctx context.Context, id string, rs ...Reading) error {
		return k.WriteMany(ctx, []SeriesReadings{{ID: id, Readings: rs[:1]}, {ID: id, Readings: rs[1:]}})
	}
}

// newModelOf returns rs padded to schema s.
func newModelOf(s Schema, rs []Reading) []Reading {
	m := newModel(KeepAll, s)
	m.write(rs...)
	return m.want()
}

// Model finding: a tier that does not divide the step gave an empty
// answer instead of ErrInvalidQuery when the range was empty (From = To,
// From > To, or no reading with a zero To): the tier was checked after
// the early return.
func TestAggregate_InvalidTierOnEmptyRange(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(12 * time.Hour))
	_, k := openKind(t, openEngine(t, clk), testOptions(t, clk), Schema{Name: "A", Fields: []string{"v"}})
	for _, q := range []AggregateQuery{
		{From: t0, To: t0, Step: 30 * time.Minute, Tier: Hourly},
		{From: t0.Add(time.Hour), To: t0, Step: time.Hour, Tier: Daily},
		{From: t0, Step: 24 * time.Hour, Tier: Monthly},
		{From: t0, To: t0, Months: 1, Tier: Tier(9)},
	} {
		if _, err := k.Aggregate(ctx, "empty", q); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("Aggregate(%+v) on an empty range: error %v, want ErrInvalidQuery", q, err)
		}
	}
	// A valid query on an empty range is empty, not an error.
	if a, err := k.Aggregate(ctx, "empty", AggregateQuery{From: t0, To: t0, Step: time.Hour, Tier: Hourly}); err != nil || len(a.Periods) != 0 {
		t.Errorf("valid query on an empty range: %v, %v", a, err)
	}
}

// flushCursor is a read that cursorsAcrossFlush starts before a flush and
// resumes after it: q's first page, then the rest from its cursor, must
// be want.
type flushCursor struct {
	what string
	q    Query
	want []Reading
}

// cursorsAcrossFlush reads the first page of each read of series id of k,
// flushes st, then resumes each read from its page's cursor and reports
// (t.Errorf) any read whose pages together are not its want. Read or
// flush errors fail t.
func cursorsAcrossFlush(t *testing.T, ctx context.Context, st *Store, k *Kind, id string, reads ...flushCursor) {
	t.Helper()
	first := make([]*Page, len(reads))
	for i, r := range reads {
		p, err := k.Range(ctx, id, r.q)
		if err != nil {
			t.Fatal(err)
		}
		first[i] = p
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for i, r := range reads {
		r.q.Cursor = first[i].Cursor
		rest, err := rangeAll(ctx, k, id, r.q)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffReadings(append(first[i].Readings, rest...), r.want); d != "" {
			t.Errorf("%s cursor across the flush: %s", r.what, d)
		}
	}
}
