package analytics

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	a.visitors[e.VisitorID] = true
	if e.Name == PageView {
		a.pageViews++
		a.pages[e.VisitorID+" "+e.Path] = true
	}
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
		if err := s.writeRealtime(ctx, k, a); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (s *Store) writeRealtime(ctx context.Context, k rtKey, a *rtAdd) error {
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
		Add("visitors", set(a.visitors)).
		Set("siteId", k.site).
		Set("minute", minute).
		Set(attrTTL, k.minute.Add(realtimeTTL).Unix())
	if a.pageViews > 0 {
		u.Increment("pageViews", a.pageViews).Add("pages", set(a.pages))
	}
	if _, err := s.t.Update(ctx, key, u, nil); err != nil {
		return fmt.Errorf("analytics: cannot update the realtime counters of site %q: %w", k.site, err)
	}
	return nil
}
