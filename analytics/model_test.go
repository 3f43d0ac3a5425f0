package analytics

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/table"
)

// The model: figures computed straight from the raw events, naively.

type modelFigures struct {
	visitors                                  map[string]bool
	pageViews, visits, bounces, events, durMs int64
	conversions                               int64
	top                                       map[Dimension]map[string]int64
}

func newFigures() *modelFigures {
	return &modelFigures{visitors: map[string]bool{}, top: map[Dimension]map[string]int64{}}
}

func (f *modelFigures) add(d Dimension, v string) {
	if v == "" {
		v = None
	}
	if f.top[d] == nil {
		f.top[d] = map[string]int64{}
	}
	f.top[d][v]++
}

type model struct {
	domains map[string]string // site -> its domain
	goals   map[string][]Goal
	events  []Event
}

// figures returns the model's figures of site over [from, to).
func (m *model) figures(site string, from, to time.Time) *modelFigures {
	f := newFigures()
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	byVisitorDay := map[string][]Event{}
	for _, e := range m.events {
		if e.Site == site {
			k := e.VisitorID + "|" + e.Time.UTC().Format("2006-01-02")
			byVisitorDay[k] = append(byVisitorDay[k], e)
		}
	}
	for _, es := range byVisitorDay {
		sort.SliceStable(es, func(i, j int) bool {
			a, b := es[i], es[j]
			if !a.Time.Equal(b.Time) {
				return a.Time.Before(b.Time)
			}
			if (a.Name == PageView) != (b.Name == PageView) {
				return a.Name == PageView
			}
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return a.Name < b.Name
		})
		var cur []Event // the hits of the open session
		flush := func() {
			if len(cur) == 0 || !in(cur[0].Time) {
				cur = nil
				return
			}
			first := cur[0]
			f.visits++
			pvs, interactive, exit := 0, false, first.Path
			goals := map[string]bool{}
			for _, e := range cur {
				switch {
				case e.Name == PageView:
					pvs++
					exit = e.Path
				case e.Name != Engagement && !e.NonInteractive:
					interactive = true
				}
				for _, g := range m.goals[site] {
					if g.Kind == GoalEvent && e.Name == g.Match || g.Kind == GoalPage && e.Name == PageView && MatchPath(g.Match, e.Path) {
						goals[g.ID] = true
					}
				}
			}
			if pvs <= 1 && !interactive {
				f.bounces++
			}
			f.durMs += cur[len(cur)-1].Time.Sub(first.Time).Milliseconds()
			ref := first.Referrer
			if strings.Contains(ref, m.domains[site]) {
				ref = ""
			}
			f.add(DimEntryPage, first.Path)
			f.add(DimExitPage, exit)
			f.add(DimSource, Source(ref, first.UTM.Source))
			f.add(DimUTMSource, first.UTM.Source)
			f.add(DimUTMMedium, first.UTM.Medium)
			f.add(DimUTMCampaign, first.UTM.Campaign)
			f.add(DimCountry, first.Country)
			// One name per browser, system and device ("desktop" is "Desktop").
			f.add(DimBrowser, NormalBrowser(first.Browser))
			f.add(DimOS, NormalOS(first.OS))
			f.add(DimDevice, NormalDevice(first.Device))
			for g := range goals {
				f.add(DimGoal, g)
			}
			if len(goals) > 0 {
				f.conversions++
			}
			cur = nil
		}
		for _, e := range es {
			if len(cur) > 0 && e.Time.Sub(cur[len(cur)-1].Time) > 30*time.Minute {
				flush()
			}
			if len(cur) == 0 && e.Name == Engagement {
				continue // an engagement event opens no session
			}
			cur = append(cur, e)
			if e.Name != Engagement && in(e.Time) {
				f.visitors[e.VisitorID] = true
				if e.Name == PageView {
					f.pageViews++
					f.add(DimPage, e.Path)
				} else {
					f.events++
					f.add(DimEvent, e.Name)
					for k, v := range e.Props {
						f.add(PropDimension(k), v)
					}
				}
			}
		}
		flush()
	}
	return f
}

