package analytics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// hit is a stored page view or event, as the aggregation reads it.
type hit struct {
	t                                     time.Time
	name, visitor, path, referrer, source string
	utm                                   UTM
	props                                 map[string]string
	country, browser, os, device          string
	interactive                           bool
	// engagementMs and scrollDepth are an engagement event's figures.
	engagementMs, scrollDepth int64
}

func hitFrom(it table.Item) (hit, error) {
	t, err := time.Parse(layoutTimestamp, getS(it, "timestamp"))
	if err != nil {
		return hit{}, fmt.Errorf("analytics: item %s has a bad timestamp: %w", getS(it, attrSK), err)
	}
	// Hits stored before Record normalised their names are normalised here.
	h := hit{t: t, name: getS(it, "name"), visitor: getS(it, "visitorId"), path: getS(it, "path"), referrer: getS(it, "referrer"),
		source: NormalSource(getS(it, "source")), country: getS(it, "country"), browser: NormalBrowser(getS(it, "browser")), os: NormalOS(getS(it, "os")),
		device: NormalDevice(getS(it, "device")), interactive: getBool(it, "interactive"), props: getMap(it, "props"),
		engagementMs: getN(it, "engagementMs"), scrollDepth: getN(it, "scrollDepth")}
	if u := getMap(it, "utm"); u != nil {
		h.utm = UTM{Source: u["source"], Medium: u["medium"], Campaign: u["campaign"], Term: u["term"], Content: u["content"]}
	}
	if h.name == "" {
		h.name = PageView
	}
	return h, nil
}

// hitCmp orders hits by visitor, time, page views before events, path and
// name: the order sessions are formed in; then by their other fields, so
// that only hits equal in every field compare equal and the order of a
// set of hits is one whatever the order they were read in (a session's
// first hit, whose source and country count, is the same from the raw
// hits and from a hit bucket).
func hitCmp(a, b *hit) int {
	if c := strings.Compare(a.visitor, b.visitor); c != 0 {
		return c
	}
	if c := a.t.Compare(b.t); c != 0 {
		return c
	}
	if c := cmp.Compare(b8(a.name != PageView), b8(b.name != PageView)); c != 0 {
		return c
	}
	if c := strings.Compare(a.path, b.path); c != 0 {
		return c
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	for _, col := range [...]int{colSource, colReferrer, colUTMSource, colUTMMedium, colUTMCampaign, colUTMTerm, colUTMContent,
		colCountry, colBrowser, colOS, colDevice} {
		if c := strings.Compare(*a.strField(col), *b.strField(col)); c != 0 {
			return c
		}
	}
	if c := cmp.Or(cmp.Compare(b8(a.interactive), b8(b.interactive)), cmp.Compare(a.engagementMs, b.engagementMs),
		cmp.Compare(a.scrollDepth, b.scrollDepth)); c != 0 {
		return c
	}
	return propsCmp(a.props, b.props)
}

// propsCmp orders property maps by their pairs in the order of their
// names.
func propsCmp(a, b map[string]string) int {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	ka, kb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))
	for i := 0; i < len(ka) && i < len(kb); i++ {
		if c := cmp.Or(strings.Compare(ka[i], kb[i]), strings.Compare(a[ka[i]], b[kb[i]])); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ka), len(kb))
}

func b8(b bool) int {
	if b {
		return 1
	}
	return 0
}

