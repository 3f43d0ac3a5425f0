package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// Domain is the domain of the demonstration site.
const Domain = "demo.timetable.local"

// Options configure a Generator. A nil *Options and the zero value are
// valid; each field documents its default.
type Options struct {
	// Site is the site id the events carry. Default "demo".
	Site string
	// Seed chooses the traffic: one seed gives the same events every time.
	// Default 0, a seed like any other.
	Seed uint64
	// VisitsPerDay is the mean number of visits a day over a week at End.
	// Default 1000.
	VisitsPerDay float64
	// GrowthPerMonth is the growth of the traffic every 30 days: 0.08 is
	// 8% more visits a month. Default 0.08; negative means none.
	GrowthPerMonth float64
	// End is the day where the trend reaches VisitsPerDay; days before it
	// have fewer visits, days after more. Default: zero, no trend.
	End time.Time
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Site == "" {
		r.Site = "demo"
	}
	if r.VisitsPerDay <= 0 {
		r.VisitsPerDay = 1000
	}
	if r.GrowthPerMonth == 0 {
		r.GrowthPerMonth = 0.08
	}
	if r.GrowthPerMonth < 0 || r.End.IsZero() {
		r.GrowthPerMonth = 0
	}
	return r
}

// Generator makes the traffic of the demonstration site. It is safe for
// concurrent use: it holds no state between calls.
type Generator struct {
	o     Options
	pages []weighted[string] // pages by popularity, for a visit's next page
	blog  []weighted[string] // blog posts only, for visits from search and social sites
}

// New returns a Generator with options o.
func New(o *Options) *Generator {
	g := &Generator{o: o.withDefaults(), pages: slices.Clone(corePages)}
	// Blog posts: a long tail, the popularity of the post of rank k going
	// as 1/k (a Zipf law).
	for k, slug := range blogSlugs() {
		w := weighted[string]{"/blog/" + slug, 14 / math.Pow(float64(k+1), 1.1)}
		g.pages = append(g.pages, w)
		g.blog = append(g.blog, w)
	}
	return g
}

// Options returns the options of g, with the defaults filled in.
func (g *Generator) Options() Options { return g.o }

// Goals are the demonstration site's goals; the funnel's steps are the
// goals pricing, signup-page and signup, in that order.
var Goals = []analytics.Goal{
	{ID: "pricing", Name: "Visit /pricing", Kind: analytics.GoalPage, Match: "/pricing"},
	{ID: "signup-page", Name: "Visit /signup", Kind: analytics.GoalPage, Match: "/signup"},
	{ID: "signup", Name: "Signup", Kind: analytics.GoalEvent, Match: "Signup"},
	{ID: "download", Name: "Download", Kind: analytics.GoalEvent, Match: "Download"},
	{ID: "docs", Name: "Read the docs", Kind: analytics.GoalPage, Match: "/docs/**"},
}

// FunnelSteps are the ids of the goals of the demonstration funnel, in
// order: pricing page, signup page, Signup event.
var FunnelSteps = []string{"pricing", "signup-page", "signup"}

// FunnelID is the id of the demonstration funnel.
const FunnelID = "signup"

type weighted[T any] struct {
	v T
	w float64
}

// pick returns a value of xs chosen with probability proportional to its
// weight.
func pick[T any](r *rand.Rand, xs []weighted[T]) T {
	total := 0.0
	for _, x := range xs {
		total += x.w
	}
	u := r.Float64() * total
	for _, x := range xs {
		if u < x.w {
			return x.v
		}
		u -= x.w
	}
	return xs[len(xs)-1].v
}

// chance returns true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

var corePages = []weighted[string]{
	{"/", 30}, {"/pricing", 7}, {"/features", 5}, {"/docs", 6}, {"/docs/getting-started", 5},
	{"/docs/install", 4}, {"/docs/api", 3}, {"/docs/queries", 2}, {"/docs/retention", 1.5},
	{"/docs/dynamodb", 1.5}, {"/blog", 3}, {"/changelog", 1.2}, {"/about", 1.5}, {"/contact", 0.8},
	{"/careers", 0.4},
}

