package analytics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// Tests of the hit buckets: the visits read through them are the visits
// the raw hits give, whatever the interleaving of late hits, passes that
// die and expiry.

// rawReference returns the visits of site over [from, to) formed from
// the raw hits alone, day by day, without the plan: the reference the
// buckets are held to. It fails t if a day's raw hits have expired.
func rawReference(t *testing.T, s *Store, site string, from, to time.Time) []Visit {
	t.Helper()
	ctx := context.Background()
	if rs := s.RawStart(); from.Before(rs) {
		t.Fatalf("rawReference from %s: the raw hits start on %s", from, rs)
	}
	goals, err := s.Goals(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	var out []Visit
	for d := Day.start(from); d.Before(to); d = Day.next(d) {
		hits, err := s.loadHits(ctx, site, d, Day.next(d))
		if err != nil {
			t.Fatal(err)
		}
		var dv dayVisits
		formVisits(&dv, rawHits{h: hits, gi: newGoalIndex(goals)}, s.o.SessionTimeout, &VisitOptions{})
		out = append(out, dv.visits...)
	}
	return out
}

// visitsOf returns the visits Visits gives.
func visitsOf(t *testing.T, s *Store, site string, from, to time.Time) []Visit {
	t.Helper()
	vs, err := s.RawVisits(context.Background(), site, from, to)
	if err != nil {
		t.Fatalf("Visits [%s, %s): %v", timestamp(from), timestamp(to), err)
	}
	return vs
}

// diffVisits returns the first difference between two lists of visits,
// "" if none.
func diffVisits(got, want []Visit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d visits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		same := g.VisitorID == w.VisitorID && g.Start.Equal(w.Start) && g.End.Equal(w.End) && g.EntryPage == w.EntryPage &&
			g.ExitPage == w.ExitPage && g.Source == w.Source && g.UTM == w.UTM && g.Country == w.Country && g.Browser == w.Browser &&
			g.OS == w.OS && g.Device == w.Device && g.PageViews == w.PageViews && g.Bounce == w.Bounce && g.Duration == w.Duration &&
			slices.Equal(g.Goals, w.Goals) && len(g.Hits) == len(w.Hits)
		for j := 0; same && j < len(g.Hits); j++ {
			gh, wh := g.Hits[j], w.Hits[j]
			same = gh.Time.Equal(wh.Time) && gh.Name == wh.Name && gh.Path == wh.Path && maps.Equal(gh.Props, wh.Props) && slices.Equal(gh.Goals, wh.Goals)
		}
		if !same {
			return fmt.Sprintf("visit %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	return ""
}

// sources returns how many days of [from, to) the plan reads from
// buckets and from raw hits.
func sources(t *testing.T, s *Store, site string, from, to time.Time) (buckets, raw int) {
	t.Helper()
	_, plan, err := s.planHits(context.Background(), site, from, to)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan {
		if p.bucket != nil {
			buckets++
		} else {
			raw++
		}
	}
	return buckets, raw
}

// randomRanges returns n ranges within [lo, hi): whole days, hours, and
// ranges cut to the millisecond.
func randomRanges(r *rand.Rand, lo, hi time.Time, n int) [][2]time.Time {
	out := [][2]time.Time{{lo, hi}}
	span := hi.Sub(lo)
	for len(out) < n {
		a := lo.Add(time.Duration(r.Int64N(int64(span))))
		b := a.Add(time.Duration(r.Int64N(int64(hi.Sub(a)))) + time.Millisecond)
		switch r.IntN(3) {
		case 0:
			a, b = Day.start(a), Day.next(Day.start(b))
		case 1:
			a, b = Hour.start(a), Hour.next(Hour.start(b))
		default:
			a, b = a.Truncate(time.Millisecond), b.Truncate(time.Millisecond)
		}
		if b.After(hi) {
			b = hi
		}
		if a.Before(b) {
			out = append(out, [2]time.Time{a, b})
		}
	}
	return out
}

// bucketSite opens a store on b with options o at now, with site "alpha"
// and its goals.
func bucketSite(t *testing.T, b backend, now time.Time, o *Options) (*clock, *Store) {
	t.Helper()
	clk := newClock(now)
	s := openStore(t, b, clk, o)
	ctx := context.Background()
	if err := s.CreateSite(ctx, Site{ID: "alpha", Domains: []string{"alpha.example"}}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []Goal{{ID: "signup", Kind: GoalPage, Match: "/signup/*"}, {ID: "purchase", Kind: GoalEvent, Match: "Purchase"},
		{ID: "docs", Kind: GoalPage, Match: "/docs/**"}} {
		if err := s.PutGoal(ctx, "alpha", g); err != nil {
			t.Fatal(err)
		}
	}
	return clk, s
}

// TestVisits_BucketsAgreeWithRaw: random hits of ten days, read over
// random ranges before the aggregation (every day from its raw hits),
// after it (the days that are over from their buckets), and once the raw
// hits have expired (from the buckets alone): the visits are the same
// every time, with parts of the default size, parts cut at visitor
// boundaries and parts cut within a visitor's hits. A planted difference
// is caught. The ranges that start and end within days check how a day's
// hits are cut to a range, which does not depend on how the day's bucket
// is cut into parts: with parts of the default size 24 ranges, with the
// smaller parts (many parts a day, read and joined for every range) the
// whole range and 5 others. The parts of 600 bytes hold a few hits each,
// so that a visitor's hits of a day span several.
func TestVisits_BucketsAgreeWithRaw(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		// The engine's run and DynamoDB Local's share nothing: the first
		// works the CPU, the second mostly waits on the server.
		t.Parallel()
		parts := []int{0, 2 << 10, 600}
		if b.Name != "engine" {
			parts = parts[:2] // a thousand parts a run: minutes on DynamoDB Local
		}
		for _, part := range parts {
			nRanges := 24
			if part != 0 {
				nRanges = 6
			}
			t.Run(fmt.Sprintf("parts of %d bytes", part), func(t *testing.T) {
				ctx := context.Background()
				now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
				clk, s := bucketSite(t, b, now, &Options{partBytes: part})
				r := rand.New(rand.NewPCG(11, uint64(part)))
				start := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
				events := genEvents(r, []string{"alpha"}, map[string]string{"alpha": "alpha.example"}, now, start)
				r.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
				for _, e := range events {
					rec(t, s, e)
				}
				lo, hi := start.AddDate(0, 0, -1), Day.next(now)
				ranges := randomRanges(r, lo, hi, nRanges)
				want := make([][]Visit, len(ranges))
				for i, rg := range ranges {
					want[i] = rawReference(t, s, "alpha", rg[0], rg[1])
					if d := diffVisits(visitsOf(t, s, "alpha", rg[0], rg[1]), want[i]); d != "" {
						t.Fatalf("before the aggregation, [%s, %s): %s", rg[0], rg[1], d)
					}
				}
				check := func(phase string, wantBuckets int) {
					t.Helper()
					if nb, _ := sources(t, s, "alpha", lo, hi); nb != wantBuckets {
						t.Fatalf("%s: %d days from buckets, want %d", phase, nb, wantBuckets)
					}
					for i, rg := range ranges {
						if d := diffVisits(visitsOf(t, s, "alpha", rg[0], rg[1]), want[i]); d != "" {
							t.Fatalf("%s, [%s, %s): %s", phase, rg[0], rg[1], d)
						}
					}
				}
				clk.Advance(2 * time.Minute)
				if _, err := s.AggregatePending(ctx); err != nil {
					t.Fatal(err)
				}
				check("after the aggregation", 10) // 10 to 19 March; the 20th is not over
				bs, err := s.readBuckets(ctx, "alpha", lo, hi)
				if err != nil {
					t.Fatal(err)
				}
				parts := 0
				for _, b := range bs {
					parts += b.parts
				}
				t.Logf("%d visits over %d ranges; %d days bucketed in %d parts", len(want[0]), len(ranges), len(bs), parts)
				// genEvents has 12 visitors: a part is cut within a
				// visitor's hits of a day when a day has more parts than
				// visitors.
				if part == 600 && parts <= 12*len(bs) {
					t.Fatalf("%d parts of %d days: none need be cut within a visitor's hits", parts, len(bs))
				}
				// Positive control: a visit with one hit less, or another
				// goal, is caught.
				for name, plant := range map[string]func([]Visit){
					"a hit less": func(vs []Visit) { vs[len(vs)/2].Hits = vs[len(vs)/2].Hits[1:] },
					"a goal":     func(vs []Visit) { vs[0].Goals = append(slices.Clone(vs[0].Goals), "zz") },
				} {
					planted := slices.Clone(want[0])
					plant(planted)
					if diffVisits(visitsOf(t, s, "alpha", ranges[0][0], ranges[0][1]), planted) == "" {
						t.Fatalf("positive control (%s): not caught", name)
					}
				}
				// The 20th is bucketed once over, then every raw hit
				// expires: the buckets answer alone.
				clk.Set(Day.next(now).Add(time.Minute))
				if _, err := s.AggregatePending(ctx); err != nil {
					t.Fatal(err)
				}
				check("the last day over", 11)
				checkDesign(t, s)
				clk.Set(now.AddDate(0, 0, 45))
				if rs := s.RawStart(); !rs.After(hi) {
					t.Fatalf("the raw hits start on %s, want after %s", rs, hi)
				}
				check("the raw hits expired", 11)
			})
		}
	})
}

// TestVisits_LateHitAfterBucket: a hit of a day already bucketed is read
// at once (its day from the raw hits until the next pass), and the next
// pass writes the day's bucket again, deleting the old parts.
func TestVisits_LateHitAfterBucket(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 0, 10, 0, 0, time.UTC)
		clk, s := bucketSite(t, b, now, nil)
		day := time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)
		at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
		for _, e := range []Event{
			{VisitorID: "v1", Time: at(9, 0), Name: PageView, Path: "/"},
			{VisitorID: "v1", Time: at(9, 5), Name: PageView, Path: "/pricing"},
			{VisitorID: "v2", Time: at(23, 58), Name: PageView, Path: "/docs/a"},
		} {
			e.Site = "alpha"
			rec(t, s, e)
		}
		if _, err := s.AggregatePending(ctx); err != nil {
			t.Fatal(err)
		}
		head := func() bucket {
			t.Helper()
			bs, err := s.readBuckets(ctx, "alpha", day, day)
			if err != nil || len(bs) != 1 {
				t.Fatalf("buckets of %s: %v, %v", dayOf(day), bs, err)
			}
			return bs[day]
		}
		first := head()
		if first.hits != 3 || first.parts != 1 {
			t.Fatalf("bucket %+v, want 3 hits in 1 part", first)
		}
		// A late hit: v2's visit goes on, and v3 converts.
		clk.Advance(30 * time.Second)
		rec(t, s, Event{Site: "alpha", VisitorID: "v2", Time: at(23, 59), Name: "Purchase", Path: "/docs/a"})
		rec(t, s, Event{Site: "alpha", VisitorID: "v3", Time: at(12, 0), Name: PageView, Path: "/signup/x"})
		from, to := day, Day.next(day)
		want := rawReference(t, s, "alpha", from, to)
		if len(want) != 3 || len(want[1].Hits) != 2 {
			t.Fatalf("the raw visits: %+v", want)
		}
		if nb, nr := sources(t, s, "alpha", from, to); nb != 0 || nr != 1 {
			t.Errorf("with a late hit: %d days from buckets, %d raw; want the day raw", nb, nr)
		}
		if d := diffVisits(visitsOf(t, s, "alpha", from, to), want); d != "" {
			t.Fatalf("with a late hit, before the pass: %s", d)
		}
		clk.Advance(2 * time.Minute)
		if _, err := s.AggregatePending(ctx); err != nil {
			t.Fatal(err)
		}
		second := head()
		if second.hits != 5 || second.written <= first.written {
			t.Fatalf("bucket after the late hits %+v, want 5 hits in a newer set than %s", second, first.written)
		}
		if n := countParts(t, s, "alpha", day); n != second.parts {
			t.Errorf("%d parts stored, the bucket has %d: the old ones are not deleted", n, second.parts)
		}
		if n := countVisitParts(t, s, "alpha", day); n != second.visitParts || n == 0 {
			t.Errorf("%d visit parts stored, the bucket has %d: the old ones are not deleted", n, second.visitParts)
		}
		if nb, _ := sources(t, s, "alpha", from, to); nb != 1 {
			t.Errorf("after the pass: %d days from buckets, want 1", nb)
		}
		if d := diffVisits(visitsOf(t, s, "alpha", from, to), want); d != "" {
			t.Fatalf("after the pass: %s", d)
		}
		// Aggregating again writes no bucket: its hits are the same.
		if err := s.AggregateDay(ctx, "alpha", day); err != nil {
			t.Fatal(err)
		}
		if again := head(); again != second {
			t.Errorf("aggregating again rewrote the bucket: %+v, was %+v", again, second)
		}
		// Once the raw hits are gone, the visits read from the visit parts
		// are those of the late hits too.
		clk.Set(now.AddDate(0, 0, 45))
		whole := &VisitOptions{Skip: FieldGoals | FieldHits}
		if d := diffWhole(collectVisits(t, s, "alpha", from, to, whole), without(want, 0)); d != "" {
			t.Fatalf("from the visit parts, after the pass: %s", d)
		}
	})
}