// aggregate returns the stats of each period of p in [from, to) (by
// index) from hits and their sessions: page views, custom events and
// visitors by hit time, custom event properties with their events; visits,
// bounces, durations, entry and exit pages, sources, UTM, country,
// browser, OS, device, goals and conversions by session start.
func aggregate(hits []hit, dropped []bool, ss []*session, p Period, from, to time.Time) []*stats {
	var starts []time.Time
	for t := from; t.Before(to); t = p.next(t) {
		starts = append(starts, t)
	}
	out := make([]*stats, len(starts))
	for i := range out {
		out[i] = newStats()
	}
	index := func(t time.Time) int {
		if t.Before(from) || !t.Before(to) {
			return -1
		}
		i, found := slices.BinarySearchFunc(starts, t, func(s, t time.Time) int { return s.Compare(t) })
		if !found {
			i--
		}
		return i
	}
	for i := range hits {
		h := &hits[i]
		k := index(h.t)
		if k < 0 || dropped[i] || h.name == Engagement {
			continue
		}
		st := out[k]
		st.visitors.Insert([]byte(h.visitor))
		if h.name == PageView {
			st.pageViews++
			st.add(DimPage, h.path, 1)
		} else {
			st.events++
			st.add(DimEvent, h.name, 1)
			for k, v := range h.props {
				st.addProp(k, v, 1)
			}
		}
	}
	for _, s := range ss {
		k := index(s.start)
		if k < 0 {
			continue
		}
		st := out[k]
		st.visits++
		if s.bounce() {
			st.bounces++
		}
		st.durationMs += s.duration()
		f := s.first
		for d, v := range map[Dimension]string{
			DimEntryPage: f.path, DimExitPage: s.exit, DimSource: f.source, DimUTMSource: f.utm.Source,
			DimUTMMedium: f.utm.Medium, DimUTMCampaign: f.utm.Campaign, DimCountry: f.country,
			DimBrowser: f.browser, DimOS: f.os, DimDevice: f.device,
		} {
			st.add(d, v, 1)
		}
		for _, g := range s.goals {
			st.add(DimGoal, g, 1)
		}
		if len(s.goals) > 0 {
			st.conversions++
		}
	}
	return out
}

// loadHits reads the page views and events of site in [from, to), without
// expired items, sorted by hitCmp.
func (s *Store) loadHits(ctx context.Context, site string, from, to time.Time) ([]hit, error) {
	now := s.now()
	var hits []hit
	for _, e := range []*design.Entity{entPageView, entEvent} {
		prefix := skPrefix(e)
		q := &table.Query{Hash: sitePK(site), Range: table.Between(prefix+timestamp(from), prefix+timestamp(to.Add(-time.Millisecond))+"~"), Consistent: true,
			Projection: hitAttrs}
		for it, err := range s.t.QueryAll(ctx, q) {
			if err != nil {
				return nil, fmt.Errorf("analytics: cannot read the hits of site %q: %w", site, err)
			}
			if expired(it, now) {
				continue
			}
			h, err := hitFrom(it)
			if err != nil {
				return nil, err
			}
			hits = append(hits, h)
		}
	}
	return sortHits(hits), nil
}

// hitAttrs are the attributes of a page view or event item that hitFrom
// reads.
var hitAttrs = []string{attrSK, "timestamp", "name", "visitorId", "path", "referrer", "source", "utm", "country", "browser", "os", "device",
	"interactive", "props", "engagementMs", "scrollDepth", attrTTL}

// sortHits returns hits sorted by hitCmp, in a new slice: it sorts their
// indexes, not the hits, which are large.
func sortHits(hits []hit) []hit {
	idx := make([]int32, len(hits))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return hitCmp(&hits[a], &hits[b]) })
	out := make([]hit, len(hits))
	for i, j := range idx {
		out[i] = hits[j]
	}
	return out
}

// AggregateDay recomputes, whole, the aggregates of the UTC day holding
// day for site from its raw hits: the 24 hourly stats, the daily stats,
// the day's Top items and sessions, then the month's stats from its days;
// and, once the day is over, its hit bucket. What it writes replaces what
// an earlier run wrote, so running it again never double-counts (and
// writes no bucket whose hits have not changed). Sessions end at midnight
// UTC (visitor ids change then). It fails with ErrExpired once the day's
// first raw hits may have expired (Retention.Raw after the day's start).
// It takes no lease: of Stores sharing a table, call AggregatePending,
// which aggregates a site in one Store at a time.
func (s *Store) AggregateDay(ctx context.Context, site string, day time.Time) error {
	return s.aggregateDay(ctx, site, day, true)
}

