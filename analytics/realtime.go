package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// Realtime item lifetime and the window a Realtime read covers.
const (
	realtimeTTL    = 10 * time.Minute
	realtimeWindow = 5 * time.Minute
)

// Live is what Realtime returns.
type Live struct {
	// Visitors is the number of distinct visitors with a page view or a
	// custom event in the last 5 minutes (this minute included).
	Visitors int
	// PageViews is the number of page views in those minutes.
	PageViews int64
	// Pages are the paths viewed in those minutes with their distinct
	// visitors, most visitors first (then by path).
	Pages []Count
	// Events are the page views and custom events of the last 5 minutes
	// (engagement events left out), newest first, at most 50.
	Events []LiveEvent
	// Latest is the time of the site's latest page view among the raw
	// hits kept, when the last 5 minutes have none; zero otherwise, and
	// when there is none.
	Latest time.Time
}

// LiveEvent is a hit of the realtime feed.
type LiveEvent struct {
	Time                         time.Time
	Name, Page, Source           string
	Country, Browser, OS, Device string
}

// maxLiveEvents bounds Live.Events.
const maxLiveEvents = 50

// Realtime returns the visitors and pages of the last 5 minutes of site,
// from its REALTIME# items: a query bounded on both sides, so that the
// SESSION#, STATS# and TOP# items (which sort after REALTIME#) never come
// back.
func (s *Store) Realtime(ctx context.Context, site string) (*Live, error) {
	if err := s.flushRealtime(ctx); err != nil {
		return nil, err
	}
	now := s.now()
	end := now.Truncate(time.Minute)
	start := end.Add(-realtimeWindow + time.Minute)
	lo, err := primaryKey(entRealtime, map[string]string{"siteId": site, "minute": start.Format(layoutMinute)})
	if err != nil {
		return nil, err
	}
	hi, _ := primaryKey(entRealtime, map[string]string{"siteId": site, "minute": end.Format(layoutMinute)})
	visitors := map[string]bool{}
	pages := map[string]map[string]bool{}
	live := &Live{}
	q := &table.Query{Hash: lo.Hash, Range: table.Between(lo.Range, hi.Range), Consistent: true}
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the realtime counters of site %q: %w", site, err)
		}
		if expired(it, now) {
			continue
		}
		live.PageViews += getN(it, "pageViews")
		for _, v := range getSS(it, "visitors") {
			visitors[v] = true
		}
		for _, vp := range getSS(it, "pages") {
			v, p, _ := strings.Cut(vp, " ")
			if pages[p] == nil {
				pages[p] = map[string]bool{}
			}
			pages[p][v] = true
		}
	}
	if live.Events, err = s.liveEvents(ctx, site, now.Add(-realtimeWindow), now); err != nil {
		return nil, err
	}
	if live.PageViews == 0 {
		if live.Latest, err = s.latestPageView(ctx, site, now); err != nil {
			return nil, err
		}
	}
	live.Visitors = len(visitors)
	for p, vs := range pages {
		live.Pages = append(live.Pages, Count{Value: p, Count: int64(len(vs))})
	}
	sortCounts(live.Pages)
	return live, nil
}

// liveEvents returns the page views and custom events of site in
// [from, now], newest first, at most maxLiveEvents: a reverse query of each
// entity's items bounded on both sides (PV#{from} to PV#{now}~, so that
// nothing of another entity comes back), merged.
func (s *Store) liveEvents(ctx context.Context, site string, from, now time.Time) ([]LiveEvent, error) {
	var out []LiveEvent
	for _, e := range []*design.Entity{entPageView, entEvent} {
		q := hitsQuery(site, e, from, now)
		q.Reverse, q.Limit = true, 4*maxLiveEvents
		n := 0
		for it, err := range s.t.QueryAll(ctx, q) {
			if err != nil {
				return nil, fmt.Errorf("analytics: cannot read the recent hits of site %q: %w", site, err)
			}
			if expired(it, now) {
				continue
			}
			h, err := hitFrom(it)
			if err != nil {
				return nil, err
			}
			if h.name == Engagement {
				continue
			}
			out = append(out, LiveEvent{Time: h.t, Name: h.name, Page: h.path, Source: h.source, Country: h.country,
				Browser: h.browser, OS: h.os, Device: h.device})
			if n++; n == maxLiveEvents {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b LiveEvent) int { return b.Time.Compare(a.Time) })
	return out[:min(len(out), maxLiveEvents)], nil
}

// latestPageView returns the time of the latest page view of site up to
// now among the raw hits kept, zero if there is none: one item read by a
// reverse query.
func (s *Store) latestPageView(ctx context.Context, site string, now time.Time) (time.Time, error) {
	from := now.Add(-s.o.Retention.Raw)
	if s.o.Retention.Raw <= 0 { // kept for ever
		from = time.Unix(0, 0)
	}
	q := hitsQuery(site, entPageView, from, now)
	q.Reverse, q.Limit = true, 1
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return time.Time{}, fmt.Errorf("analytics: cannot read the latest hit of site %q: %w", site, err)
		}
		if expired(it, now) {
			continue
		}
		h, err := hitFrom(it)
		return h.t, err
	}
	return time.Time{}, nil
}

// hitsQuery returns the query of the items of e (page views or events) of
// site whose time is in [from, to], in time order: bounded on both sides
// (PV#{from} to PV#{to}~), so that nothing of another entity comes back.
func hitsQuery(site string, e *design.Entity, from, to time.Time) *table.Query {
	prefix := skPrefix(e)
	return &table.Query{Hash: sitePK(site), Range: table.Between(prefix+timestamp(from), prefix+timestamp(to)+"~"), Consistent: true}
}

// Count is a value of a breakdown and its count.
type Count struct {
	Value string
	Count int64
}

// sortCounts orders cs by count, highest first, then by value.
func sortCounts(cs []Count) {
	slices.SortFunc(cs, func(a, b Count) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
}
