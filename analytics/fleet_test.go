package analytics

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/table"
)

// Tests of several Stores (servers) on one table: they must give the
// answers one Store gives.

// errKilled is what a killed server's table calls return.
var errKilled = errors.New("the server was killed")

// killable is the API of one server: once killed, every item operation
// fails without reaching the backend, as if the process had died.
type killable struct {
	timetable.API
	dead atomic.Bool
}

func (k *killable) check() error {
	if k.dead.Load() {
		return errKilled
	}
	return nil
}

func (k *killable) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.API.GetItem(ctx, in, o...)
}

func (k *killable) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.API.PutItem(ctx, in, o...)
}

func (k *killable) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.API.UpdateItem(ctx, in, o...)
}

func (k *killable) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.API.DeleteItem(ctx, in, o...)
}

func (k *killable) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.API.Query(ctx, in, o...)
}

func (k *killable) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.API.BatchWriteItem(ctx, in, o...)
}

// fleet is Stores on one table of one backend.
type fleet struct {
	api   timetable.API
	name  string // the table
	clk   *clock
	apis  map[*Store]*killable
	close []*Store
}

// newFleet returns an empty fleet on a new table of b.
func newFleet(t *testing.T, b backend, clk *clock) *fleet {
	t.Helper()
	f := &fleet{api: b.OpenOn(t, clk), name: dynamotest.TableName(t, "fleet"), clk: clk, apis: map[*Store]*killable{}}
	t.Cleanup(func() {
		for _, s := range f.close {
			_ = s.Close()
		}
		if len(f.close) > 0 {
			_ = f.close[0].Table().Drop(context.Background())
		}
	})
	return f
}

// open adds a Store (a server) named owner to the fleet, with o's other
// settings; the first one creates the table.
func (f *fleet) open(t *testing.T, owner string, o *Options) *Store {
	t.Helper()
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.Now, opts.Table, opts.LeaseOwner = f.clk.Now, f.name, owner
	opts.TableOptions = &table.Options{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, RetryTimeout: 20 * time.Second}
	api := &killable{API: f.api}
	s, err := Open(context.Background(), api, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.close) == 0 {
		if err := s.EnsureTable(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	f.apis[s] = api
	f.close = append(f.close, s)
	return s
}

// kill makes s's table calls fail from now on: s is abandoned, never
// closed.
func (f *fleet) kill(s *Store) { f.apis[s].dead.Store(true) }

// holders checks, from the hook every Store calls before and after
// aggregating a day, that a site is aggregated by one Store at a time and
// only by the holder of its lease, and logs who aggregated what.
type holders struct {
	t       *table.Table // to read the lease
	clk     *clock
	mu      sync.Mutex
	active  map[string]string // site -> the owner aggregating it
	done    map[string][]string
	errs    []string
	onBegin func(owner, site string) // if set, called first (outside mu)
}

func newHolders(t *table.Table, clk *clock) *holders {
	return &holders{t: t, clk: clk, active: map[string]string{}, done: map[string][]string{}}
}

// begin records that owner starts to aggregate day of site, and what is
// wrong with it.
func (h *holders) begin(owner, site string, day time.Time) {
	if h.onBegin != nil {
		h.onBegin(owner, site)
	}
	k, _ := leaseKey(site)
	holder, until, err := h.t.LeaseHolder(context.Background(), k)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err != nil:
		h.errs = append(h.errs, fmt.Sprintf("%s aggregates %s: cannot read the lease: %v", owner, site, err))
	case holder != owner || !until.After(h.clk.Now()):
		h.errs = append(h.errs, fmt.Sprintf("%s aggregates %s %s without its lease (held by %q until %s)", owner, site, dayOf(day), holder, until))
	}
	if other, ok := h.active[site]; ok {
		h.errs = append(h.errs, fmt.Sprintf("%s and %s aggregate %s at once", other, owner, site))
	}
	h.active[site] = owner
	h.done[site] = append(h.done[site], owner+" "+dayOf(day))
}

// end records that owner is done with a day of site.
func (h *holders) end(owner, site string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.active[site] == owner {
		delete(h.active, site)
	}
}

// hook is the Options.onDay of the fleet's Stores.
func (h *holders) hook(owner, site string, day time.Time) func() {
	h.begin(owner, site, day)
	return func() { h.end(owner, site) }
}

// take returns and forgets what was logged: errors and days done.
func (h *holders) take() (errs []string, done map[string][]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	errs, done = h.errs, h.done
	h.errs, h.done = nil, map[string][]string{}
	return errs, done
}

// Positive control of the holders check: two owners on one site at once,
// and an owner without the lease, are reported.
func TestFleet_HoldersCatchesOverlap(t *testing.T) {
	clk, s := openWithSite(t, backends()[0], time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC), "a")
	h := newHolders(s.t, clk)
	l, err := s.takeLease(context.Background(), "a")
	if err != nil || l == nil {
		t.Fatalf("takeLease: %v, %v", l, err)
	}
	day := clk.Now()
	h.begin(s.o.LeaseOwner, "a", day)
	if errs, _ := h.take(); len(errs) != 0 {
		t.Fatalf("the lease holder alone is reported: %v", errs)
	}
	h.begin("intruder", "a", day)
	errs, _ := h.take()
	if len(errs) != 2 || !strings.Contains(errs[0], "without its lease") || !strings.Contains(errs[1], "at once") {
		t.Fatalf("an intruder on a held site gives %q, want a missing lease and an overlap", errs)
	}
}