// countParts returns the HitBucketPart items of site's day.
func countParts(t *testing.T, s *Store, site string, day time.Time) int {
	t.Helper()
	prefix := partial(entHitBucketPart.Keys[attrSK], map[string]string{"date": dayOf(day)}, "written")
	n, err := s.t.Count(context.Background(), &table.Query{Hash: sitePK(site), Range: table.BeginsWith(prefix), Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// countVisitParts returns the HitBucketVisits items of site's day.
func countVisitParts(t *testing.T, s *Store, site string, day time.Time) int {
	t.Helper()
	prefix := partial(entHitVisits.Keys[attrSK], map[string]string{"date": dayOf(day)}, "written")
	n, err := s.t.Count(context.Background(), &table.Query{Hash: sitePK(site), Range: table.BeginsWith(prefix), Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// dyingAPI is the API of a process that dies right after a write: every
// write fails once die, called after each write that succeeded, has
// returned true. Reads go on (a dead process makes none).
type dyingAPI struct {
	timetable.API
	die  func(op string, in any) bool
	dead atomic.Bool
}

func (d *dyingAPI) write(op string, in any, call func() error) error {
	if d.dead.Load() {
		return errKilled
	}
	if err := call(); err != nil {
		return err
	}
	if d.die(op, in) {
		d.dead.Store(true)
	}
	return nil
}

func (d *dyingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (out *dynamodb.PutItemOutput, err error) {
	err = d.write("PutItem", in, func() (e error) { out, e = d.API.PutItem(ctx, in, o...); return })
	return out, err
}

func (d *dyingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (out *dynamodb.UpdateItemOutput, err error) {
	err = d.write("UpdateItem", in, func() (e error) { out, e = d.API.UpdateItem(ctx, in, o...); return })
	return out, err
}

func (d *dyingAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (out *dynamodb.DeleteItemOutput, err error) {
	err = d.write("DeleteItem", in, func() (e error) { out, e = d.API.DeleteItem(ctx, in, o...); return })
	return out, err
}

func (d *dyingAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (out *dynamodb.BatchWriteItemOutput, err error) {
	err = d.write("BatchWriteItem", in, func() (e error) { out, e = d.API.BatchWriteItem(ctx, in, o...); return })
	return out, err
}

// writesSK reports whether the write in puts or deletes an item whose
// sort key starts with prefix.
func writesSK(in any, prefix string) bool {
	switch x := in.(type) {
	case *dynamodb.PutItemInput:
		return strings.HasPrefix(getS(x.Item, attrSK), prefix)
	case *dynamodb.DeleteItemInput:
		return strings.HasPrefix(getS(x.Key, attrSK), prefix)
	case *dynamodb.BatchWriteItemInput:
		for _, ws := range x.RequestItems {
			for _, w := range ws {
				if w.PutRequest != nil && strings.HasPrefix(getS(w.PutRequest.Item, attrSK), prefix) ||
					w.DeleteRequest != nil && strings.HasPrefix(getS(w.DeleteRequest.Key, attrSK), prefix) {
					return true
				}
			}
		}
	}
	return false
}

// TestVisits_BucketPassKilled: a pass that dies between the writes of a
// bucket (after its new parts, or after the switch of its HitBucket item
// but before the old parts go) leaves the day readable with the same
// visits, from the old bucket or the raw hits; the next pass, of another
// Store, finishes the bucket and deletes the parts left behind; once the
// raw hits have expired, the bucket gives the same visits.
func TestVisits_BucketPassKilled(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, c := range []struct {
			name string
			die  func(op string, in any) bool
		}{
			{"after the new parts", func(op string, in any) bool {
				return op == "BatchWriteItem" && writesSK(in, "HITPART#")
			}},
			{"after the switch", func(op string, in any) bool {
				return op == "PutItem" && writesSK(in, "HITS#")
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				now := time.Date(2024, 3, 20, 0, 10, 0, 0, time.UTC)
				clk, s := bucketSite(t, b, now, &Options{partBytes: 1 << 10})
				day := time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)
				r := rand.New(rand.NewPCG(21, 22))
				for _, e := range genEvents(r, []string{"alpha"}, map[string]string{"alpha": "alpha.example"}, Day.next(day), day) {
					rec(t, s, e)
				}
				if _, err := s.AggregatePending(ctx); err != nil {
					t.Fatal(err)
				}
				bs, err := s.readBuckets(ctx, "alpha", day, day)
				if err != nil || bs[day].parts < 2 {
					t.Fatalf("first bucket %+v, %v; want several parts", bs, err)
				}
				first := bs[day]
				// Late hits, then a pass by a Store that dies mid-way.
				clk.Advance(time.Minute)
				rec(t, s, Event{Site: "alpha", VisitorID: "late", Time: day.Add(20 * time.Hour), Name: PageView, Path: "/late"})
				rec(t, s, Event{Site: "alpha", VisitorID: "v00a", Time: day.Add(23*time.Hour + 59*time.Minute), Name: "Purchase", Path: "/late"})
				from, to := day, Day.next(day)
				want := rawReference(t, s, "alpha", from, to)
				clk.Advance(2 * time.Minute)
				api := &dyingAPI{API: s.t.API(), die: c.die}
				o := s.o
				o.LeaseOwner, o.AggregateEvery = "dying", -1
				dying, err := Open(ctx, api, &o)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := dying.AggregatePending(ctx); !errors.Is(err, errKilled) {
					t.Fatalf("the dying pass: %v, want it killed", err)
				}
				if !api.dead.Load() {
					t.Fatal("the pass did not reach the write it dies after")
				}
				bs, err = s.readBuckets(ctx, "alpha", day, day)
				if err != nil {
					t.Fatal(err)
				}
				switch after := bs[day]; c.name {
				case "after the new parts":
					if after != first || countParts(t, s, "alpha", day) <= first.parts {
						t.Errorf("bucket %+v with %d parts stored; want the old one whole, and the new parts beside it", after, countParts(t, s, "alpha", day))
					}
				default:
					if after.written <= first.written || countParts(t, s, "alpha", day) != first.parts+after.parts {
						t.Errorf("bucket %+v with %d parts stored; want the new one, and the old parts beside it", after, countParts(t, s, "alpha", day))
					}
				}
				if d := diffVisits(visitsOf(t, s, "alpha", from, to), want); d != "" {
					t.Fatalf("after the killed pass: %s", d)
				}
				// The dead Store's lease ends; another Store's pass
				// finishes the day.
				clk.Advance(dying.LeaseDuration() + time.Minute)
				if _, err := s.AggregatePending(ctx); err != nil {
					t.Fatal(err)
				}
				bs, err = s.readBuckets(ctx, "alpha", day, day)
				if err != nil {
					t.Fatal(err)
				}
				if n := countParts(t, s, "alpha", day); n != bs[day].parts || bs[day].hits != first.hits+2 {
					t.Errorf("after the next pass: bucket %+v, %d parts stored; want its parts alone, with the late hits", bs[day], n)
				}
				if marks, err := s.pendingMarks(ctx, "alpha"); err != nil || len(marks) != 0 {
					t.Errorf("after the next pass: %d marks, %v", len(marks), err)
				}
				if d := diffVisits(visitsOf(t, s, "alpha", from, to), want); d != "" {
					t.Fatalf("after the next pass: %s", d)
				}
				clk.Set(now.AddDate(0, 0, 40))
				if d := diffVisits(visitsOf(t, s, "alpha", from, to), want); d != "" {
					t.Fatalf("from the bucket alone: %s", d)
				}
			})
		}
	})
}

// TestVisits_Expired: days whose hits are not kept are refused with an
// *ExpiredError saying from when a range can start: beyond the buckets'
// retention, and days aggregated without a bucket (as before buckets
// were written) once their raw hits have expired; days without hits are
// no obstacle.
func TestVisits_Expired(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		clk, s := bucketSite(t, b, now, nil)
		for _, d := range []int{3, 5, 8} {
			rec(t, s, Event{Site: "alpha", VisitorID: "v", Time: now.AddDate(0, 0, -d), Name: PageView, Path: "/"})
		}
		if _, err := s.AggregatePending(ctx); err != nil {
			t.Fatal(err)
		}
		// The buckets of 12 and 15 March go, as if they were aggregated
		// before buckets were written.
		for _, d := range []time.Time{time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC)} {
			k, _ := bucketKey("alpha", d)
			if _, err := s.t.Delete(ctx, k, nil); err != nil {
				t.Fatal(err)
			}
		}
		from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC)
		if vs := visitsOf(t, s, "alpha", from, to); len(vs) != 3 {
			t.Fatalf("%d visits while the raw hits are kept, want 3", len(vs))
		}
		clk.Set(now.AddDate(0, 0, 40))
		var ee *ExpiredError
		_, err := s.RawVisits(ctx, "alpha", from, to)
		if !errors.As(err, &ee) || !errors.Is(err, ErrExpired) || !ee.Start.Equal(time.Date(2024, 3, 16, 0, 0, 0, 0, time.UTC)) ||
			!strings.Contains(err.Error(), "those of 2024-03-15 are not kept, so a range computed from them must start on 2024-03-16") {
			t.Fatalf("days without buckets: %v, want an *ExpiredError from 2024-03-16", err)
		}
		if vs := visitsOf(t, s, "alpha", ee.Start, to); len(vs) != 1 {
			t.Errorf("from %s: %d visits, want 1", ee.Start, len(vs))
		}
		// Two years on, the bucket of the 17th has expired too.
		clk.Set(time.Date(2026, 3, 19, 0, 0, 0, 0, time.UTC))
		_, err = s.RawVisits(ctx, "alpha", time.Date(2024, 3, 17, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC))
		if !errors.As(err, &ee) || !ee.Start.Equal(s.BucketStart()) || !ee.Start.Equal(time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("beyond the buckets' retention: %v, want an *ExpiredError from 2024-03-19", err)
		}
	})
}