// aggregateDay is AggregateDay, without the aggregates unless agg.
func (s *Store) aggregateDay(ctx context.Context, site string, day time.Time, agg bool) error {
	now := s.now()
	from := Day.start(day)
	to := Day.next(from)
	if s.o.Retention.Raw > 0 && !from.Add(s.o.Retention.Raw).After(now) {
		return fmt.Errorf("%w: %s of site %q", ErrExpired, dayOf(from), site)
	}
	hits, err := s.loadHits(ctx, site, from, to)
	if err != nil {
		return err
	}
	if agg {
		if err := s.writeAggregates(ctx, site, from, hits, now); err != nil {
			return err
		}
	}
	if !now.Before(to) {
		if err := s.writeBucket(ctx, site, from, hits, now); err != nil {
			return err
		}
	}
	if !agg {
		return nil
	}
	return s.AggregateMonth(ctx, site, from)
}

// writeAggregates writes the hourly and daily stats, the Top items and
// the sessions of the day starting at from, computed from hits, its raw
// hits.
func (s *Store) writeAggregates(ctx context.Context, site string, from time.Time, hits []hit, now time.Time) error {
	to := Day.next(from)
	goals, err := s.Goals(ctx, site)
	if err != nil {
		return err
	}
	ss, dropped := sessionize(hits, goals, s.o.SessionTimeout)

	hours := aggregate(hits, dropped, ss, Hour, from, to)
	dayStats := newStats()
	var items []table.Item
	for i, st := range hours {
		if err := dayStats.merge(st); err != nil {
			return err
		}
		start := from.Add(time.Duration(i) * time.Hour)
		it, err := s.statsItem(st, site, Hour, start, now)
		if err != nil {
			return err
		}
		if it != nil {
			items = append(items, it)
		}
	}
	lo, _ := primaryKey(entStats, map[string]string{"siteId": site, "period": string(Hour), "periodStart": from.Format(layoutHour)})
	hi, _ := primaryKey(entStats, map[string]string{"siteId": site, "period": string(Hour), "periodStart": to.Add(-time.Hour).Format(layoutHour)})
	if err := s.replace(ctx, lo.Hash.(string), table.Between(lo.Range, hi.Range), items); err != nil {
		return err
	}
	if err := s.writePeriod(ctx, dayStats, site, Day, from, now); err != nil {
		return err
	}
	return s.writeSessions(ctx, site, from, ss, now)
}

// retention returns the retention of stats of p.
func (s *Store) retention(p Period) time.Duration {
	switch p {
	case Hour:
		return s.o.Retention.Hourly
	case Day:
		return s.o.Retention.Daily
	}
	if s.o.Retention.Monthly <= 0 {
		return -1
	}
	return s.o.Retention.Monthly
}

// statsItem returns the stats item of st, capped, with its ttl from the
// period's end; nil if that ttl has passed.
func (s *Store) statsItem(st *stats, site string, p Period, start, now time.Time) (table.Item, error) {
	ttl := ttlAfter(p.next(start), s.retention(p))
	if ttl != 0 && ttl <= now.Unix() {
		return nil, nil
	}
	for max := s.o.MaxValues; ; max /= 2 {
		st.cap(max)
		it, err := st.item(site, p, start, ttl)
		if err != nil || topBytes(it) <= maxTopBytes || max <= 1 {
			return it, err
		}
		s.o.Logger.Warn("analytics: breakdowns too large for one item; keeping fewer values", "site", site, "period", p, "start", start, "values", max/2)
	}
}

// writePeriod writes the stats item and the Top items of one day or month.
func (s *Store) writePeriod(ctx context.Context, st *stats, site string, p Period, start, now time.Time) error {
	it, err := s.statsItem(st, site, p, start, now)
	if err != nil {
		return err
	}
	var tops []table.Item
	if it != nil {
		if _, err := s.t.Put(ctx, it, nil); err != nil {
			return fmt.Errorf("analytics: cannot write the %s stats of site %q: %w", p, site, err)
		}
		if tops, err = st.topItems(site, p, start, s.o.TopN, getN(it, attrTTL)); err != nil {
			return err
		}
	}
	prefix := partial(entTop.Keys[attrSK], map[string]string{"period": string(p), "periodStart": start.Format(p.layout())}, "dimension")
	return s.replace(ctx, sitePK(site), table.BeginsWith(prefix), tops)
}

