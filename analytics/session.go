package analytics

import (
	"slices"
	"time"
)

// Sessions are formed by one function, formSessions, from any run of hits
// sorted by hitCmp: the raw hits of a range (rawHits) or a decoded bucket
// (blockHits). Both are hitViews; the aggregation, RawVisits and the
// reads of the Stats API all form their visits through it, so the rules
// below hold for each of them alike.

// hitKind is what a hit counts as in a session.
type hitKind uint8

const (
	kindPageView hitKind = iota
	kindEngagement
	kindInteractive // a custom event that ends a bounce
	kindQuiet       // a custom event that does not
)

func kindOf(name string, interactive bool) hitKind {
	switch {
	case name == PageView:
		return kindPageView
	case name == Engagement:
		return kindEngagement
	case interactive:
		return kindInteractive
	}
	return kindQuiet
}

// hitView is a run of hits sorted by hitCmp, read by index.
type hitView interface {
	len() int
	// sameVisitor reports whether hits i and j have one visitor id.
	sameVisitor(i, j int) bool
	// msAt returns the time of hit i in Unix milliseconds.
	msAt(i int) int64
	kindAt(i int) hitKind
	// goalsAt returns the ids of the goals hit i matches, in the site's
	// order; the slice is shared and must not be changed.
	goalsAt(i int) []string
	visitorAt(i int) string
	nameAt(i int) string
	pathAt(i int) string
	sourceAt(i int) string
	utmAt(i int) UTM
	countryAt(i int) string
	browserAt(i int) string
	osAt(i int) string
	deviceAt(i int) string
	// propsAt returns the properties of hit i, nil if none; the map may be
	// shared and must not be changed.
	propsAt(i int) map[string]string
}

// span is a session of a hitView: its hits are those of [lo, hi), in
// order (the engagement events dropped for opening no session lie between
// spans).
type span struct {
	lo, hi      int
	start, last int64 // the times of its first and last hits, Unix ms
	exit        int   // its last page view, lo if it has none
	pageViews   int64
	events      int64 // its page views and custom events
	interactive bool
	// goals are the ids of the goals its hits match, in the order first
	// met; the slice is reused from one span to the next.
	goals []string
}

func (sp *span) bounce() bool { return sp.pageViews <= 1 && !sp.interactive }

// formSessions forms the sessions of v and calls fn with each, in order,
// until fn returns false: a hit more than timeout after its visitor's
// previous hit opens a new session, except an engagement event, which is
// dropped (dropped is called with its index, if not nil). fn must not keep
// sp, which is reused.
func formSessions[V hitView](v V, timeout time.Duration, fn func(sp *span) bool, dropped func(i int)) {
	var sp span
	open := false
	for i, n := 0, v.len(); i < n; i++ {
		ms, k := v.msAt(i), v.kindAt(i)
		if !open || !v.sameVisitor(sp.lo, i) || time.Duration(ms-sp.last)*time.Millisecond > timeout {
			if k == kindEngagement {
				if dropped != nil {
					dropped(i)
				}
				continue
			}
			if open && !fn(&sp) {
				return
			}
			sp = span{lo: i, start: ms, exit: i, goals: sp.goals[:0]}
			open = true
		}
		sp.hi, sp.last = i+1, ms
		switch k {
		case kindPageView:
			sp.pageViews++
			sp.exit = i
		case kindInteractive:
			sp.interactive = true
		}
		if k != kindEngagement {
			sp.events++
		}
		for _, g := range v.goalsAt(i) {
			if !slices.Contains(sp.goals, g) {
				sp.goals = append(sp.goals, g)
			}
		}
	}
	if open {
		fn(&sp)
	}
}

// fillVisit sets out to the fields of the visit of span sp of v that
// come from its hits, but those skip: its visitor id and its first hit's
// fields, its entry and exit pages. fillFigures sets the rest.
func fillVisit[V hitView](v V, sp *span, out *Visit, skip Field) {
	lo := sp.lo
	*out = Visit{}
	if skip&FieldPages == 0 {
		out.EntryPage, out.ExitPage = v.pathAt(lo), v.pathAt(sp.exit)
	}
	if skip&FieldVisitorID == 0 {
		out.VisitorID = v.visitorAt(lo)
	}
	if skip&FieldSource == 0 {
		out.Source = v.sourceAt(lo)
	}
	if skip&FieldUTM == 0 {
		out.UTM = v.utmAt(lo)
	}
	if skip&FieldCountry == 0 {
		out.Country = v.countryAt(lo)
	}
	if skip&FieldBrowser == 0 {
		out.Browser = v.browserAt(lo)
	}
	if skip&FieldOS == 0 {
		out.OS = v.osAt(lo)
	}
	if skip&FieldDevice == 0 {
		out.Device = v.deviceAt(lo)
	}
}