// blogSlugs returns the slugs of the 60 blog posts, most popular first.
func blogSlugs() []string {
	a := []string{"single-table", "time-series", "dynamodb", "go", "pebble", "analytics", "retention", "rollups", "sharding", "ttl"}
	b := []string{"design", "in-practice", "pitfalls", "benchmarks", "explained", "at-scale"}
	var out []string
	for j := range b {
		for i := range a {
			out = append(out, a[i]+"-"+b[j])
		}
	}
	return out
}

// dayWeight is the relative traffic of each weekday (Sunday first), with
// a mean of 1.
var dayWeight = func() [7]float64 {
	w := [7]float64{0.62, 1, 1.05, 1.05, 1, 0.9, 0.6}
	mean := 0.0
	for _, x := range w {
		mean += x / 7
	}
	for i := range w {
		w[i] /= mean
	}
	return w
}()

// hourWeight is the relative traffic of each local hour, peak 1.
var hourWeight = [24]float64{0.25, 0.15, 0.1, 0.08, 0.08, 0.12, 0.25, 0.45, 0.7, 0.9, 1, 1,
	0.9, 0.95, 1, 0.95, 0.9, 0.8, 0.7, 0.75, 0.8, 0.75, 0.6, 0.4}

type country struct {
	code   string
	offset time.Duration // from UTC, standard time
}

var countries = []weighted[country]{
	{country{"US", -5 * time.Hour}, 27}, {country{"CA", -5 * time.Hour}, 4}, {country{"BR", -3 * time.Hour}, 4},
	{country{"MX", -6 * time.Hour}, 1.5}, {country{"GB", 0}, 8}, {country{"DE", time.Hour}, 9},
	{country{"FR", time.Hour}, 5}, {country{"NL", time.Hour}, 3}, {country{"ES", time.Hour}, 3},
	{country{"IT", time.Hour}, 2}, {country{"PL", time.Hour}, 2}, {country{"SE", time.Hour}, 2},
	{country{"IN", 5*time.Hour + 30*time.Minute}, 7}, {country{"JP", 9 * time.Hour}, 3},
	{country{"KR", 9 * time.Hour}, 1.5}, {country{"SG", 8 * time.Hour}, 1}, {country{"AU", 10 * time.Hour}, 2.5},
	{country{"ZA", 2 * time.Hour}, 1}, {country{"", 0}, 2}, // unknown
}

// sourceKind decides where a visit lands and how likely it bounces.
type sourceKind int

const (
	direct sourceKind = iota
	search
	social
	blog
	campaign
)

type source struct {
	kind     sourceKind
	referrer string
	utm      analytics.UTM
	clickID  bool // the campaign's landing URL carries a click id (gclid)
}

var sources = []weighted[source]{
	{source{kind: direct}, 34},
	{source{kind: search, referrer: "https://www.google.com/"}, 26},
	{source{kind: search, referrer: "https://www.bing.com/"}, 3.5},
	{source{kind: search, referrer: "https://duckduckgo.com/"}, 3},
	{source{kind: search, referrer: "https://www.ecosia.org/"}, 0.7},
	{source{kind: social, referrer: "https://t.co/"}, 3.5},
	{source{kind: social, referrer: "https://www.reddit.com/r/golang/"}, 3},
	{source{kind: social, referrer: "https://news.ycombinator.com/item"}, 3.5},
	{source{kind: social, referrer: "https://www.linkedin.com/feed/"}, 1.5},
	{source{kind: social, referrer: "https://l.facebook.com/"}, 1},
	{source{kind: blog, referrer: "https://github.com/timetable-db/timetable"}, 4},
	{source{kind: blog, referrer: "https://dev.to/"}, 1.5},
	{source{kind: blog, referrer: "https://golangweekly.com/issues/"}, 1.5},
	{source{kind: blog, referrer: "https://lobste.rs/"}, 1},
	{source{kind: campaign, utm: analytics.UTM{Source: "newsletter", Medium: "email", Campaign: "monthly-update"}}, 5},
	{source{kind: campaign, referrer: "https://www.google.com/", utm: analytics.UTM{Source: "google", Medium: "cpc", Campaign: "brand", Term: "time series database"}, clickID: true}, 3},
	{source{kind: campaign, referrer: "https://t.co/", utm: analytics.UTM{Source: "twitter", Medium: "social", Campaign: "launch-week"}}, 1.5},
}

