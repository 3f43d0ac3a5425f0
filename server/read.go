package server

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/httpjson"
	"github.com/timetable-db/timetable/series"
)

// readingJSON is a reading as the API answers it: missing values and tags
// are left out.
type readingJSON struct {
	Series string             `json:"series,omitempty"`
	Time   string             `json:"time"`
	Values map[string]float64 `json:"values,omitempty"`
	Tags   map[string]string  `json:"tags,omitempty"`
}

// timeLayout is how times are written: RFC 3339 in UTC, to the millisecond.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func toJSON(sc *series.Schema, id string, rd series.Reading) readingJSON {
	out := readingJSON{Series: id, Time: rd.Time.UTC().Format(timeLayout)}
	for i, v := range rd.Values {
		if i >= len(sc.Fields) || math.IsNaN(v) {
			continue
		}
		if out.Values == nil {
			out.Values = make(map[string]float64, len(sc.Fields))
		}
		out.Values[sc.Fields[i]] = v
	}
	for i, t := range rd.Tags {
		if i >= len(sc.Tags) || t == "" {
			continue
		}
		if out.Tags == nil {
			out.Tags = make(map[string]string, len(sc.Tags))
		}
		out.Tags[sc.Tags[i]] = t
	}
	return out
}

// kindOf returns the kind named in the request's path.
func (s *Server) kindOf(r *http.Request) (*series.Kind, error) {
	return s.store.Kind(r.PathValue("kind"))
}

// latest answers GET /api/v1/kinds/{kind}/series/{id}/latest.
func (s *Server) latest(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	rd, err := k.Latest(r.Context(), id)
	if errors.Is(err, timetable.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "series %s of kind %s has no reading", id, k.Name())
	}
	if err != nil {
		return err
	}
	sc := k.Schema()
	httpjson.Write(w, http.StatusOK, toJSON(&sc, id, rd))
	return nil
}

// maxLatestMany bounds the series of one latest request.
const maxLatestMany = 1000

