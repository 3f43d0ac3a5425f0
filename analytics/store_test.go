package analytics

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

func TestStore_SitesAndGoals(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC))
		s := openStore(t, b, clk, nil)
		if err := s.CreateSite(ctx, Site{ID: "a", Name: "A", Domains: []string{"A.example"}, TimeZone: "UTC"}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSite(ctx, Site{ID: "a"}); !errors.Is(err, ErrExists) {
			t.Errorf("second CreateSite: %v, want ErrExists", err)
		}
		for _, bad := range []Site{{ID: "A B"}, {ID: ""}, {ID: "x", Domains: []string{"http://x"}}, {ID: "x", TimeZone: "Nowhere/Else"}} {
			if err := s.CreateSite(ctx, bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("CreateSite(%+v): %v, want ErrInvalid", bad, err)
			}
		}
		st, err := s.Site(ctx, "a")
		if err != nil || st.Name != "A" || len(st.Domains) != 1 || st.Domains[0] != "a.example" {
			t.Fatalf("Site = %+v, %v", st, err)
		}
		if err := s.UpdateSite(ctx, Site{ID: "a", Name: "A2"}); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateSite(ctx, Site{ID: "zz"}); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("UpdateSite of a missing site: %v", err)
		}
		if err := s.CreateSite(ctx, Site{ID: "b"}); err != nil {
			t.Fatal(err)
		}
		sites, err := s.Sites(ctx)
		if err != nil || len(sites) != 2 || sites[0].Name != "A2" || sites[1].ID != "b" {
			t.Fatalf("Sites = %+v, %v", sites, err)
		}
		if err := s.PutGoal(ctx, "a", Goal{ID: "g", Kind: GoalPage, Match: "/x/*"}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutGoal(ctx, "a", Goal{ID: "h", Kind: "other", Match: "x"}); !errors.Is(err, ErrInvalid) {
			t.Errorf("PutGoal of a bad kind: %v", err)
		}
		if err := s.PutGoal(ctx, "nope", Goal{ID: "g", Kind: GoalEvent, Match: "x"}); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("PutGoal on a missing site: %v", err)
		}
		gs, err := s.Goals(ctx, "a")
		if err != nil || len(gs) != 1 || gs[0].Match != "/x/*" {
			t.Fatalf("Goals = %+v, %v", gs, err)
		}
		if err := s.DeleteGoal(ctx, "a", "g"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteGoal(ctx, "a", "g"); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("second DeleteGoal: %v", err)
		}
		rec(t, s, Event{Site: "a", Time: clk.Now(), Name: PageView, VisitorID: "v", Path: "/"})
		if err := s.DeleteSite(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Site(ctx, "a"); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("Site after DeleteSite: %v", err)
		}
		if n, err := s.Table().Count(ctx, &table.Query{Hash: sitePK("a")}); err != nil || n != 0 {
			t.Errorf("site partition after DeleteSite: %d items, %v", n, err)
		}
	})
}

func rec(t *testing.T, s *Store, e Event) {
	t.Helper()
	if err := s.Record(context.Background(), e); err != nil {
		t.Fatal(err)
	}
}

// pageViews returns a function that records in s a page view of site "a"
// by visitor v of path, ago before now.
func pageViews(t *testing.T, s *Store, now time.Time) func(ago time.Duration, v, path string) {
	return func(ago time.Duration, v, path string) {
		rec(t, s, Event{Site: "a", Time: now.Add(-ago), Name: PageView, VisitorID: v, Path: path})
	}
}

func TestStore_Record_Invalid(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	_, s := openWithSite(t, backends()[0], now, "a")
	ok := Event{Site: "a", Time: now, Name: PageView, VisitorID: "v", Path: "/"}
	for name, mut := range map[string]func(*Event){
		"no time":      func(e *Event) { e.Time = time.Time{} },
		"future":       func(e *Event) { e.Time = now.Add(time.Hour) },
		"too old":      func(e *Event) { e.Time = now.Add(-31 * 24 * time.Hour) },
		"no name":      func(e *Event) { e.Name = "" },
		"bad path":     func(e *Event) { e.Path = "x" },
		"control char": func(e *Event) { e.Path = "/\n" },
		"bad visitor":  func(e *Event) { e.VisitorID = "a b" },
		"bad site":     func(e *Event) { e.Site = "A#" },
		"long value":   func(e *Event) { e.Browser = string(make([]byte, 600)) },
	} {
		e := ok
		mut(&e)
		if err := s.Record(ctx, e); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Record = %v, want ErrInvalid", name, err)
		}
	}
	e := ok
	e.Site = "missing"
	if err := s.Record(ctx, e); !errors.Is(err, timetable.ErrNotFound) {
		t.Errorf("unknown site: %v", err)
	}
}