// bounceRate is the chance that a visit from each kind of source views
// one page only.
var bounceRate = map[sourceKind]float64{direct: 0.35, search: 0.5, social: 0.62, blog: 0.45, campaign: 0.4}

type device struct{ device, os, browser string }

// devices lists the device, OS and browser of a visitor with their
// shares (percent), so that no impossible pair appears.
var devices = []weighted[device]{
	{device{"Desktop", "Windows", "Chrome"}, 21}, {device{"Desktop", "Windows", "Edge"}, 7},
	{device{"Desktop", "Windows", "Firefox"}, 3.5}, {device{"Desktop", "Mac", "Chrome"}, 8},
	{device{"Desktop", "Mac", "Safari"}, 8}, {device{"Desktop", "Mac", "Firefox"}, 1.5},
	{device{"Desktop", "GNU/Linux", "Firefox"}, 3}, {device{"Desktop", "GNU/Linux", "Chrome"}, 3.5},
	{device{"Desktop", "Chrome OS", "Chrome"}, 1.5},
	{device{"Mobile", "iOS", "Safari"}, 15}, {device{"Mobile", "iOS", "Chrome"}, 2.5},
	{device{"Mobile", "Android", "Chrome"}, 16}, {device{"Mobile", "Android", "Samsung Internet"}, 3},
	{device{"Mobile", "Android", "Firefox"}, 1},
	{device{"Tablet", "iPadOS", "Safari"}, 2.5}, {device{"Tablet", "Android", "Chrome"}, 1.5},
}

// visitor is who makes a visit; returning visitors keep it.
type visitor struct {
	id      string
	country country
	dev     device
}

// Day returns the events of the UTC day holding day, in time order: the
// visits of that day, with the events of a visit that would run past
// midnight left out. The slice is the caller's. The same Generator (or one
// with the same options) returns the same events for a day every time.
func (g *Generator) Day(day time.Time) []analytics.Event {
	d := day.UTC()
	start := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	end := start.Add(24 * time.Hour)
	r := rand.New(rand.NewPCG(g.o.Seed, uint64(start.Unix()/86400)))
	n := g.visits(r, start)
	var evs []analytics.Event
	var seen []visitor
	for range n {
		var v visitor
		if len(seen) > 0 && chance(r, 0.12) { // a returning visitor
			v = seen[r.IntN(len(seen))]
		} else {
			v = visitor{id: fmt.Sprintf("%016x", r.Uint64()), country: pick(r, countries), dev: pick(r, devices)}
			seen = append(seen, v)
		}
		evs = g.visit(r, evs, v, visitTime(r, start, v.country.offset), end)
	}
	slices.SortStableFunc(evs, func(a, b analytics.Event) int { return a.Time.Compare(b.Time) })
	return evs
}

// visits returns the number of visits of the day starting at start: the
// mean times the weekday's weight and the trend, with a noise of ±8%.
func (g *Generator) visits(r *rand.Rand, start time.Time) int {
	m := g.o.VisitsPerDay * dayWeight[start.Weekday()]
	if g.o.GrowthPerMonth > 0 {
		months := start.Sub(g.o.End).Hours() / 24 / 30
		m *= math.Pow(1+g.o.GrowthPerMonth, months)
	}
	m *= 0.92 + 0.16*r.Float64()
	return int(math.Round(m))
}

// visitTime returns the start of a visit in the UTC day starting at
// start, for a visitor offset from UTC: a time drawn uniformly and kept
// with the probability of its local hour's weight.
func visitTime(r *rand.Rand, start time.Time, offset time.Duration) time.Time {
	for {
		t := start.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
		if chance(r, hourWeight[t.Add(offset).Hour()]) {
			return t.Truncate(time.Millisecond)
		}
	}
}

