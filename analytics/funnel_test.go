package analytics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
)

func TestStore_Funnels(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		clk, s := openWithSite(t, b, now, "a")
		for _, g := range []Goal{{ID: "signup", Kind: GoalPage, Match: "/signup/*"}, {ID: "purchase", Kind: GoalEvent, Match: "Purchase"}} {
			if err := s.PutGoal(ctx, "a", g); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutFunnel(ctx, "a", Funnel{ID: "f", Name: "Buy", Steps: []string{"signup", "purchase"}}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []Funnel{{ID: "x", Steps: []string{"signup"}}, {ID: "x", Steps: []string{"signup", "nope"}}, {ID: "X Y", Steps: []string{"signup", "purchase"}}} {
			if err := s.PutFunnel(ctx, "a", bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("PutFunnel(%+v): %v, want ErrInvalid", bad, err)
			}
		}
		at := func(m int) time.Time { return now.Add(-3 * time.Hour).Add(time.Duration(m) * time.Minute) }
		// v1 signs up then buys; v2 buys then signs up (out of order: step
		// 1 only); v3 signs up in one visit and buys in a later one (step 1
		// only: a funnel is within a visit); v4 never signs up.
		for _, e := range []Event{
			{VisitorID: "v1", Time: at(0), Name: PageView, Path: "/signup/start"},
			{VisitorID: "v1", Time: at(2), Name: "Purchase", Path: "/pay"},
			{VisitorID: "v2", Time: at(0), Name: "Purchase", Path: "/pay"},
			{VisitorID: "v2", Time: at(1), Name: PageView, Path: "/signup/start"},
			{VisitorID: "v3", Time: at(0), Name: PageView, Path: "/signup/x"},
			{VisitorID: "v3", Time: at(100), Name: "Purchase", Path: "/pay"},
			{VisitorID: "v4", Time: at(0), Name: PageView, Path: "/"},
		} {
			e.Site = "a"
			rec(t, s, e)
		}
		steps, err := s.FunnelSteps(ctx, "a", "f", now.Add(-24*time.Hour), now)
		if err != nil {
			t.Fatal(err)
		}
		want := []FunnelStep{{Goal: "signup", Visitors: 3, ConversionRate: 1, StepConversionRate: 1},
			{Goal: "purchase", Visitors: 1, DropOff: 2, ConversionRate: 1.0 / 3, StepConversionRate: 1.0 / 3}}
		if len(steps) != 2 || steps[0] != want[0] || steps[1] != want[1] {
			t.Errorf("FunnelSteps = %+v, want %+v", steps, want)
		}
		// Days beyond the raw retention without hits (no daily stats) add
		// nothing; days beyond the buckets' retention are refused.
		if steps, err := s.FunnelSteps(ctx, "a", "f", now.Add(-40*24*time.Hour), now); err != nil || len(steps) != 2 || steps[0] != want[0] || steps[1] != want[1] {
			t.Errorf("FunnelSteps over 40 days = %+v, %v; want %+v", steps, err, want)
		}
		var ee *ExpiredError
		if _, err := s.FunnelSteps(ctx, "a", "f", now.Add(-800*24*time.Hour), now); !errors.Is(err, ErrExpired) || !errors.As(err, &ee) ||
			!ee.Start.Equal(time.Date(2022, 3, 21, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("FunnelSteps beyond the buckets' retention: %v, want an *ExpiredError from 2022-03-21", err)
		}
		if _, err := s.FunnelSteps(ctx, "a", "nope", now.Add(-time.Hour), now); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("FunnelSteps of a missing funnel: %v", err)
		}
		small := openStore(t, b, clk, &Options{MaxRawHits: 3})
		if err := small.CreateSite(ctx, Site{ID: "a"}); err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			rec(t, small, Event{Site: "a", VisitorID: "v", Time: at(i), Name: PageView, Path: "/"})
		}
		if _, err := small.RawVisits(ctx, "a", now.Add(-24*time.Hour), now); !errors.Is(err, ErrInvalid) {
			t.Errorf("RawVisits over MaxRawHits: %v, want ErrInvalid", err)
		}
		fs, err := s.Funnels(ctx, "a")
		if err != nil || len(fs) != 1 || fs[0].Name != "Buy" || len(fs[0].Steps) != 2 {
			t.Fatalf("Funnels = %+v, %v", fs, err)
		}
		if err := s.DeleteFunnel(ctx, "a", "f"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteFunnel(ctx, "a", "f"); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("second DeleteFunnel: %v", err)
		}
	})
}

func TestStore_SharedLinksAndPublic(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC))
		s := openStore(t, b, clk, nil)
		for _, id := range []string{"a", "b"} {
			if err := s.CreateSite(ctx, Site{ID: id, Public: id == "b"}); err != nil {
				t.Fatal(err)
			}
		}
		if st, err := s.Site(ctx, "b"); err != nil || !st.Public {
			t.Fatalf("Site b = %+v, %v; want public", st, err)
		}
		if err := s.UpdateSite(ctx, Site{ID: "b"}); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.Site(ctx, "b"); st.Public {
			t.Error("UpdateSite without Public left the site public")
		}
		slug, l, err := s.CreateSharedLink(ctx, "a", "wiki")
		if err != nil {
			t.Fatal(err)
		}
		check := func(site, slug string, want bool) {
			t.Helper()
			if ok, err := s.CheckSharedLink(ctx, site, slug); err != nil || ok != want {
				t.Errorf("CheckSharedLink(%s, %q) = %v, %v; want %v", site, slug, ok, err, want)
			}
		}
		check("a", slug, true)
		check("b", slug, false)                                      // another site's link
		check("a", slug[:len(slug)-1]+"0", slug[len(slug)-1] == '0') // a wrong secret
		check("a", l.ID, false)                                      // the id alone
		check("a", "", false)
		ls, err := s.SharedLinks(ctx, "a")
		if err != nil || len(ls) != 1 || ls[0].ID != l.ID || ls[0].Name != "wiki" {
			t.Fatalf("SharedLinks = %+v, %v", ls, err)
		}
		if err := s.DeleteSharedLink(ctx, "a", l.ID); err != nil {
			t.Fatal(err)
		}
		check("a", slug, false)
		if err := s.DeleteSharedLink(ctx, "a", l.ID); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("second DeleteSharedLink: %v", err)
		}
		if _, _, err := s.CreateSharedLink(ctx, "zz", "x"); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("CreateSharedLink on a missing site: %v", err)
		}
	})
}

func FuzzCheckSharedLink(f *testing.F) {
	clk := newClock(time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC))
	s := openStore(f, backends()[0], clk, nil)
	ctx := context.Background()
	if err := s.CreateSite(ctx, Site{ID: "a"}); err != nil {
		f.Fatal(err)
	}
	slug, _, err := s.CreateSharedLink(ctx, "a", "x")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(slug)
	f.Add("")
	f.Add("_")
	f.Add("0123456789abcdef_" + slug[17:])
	f.Fuzz(func(t *testing.T, in string) {
		ok, err := s.CheckSharedLink(ctx, "a", in)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (in == slug) {
			t.Fatalf("CheckSharedLink(%q) = %v", in, ok)
		}
	})
}