// Three Stores on one table record hits concurrently while their loops
// aggregate; one is killed mid-pass holding a site's lease, which waits
// until the claim ends and is then taken over. The aggregates equal the
// model of the acknowledged hits, read through every Store.
func TestFleet_Aggregates(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		t.Parallel()
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		clk := newClock(now) // stands still until the takeover: no claim ends by itself
		f := newFleet(t, b, clk)
		var h *holders
		o := &Options{AggregateEvery: 10 * time.Millisecond, onDay: func(owner, site string, day time.Time) func() {
			return h.hook(owner, site, day)
		}}
		a, bb, c := f.open(t, "A", o), f.open(t, "B", o), f.open(t, "C", o)
		h = newHolders(a.t, clk)

		sites := []string{"alpha", "beta", "gamma"}
		m := &model{domains: map[string]string{}, goals: map[string][]Goal{}}
		for i, id := range sites {
			m.domains[id] = id + ".example"
			// Sites and goals made through different Stores.
			s := []*Store{a, bb, c}[i]
			if err := s.CreateSite(ctx, Site{ID: id, Domains: []string{m.domains[id]}}); err != nil {
				t.Fatal(err)
			}
			for _, g := range []Goal{{ID: "signup", Kind: GoalPage, Match: "/signup/*"}, {ID: "purchase", Kind: GoalEvent, Match: "Purchase"}} {
				if err := s.PutGoal(ctx, id, g); err != nil {
					t.Fatal(err)
				}
				m.goals[id] = append(m.goals[id], g)
			}
		}
		r := rand.New(rand.NewPCG(3, 4))
		all := genEvents(r, sites, m.domains, now, time.Date(2024, 3, 18, 6, 0, 0, 0, time.UTC))
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })

		// C dies at the first day it starts once armed, holding that
		// site's lease; A and B record the second half of their hits after.
		var armed atomic.Bool
		cDead := make(chan string, 1)
		h.onBegin = func(owner, site string) {
			if owner == "C" && armed.CompareAndSwap(true, false) {
				f.kill(c)
				cDead <- site
			}
		}
		var (
			mu    sync.Mutex
			acked []Event
		)
		record := func(s *Store, es []Event) {
			for _, e := range es {
				if err := s.Record(ctx, e); err != nil {
					t.Errorf("Record through %s: %v", s.o.LeaseOwner, err)
					continue
				}
				mu.Lock()
				acked = append(acked, e)
				mu.Unlock()
			}
		}
		dead := make(chan struct{}) // closed once C is dead
		var deadOnce sync.Once
		announce := func() { deadOnce.Do(func() { close(dead) }) }
		defer announce()
		var wgC, wgAB sync.WaitGroup
		parts := [3][]Event{}
		for i, e := range all {
			parts[i%3] = append(parts[i%3], e)
		}
		for k := range 2 { // two clients per Store
			half := func(es []Event) []Event { return es[k*len(es)/2 : (k+1)*len(es)/2] }
			wgC.Go(func() { record(c, half(parts[2])) })
			for i, s := range []*Store{a, bb} {
				es := half(parts[i])
				wgAB.Go(func() {
					record(s, es[:len(es)/2])
					<-dead
					record(s, es[len(es)/2:])
				})
			}
		}
		wgC.Wait()
		armed.Store(true)
		var killedSite string
		select {
		case killedSite = <-cDead:
		case <-time.After(time.Minute):
			t.Error("C took no site's lease in a minute of passes")
		}
		announce()
		wgAB.Wait()
		if t.Failed() {
			return
		}
		// A and B stop; the dead C still holds its site's lease.
		for _, s := range []*Store{a, bb} {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if errs, _ := h.take(); len(errs) > 0 {
			t.Fatalf("while recording:\n%s", strings.Join(errs, "\n"))
		}
		owner, until, err := a.LeaseHolder(ctx, killedSite)
		if err != nil || owner != "C" || !until.Equal(now.Add(a.LeaseDuration())) {
			t.Fatalf("lease of %s after C died: %q until %s, %v; want C until %s", killedSite, owner, until, err, now.Add(a.LeaseDuration()))
		}
		// Until C's claim ends, A and B aggregate every site but C's.
		passes := func() {
			var wg sync.WaitGroup
			for _, s := range []*Store{a, bb} {
				wg.Go(func() {
					if _, err := s.AggregatePending(ctx); err != nil {
						t.Errorf("AggregatePending through %s: %v", s.o.LeaseOwner, err)
					}
				})
			}
			wg.Wait()
		}
		passes()
		errs, done := h.take()
		if len(errs) > 0 || len(done[killedSite]) > 0 {
			t.Fatalf("before C's claim ended: %v; %s aggregated by %v", errs, killedSite, done[killedSite])
		}
		if marks, err := a.pendingMarks(ctx, killedSite); err != nil || len(marks) == 0 {
			t.Fatalf("the pending days of %s: %d, %v; want them left for the takeover", killedSite, len(marks), err)
		}
		// Once it has ended (and past MarkEvery, so that marks go), the
		// next passes take the site over: every pending day of every
		// site is done by one Store, once.
		clk.Advance(a.LeaseDuration() + 2*time.Minute)
		passes()
		errs, done = h.take()
		if len(errs) > 0 {
			t.Fatalf("takeover:\n%s", strings.Join(errs, "\n"))
		}
		if len(done[killedSite]) == 0 {
			t.Fatalf("%s was not taken over after C's claim ended", killedSite)
		}
		for site, ds := range done {
			seen := map[string]bool{}
			for _, d := range ds {
				day := d[strings.IndexByte(d, ' ')+1:]
				if seen[day] {
					t.Errorf("%s: day %s aggregated twice in one round: %v", site, day, ds)
				}
				seen[day] = true
			}
		}
		for _, site := range sites {
			// Today's mark stays, aggregated, until the day is over and
			// its hit bucket written.
			marks, err := a.pendingMarks(ctx, site)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range marks {
				if markDue(m, clk.Now()) {
					t.Errorf("%s: day %s still pending", site, getS(m, "date"))
				}
			}
			if owner, _, err := a.LeaseHolder(ctx, site); err != nil || owner != "" {
				t.Errorf("%s: lease held by %q after the passes (%v)", site, owner, err)
			}
		}

		// A restarted C (a new Store), A and B read the same aggregates,
		// equal to the model of the acknowledged hits.
		d := f.open(t, "D", &Options{AggregateEvery: -1})
		m.events = acked
		if len(acked) != len(all) {
			t.Fatalf("%d hits acknowledged of %d sent", len(acked), len(all))
		}
		check := func(plant func(*modelFigures)) []string {
			var diffs []string
			for _, site := range sites {
				for _, rg := range modelRanges(time.Date(2024, 3, 18, 0, 0, 0, 0, time.UTC), now, 7) {
					fig := m.figures(site, rg[0], rg[1])
					if plant != nil {
						plant(fig)
					}
					for _, s := range []*Store{a, bb, d} {
						for _, diff := range compare(ctx, s, site, rg[0], rg[1], fig) {
							diffs = append(diffs, "through "+s.o.LeaseOwner+": "+diff)
						}
					}
				}
			}
			return diffs
		}
		if diffs := check(nil); len(diffs) > 0 {
			t.Fatalf("%d differences from the model:\n%s", len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
		}
		// Positive control: a day counted twice (one more page view in the
		// model's day than stored) is caught.
		if diffs := check(func(fig *modelFigures) {
			if fig.pageViews > 0 {
				fig.pageViews++
			}
		}); len(diffs) == 0 {
			t.Fatal("positive control: the comparison did not catch a planted page view")
		}
		if !slices.Contains([]string{"alpha", "beta", "gamma"}, killedSite) {
			t.Fatalf("C died on site %q", killedSite)
		}
	})
}