// partial fills t up to the placeholder next (excluded).
func partial(t design.Template, values map[string]string, next string) string {
	v := maps.Clone(values)
	const cut = "\x00"
	for _, p := range t.Placeholders() {
		if _, ok := v[p]; !ok {
			v[p] = cut
		}
	}
	v[next] = cut
	s := fill(t, v)
	return s[:strings.Index(s, cut)]
}

func (s *Store) writeSessions(ctx context.Context, site string, day time.Time, ss []*session, now time.Time) error {
	var items []table.Item
	for _, x := range ss {
		ttl := ttlAfter(x.start, s.o.Retention.Raw)
		if ttl != 0 && ttl <= now.Unix() {
			continue
		}
		id := timestamp(x.start) + "." + x.visitor
		it, err := keyItem(entSession, map[string]string{"siteId": site, "sessionId": id, "visitorId": x.visitor, "startedAt": timestamp(x.start)})
		if err != nil {
			return err
		}
		it["siteId"] = sAttr(site)
		it["sessionId"] = sAttr(id)
		it["visitorId"] = sAttr(x.visitor)
		it["startedAt"] = sAttr(timestamp(x.start))
		it["lastSeen"] = sAttr(timestamp(x.last))
		it["entryPage"] = sAttr(x.first.path)
		it["exitPage"] = sAttr(x.exit)
		it["pageViews"] = nAttr(x.pageViews)
		it["duration"] = nAttr(x.duration())
		it["bounce"] = &types.AttributeValueMemberBOOL{Value: x.bounce()}
		if x.first.source != "" {
			it["source"] = sAttr(x.first.source)
		}
		if ttl != 0 {
			it[attrTTL] = nAttr(ttl)
		}
		items = append(items, it)
	}
	prefix := fill(entSession.Keys[attrSK], map[string]string{"sessionId": dayOf(day)})
	return s.replace(ctx, sitePK(site), table.BeginsWith(prefix), items)
}

// replace makes the items of partition pk in the range rng be items: it
// writes those that differ from what is stored and deletes the others.
func (s *Store) replace(ctx context.Context, pk string, rng table.KeyCond, items []table.Item) error {
	old := map[string]table.Item{}
	for it, err := range s.t.QueryAll(ctx, &table.Query{Hash: pk, Range: rng, Consistent: true}) {
		if err != nil {
			return fmt.Errorf("analytics: cannot read the items to replace: %w", err)
		}
		old[getS(it, attrSK)] = it
	}
	var ws []table.WriteRequest
	for _, it := range items {
		sk := getS(it, attrSK)
		if o, ok := old[sk]; !ok || !reflect.DeepEqual(o, it) {
			ws = append(ws, table.PutRequest(it))
		}
		delete(old, sk)
	}
	for sk := range old {
		ws = append(ws, table.DeleteRequest(table.K(pk, sk)))
	}
	if err := s.t.BatchWrite(ctx, ws); err != nil {
		return fmt.Errorf("analytics: cannot write aggregates: %w", err)
	}
	return nil
}

// AggregateMonth recomputes the stats and Top items of the UTC month
// holding month for site by merging its daily stats (the raw hits of most
// of a month have expired). Running it again gives the same items.
func (s *Store) AggregateMonth(ctx context.Context, site string, month time.Time) error {
	now := s.now()
	from := Month.start(month)
	to := Month.next(from)
	days, err := s.readStats(ctx, site, Day, from, to, true, allDimensions)
	if err != nil {
		return err
	}
	st := newStats()
	for _, d := range days {
		if err := st.merge(d.st); err != nil {
			return err
		}
	}
	return s.writePeriod(ctx, st, site, Month, from, now)
}