// latestMany answers GET /api/v1/kinds/{kind}/latest?series=a&series=b.
func (s *Server) latestMany(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	var ids []string
	for _, v := range r.URL.Query()["series"] {
		for id := range strings.SplitSeq(v, ",") {
			if id != "" {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return invalid("series: name at least one series (?series=a&series=b or ?series=a,b)")
	}
	if len(ids) > maxLatestMany {
		return invalid("series: %d series, at most %d in one request", len(ids), maxLatestMany)
	}
	got, err := k.LatestMany(r.Context(), ids)
	if err != nil {
		return err
	}
	sc := k.Schema()
	out := struct {
		Readings map[string]readingJSON `json:"readings"`
		Missing  []string               `json:"missing"`
	}{Readings: make(map[string]readingJSON, len(got)), Missing: []string{}}
	for _, id := range ids {
		if rd, ok := got[id]; ok {
			out.Readings[id] = toJSON(&sc, id, rd)
		} else {
			out.Missing = append(out.Missing, id)
		}
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// readings answers GET /api/v1/kinds/{kind}/series/{id}/readings.
func (s *Server) readings(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	sc := k.Schema()
	q := r.URL.Query()
	var qry series.Query
	if qry.From, err = timeParam(q, "from"); err != nil {
		return err
	}
	if qry.To, err = timeParam(q, "to"); err != nil {
		return err
	}
	switch o := q.Get("order"); o {
	case "", "asc":
	case "desc":
		qry.Reverse = true
	default:
		return invalid("order: %q is neither asc nor desc", o)
	}
	if qry.Limit, err = intParam(q, "limit", 0, math.MaxInt32); err != nil {
		return err
	}
	if qry.PageSize, err = intParam(q, "page_size", 0, DefaultMaxPageSize); err != nil {
		return err
	}
	if qry.PageSize == 0 {
		qry.PageSize = DefaultMaxPageSize
	}
	qry.Cursor = q.Get("cursor")
	for _, f := range q["filter"] {
		flt, err := parseFilter(&sc, f)
		if err != nil {
			return err
		}
		qry.Filter = append(qry.Filter, flt)
	}
	// The page is written into a buffer as it is read, and sent once
	// read whole: an error of the read is still answered as one.
	out := newReadingsJSON(&sc)
	defer out.release()
	cursor, err := k.RangeFunc(r.Context(), r.PathValue("id"), qry, out.add)
	if err != nil {
		return err
	}
	httpjson.WriteBytes(w, http.StatusOK, out.finish(cursor))
	return nil
}

// aggregateJSON is one field's aggregate of a period.
type aggregateJSON struct {
	Count int64    `json:"count"`
	Sum   float64  `json:"sum"`
	Min   float64  `json:"min"`
	Max   float64  `json:"max"`
	Mean  float64  `json:"mean"`
	First *float64 `json:"first,omitempty"`
	Last  *float64 `json:"last,omitempty"`
}

// aggregate answers GET /api/v1/kinds/{kind}/series/{id}/aggregate.
func (s *Server) aggregate(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var aq series.AggregateQuery
	if aq.From, err = timeParam(q, "from"); err != nil {
		return err
	}
	if aq.From.IsZero() {
		return invalid("from: required for an aggregate")
	}
	if aq.To, err = timeParam(q, "to"); err != nil {
		return err
	}
	if v := q.Get("step"); v != "" {
		if aq.Step, aq.Months, err = parseStep(v); err != nil {
			return invalid("step: %v", err)
		}
	}
	switch t := q.Get("tier"); t {
	case "", "auto":
	case "hour":
		aq.Tier = series.Hourly
	case "day":
		aq.Tier = series.Daily
	case "month":
		aq.Tier = series.Monthly
	default:
		return invalid("tier: %q is none of hour, day, month (or auto)", t)
	}
	aq.MaxPeriods = s.cfg.MaxPeriods
	agg, err := k.Aggregate(r.Context(), r.PathValue("id"), aq)
	if err != nil {
		return err
	}
	sc := k.Schema()
	type periodJSON struct {
		Start  string                   `json:"start"`
		End    string                   `json:"end"`
		Count  int64                    `json:"count"`
		Fields map[string]aggregateJSON `json:"fields"`
	}
	out := struct {
		Step    string       `json:"step,omitempty"`
		Months  int          `json:"months,omitempty"`
		Tier    string       `json:"tier"`
		Periods []periodJSON `json:"periods"`
	}{Months: agg.Months, Tier: tierName(agg.Tier), Periods: make([]periodJSON, 0, len(agg.Periods))}
	if agg.Months == 0 {
		out.Step = agg.Step.String()
	}
	for _, p := range agg.Periods {
		pj := periodJSON{Start: p.Start.UTC().Format(timeLayout), End: p.End.UTC().Format(timeLayout), Count: p.Count,
			Fields: make(map[string]aggregateJSON, len(sc.Fields))}
		for i, name := range sc.Fields {
			a := p.Field(i)
			if a.Count == 0 {
				continue
			}
			first, last := a.First, a.Last
			pj.Fields[name] = aggregateJSON{Count: a.Count, Sum: a.Sum, Min: a.Min, Max: a.Max, Mean: a.Mean(), First: &first, Last: &last}
		}
		out.Periods = append(out.Periods, pj)
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

func tierName(t series.Tier) string {
	switch t {
	case series.Hourly:
		return "hour"
	case series.Daily:
		return "day"
	case series.Monthly:
		return "month"
	}
	return "raw"
}

// listSeries answers GET /api/v1/kinds/{kind}/series.
func (s *Server) listSeries(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	limit, err := intParam(q, "limit", 0, 10_000)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 1000
	}
	ids, next, err := k.Series(r.Context(), q.Get("prefix"), limit, q.Get("cursor"))
	if err != nil {
		return err
	}
	if ids == nil {
		ids = []string{}
	}
	httpjson.Write(w, http.StatusOK, struct {
		Series []string `json:"series"`
		Cursor string   `json:"cursor,omitempty"`
	}{ids, next})
	return nil
}

// metricRange answers GET /api/v1/kinds/{kind}/metric/{field}.
func (s *Server) metricRange(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	from, err := timeParam(q, "from")
	if err != nil {
		return err
	}
	to, err := timeParam(q, "to")
	if err != nil {
		return err
	}
	limit, err := intParam(q, "limit", 0, 100_000)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 10_000
	}
	field := r.PathValue("field")
	pts, err := k.MetricRange(r.Context(), field, from, to, limit)
	if err != nil {
		return err
	}
	type pointJSON struct {
		Series string  `json:"series"`
		Time   string  `json:"time"`
		Value  float64 `json:"value"`
	}
	out := struct {
		Field  string      `json:"field"`
		Points []pointJSON `json:"points"`
	}{Field: field, Points: make([]pointJSON, len(pts))}
	for i, p := range pts {
		out.Points[i] = pointJSON{Series: p.ID, Time: p.Time.UTC().Format(timeLayout), Value: p.Value}
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// timeParam parses an RFC 3339 time or integer milliseconds since the
// epoch; a missing parameter is the zero time, and a given time is never
// the zero time (see given).
func timeParam(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := parseTime(v)
	if err != nil {
		return time.Time{}, invalid("%s: %v", name, err)
	}
	return given(t), nil
}

// given returns t as a bound that package series does not take for a
// missing one: series reads a zero time as no bound, so the zero time
// (0001-01-01T00:00:00Z, a real time when a client sends it) becomes the
// instant a nanosecond before, which series rounds up to the same
// millisecond (bounds are rounded up to the millisecond).
func given(t time.Time) time.Time {
	if t.IsZero() {
		return t.Add(-time.Nanosecond)
	}
	return t
}

func intParam(q url.Values, name string, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, invalid("%s: %q is not a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}
