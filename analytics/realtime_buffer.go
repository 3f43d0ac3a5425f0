package analytics

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// realtimeFlushEvery is how long Record gathers the realtime additions of
// hits before writing them, one update per site and minute.
const realtimeFlushEvery = time.Second

// rtKey is a site's minute.
type rtKey struct {
	site   string
	minute time.Time
}

// rtAdd is what the hits of a minute add to its realtime item.
type rtAdd struct {
	visitors, pages map[string]bool
	pageViews       int64
}

// add counts the hit named name of visitor on path.
func (a *rtAdd) add(visitor, name, path string) {
	a.visitors[visitor] = true
	if name == PageView {
		a.pageViews++
		a.pages[visitor+" "+path] = true
	}
}

// rtBuffer gathers realtime additions. Every hit of a site's minute
// updates the same item, which grows with the minute's visitors: written
// one hit at a time, the hits of a site would be recorded one item rewrite
// at a time (a few hundred a second on the engine).
type rtBuffer struct {
	mu      sync.Mutex
	adds    map[rtKey]*rtAdd
	pending bool       // a flush is scheduled
	flushMu sync.Mutex // one flush at a time, in minute order
}

// realtime adds the hit e at t to its minute's pending additions, unless
// that minute is older than the realtime window or e is an engagement
// event; a flush follows within realtimeFlushEvery (or at the next
// Realtime). It returns nil: a flush's failure is logged.
func (s *Store) realtime(_ context.Context, e *Event, t, now time.Time) error {
	if e.Name == Engagement || now.Sub(t) >= realtimeWindow {
		return nil
	}
	k := rtKey{site: e.Site, minute: t.Truncate(time.Minute)}
	b := &s.rt
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.adds == nil {
		b.adds = map[rtKey]*rtAdd{}
	}
	a := b.adds[k]
	if a == nil {
		a = &rtAdd{visitors: map[string]bool{}, pages: map[string]bool{}}
		b.adds[k] = a
	}
	a.add(e.VisitorID, e.Name, e.Path)
	if !b.pending {
		b.pending = true
		// The flush runs on its own, after the request that scheduled it.
		time.AfterFunc(realtimeFlushEvery, func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := s.flushRealtime(ctx); err != nil {
				s.o.Logger.Warn("analytics: realtime counters lost", "err", err)
			}
		})
	}
	return nil
}

// Flush writes the realtime counters Record has gathered and not written
// yet (it does so by itself within a second, and Realtime first): call it
// before the process exits, or before reading the table's items directly.
func (s *Store) Flush(ctx context.Context) error { return s.flushRealtime(ctx) }

// flushRealtime writes the pending realtime additions: for each site's
// minute, one update that adds its visitors and pages to string sets (so
// a retried update counts nothing twice) and its page views to the count.
// The additions of an update that fails are lost (and the error says
// so): realtime counters are a view of the last minutes, not a record.
func (s *Store) flushRealtime(ctx context.Context) error {
	b := &s.rt
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	adds := b.adds
	b.adds, b.pending = nil, false
	b.mu.Unlock()
	var first error
	for k, a := range adds {
		if err := s.writeRealtime(ctx, k, a, false); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// RebuildRealtime rewrites the realtime counters of every site's recent
// minutes (those Realtime reads, and the future ones Options.MaxFuture
// allows) from the raw hits, replacing what they held. Record gathers the
// counters in memory for up to a second before writing them, so a crash
// (kill -9) loses those of the hits of its last second, while the hits
// themselves are durable once Record returns under a context that is not
// deferred-sync (or once the engine's log is synced): call RebuildRealtime
// when a Store opens, before it records hits (timetable serve does), and
// the counters are again those of the hits stored, none lost and none
// counted twice. A hit recorded while it runs may be counted twice, for
// the realtime window. A counter item is never ahead of the raw hits (a
// hit's item is written before its counters), so minutes without hits
// are left alone.
func (s *Store) RebuildRealtime(ctx context.Context) error {
	sites, err := s.Sites(ctx)
	if err != nil {
		return err
	}
	now := s.now()
	from := now.Truncate(time.Minute).Add(-realtimeWindow)
	to := now.Add(s.o.MaxFuture)
	for _, site := range sites {
		adds := map[rtKey]*rtAdd{}
		for _, e := range []*design.Entity{entPageView, entEvent} {
			q := hitsQuery(site.ID, e, from, to)
			for it, err := range s.t.QueryAll(ctx, q) {
				if err != nil {
					return fmt.Errorf("analytics: cannot read the recent hits of site %q: %w", site.ID, err)
				}
				if expired(it, now) {
					continue
				}
				h, err := hitFrom(it)
				if err != nil {
					return err
				}
				if h.name == Engagement {
					continue
				}
				k := rtKey{site: site.ID, minute: h.t.Truncate(time.Minute)}
				if adds[k] == nil {
					adds[k] = &rtAdd{visitors: map[string]bool{}, pages: map[string]bool{}}
				}
				adds[k].add(h.visitor, h.name, h.path)
			}
		}
		for k, a := range adds {
			if err := s.writeRealtime(ctx, k, a, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeRealtime adds a to the realtime counters of k, or with replace sets
// them to a.
func (s *Store) writeRealtime(ctx context.Context, k rtKey, a *rtAdd, replace bool) error {
	minute := k.minute.Format(layoutMinute)
	key, err := primaryKey(entRealtime, map[string]string{"siteId": k.site, "minute": minute})
	if err != nil {
		return err
	}
	set := func(m map[string]bool) types.AttributeValue {
		vs := make([]string, 0, len(m))
		for v := range m {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		return &types.AttributeValueMemberSS{Value: vs}
	}
	u := table.NewUpdate().
		Set("siteId", k.site).
		Set("minute", minute).
		Set(attrTTL, k.minute.Add(realtimeTTL).Unix())
	switch {
	case replace && a.pageViews > 0:
		u.Set("visitors", set(a.visitors)).Set("pageViews", a.pageViews).Set("pages", set(a.pages))
	case replace:
		u.Set("visitors", set(a.visitors)).Remove("pageViews").Remove("pages")
	case a.pageViews > 0:
		u.Add("visitors", set(a.visitors)).Increment("pageViews", a.pageViews).Add("pages", set(a.pages))
	default:
		u.Add("visitors", set(a.visitors))
	}
	if _, err := s.t.Update(ctx, key, u, nil); err != nil {
		return fmt.Errorf("analytics: cannot update the realtime counters of site %q: %w", k.site, err)
	}
	return nil
}
