package analytics

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Visit is a session formed from the raw hits by the aggregation's own
// rules (see the package documentation), as RawVisits returns it.
type Visit struct {
	VisitorID string
	// Start is the time of its first hit, End of its last (engagement
	// events included).
	Start, End time.Time
	// EntryPage is the path of its first hit, ExitPage of its last page
	// view (of its first hit without one).
	EntryPage, ExitPage string
	// Source, UTM, Country, Browser, OS and Device are its first hit's.
	Source                       string
	UTM                          UTM
	Country, Browser, OS, Device string
	PageViews                    int64
	Bounce                       bool
	Duration                     time.Duration
	// Goals are the ids of the goals it converted, sorted.
	Goals []string
	// Hits are its page views and custom events in order (engagement
	// events left out).
	Hits []Hit
}

// Hit is a page view or a custom event of a Visit.
type Hit struct {
	Time time.Time
	// Name is PageView or a custom event's name.
	Name  string
	Path  string
	Props map[string]string
	// Goals are the ids of the goals the hit matches, in the site's order.
	Goals []string
}

// RawStart returns the start of the first UTC day whose raw hits are all
// still kept (Retention.Raw after its start is in the future), the earliest
// from of RawVisits; the zero time when raw hits are kept forever.
func (s *Store) RawStart() time.Time {
	if s.o.Retention.Raw <= 0 {
		return time.Time{}
	}
	return Day.next(Day.start(s.now().Add(-s.o.Retention.Raw)))
}

// RawVisits returns the visits of site formed from the raw hits of every
// UTC day that [from, to) touches, in order of visitor and start, with
// the site's current goals. Sessions end at midnight UTC, so these are the
// visits the aggregation forms: a figure of [from, to) counts the hits
// whose Time is in it and the visits whose Start is, as the aggregates do.
// It fails with ErrExpired when the first of those days may have lost raw
// hits (Retention.Raw after its start), and with ErrInvalid when from is
// not before to or the days hold more than Options.MaxRawHits hits. The
// Visits are the caller's.
func (s *Store) RawVisits(ctx context.Context, site string, from, to time.Time) ([]Visit, error) {
	if !from.Before(to) {
		return nil, fmt.Errorf("%w range [%s, %s): empty", ErrInvalid, timestamp(from), timestamp(to))
	}
	first := Day.start(from)
	last := Day.start(to.Add(-time.Nanosecond))
	if first.Before(s.RawStart()) {
		return nil, fmt.Errorf("%w: the raw hits are kept %s, so a range computed from them must start on %s (UTC) or later; this one starts on %s",
			ErrExpired, days(s.o.Retention.Raw), dayOf(s.RawStart()), dayOf(first))
	}
	goals, err := s.Goals(ctx, site)
	if err != nil {
		return nil, err
	}
	var out []Visit
	n := 0
	for d := first; !d.After(last); d = Day.next(d) {
		hits, err := s.loadHits(ctx, site, d, Day.next(d))
		if err != nil {
			return nil, err
		}
		if n += len(hits); n > s.o.MaxRawHits {
			return nil, fmt.Errorf("%w range: its days hold more than %d raw hits (Options.MaxRawHits); ask for a shorter one", ErrInvalid, s.o.MaxRawHits)
		}
		ss, _ := sessionize(hits, goals, s.o.SessionTimeout)
		for _, x := range ss {
			out = append(out, visitOf(x, hits, goals))
		}
	}
	return out, nil
}

func visitOf(x *session, hits []hit, goals []Goal) Visit {
	f := x.first
	v := Visit{VisitorID: x.visitor, Start: x.start, End: x.last, EntryPage: f.path, ExitPage: x.exit, Source: f.source,
		UTM:     UTM{Source: f.utm["source"], Medium: f.utm["medium"], Campaign: f.utm["campaign"], Term: f.utm["term"], Content: f.utm["content"]},
		Country: f.country, Browser: f.browser, OS: f.os, Device: f.device, PageViews: x.pageViews, Bounce: x.bounce(),
		Duration: time.Duration(x.duration()) * time.Millisecond}
	for g := range x.goals {
		v.Goals = append(v.Goals, g)
	}
	slices.Sort(v.Goals)
	for _, i := range x.hits {
		h := &hits[i]
		if h.name == Engagement {
			continue
		}
		rh := Hit{Time: h.t, Name: h.name, Path: h.path, Props: h.props}
		for j := range goals {
			if goals[j].matches(h) {
				rh.Goals = append(rh.Goals, goals[j].ID)
			}
		}
		v.Hits = append(v.Hits, rh)
	}
	return v
}

// days writes d in days when it is a whole number of them.
func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}