// TTLs come from the event time, not from when the item is written.
func TestStore_TTL(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		clk, s := openWithSite(t, b, now, "a")
		old := time.Date(2024, 3, 1, 10, 30, 0, 0, time.UTC) // backfilled, 19 days old
		rec(t, s, Event{Site: "a", Time: old, Name: PageView, VisitorID: "v", Path: "/"})
		rec(t, s, Event{Site: "a", Time: old.Add(time.Minute), Name: "Signup", VisitorID: "v", Path: "/"})
		rec(t, s, Event{Site: "a", Time: now.Add(-90 * time.Second), Name: PageView, VisitorID: "w", Path: "/live"})
		if err := s.AggregateDay(ctx, "a", old); err != nil {
			t.Fatal(err)
		}
		day := 24 * time.Hour
		want := map[string]int64{
			"PV#" + timestamp(old):                                     old.Add(30 * day).Unix(),
			"EVENT#" + timestamp(old.Add(time.Minute)):                 old.Add(time.Minute + 30*day).Unix(),
			"SESSION#" + timestamp(old) + ".v":                         old.Add(30 * day).Unix(),
			"STATS#hour#2024-03-01T10":                                 time.Date(2024, 3, 1, 11, 0, 0, 0, time.UTC).Add(90 * day).Unix(),
			"STATS#day#2024-03-01":                                     time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC).Add(730 * day).Unix(),
			"STATS#month#2024-03":                                      0,
			"REALTIME#" + now.Add(-2*time.Minute).Format(layoutMinute): now.Add(-2*time.Minute + 10*time.Minute).Unix(),
		}
		if err := s.Flush(ctx); err != nil { // the realtime counters
			t.Fatal(err)
		}
		got := map[string]int64{}
		for it, err := range s.Table().QueryAll(ctx, &table.Query{Hash: sitePK("a")}) {
			if err != nil {
				t.Fatal(err)
			}
			sk := getS(it, attrSK)
			for prefix := range want {
				if len(sk) >= len(prefix) && sk[:len(prefix)] == prefix {
					got[prefix] = getN(it, attrTTL)
				}
			}
		}
		for k, w := range want {
			g, ok := got[k]
			if !ok {
				t.Errorf("no item %s", k)
			} else if g != w {
				t.Errorf("%s: ttl %s, want %s", k, time.Unix(g, 0).UTC(), time.Unix(w, 0).UTC())
			}
		}
		// A day whose raw hits may have expired is not aggregated again.
		clk.Set(old.Add(31 * day))
		if err := s.AggregateDay(ctx, "a", old); !errors.Is(err, ErrExpired) {
			t.Errorf("AggregateDay of an expired day: %v, want ErrExpired", err)
		}
	})
}

func TestStore_Realtime(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 30, 0, time.UTC)
		clk, s := openWithSite(t, b, now, "a")
		pv := pageViews(t, s, now)
		pv(10*time.Second, "v1", "/")
		pv(2*time.Minute, "v1", "/") // same visitor, same page: one visitor
		pv(3*time.Minute, "v2", "/") // a second visitor of /
		pv(4*time.Minute, "v3", "/pricing")
		pv(6*time.Minute, "v4", "/old") // outside the window: not written
		rec(t, s, Event{Site: "a", Time: now.Add(-time.Minute), Name: "Signup", VisitorID: "v5", Path: "/pricing"})
		rec(t, s, Event{Site: "a", Time: now.Add(-time.Minute), Name: Engagement, VisitorID: "v6", Path: "/"})
		// Items that sort after REALTIME# must not be read: a session and stats.
		if err := s.AggregateDay(ctx, "a", now); err != nil {
			t.Fatal(err)
		}
		live := wantRealtime(t, s, 4, 4, []Count{{"/", 2}, {"/pricing", 1}}) // visitors v1, v2, v3, v5
		// The feed: the hits of the last 5 minutes, newest first, without
		// the engagement event or the hit of 6 minutes ago.
		var feed []string
		for _, e := range live.Events {
			feed = append(feed, e.Time.Format("15:04:05")+" "+e.Name+" "+e.Page)
		}
		wantFeed := []string{"12:00:20 pageview /", "11:59:30 Signup /pricing", "11:58:30 pageview /", "11:57:30 pageview /", "11:56:30 pageview /pricing"}
		if !slices.Equal(feed, wantFeed) {
			t.Errorf("Events = %q, want %q", feed, wantFeed)
		}
		// Ten minutes on, the counters are gone (filtered before DynamoDB
		// deletes them).
		if !live.Latest.IsZero() {
			t.Errorf("Latest = %v with page views in the window, want zero", live.Latest)
		}
		clk.Set(now.Add(10 * time.Minute))
		if live, err := s.Realtime(ctx, "a"); err != nil || live.Visitors != 0 || len(live.Pages) != 0 || len(live.Events) != 0 {
			t.Errorf("Realtime 10 minutes later = %+v, %v", live, err)
		} else if want := now.Add(-10 * time.Second); !live.Latest.Equal(want) {
			// The empty window says when the latest page view was.
			t.Errorf("Latest = %v, want the latest page view's time %v", live.Latest, want)
		}
	})
}