// compare returns the differences between the store's figures of site
// over [from, to) and f.
func compare(ctx context.Context, s *Store, site string, from, to time.Time, f *modelFigures) []string {
	var diffs []string
	where := fmt.Sprintf("%s [%s, %s)", site, from.Format(time.RFC3339), to.Format(time.RFC3339))
	sm, err := s.Summary(ctx, site, from, to)
	if err != nil {
		return []string{where + ": Summary: " + err.Error()}
	}
	exact := int64(len(f.visitors))
	if d := math.Abs(float64(sm.Visitors) - float64(exact)); d > 1+0.03*float64(exact) {
		diffs = append(diffs, fmt.Sprintf("%s: visitors %d, model %d (beyond the sketch's bound)", where, sm.Visitors, exact))
	}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"pageViews", sm.PageViews, f.pageViews}, {"visits", sm.Visits, f.visits}, {"bounces", sm.Bounces, f.bounces},
		{"events", sm.Events, f.events}, {"conversions", sm.Conversions, f.conversions},
	} {
		if c.got != c.want {
			diffs = append(diffs, fmt.Sprintf("%s: %s %d, model %d", where, c.name, c.got, c.want))
		}
	}
	if f.visits > 0 {
		wantDur := time.Duration(f.durMs/f.visits) * time.Millisecond
		if sm.VisitDuration != wantDur {
			diffs = append(diffs, fmt.Sprintf("%s: visit duration %s, model %s", where, sm.VisitDuration, wantDur))
		}
		if want := float64(f.bounces) / float64(f.visits); sm.BounceRate != want {
			diffs = append(diffs, fmt.Sprintf("%s: bounce rate %v, model %v", where, sm.BounceRate, want))
		}
		if want := float64(f.conversions) / float64(f.visits); sm.ConversionRate != want {
			diffs = append(diffs, fmt.Sprintf("%s: conversion rate %v, model %v", where, sm.ConversionRate, want))
		}
	}
	dims := slices.Clone(Dimensions)
	for d := range f.top {
		if _, ok := d.PropName(); ok {
			dims = append(dims, d)
		}
	}
	dims = append(dims, PropDimension("plan"), PropDimension("variant#b"))
	slices.Sort(dims)
	dims = slices.Compact(dims)
	for _, d := range dims {
		cs, err := s.Breakdown(ctx, site, d, from, to, 100)
		if err != nil {
			return append(diffs, where+": Breakdown: "+err.Error())
		}
		got := map[string]int64{}
		for _, c := range cs {
			got[c.Value] = c.Count
		}
		want := f.top[d]
		if want == nil {
			want = map[string]int64{}
		}
		if !maps.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%s: breakdown %s = %v, model %v", where, d, got, want))
		}
		if !slices.IsSortedFunc(cs, func(a, b Count) int {
			if a.Count != b.Count {
				return int(b.Count - a.Count)
			}
			return strings.Compare(a.Value, b.Value)
		}) {
			diffs = append(diffs, fmt.Sprintf("%s: breakdown %s not in order: %v", where, d, cs))
		}
	}
	return diffs
}

// rawFigures computes the figures of site over [from, to) from
// RawVisits: what the Stats API's raw path builds on.
func rawFigures(ctx context.Context, s *Store, site string, from, to time.Time) (*modelFigures, error) {
	vs, err := s.RawVisits(ctx, site, from, to)
	if err != nil {
		return nil, err
	}
	f := newFigures()
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	for _, v := range vs {
		for _, h := range v.Hits {
			if !in(h.Time) {
				continue
			}
			f.visitors[v.VisitorID] = true
			if h.Name == PageView {
				f.pageViews++
				f.add(DimPage, h.Path)
				continue
			}
			f.events++
			f.add(DimEvent, h.Name)
			for k, x := range h.Props {
				f.add(PropDimension(k), x)
			}
		}
		if !in(v.Start) {
			continue
		}
		f.visits++
		if v.Bounce {
			f.bounces++
		}
		f.durMs += v.Duration.Milliseconds()
		for d, x := range map[Dimension]string{DimEntryPage: v.EntryPage, DimExitPage: v.ExitPage, DimSource: v.Source,
			DimUTMSource: v.UTM.Source, DimUTMMedium: v.UTM.Medium, DimUTMCampaign: v.UTM.Campaign, DimCountry: v.Country,
			DimBrowser: v.Browser, DimOS: v.OS, DimDevice: v.Device} {
			f.add(d, x)
		}
		for _, g := range v.Goals {
			f.add(DimGoal, g)
		}
		if len(v.Goals) > 0 {
			f.conversions++
		}
	}
	return f, nil
}

