package analytics

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/axiomhq/hyperloglog"

	"github.com/timetable-db/timetable/table"
)

// Period is the length of an aggregate: Hour, Day or Month (UTC).
type Period string

// The periods.
const (
	Hour  Period = "hour"
	Day   Period = "day"
	Month Period = "month"
)

func (p Period) layout() string {
	switch p {
	case Hour:
		return layoutHour
	case Day:
		return layoutDay
	}
	return layoutMonth
}

// start returns the start of the period of p holding t.
func (p Period) start(t time.Time) time.Time {
	t = t.UTC()
	switch p {
	case Hour:
		return t.Truncate(time.Hour)
	case Day:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// next returns the start of the period after the one starting at t.
func (p Period) next(t time.Time) time.Time {
	switch p {
	case Hour:
		return t.Add(time.Hour)
	case Day:
		return t.AddDate(0, 0, 1)
	}
	return t.AddDate(0, 1, 0)
}

func (p Period) valid() bool { return p == Hour || p == Day || p == Month }

// Start returns the start of the UTC period of p holding t.
func (p Period) Start(t time.Time) time.Time { return p.start(t) }

// Next returns the start of the period after the one starting at t.
func (p Period) Next(t time.Time) time.Time { return p.next(t.UTC()) }

// Dimension is a breakdown of the aggregates.
type Dimension string

// The breakdowns. Page counts page views; Event counts custom events;
// Goal counts visits that converted; the others count visits, by the
// visit's first hit (sources, UTM, country, browser, OS, device) or its
// entry and exit pages.
const (
	DimPage        Dimension = "page"
	DimEntryPage   Dimension = "entry_page"
	DimExitPage    Dimension = "exit_page"
	DimSource      Dimension = "source"
	DimUTMSource   Dimension = "utm_source"
	DimUTMMedium   Dimension = "utm_medium"
	DimUTMCampaign Dimension = "utm_campaign"
	DimCountry     Dimension = "country"
	DimBrowser     Dimension = "browser"
	DimOS          Dimension = "os"
	DimDevice      Dimension = "device"
	DimEvent       Dimension = "event"
	DimGoal        Dimension = "goal"
)

// PropDimension returns the breakdown of custom events by the value of
// their property name: "prop:" + name. It counts the custom events that
// carry the property, by its value; a period keeps at most 100 property
// names, the rest being counted under PropDimension(Other).
func PropDimension(name string) Dimension { return Dimension(propPrefix + name) }

// PropName returns the property name of a PropDimension, and whether d is
// one.
func (d Dimension) PropName() (string, bool) {
	return strings.CutPrefix(string(d), propPrefix)
}

const (
	propPrefix   = "prop:"
	maxPropNames = 100
)

// valid reports whether d is one of Dimensions or a PropDimension.
func (d Dimension) valid() bool {
	if n, ok := d.PropName(); ok {
		return n != ""
	}
	return slices.Contains(Dimensions, d)
}

// Dimensions lists every Dimension but the PropDimensions.
var Dimensions = []Dimension{DimPage, DimEntryPage, DimExitPage, DimSource, DimUTMSource, DimUTMMedium, DimUTMCampaign,
	DimCountry, DimBrowser, DimOS, DimDevice, DimEvent, DimGoal}

// None is the value counted for a hit without one (direct traffic, an
// unknown country); Other sums the values beyond Options.MaxValues.
const (
	None  = "(none)"
	Other = "(other)"
)

// stats are the aggregates of one period. Every count is additive, so the
// stats of consecutive periods merge by sum; visitors merge by sketch
// union.
type stats struct {
	pageViews, visits, bounces, events, durationMs int64
	// conversions are the visits that converted at least one goal.
	conversions int64
	visitors    *hyperloglog.Sketch
	top         map[Dimension]map[string]int64
	// props is the number of PropDimensions in top.
	props int
}

func newStats() *stats {
	return &stats{visitors: hyperloglog.New14(), top: map[Dimension]map[string]int64{}}
}

func (st *stats) add(d Dimension, v string, n int64) {
	if v == "" {
		v = None
	}
	m := st.top[d]
	if m == nil {
		if _, ok := d.PropName(); ok {
			if st.props >= maxPropNames {
				d = PropDimension(Other)
				m = st.top[d]
			} else {
				st.props++
			}
		}
		if m == nil {
			m = map[string]int64{}
			st.top[d] = m
		}
	}
	m[v] += n
}

// addProp counts n custom events whose property name has value v.
func (st *stats) addProp(name, v string, n int64) { st.add(PropDimension(name), v, n) }

func (st *stats) merge(o *stats) error {
	st.pageViews += o.pageViews
	st.visits += o.visits
	st.bounces += o.bounces
	st.events += o.events
	st.durationMs += o.durationMs
	st.conversions += o.conversions
	if err := st.visitors.Merge(o.visitors); err != nil {
		return fmt.Errorf("analytics: cannot merge visitor sketches: %w", err)
	}
	for d, m := range o.top {
		for v, n := range m {
			st.add(d, v, n)
		}
	}
	return nil
}

// cap keeps the max most frequent values of each dimension and sums the
// rest into Other.
func (st *stats) cap(max int) {
	for d, m := range st.top {
		if len(m) <= max {
			continue
		}
		cs := counts(m)
		nm := make(map[string]int64, max+1)
		for i, c := range cs {
			if i < max-1 && c.Value != Other {
				nm[c.Value] = c.Count
			} else {
				nm[Other] += c.Count
			}
		}
		st.top[d] = nm
	}
}

// counts returns m as Counts, sorted by sortCounts.
func counts(m map[string]int64) []Count {
	cs := make([]Count, 0, len(m))
	for v, n := range m {
		cs = append(cs, Count{Value: v, Count: n})
	}
	sortCounts(cs)
	return cs
}

func (st *stats) item(site string, p Period, start time.Time, ttl int64) (table.Item, error) {
	ps := start.Format(p.layout())
	it, err := keyItem(entStats, map[string]string{"siteId": site, "period": string(p), "periodStart": ps})
	if err != nil {
		return nil, err
	}
	sk, err := st.visitors.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("analytics: cannot encode a visitor sketch: %w", err)
	}
	it["siteId"] = sAttr(site)
	it["period"] = sAttr(string(p))
	it["periodStart"] = sAttr(ps)
	it["pageViews"] = nAttr(st.pageViews)
	it["visitors"] = &types.AttributeValueMemberB{Value: sk}
	it["uniqueVisitors"] = nAttr(int64(st.visitors.Estimate()))
	it["visits"] = nAttr(st.visits)
	it["bounces"] = nAttr(st.bounces)
	it["durationSum"] = nAttr(st.durationMs)
	it["events"] = nAttr(st.events)
	it["conversions"] = nAttr(st.conversions)
	// Each breakdown is an attribute of its own, gzipped JSON, so a read
	// of one decodes only it; the properties' breakdowns share one.
	props := map[Dimension]map[string]int64{}
	for d, m := range st.top {
		if _, ok := d.PropName(); ok {
			props[d] = m
			continue
		}
		b, err := gzipJSON(m)
		if err != nil {
			return nil, err
		}
		it[topAttr(d)] = &types.AttributeValueMemberB{Value: b}
	}
	if len(props) > 0 {
		b, err := gzipJSON(props)
		if err != nil {
			return nil, err
		}
		it[attrTopProps] = &types.AttributeValueMemberB{Value: b}
	}
	if ttl != 0 {
		it[attrTTL] = nAttr(ttl)
	}
	return it, nil
}

// statsCounts are the attributes of a stats item but its breakdowns: what
// a read of counts and visitors needs.
var statsCounts = []string{attrPK, attrSK, "periodStart", "pageViews", "visitors", "visits", "bounces", "durationSum", "events",
	"conversions", attrTTL}

// The breakdowns of a stats item: one attribute per Dimension (top_page,
// ...) and one for every PropDimension.
const (
	topPrefix    = "top_"
	attrTopProps = topPrefix + "props"
)

func topAttr(d Dimension) string { return topPrefix + string(d) }

// statsProjection returns the attributes to read of a stats item for the
// breakdowns dims: the counts, and the attribute of each.
func statsProjection(dims []Dimension) []string {
	p := slices.Clone(statsCounts)
	for _, d := range dims {
		a := topAttr(d)
		if _, ok := d.PropName(); ok {
			a = attrTopProps
		}
		if !slices.Contains(p, a) {
			p = append(p, a)
		}
	}
	return p
}

// topBytes returns the size of the breakdowns of a stats item.
func topBytes(it table.Item) int {
	n := 0
	for name, av := range it {
		if b, ok := av.(*types.AttributeValueMemberB); ok && strings.HasPrefix(name, topPrefix) {
			n += len(b.Value)
		}
	}
	return n
}

// gzipWriters and gzipReaders keep gzip's state between calls: a new
// writer allocates its compressor's tables (hundreds of KB) each time, more
// than a breakdown's encoding costs (BenchmarkGzipJSON).
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	gzipReaders sync.Pool
)

