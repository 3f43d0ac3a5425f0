package demo

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

func TestGenerator_Day_Deterministic(t *testing.T) {
	day := time.Date(2025, 3, 4, 15, 0, 0, 0, time.UTC)
	a := New(&Options{Seed: 7, VisitsPerDay: 200}).Day(day)
	b := New(&Options{Seed: 7, VisitsPerDay: 200}).Day(day.Add(-10 * time.Hour)) // same UTC day
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("two generators with one seed gave %d and %d events, or different ones", len(a), len(b))
	}
	if c := New(&Options{Seed: 8, VisitsPerDay: 200}).Day(day); reflect.DeepEqual(a, c) {
		t.Error("seeds 7 and 8 gave the same events")
	}
	if c := New(&Options{Seed: 7, VisitsPerDay: 200}).Day(day.AddDate(0, 0, 7)); reflect.DeepEqual(a, c) {
		t.Error("two days gave the same events")
	}
}

// visit is a visit formed from generated events, as the aggregation forms
// it: one visitor's hits at most 30 minutes apart.
type visit struct {
	evs []analytics.Event
}

func (v *visit) pageViews() (n int) {
	for _, e := range v.evs {
		if e.Name == analytics.PageView {
			n++
		}
	}
	return n
}

func (v *visit) has(f func(e analytics.Event) bool) bool { return slices.ContainsFunc(v.evs, f) }

func visitsOf(evs []analytics.Event) []*visit {
	by := map[string][]analytics.Event{}
	for _, e := range evs {
		by[e.VisitorID] = append(by[e.VisitorID], e)
	}
	var out []*visit
	for _, id := range slices.Sorted(maps.Keys(by)) {
		var cur *visit
		for _, e := range by[id] {
			if cur == nil || e.Time.Sub(cur.evs[len(cur.evs)-1].Time) > 30*time.Minute {
				cur = &visit{}
				out = append(out, cur)
			}
			cur.evs = append(cur.evs, e)
		}
	}
	return out
}