// diffFigures returns the differences between two sets of figures.
func diffFigures(where string, got, want *modelFigures) []string {
	var diffs []string
	if !maps.Equal(got.visitors, want.visitors) {
		diffs = append(diffs, fmt.Sprintf("%s: %d visitors, model %d", where, len(got.visitors), len(want.visitors)))
	}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"pageViews", got.pageViews, want.pageViews}, {"visits", got.visits, want.visits}, {"bounces", got.bounces, want.bounces},
		{"events", got.events, want.events}, {"durMs", got.durMs, want.durMs}, {"conversions", got.conversions, want.conversions},
	} {
		if c.got != c.want {
			diffs = append(diffs, fmt.Sprintf("%s: %s %d, model %d", where, c.name, c.got, c.want))
		}
	}
	if !maps.EqualFunc(got.top, want.top, func(a, b map[string]int64) bool { return maps.Equal(a, b) }) {
		diffs = append(diffs, fmt.Sprintf("%s: breakdowns %v, model %v", where, got.top, want.top))
	}
	return diffs
}

// genEvents returns a random stream of hits of sites over the three days
// before now: visitors with several sessions each.
func genEvents(r *rand.Rand, sites []string, domains map[string]string, now time.Time, start time.Time) []Event {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var out []Event
	for _, site := range sites {
		for v := 0; v < 12; v++ {
			visitor := fmt.Sprintf("v%02d%s", v, site[:1])
			t := start.Add(time.Duration(r.Int64N(int64(now.Sub(start) / 2)))).Truncate(time.Millisecond)
			for t.Before(now) {
				// A session: a few hits a few minutes apart.
				country, browser, os, device := pick("FR", "DE", "US", ""), pick("Firefox", "Chrome", "Safari"), pick("Linux", "Windows", "iOS"), pick("desktop", "mobile", "tablet")
				ref := pick("", "https://www.google.com/search", "https://news.ycombinator.com/item", "https://"+domains[site]+"/from", "https://blog.example.net/p")
				utm := UTM{}
				if r.IntN(3) == 0 {
					utm = UTM{Source: pick("newsletter", "twitter"), Medium: pick("email", "social"), Campaign: pick("spring", "launch")}
				}
				n := 1 + r.IntN(5)
				for i := 0; i < n && t.Before(now); i++ {
					e := Event{Site: site, Time: t, VisitorID: visitor, Path: pick("/", "/pricing", "/blog/a", "/blog/b", "/signup/start", "/docs/x/y"),
						Referrer: ref, UTM: utm, Country: country, Browser: browser, OS: os, Device: device}
					switch k := r.IntN(20); {
					case k < 13:
						e.Name = PageView
					case k < 16:
						e.Name = pick("Signup", "Purchase", "Download")
						e.NonInteractive = r.IntN(3) == 0
						e.Props = map[string]string{"plan": pick("free", "pro")}
						if r.IntN(2) == 0 {
							e.Props["variant#b"] = pick("x#1", "y")
						}
					default:
						e.Name = Engagement
					}
					out = append(out, e)
					ref, utm = "", UTM{}
					t = t.Add(time.Duration(r.Int64N(int64(20*time.Minute))) + time.Second).Truncate(time.Millisecond)
				}
				// A gap: sometimes short (the session goes on), mostly long,
				// sometimes an engagement event after the timeout.
				if r.IntN(8) == 0 && t.Add(31*time.Minute).Before(now) {
					out = append(out, Event{Site: site, Time: t.Add(31 * time.Minute), Name: Engagement, VisitorID: visitor, Path: "/"})
				}
				t = t.Add(time.Duration(25+r.IntN(300)) * time.Minute)
			}
		}
	}
	return out
}