// fillFigures sets the times and figures of out, the visit of span sp,
// and its goals, sorted, appended to goals, which it returns grown.
func fillFigures(sp *span, out *Visit, goals []string) []string {
	out.Start, out.End = time.UnixMilli(sp.start).UTC(), time.UnixMilli(sp.last).UTC()
	out.PageViews, out.Events, out.Bounce, out.Duration = sp.pageViews, sp.events, sp.bounce(), time.Duration(sp.last-sp.start)*time.Millisecond
	if len(sp.goals) > 0 {
		g0 := len(goals)
		goals = append(goals, sp.goals...)
		out.Goals = goals[g0:len(goals):len(goals)]
		slices.Sort(out.Goals)
	}
	return goals
}

// appendHits sets the Hits of out, the visit of span sp of v, to its hits
// but its engagement events (without Props if skip has FieldProps),
// appended to hits, which it returns grown.
func appendHits[V hitView](v V, sp *span, out *Visit, hits []Hit, skip Field) []Hit {
	h0 := len(hits)
	for i := sp.lo; i < sp.hi; i++ {
		if v.kindAt(i) == kindEngagement {
			continue
		}
		h := Hit{Time: time.UnixMilli(v.msAt(i)).UTC(), Name: v.nameAt(i), Path: v.pathAt(i), Goals: v.goalsAt(i)}
		if skip&FieldProps == 0 {
			h.Props = v.propsAt(i)
		}
		hits = append(hits, h)
	}
	if len(hits) > h0 {
		out.Hits = hits[h0:len(hits):len(hits)]
	}
	return hits
}

// goalIndex gives the goals a hit matches from its name and path, each
// computed once.
type goalIndex struct {
	goals  []Goal
	pages  map[string][]string // by path, for page views
	events map[string][]string // by name, for other hits
}

func newGoalIndex(goals []Goal) *goalIndex {
	return &goalIndex{goals: goals, pages: map[string][]string{}, events: map[string][]string{}}
}

// of returns the ids of the goals that a hit of name on path matches, in
// the goals' order; nil if none. The slice is shared.
func (gi *goalIndex) of(name, path string) []string {
	if len(gi.goals) == 0 {
		return nil
	}
	m, key := gi.events, name
	if name == PageView {
		m, key = gi.pages, path
	}
	ids, ok := m[key]
	if !ok {
		h := hit{name: name, path: path}
		for i := range gi.goals {
			if gi.goals[i].matches(&h) {
				ids = append(ids, gi.goals[i].ID)
			}
		}
		m[key] = ids
	}
	return ids
}

// rawHits is a hitView of hits read from the table.
type rawHits struct {
	h  []hit
	gi *goalIndex
}

func (v rawHits) len() int                        { return len(v.h) }
func (v rawHits) sameVisitor(i, j int) bool       { return v.h[i].visitor == v.h[j].visitor }
func (v rawHits) msAt(i int) int64                { return v.h[i].t.UnixMilli() }
func (v rawHits) kindAt(i int) hitKind            { return kindOf(v.h[i].name, v.h[i].interactive) }
func (v rawHits) goalsAt(i int) []string          { return v.gi.of(v.h[i].name, v.h[i].path) }
func (v rawHits) visitorAt(i int) string          { return v.h[i].visitor }
func (v rawHits) nameAt(i int) string             { return v.h[i].name }
func (v rawHits) pathAt(i int) string             { return v.h[i].path }
func (v rawHits) sourceAt(i int) string           { return v.h[i].source }
func (v rawHits) utmAt(i int) UTM                 { return v.h[i].utm }
func (v rawHits) countryAt(i int) string          { return v.h[i].country }
func (v rawHits) browserAt(i int) string          { return v.h[i].browser }
func (v rawHits) osAt(i int) string               { return v.h[i].os }
func (v rawHits) deviceAt(i int) string           { return v.h[i].device }
func (v rawHits) propsAt(i int) map[string]string { return v.h[i].props }