// periodStats is the stats of the period starting at start.
type periodStats struct {
	start time.Time
	st    *stats
}

// readStats returns the stored stats of period p of site that start in
// [from, to), unexpired, in time order: from the table when consistent
// (a strongly consistent read), else from GSI1; without their breakdowns
// (not read, not decoded) unless top.
func (s *Store) readStats(ctx context.Context, site string, p Period, from, to time.Time, consistent bool, dims []Dimension) ([]periodStats, error) {
	if !from.Before(to) {
		return nil, nil
	}
	last := from
	for t := from; t.Before(to); t = p.next(t) {
		last = t
	}
	vals := func(t time.Time) map[string]string {
		return map[string]string{"siteId": site, "period": string(p), "periodStart": t.Format(p.layout())}
	}
	q := &table.Query{Consistent: consistent}
	if !isAll(dims) {
		q.Projection = statsProjection(dims)
	}
	if consistent {
		lo, _ := primaryKey(entStats, vals(from))
		hi, _ := primaryKey(entStats, vals(last))
		q.Hash, q.Range = lo.Hash, table.Between(lo.Range, hi.Range)
	} else {
		q.Index = indexGSI1
		q.Hash = fill(entStats.Keys[attrGSI1PK], vals(from))
		q.Range = table.Between(fill(entStats.Keys[attrGSI1SK], vals(from)), fill(entStats.Keys[attrGSI1SK], vals(last)))
	}
	now := s.now()
	var out []periodStats
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the %s stats of site %q: %w", p, site, err)
		}
		if expired(it, now) {
			continue
		}
		start, err := time.Parse(p.layout(), getS(it, "periodStart"))
		if err != nil {
			return nil, fmt.Errorf("analytics: stats item %s: %w", getS(it, attrSK), err)
		}
		st, err := statsFrom(it)
		if err != nil {
			return nil, err
		}
		out = append(out, periodStats{start: start, st: st})
	}
	return out, nil
}

// mark marks the day of site as pending aggregation, at most once per
// Options.MarkEvery in this process.
func (s *Store) mark(ctx context.Context, site, day string) error {
	now := s.now()
	pd := pendingDay{site, day}
	s.mu.Lock()
	at, ok := s.marked[pd]
	s.mu.Unlock()
	if ok && now.Sub(at) < s.o.MarkEvery {
		return nil
	}
	k, err := primaryKey(entPending, map[string]string{"siteId": site, "date": day})
	if err != nil {
		return err
	}
	u := table.NewUpdate().Set("siteId", site).Set("date", day).Set("at", now.UnixMilli())
	if _, err := s.t.Update(ctx, k, u, nil); err != nil {
		return err
	}
	s.mu.Lock()
	s.marked[pd] = now
	s.mu.Unlock()
	return nil
}