func TestStore_Model(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		// The engine's run and DynamoDB Local's share nothing: the first
		// works the CPU, the second mostly waits on the server.
		t.Parallel()
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		clk := newClock(now)
		s := openStore(t, b, clk, nil)
		r := rand.New(rand.NewPCG(1, 2))
		m := &model{domains: map[string]string{"alpha": "alpha.example", "beta": "beta.example"}, goals: map[string][]Goal{}}
		sites := []string{"alpha", "beta"}
		for _, id := range sites {
			if err := s.CreateSite(ctx, Site{ID: id, Name: id, Domains: []string{m.domains[id]}}); err != nil {
				t.Fatal(err)
			}
			for _, g := range []Goal{{ID: "signup", Kind: GoalPage, Match: "/signup/*"}, {ID: "purchase", Kind: GoalEvent, Match: "Purchase"}, {ID: "docs", Kind: GoalPage, Match: "/docs/**"}} {
				if err := s.PutGoal(ctx, id, g); err != nil {
					t.Fatal(err)
				}
				m.goals[id] = append(m.goals[id], g)
			}
		}
		start := time.Date(2024, 3, 17, 22, 0, 0, 0, time.UTC)
		all := genEvents(r, sites, m.domains, now, start)
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		// Phase 1: most events, out of order, then aggregation.
		split := len(all) * 4 / 5
		record := func(es []Event) {
			for _, e := range es {
				if err := s.Record(ctx, e); err != nil {
					t.Fatal(err)
				}
				m.events = append(m.events, e)
			}
		}
		check := func(phase string, f func(*modelFigures)) []string {
			var diffs []string
			for _, site := range sites {
				for _, rg := range modelRanges(start.Truncate(24*time.Hour), now, 5,
					[2]time.Time{time.Date(2024, 3, 17, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 21, 0, 0, 0, 0, time.UTC)},
					[2]time.Time{time.Date(2024, 3, 18, 5, 0, 0, 0, time.UTC), time.Date(2024, 3, 19, 7, 0, 0, 0, time.UTC)}, // hours and a day
				) {
					fig := m.figures(site, rg[0], rg[1])
					if f != nil {
						f(fig)
					}
					diffs = append(diffs, compare(ctx, s, site, rg[0], rg[1], fig)...)
					raw, err := rawFigures(ctx, s, site, rg[0], rg[1])
					if err != nil {
						t.Fatal(err)
					}
					diffs = append(diffs, diffFigures(fmt.Sprintf("raw %s %s", site, rg[0].Format(time.RFC3339)), raw, fig)...)
				}
			}
			return diffs
		}
		aggregate := func() {
			clk.Set(clk.Now().Add(2 * time.Minute)) // past MarkEvery, so marks go
			if _, err := s.AggregatePending(ctx); err != nil {
				t.Fatal(err)
			}
		}
		record(all[:split])
		aggregate()
		if diffs := check("phase 1", nil); len(diffs) > 0 {
			t.Fatalf("phase 1: %d differences:\n%s", len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
		}
		// Positive control: a planted error in the model is caught.
		if diffs := check("control", func(f *modelFigures) {
			if f.top[DimPage] != nil {
				f.top[DimPage]["/pricing"]++
			}
			f.visits++
		}); len(diffs) == 0 {
			t.Fatal("positive control: the comparison did not catch a planted error")
		}
		// The new figures have controls of their own: a property count and a
		// conversion planted alone are each caught.
		for name, plant := range map[string]func(*modelFigures){
			"property": func(f *modelFigures) {
				if f.top[PropDimension("plan")] != nil {
					f.top[PropDimension("plan")]["pro"]++
				}
			},
			"conversion": func(f *modelFigures) {
				if f.visits > 0 {
					f.conversions++
				}
			},
		} {
			if diffs := check("control "+name, plant); len(diffs) == 0 {
				t.Fatalf("positive control (%s): the comparison did not catch a planted error", name)
			}
		}
		// Phase 2: late events (older days) arrive; the days they touch are
		// aggregated again.
		record(all[split:])
		aggregate()
		if diffs := check("phase 2", nil); len(diffs) > 0 {
			t.Fatalf("phase 2 (late events): %d differences:\n%s", len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
		}
		// Idempotence: aggregating again changes no item it wrote before
		// (aggregating days never marked adds their empty aggregates), and a
		// third run changes nothing at all.
		again := func() map[string]string {
			for d := start.Truncate(24 * time.Hour); d.Before(now); d = d.Add(24 * time.Hour) {
				for _, site := range sites {
					if err := s.AggregateDay(ctx, site, d); err != nil {
						t.Fatal(err)
					}
				}
			}
			return snapshot(t, s)
		}
		before := snapshot(t, s)
		second := again()
		for k, v := range before {
			if second[k] != v {
				t.Fatalf("aggregating again changed %s:\n%s\n%s", k, v, second[k])
			}
		}
		if third := again(); !maps.Equal(second, third) {
			t.Fatalf("aggregating a third time changed the table: %d items before, %d after", len(second), len(third))
		}
		if diffs := check("again", nil); len(diffs) > 0 {
			t.Fatalf("after aggregating again: %d differences:\n%s", len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
		}
		// The time series of page views by day and visits by hour agree.
		for _, site := range sites {
			for _, c := range []struct {
				p    Period
				m    Metric
				from time.Time
				to   time.Time
			}{
				{Day, MetricPageViews, start.Truncate(24 * time.Hour), now},
				{Hour, MetricVisits, time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC)},
			} {
				pts, err := s.TimeSeries(ctx, site, c.m, c.p, c.from, c.to)
				if err != nil {
					t.Fatal(err)
				}
				for _, pt := range pts {
					f := m.figures(site, pt.Start, c.p.next(pt.Start))
					want := float64(f.pageViews)
					if c.m == MetricVisits {
						want = float64(f.visits)
					}
					if pt.Value != want {
						t.Errorf("TimeSeries %s %s of %s at %s = %v, model %v", c.m, c.p, site, pt.Start, pt.Value, want)
					}
				}
				if len(pts) == 0 {
					t.Errorf("TimeSeries %s %s: no points", c.m, c.p)
				}
			}
		}
		checkDesign(t, s)
	})
}