// gzipJSON returns the gzipped JSON encoding of v.
func gzipJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gunzipJSON decodes the gzipped JSON b (at most 64 MiB inflated) into v.
func gunzipJSON(b []byte, v any) error {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(b))
	} else {
		err = zr.Reset(bytes.NewReader(b))
	}
	if err != nil {
		return err
	}
	defer gzipReaders.Put(zr)
	return json.NewDecoder(io.LimitReader(zr, 64<<20)).Decode(v)
}

// maxTopBytes bounds the gzipped breakdowns of a stats item, under
// DynamoDB's 400 KB item limit.
const maxTopBytes = 300 << 10

func statsFrom(it table.Item) (*stats, error) {
	st := newStats()
	st.pageViews = getN(it, "pageViews")
	st.visits = getN(it, "visits")
	st.bounces = getN(it, "bounces")
	st.events = getN(it, "events")
	st.durationMs = getN(it, "durationSum")
	st.conversions = getN(it, "conversions")
	if err := st.visitors.UnmarshalBinary(getB(it, "visitors")); err != nil {
		return nil, fmt.Errorf("analytics: cannot decode the visitor sketch of %s: %w", getS(it, attrSK), err)
	}
	for name, av := range it {
		b, ok := av.(*types.AttributeValueMemberB)
		if !ok || !strings.HasPrefix(name, topPrefix) {
			continue
		}
		if name == attrTopProps {
			var props map[Dimension]map[string]int64
			if err := gunzipJSON(b.Value, &props); err != nil {
				return nil, fmt.Errorf("analytics: cannot decode the breakdowns of %s: %w", getS(it, attrSK), err)
			}
			for d, m := range props {
				st.top[d] = m
			}
			continue
		}
		var m map[string]int64
		if err := gunzipJSON(b.Value, &m); err != nil {
			return nil, fmt.Errorf("analytics: cannot decode the %s breakdown of %s: %w", name, getS(it, attrSK), err)
		}
		d := Dimension(name[len(topPrefix):])
		st.top[d] = normalCounts(d, m)
	}
	if st.top == nil {
		st.top = map[Dimension]map[string]int64{}
	}
	for d := range st.top {
		if _, ok := d.PropName(); ok {
			st.props++
		}
	}
	return st, nil
}

// topItems returns the Top items of the TopN values of each breakdown of
// st.
func (st *stats) topItems(site string, p Period, start time.Time, n int, ttl int64) ([]table.Item, error) {
	ps := start.Format(p.layout())
	var out []table.Item
	dims := make([]Dimension, 0, len(st.top))
	for d := range st.top {
		dims = append(dims, d)
	}
	slices.Sort(dims)
	for _, d := range dims {
		if strings.Contains(string(d), "#") {
			continue // its Top keys could not be told apart; read from the stats
		}
		cs := counts(st.top[d])
		for _, c := range cs[:min(n, len(cs))] {
			rank := fmt.Sprintf("%012d", max(0, 999999999999-c.Count))
			it, err := keyItem(entTop, map[string]string{"siteId": site, "period": string(p), "periodStart": ps,
				"dimension": string(d), "rank": rank, "value": c.Value})
			if err != nil {
				return nil, err
			}
			it["count"] = nAttr(c.Count)
			if ttl != 0 {
				it[attrTTL] = nAttr(ttl)
			}
			out = append(out, it)
		}
	}
	return out, nil
}