// The realtime counters of two Stores on one table add up: each adds its
// hits to the minute's item, neither overwrites the other's.
func TestFleet_RealtimeAddsUp(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(time.Date(2024, 3, 20, 12, 0, 30, 0, time.UTC))
		f := newFleet(t, b, clk)
		a, bb := f.open(t, "A", nil), f.open(t, "B", nil)
		if err := a.CreateSite(ctx, Site{ID: "a"}); err != nil {
			t.Fatal(err)
		}
		// 40 page views through each Store at once: v0..v9 on / through
		// A, v5..v14 on /b through B, in the same minutes.
		var wg sync.WaitGroup
		for i, s := range []*Store{a, bb} {
			for k := range 4 {
				wg.Go(func() {
					for j := range 10 {
						v := fmt.Sprintf("v%d", 5*i+j)
						e := Event{Site: "a", Time: clk.Now().Add(-time.Duration(k*20) * time.Second), Name: PageView, VisitorID: v, Path: []string{"/", "/b"}[i]}
						if err := s.Record(ctx, e); err != nil {
							t.Error(err)
						}
					}
				})
			}
		}
		wg.Wait()
		for _, s := range []*Store{a, bb} {
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range []*Store{a, bb} {
			wantRealtime(t, s, 15, 80, []Count{{"/", 10}, {"/b", 10}})
		}
	})
}