// snapshot returns every item of the table but the realtime and pending
// ones, rendered by conformance.FormatItem, by key.
func snapshot(t *testing.T, s *Store) map[string]string {
	t.Helper()
	// The realtime counters Record gathered, written now rather than by
	// their timer in the middle of a comparison.
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for it, err := range s.t.ScanAll(context.Background(), &table.Scan{}) {
		if err != nil {
			t.Fatal(err)
		}
		out[getS(it, attrPK)+" "+getS(it, attrSK)] = conformance.FormatItem(it)
	}
	return out
}

// checkDesign checks that every item in the table is an item of one
// entity of the design: its keys are values of the entity's templates and
// its attributes are the entity's.
func checkDesign(t *testing.T, s *Store) {
	t.Helper()
	seen := map[string]int{}
	for it, err := range s.t.ScanAll(context.Background(), &table.Scan{}) {
		if err != nil {
			t.Fatal(err)
		}
		var match string
		for _, e := range spec.Entities {
			if len(e.Keys) != countKeys(it) {
				continue
			}
			ok := true
			for name, tmpl := range e.Keys {
				if _, m := tmpl.Match(getS(it, name)); !m {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			for name := range it {
				if _, isKey := e.Keys[name]; !isKey && e.Attribute(name) == nil {
					t.Errorf("item %s %s of %s has attribute %q the design lacks", getS(it, attrPK), getS(it, attrSK), e.Name, name)
				}
			}
			match = e.Name
			break
		}
		if match == "" {
			t.Errorf("item %s %s matches no entity of the design", getS(it, attrPK), getS(it, attrSK))
		}
		seen[match]++
	}
	for _, e := range []string{"Site", "PageView", "Event", "Goal", "Stats", "Session", "Top", "Salt"} {
		if e == "Salt" {
			continue // made by VisitorID only
		}
		if seen[e] == 0 {
			t.Errorf("no %s item in the table", e)
		}
	}
}

func countKeys(it table.Item) int {
	n := 0
	for _, k := range []string{"pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"} {
		if _, ok := it[k]; ok {
			n++
		}
	}
	return n
}

// modelRanges returns the ranges a check against the model compares: the
// month of March 2024, the extra ranges, each day from first to now, and
// every hourStep-th hour of 2024-03-19.
func modelRanges(first, now time.Time, hourStep int, extra ...[2]time.Time) [][2]time.Time {
	ranges := append([][2]time.Time{{time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)}}, extra...)
	for d := first; d.Before(now); d = d.Add(24 * time.Hour) {
		ranges = append(ranges, [2]time.Time{d, d.Add(24 * time.Hour)})
	}
	for h := 0; h < 24; h += hourStep {
		hs := time.Date(2024, 3, 19, h, 0, 0, 0, time.UTC)
		ranges = append(ranges, [2]time.Time{hs, hs.Add(time.Hour)})
	}
	return ranges
}