// AggregatePending aggregates again every day marked by Record (in any
// process) for every site, and writes the hit bucket of each such day
// that is over; it returns the number of days done. A mark made while its
// day was being aggregated survives, so a hit recorded during an
// aggregation is counted by the next. The mark of a day aggregated before
// its end stays until the day is over and its bucket written, needing no
// aggregation meanwhile unless hits come. Days whose raw hits have
// expired are skipped and unmarked (and logged). The Store's background
// loop runs it every Options.AggregateEvery; call it directly when that
// is off.
//
// A site with pending days is aggregated under its lease (LeaseDuration,
// LeaseHolder): of the Stores sharing the table, one at a time aggregates
// a site, and a site whose lease another Store holds is skipped, to be
// done by that Store (or, once its claim ends, by whichever Store's pass
// comes first). The lease is released when the site is done, or when the
// pass stops on an error or a done ctx. Calls on one Store run one at a
// time: a call made during the background loop's pass waits for it.
func (s *Store) AggregatePending(ctx context.Context) (int, error) {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	sites, err := s.Sites(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, site := range sites {
		marks, err := s.pendingMarks(ctx, site.ID)
		if err != nil {
			return n, err
		}
		now := s.now()
		if !slices.ContainsFunc(marks, func(m table.Item) bool { return markDue(m, now) }) {
			continue // no lease taken: a pass over idle sites writes nothing
		}
		done, err := s.aggregateSite(ctx, site.ID)
		n += done
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// needsAggregation reports whether the Pending mark m says hits came
// since its day was last aggregated: it has no cutoff, or it was marked
// at or after it.
func needsAggregation(m table.Item) bool {
	_, done := m["cutoff"]
	return !done || getN(m, "at") >= getN(m, "cutoff")
}

// markDue reports whether the day of the Pending mark m has work at now:
// an aggregation, or its bucket, once it is over.
func markDue(m table.Item, now time.Time) bool {
	if needsAggregation(m) {
		return true
	}
	day, err := time.Parse(layoutDay, getS(m, "date"))
	return err != nil || !now.Before(Day.next(day))
}

// pendingMarks reads the Pending items of site (strongly consistent).
func (s *Store) pendingMarks(ctx context.Context, site string) ([]table.Item, error) {
	var marks []table.Item
	for it, err := range s.t.QueryAll(ctx, &table.Query{Hash: sitePK(site), Range: table.BeginsWith(skPrefix(entPending)), Consistent: true}) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the pending days of site %q: %w", site, err)
		}
		marks = append(marks, it)
	}
	return marks, nil
}

// aggregateSite aggregates the pending days of site under its lease and
// returns the number of days done: none when another Store holds the
// lease. It stops, without error, if the lease is lost mid-pass (its claim
// ended and another Store took it).
func (s *Store) aggregateSite(ctx context.Context, site string) (int, error) {
	l, err := s.takeLease(ctx, site)
	if err != nil || l == nil {
		return 0, err
	}
	defer l.release()
	// Read the marks again under the lease: the last holder may have done
	// them since the first read.
	marks, err := s.pendingMarks(ctx, site)
	if err != nil {
		return 0, err
	}
	pk := sitePK(site)
	n := 0
	for _, m := range marks {
		if held, err := l.keep(ctx); err != nil || !held {
			if err == nil {
				s.o.Logger.Warn("analytics: aggregation lease lost mid-pass; another process goes on", "site", site)
			}
			return n, err
		}
		start := s.now()
		if !markDue(m, start) {
			continue
		}
		day, err := time.Parse(layoutDay, getS(m, "date"))
		if err != nil {
			return n, fmt.Errorf("analytics: pending item %s: %w", getS(m, attrSK), err)
		}
		over := !start.Before(Day.next(day))
		var done func()
		if s.o.onDay != nil {
			done = s.o.onDay(s.o.LeaseOwner, site, day)
		}
		err = s.aggregateDay(ctx, site, day, needsAggregation(m))
		if done != nil {
			done()
		}
		if errors.Is(err, ErrExpired) {
			s.o.Logger.Warn("analytics: pending day has expired raw hits; not aggregated again", "site", site, "day", getS(m, "date"))
			over = true
		} else if err != nil {
			return n, err
		}
		n++
		// Unmark unless marked after start - MarkEvery: a hit stored
		// after the read began was marked no earlier than that. A day not
		// over keeps its mark, with that cutoff, for its bucket.
		cutoff := start.Add(-s.o.MarkEvery).UnixMilli()
		k, unmarked := table.K(pk, getS(m, attrSK)), table.Attr("at").Lt(cutoff)
		if over {
			_, err = s.t.Delete(ctx, k, &table.DeleteOptions{If: unmarked})
		} else {
			_, err = s.t.Update(ctx, k, table.NewUpdate().Set("cutoff", cutoff), &table.UpdateOptions{If: unmarked})
		}
		if err != nil && !table.IsConditionFailed(err) {
			return n, fmt.Errorf("analytics: cannot unmark %s of site %q: %w", getS(m, "date"), site, err)
		}
	}
	return n, nil
}