// blockHits is a hitView of a decoded block, whose goals and kinds are
// computed once per value of its dictionaries.
type blockHits struct {
	b                    *block
	name, path           *strColumn
	pageView, engagement int        // codes of PageView and Engagement in the name column, -1 if absent
	pageGoals            [][]string // by path code
	eventGoals           [][]string // by name code
}

func newBlockHits(b *block, goals []Goal) blockHits {
	v := blockHits{b: b, name: b.col(colName), path: b.col(colPath), pageView: -1, engagement: -1}
	if i, ok := slices.BinarySearch(v.name.dict, PageView); ok {
		v.pageView = i
	}
	if i, ok := slices.BinarySearch(v.name.dict, Engagement); ok {
		v.engagement = i
	}
	if len(goals) > 0 {
		gi := newGoalIndex(goals)
		if v.pageView >= 0 {
			v.pageGoals = make([][]string, len(v.path.dict))
			for i, p := range v.path.dict {
				v.pageGoals[i] = gi.of(PageView, p)
			}
		}
		v.eventGoals = make([][]string, len(v.name.dict))
		for i, n := range v.name.dict {
			if i != v.pageView {
				v.eventGoals[i] = gi.of(n, "")
			}
		}
	}
	return v
}

func (v blockHits) len() int                  { return v.b.n }
func (v blockHits) sameVisitor(i, j int) bool { return v.b.visitor[i] == v.b.visitor[j] }
func (v blockHits) msAt(i int) int64          { return v.b.ms[i] }

func (v blockHits) kindAt(i int) hitKind {
	switch v.name.code(i) {
	case v.pageView:
		return kindPageView
	case v.engagement:
		return kindEngagement
	}
	if v.b.flags[i]&flagInteractive != 0 {
		return kindInteractive
	}
	return kindQuiet
}

func (v blockHits) goalsAt(i int) []string {
	if v.eventGoals == nil {
		return nil
	}
	if c := v.name.code(i); c != v.pageView {
		return v.eventGoals[c]
	}
	return v.pageGoals[v.path.code(i)]
}

func (v blockHits) visitorAt(i int) string          { return v.b.visitorID(i) }
func (v blockHits) nameAt(i int) string             { return v.name.at(i) }
func (v blockHits) pathAt(i int) string             { return v.path.at(i) }
func (v blockHits) sourceAt(i int) string           { return v.b.col(colSource).at(i) }
func (v blockHits) countryAt(i int) string          { return v.b.col(colCountry).at(i) }
func (v blockHits) browserAt(i int) string          { return v.b.col(colBrowser).at(i) }
func (v blockHits) osAt(i int) string               { return v.b.col(colOS).at(i) }
func (v blockHits) deviceAt(i int) string           { return v.b.col(colDevice).at(i) }
func (v blockHits) propsAt(i int) map[string]string { return v.b.props(i) }

func (v blockHits) utmAt(i int) UTM {
	c := v.b.col
	return UTM{Source: c(colUTMSource).at(i), Medium: c(colUTMMedium).at(i), Campaign: c(colUTMCampaign).at(i),
		Term: c(colUTMTerm).at(i), Content: c(colUTMContent).at(i)}
}

// session is a visit formed from the hits of one visitor, as the
// aggregation counts it.
type session struct {
	visitor     string
	start, last time.Time
	first       *hit
	exit        string
	pageViews   int64
	interactive bool
	// goals are the ids of the goals it converted.
	goals []string
}

func (s *session) bounce() bool    { return s.pageViews <= 1 && !s.interactive }
func (s *session) duration() int64 { return s.last.Sub(s.start).Milliseconds() }

// sessionize forms the sessions of hits (sorted by hitCmp) with
// formSessions, and reports the engagement events it dropped (dropped[i]
// set). A session's exit page is its last page view's path (its first
// hit's if it has none).
func sessionize(hits []hit, goals []Goal, timeout time.Duration) (ss []*session, dropped []bool) {
	dropped = make([]bool, len(hits))
	formSessions(rawHits{h: hits, gi: newGoalIndex(goals)}, timeout, func(sp *span) bool {
		ss = append(ss, &session{visitor: hits[sp.lo].visitor, start: hits[sp.lo].t, last: hits[sp.hi-1].t, first: &hits[sp.lo],
			exit: hits[sp.exit].path, pageViews: sp.pageViews, interactive: sp.interactive, goals: slices.Clone(sp.goals)})
		return true
	}, func(i int) { dropped[i] = true })
	return ss, dropped
}