// TestGenerator_Shape checks four weeks of traffic against broad bounds:
// weekly and daily cycles, growth, sources, devices, countries, a long
// tail of pages, bounces, visit durations, custom events and the funnel's
// drop-off.
func TestGenerator_Shape(t *testing.T) {
	end := time.Date(2025, 3, 30, 0, 0, 0, 0, time.UTC) // a Sunday
	g := New(&Options{Seed: 1, VisitsPerDay: 400, GrowthPerMonth: 0.5, End: end})
	var all []analytics.Event
	perDay := map[time.Weekday][]int{}
	var weekly [4]int
	var hours [24]int
	for d := range 28 {
		day := end.AddDate(0, 0, d-27)
		evs := g.Day(day)
		if !slices.IsSortedFunc(evs, func(a, b analytics.Event) int { return a.Time.Compare(b.Time) }) {
			t.Fatalf("%s: events not in time order", day.Format(time.DateOnly))
		}
		pv := 0
		for _, e := range evs {
			if e.Site != "demo" || !strings.HasPrefix(e.Path, "/") || e.VisitorID == "" || e.Name == "" {
				t.Fatalf("bad event %+v", e)
			}
			if e.Time.Before(day) || !e.Time.Before(day.AddDate(0, 0, 1)) {
				t.Fatalf("%s: event at %s", day.Format(time.DateOnly), e.Time)
			}
			if e.Name == analytics.PageView {
				pv++
				hours[e.Time.Hour()]++
			}
		}
		perDay[day.Weekday()] = append(perDay[day.Weekday()], pv)
		weekly[d/7] += pv
		all = append(all, evs...)
	}
	within := func(what string, got, lo, hi float64) {
		t.Helper()
		t.Logf("%s = %.3f", what, got)
		if got < lo || got > hi {
			t.Errorf("%s = %.3f, want in [%g, %g]", what, got, lo, hi)
		}
	}
	mean := func(xs []int) float64 {
		s := 0
		for _, x := range xs {
			s += x
		}
		return float64(s) / float64(len(xs))
	}
	weekday := (mean(perDay[time.Tuesday]) + mean(perDay[time.Wednesday])) / 2
	weekend := (mean(perDay[time.Saturday]) + mean(perDay[time.Sunday])) / 2
	within("weekday / weekend page views", weekday/weekend, 1.3, 2.2)
	within("last week / first week page views (50% a month)", float64(weekly[3])/float64(weekly[0]), 1.25, 1.8)
	lo, hi := slices.Min(hours[:]), slices.Max(hours[:])
	within("busiest / quietest UTC hour", float64(hi)/float64(lo), 2.5, 20)
	if h := slices.Index(hours[:], hi); h < 8 || h > 20 {
		t.Errorf("busiest UTC hour %d, want between 8 and 20 (Europe and America awake)", h)
	}

	vs := visitsOf(all)
	n := float64(len(vs))
	within("visits a day", n/28, 250, 450)
	share := func(f func(v *visit) bool) float64 {
		k := 0
		for _, v := range vs {
			if f(v) {
				k++
			}
		}
		return float64(k) / n
	}
	first := func(v *visit) analytics.Event { return v.evs[0] }
	within("direct share", share(func(v *visit) bool { return first(v).Referrer == "" && first(v).UTM.Source == "" }), 0.25, 0.45)
	within("Google share", share(func(v *visit) bool { return analytics.Source(first(v).Referrer, "") == "Google" }), 0.2, 0.4)
	within("campaign share", share(func(v *visit) bool { return first(v).UTM.Campaign != "" }), 0.05, 0.15)
	within("desktop share", share(func(v *visit) bool { return first(v).Device == "Desktop" }), 0.45, 0.7)
	within("mobile share", share(func(v *visit) bool { return first(v).Device == "Mobile" }), 0.3, 0.5)
	within("Safari on Windows", share(func(v *visit) bool { return first(v).Browser == "Safari" && first(v).OS == "Windows" }), 0, 0)
	bounce := func(v *visit) bool {
		return v.pageViews() <= 1 && !v.has(func(e analytics.Event) bool { return e.Name != analytics.PageView && e.Name != analytics.Engagement })
	}
	within("bounce rate", share(bounce), 0.3, 0.6)
	var durations []time.Duration
	for _, v := range vs {
		if !bounce(v) {
			durations = append(durations, v.evs[len(v.evs)-1].Time.Sub(v.evs[0].Time))
		}
	}
	slices.Sort(durations)
	within("median duration of a visit that does not bounce (s)", durations[len(durations)/2].Seconds(), 30, 600)

	countries, paths := map[string]int{}, map[string]int{}
	events := map[string]int{}
	pvs := 0
	for _, e := range all {
		switch e.Name {
		case analytics.PageView:
			pvs++
			paths[e.Path]++
			countries[e.Country]++
		case analytics.Engagement:
		default:
			events[e.Name]++
			if len(e.Props) == 0 {
				t.Errorf("custom event %q without properties", e.Name)
			}
		}
	}
	if len(countries) < 15 || countries["US"] != slices.Max(slices.Collect(maps.Values(countries))) {
		t.Errorf("countries %v: want at least 15, the US first", countries)
	}
	within("distinct pages", float64(len(paths)), 60, 200)
	within("home page share of page views", float64(paths["/"])/float64(pvs), 0.1, 0.4)
	counts := slices.Sorted(maps.Values(paths))
	top10 := 0
	for _, c := range counts[len(counts)-10:] {
		top10 += c
	}
	within("top 10 pages' share of page views (a long tail)", float64(top10)/float64(pvs), 0.4, 0.85)
	for _, name := range []string{"Signup", "Download", "Outbound Link: Click", "404"} {
		if events[name] == 0 {
			t.Errorf("no %q event", name)
		}
	}

	// The funnel: /pricing, /signup, Signup, each step fewer visits.
	pricing := share(func(v *visit) bool { return v.has(func(e analytics.Event) bool { return e.Path == "/pricing" }) })
	signupPage := share(func(v *visit) bool { return v.has(func(e analytics.Event) bool { return e.Path == "/signup" }) })
	signup := share(func(v *visit) bool { return v.has(func(e analytics.Event) bool { return e.Name == "Signup" }) })
	within("visits to /pricing", pricing, 0.05, 0.3)
	within("of those, to /signup", signupPage/pricing, 0.1, 0.6)
	within("of those, signed up", signup/signupPage, 0.2, 0.7)
}