// Two Stores on one table give one visitor one id a day, also when both
// ask first at once, and at each day change.
func TestFleet_OneVisitorIDADay(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		day := time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC)
		clk := newClock(day)
		f := newFleet(t, b, clk)
		stores := []*Store{f.open(t, "A", nil), f.open(t, "B", nil), f.open(t, "C", nil)}
		ids := map[string]string{} // id -> the day that gave it
		for d := range 5 {
			// Late in the day before the change, then at its first instant.
			for _, at := range []time.Duration{0, 23*time.Hour + 59*time.Minute} {
				clk.Set(day.AddDate(0, 0, d).Add(at))
				got := make([]string, len(stores))
				var wg sync.WaitGroup
				for i, s := range stores {
					wg.Go(func() {
						v, err := s.VisitorID(ctx, "a", "127.0.0.1", "UA")
						if err != nil {
							t.Error(err)
						}
						got[i] = v
					})
				}
				wg.Wait()
				if got[0] != got[1] || got[1] != got[2] {
					t.Fatalf("%s: the Stores give one visitor the ids %v", clk.Now(), got)
				}
				today := dayOf(clk.Now())
				if other, ok := ids[got[0]]; ok && other != today {
					t.Fatalf("%s: id %s was also the id of %s", today, got[0], other)
				}
				ids[got[0]] = today
			}
		}
		if len(ids) != 5 {
			t.Fatalf("%d ids over 5 days, want 5", len(ids))
		}
	})
}

// Changes made through one Store reach another within the stated bounds:
// a site's settings, read by Record, within SiteCacheTTL; whether it is
// public, its shared links and its goals at once (they are not cached).
func TestFleet_ChangesReachOtherStores(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		clk := newClock(now)
		f := newFleet(t, b, clk)
		a, bb := f.open(t, "A", &Options{AggregateEvery: -1}), f.open(t, "B", &Options{AggregateEvery: -1})
		if bb.o.SiteCacheTTL != 10*time.Second {
			t.Fatalf("SiteCacheTTL defaults to %s, want 10s", bb.o.SiteCacheTTL)
		}
		if err := a.CreateSite(ctx, Site{ID: "a", Domains: []string{"a.example"}, Public: true}); err != nil {
			t.Fatal(err)
		}
		slug, link, err := a.CreateSharedLink(ctx, "a", "wiki")
		if err != nil {
			t.Fatal(err)
		}
		hit := func(s *Store, path, ref string) error {
			return s.Record(ctx, Event{Site: "a", Time: clk.Now(), Name: PageView, VisitorID: "v", Path: path, Referrer: ref})
		}
		// Made private, shared link deleted, goal added through A.
		if err := a.UpdateSite(ctx, Site{ID: "a", Domains: []string{"a.example"}}); err != nil {
			t.Fatal(err)
		}
		if err := a.DeleteSharedLink(ctx, "a", link.ID); err != nil {
			t.Fatal(err)
		}
		if err := a.PutGoal(ctx, "a", Goal{ID: "pricing", Kind: GoalPage, Match: "/pricing"}); err != nil {
			t.Fatal(err)
		}
		if st, err := bb.Site(ctx, "a"); err != nil || st.Public {
			t.Errorf("B reads site a as %+v, %v right after A made it private", st, err)
		}
		if ok, err := bb.CheckSharedLink(ctx, "a", slug); err != nil || ok {
			t.Errorf("B accepts a shared link A deleted: %v, %v", ok, err)
		}
		if err := hit(bb, "/pricing", ""); err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Minute) // past MarkEvery
		if _, err := bb.AggregatePending(ctx); err != nil {
			t.Fatal(err)
		}
		if sum, err := a.Summary(ctx, "a", now.Truncate(24*time.Hour), now.Add(24*time.Hour)); err != nil || sum.Conversions != 1 {
			t.Errorf("conversions aggregated by B after A added the goal: %+v, %v; want 1", sum, err)
		}

		// A site deleted through A is refused by Record in B once
		// SiteCacheTTL has passed since B read it.
		if err := hit(bb, "/", ""); err != nil { // B reads and caches the site
			t.Fatal(err)
		}
		if err := a.DeleteSite(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(bb.o.SiteCacheTTL)
		if err := hit(bb, "/", ""); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("B records a hit on a site deleted through A SiteCacheTTL ago: %v", err)
		}
	})
}