// dwell returns a time on page: log-normal, median 40 s, at most 15
// minutes (under the 30-minute session timeout).
func dwell(r *rand.Rand) time.Duration {
	d := time.Duration(40 * math.Exp(0.9*r.NormFloat64()) * float64(time.Second))
	return min(max(d, 2*time.Second), 15*time.Minute).Truncate(time.Millisecond)
}

// visit appends the events of one visit by v starting at t, those before
// end: page views (the first with the referrer and campaign), custom
// events, and an engagement event when the last page is hidden.
func (g *Generator) visit(r *rand.Rand, evs []analytics.Event, v visitor, t, end time.Time) []analytics.Event {
	add := func(at time.Time, name, path string, props map[string]string) *analytics.Event {
		if !at.Before(end) {
			return nil
		}
		evs = append(evs, analytics.Event{Site: g.o.Site, Time: at, Name: name, VisitorID: v.id, Path: path,
			Country: v.country.code, Device: v.dev.device, OS: v.dev.os, Browser: v.dev.browser, Props: props})
		return &evs[len(evs)-1]
	}
	src := pick(r, sources)
	path := g.landing(r, src.kind)
	pages := 1
	if !chance(r, bounceRate[src.kind]) {
		// One more page, then each further one with probability 0.65.
		pages += 1 + int(min(13, math.Floor(math.Log(1-r.Float64())/math.Log(0.65))))
	}
	for i := 0; i < pages; i++ {
		if e := add(t, analytics.PageView, path, nil); e != nil && i == 0 {
			e.Referrer, e.UTM = src.referrer, src.utm
			if src.clickID {
				e.ClickID = "gclid"
			}
		}
		t = t.Add(dwell(r))
		next := ""
		switch {
		case path == "/" && chance(r, 0.18):
			next = "/pricing"
		case path == "/pricing" && chance(r, 0.3):
			next = "/signup"
		case path == "/signup" && chance(r, 0.45):
			add(t.Add(-time.Second), "Signup", path, map[string]string{"plan": pick(r, plans)})
			next, pages = "/docs/getting-started", max(pages, i+2)
		case path == "/docs/install" && chance(r, 0.35):
			add(t.Add(-time.Second), "Download", path, map[string]string{"os": pick(r, downloadOS), "arch": pick(r, downloadArch)})
		case strings.HasPrefix(path, "/blog/") && chance(r, 0.06):
			add(t.Add(-time.Second), "Outbound Link: Click", path, map[string]string{"url": "https://github.com/timetable-db/timetable"})
		case strings.HasPrefix(path, "/old/"):
			add(t.Add(-time.Second), "404", path, map[string]string{"path": path})
		}
		if i < pages-1 {
			if next == "" {
				next = pick(r, g.pages)
			}
			path = next
		}
	}
	if chance(r, 0.8) {
		add(t, analytics.Engagement, path, nil)
	}
	return evs
}

var (
	plans        = []weighted[string]{{"free", 80}, {"pro", 15}, {"team", 5}}
	downloadOS   = []weighted[string]{{"linux", 55}, {"darwin", 30}, {"windows", 15}}
	downloadArch = []weighted[string]{{"amd64", 70}, {"arm64", 30}}
)

// landing returns the entry page of a visit from a source of kind k:
// search engines land on blog posts and docs, social sites on blog posts,
// campaigns on the home page or pricing; a few land on a page that is no
// more (a 404).
func (g *Generator) landing(r *rand.Rand, k sourceKind) string {
	switch u := r.Float64(); {
	case k == search && u < 0.01:
		return fmt.Sprintf("/old/page-%d", r.IntN(40))
	case k == search && u < 0.55, k == social && u < 0.7, k == blog && u < 0.4:
		return pick(r, g.blog)
	case k == campaign && u < 0.4:
		return "/pricing"
	case k == campaign, k == social, k == direct && u < 0.55:
		return "/"
	case k == blog && u < 0.7:
		return "/docs/getting-started"
	}
	return pick(r, g.pages)
}