// TestStore_RebuildRealtime: a Store that ends without writing the
// realtime counters it gathered (a kill -9), some of its minutes already
// written, leaves counters that RebuildRealtime, in the next Store,
// recounts from the raw hits: each hit once, however often it runs.
func TestStore_RebuildRealtime(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 30, 0, time.UTC)
		clk, s := openWithSite(t, b, now, "a")
		pv := pageViews(t, s, now)
		pv(2*time.Minute, "v1", "/")
		pv(3*time.Minute, "v2", "/")
		if err := s.Flush(ctx); err != nil { // these counters are written
			t.Fatal(err)
		}
		pv(10*time.Second, "v1", "/") // these are not: the process ends
		pv(2*time.Minute, "v3", "/")
		pv(4*time.Minute, "v3", "/pricing")
		pv(6*time.Minute, "v4", "/old") // outside the window
		rec(t, s, Event{Site: "a", Time: now.Add(-time.Minute), Name: "Signup", VisitorID: "v5", Path: "/pricing"})
		rec(t, s, Event{Site: "a", Time: now.Add(-time.Minute), Name: Engagement, VisitorID: "v6", Path: "/"})

		next, err := Open(ctx, s.Table().API(), &Options{Table: s.o.Table, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := next.RebuildRealtime(ctx); err != nil {
				t.Fatal(err)
			}
		}
		wantRealtime(t, next, 4, 5, []Count{{"/", 3}, {"/pricing", 1}}) // visitors v1, v2, v3, v5
	})
}

// wantRealtime checks site a's realtime visitors, page views and pages in
// s, and returns what Realtime gave.
func wantRealtime(t *testing.T, s *Store, visitors int, views int64, pages []Count) *Live {
	t.Helper()
	live, err := s.Realtime(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if live.Visitors != visitors || live.PageViews != views {
		t.Errorf("Realtime = %+v, want %d visitors and %d page views", live, visitors, views)
	}
	if !slices.Equal(live.Pages, pages) {
		t.Errorf("Pages = %v, want %v", live.Pages, pages)
	}
	return live
}

func TestStore_VisitorID(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	clk := newClock(now)
	b := backends()[0]
	s := openStore(t, b, clk, nil)
	id := func(s *Store, site, ip, ua string) string {
		v, err := s.VisitorID(ctx, site, ip, ua)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := id(s, "a", "127.0.0.1", "UA")
	if len(a) != 16 || a != id(s, "a", "127.0.0.1", "UA") {
		t.Fatalf("VisitorID = %q, not stable within a day", a)
	}
	if a == id(s, "b", "127.0.0.1", "UA") || a == id(s, "a", "127.0.0.2", "UA") || a == id(s, "a", "127.0.0.1", "UB") {
		t.Error("VisitorID ignores the site, the IP or the user agent")
	}
	// Another Store on the same table agrees (the salt is in the table).
	s2, err := Open(ctx, nil, nil)
	if err == nil {
		t.Fatal("Open with a nil API succeeded")
	}
	_ = s2
	s2 = &Store{t: s.t, o: s.o, sites: map[string]cachedSite{}, marked: map[pendingDay]time.Time{}}
	if id(s2, "a", "127.0.0.1", "UA") != a {
		t.Error("a second store computes another id: the salt is not shared")
	}
	// The next day: another id, and yesterday's salt is deleted.
	clk.Set(now.Add(24 * time.Hour))
	if id(s, "a", "127.0.0.1", "UA") == a {
		t.Error("the id did not change with the day")
	}
	n := 0
	for it, err := range s.t.QueryAll(ctx, &table.Query{Hash: "SALT"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if getS(it, attrSK) != dayOf(clk.Now()) {
			t.Errorf("old salt %s kept", getS(it, attrSK))
		}
	}
	if n != 1 {
		t.Errorf("%d salts stored, want 1", n)
	}
	// No IP is stored anywhere.
	for k, v := range snapshot(t, s) {
		if contains(v, "127.0.0.1") {
			t.Errorf("item %s holds the IP", k)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
