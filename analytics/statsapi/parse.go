package statsapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Error is a bad query: the server answers it 400 {"error": Message}.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func errorf(format string, args ...any) *Error { return &Error{Message: fmt.Sprintf(format, args...)} }

// MaxQueryBytes bounds the JSON of a query.
const MaxQueryBytes = 64 << 10

// Limits of a query.
const (
	maxMetrics    = 16
	maxDimensions = 4
	maxFilters    = 64 // leaves and branches, in all
	maxValues     = 100
	maxDepth      = 8
	defaultLimit  = 10000
	maxLimit      = 10000
)

// The metrics.
var metrics = []string{"visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "events",
	"conversion_rate", "percentage"}

// The dimensions that are no time bucket, without event:props:NAME.
var plainDimensions = []string{"event:page", "event:name", "event:goal", "visit:entry_page", "visit:exit_page", "visit:source",
	"visit:utm_source", "visit:utm_medium", "visit:utm_campaign", "visit:country", "visit:browser", "visit:os", "visit:device"}

// The time dimensions.
var timeDimensions = []string{"time", "time:hour", "time:day", "time:week", "time:month"}

const propsPrefix = "event:props:"

func isTime(d string) bool { return slices.Contains(timeDimensions, d) }

func validDimension(d string) bool {
	if name, ok := strings.CutPrefix(d, propsPrefix); ok {
		return name != "" && len(name) <= 120
	}
	return slices.Contains(plainDimensions, d) || isTime(d)
}

// Query is a parsed and checked Stats API query. Its fields are as sent,
// with the defaults filled in; the date range is resolved by Run, against
// the site's time zone and the clock.
type Query struct {
	SiteID     string
	Metrics    []string
	DateRange  DateRange
	Dimensions []string
	Filters    []Filter
	OrderBy    []Order
	Include    Include
	Limit      int
	Offset     int
}

// DateRange is a preset ("7d") or two dates or date-times, as sent.
type DateRange struct {
	Preset   string
	From, To string
}

// Order is one key of order_by: a metric or a dimension of the query, and
// its direction.
type Order struct {
	Key  string
	Desc bool
}

// Include is the include object.
type Include struct {
	// Comparison is "", "previous_period" or "year_over_year".
	Comparison string
	// Imports adds the site's imported figures (analytics.Store.Import)
	// to the collected ones, for a query the aggregates answer.
	Imports    bool
	TimeLabels bool
	TotalRows  bool
}

// Filter is a node of the filter tree: a condition (Op is, is_not,
// contains or contains_not, with Dimension and Values) or a combination
// (and, or with Children; not with one child).
type Filter struct {
	Op        string
	Dimension string
	Values    []string
	Children  []Filter
}

type rawQuery struct {
	SiteID     *string           `json:"site_id"`
	Metrics    []string          `json:"metrics"`
	DateRange  json.RawMessage   `json:"date_range"`
	Dimensions []string          `json:"dimensions"`
	Filters    []json.RawMessage `json:"filters"`
	OrderBy    []json.RawMessage `json:"order_by"`
	Include    *struct {
		Imports     bool            `json:"imports"`
		TimeLabels  bool            `json:"time_labels"`
		TotalRows   bool            `json:"total_rows"`
		Comparisons *map[string]any `json:"comparisons"`
	} `json:"include"`
	Pagination *struct {
		Limit  *int `json:"limit"`
		Offset *int `json:"offset"`
	} `json:"pagination"`
}

// Parse reads and checks a query. Every mistake is an *Error naming the
// part of the query at fault ("#/metrics/0: ..."), as Plausible's are. It
// never panics, whatever the input.
func Parse(body []byte) (*Query, error) {
	if len(body) > MaxQueryBytes {
		return nil, errorf("the query is larger than %d bytes", MaxQueryBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var rq rawQuery
	if err := dec.Decode(&rq); err != nil {
		return nil, errorf("Invalid query: %v", err)
	}
	if dec.More() {
		return nil, errorf("Invalid query: more than one JSON value")
	}
	q := &Query{Limit: defaultLimit}
	if rq.SiteID == nil || *rq.SiteID == "" {
		return nil, errorf("#/site_id: Required property site_id was not present.")
	}
	q.SiteID = *rq.SiteID
	if len(rq.Metrics) == 0 {
		return nil, errorf("#/metrics: Expected a minimum of 1 items")
	}
	if len(rq.Metrics) > maxMetrics {
		return nil, errorf("#/metrics: Expected a maximum of %d items", maxMetrics)
	}
	for i, m := range rq.Metrics {
		if !slices.Contains(metrics, m) {
			return nil, errorf("#/metrics/%d: Invalid metric %q", i, m)
		}
		if slices.Contains(q.Metrics, m) {
			return nil, errorf("#/metrics: Metrics cannot be queried multiple times")
		}
		q.Metrics = append(q.Metrics, m)
	}
	dr, err := parseDateRange(rq.DateRange)
	if err != nil {
		return nil, err
	}
	q.DateRange = dr
	if len(rq.Dimensions) > maxDimensions {
		return nil, errorf("#/dimensions: Expected a maximum of %d items", maxDimensions)
	}
	times := 0
	for i, d := range rq.Dimensions {
		if !validDimension(d) {
			return nil, errorf("#/dimensions/%d: Invalid dimension %q", i, d)
		}
		if slices.Contains(q.Dimensions, d) {
			return nil, errorf("#/dimensions: Some dimensions are listed multiple times")
		}
		if isTime(d) {
			if times++; times > 1 {
				return nil, errorf("#/dimensions: Only one time dimension may be queried")
			}
		}
		q.Dimensions = append(q.Dimensions, d)
	}
	budget := maxFilters
	for i, raw := range rq.Filters {
		f, err := parseFilter(raw, fmt.Sprintf("#/filters/%d", i), 0, &budget)
		if err != nil {
			return nil, err
		}
		q.Filters = append(q.Filters, f)
	}
	for i, raw := range rq.OrderBy {
		var pair []string
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || (pair[1] != "asc" && pair[1] != "desc") {
			return nil, errorf("#/order_by/%d: Invalid order_by entry %s: want [metric or dimension, \"asc\" or \"desc\"]", i, raw)
		}
		if !slices.Contains(q.Metrics, pair[0]) && !slices.Contains(q.Dimensions, pair[0]) {
			return nil, errorf("Invalid order_by entry '%s'. Entry is not a queried metric or dimension.", pair[0])
		}
		q.OrderBy = append(q.OrderBy, Order{Key: pair[0], Desc: pair[1] == "desc"})
	}
	if in := rq.Include; in != nil {
		q.Include.Imports, q.Include.TimeLabels, q.Include.TotalRows = in.Imports, in.TimeLabels, in.TotalRows
		if in.Comparisons != nil {
			mode, _ := (*in.Comparisons)["mode"].(string)
			if mode != "previous_period" && mode != "year_over_year" || len(*in.Comparisons) != 1 {
				return nil, errorf("#/include/comparisons: Invalid comparison: want {\"mode\": \"previous_period\"} or {\"mode\": \"year_over_year\"}")
			}
			q.Include.Comparison = mode
		}
		if q.Include.TimeLabels && times == 0 {
			return nil, errorf("Invalid include.time_labels: requires a time dimension")
		}
	}
	if p := rq.Pagination; p != nil {
		if p.Limit != nil {
			if *p.Limit < 1 || *p.Limit > maxLimit {
				return nil, errorf("#/pagination/limit: Expected an integer from 1 to %d", maxLimit)
			}
			q.Limit = *p.Limit
		}
		if p.Offset != nil {
			if *p.Offset < 0 || *p.Offset > 1<<30 {
				return nil, errorf("#/pagination/offset: Expected a non-negative integer")
			}
			q.Offset = *p.Offset
		}
	}
	return q, q.check()
}

// check enforces the rules between the parts of a query.
func (q *Query) check() error {
	if slices.Contains(q.Metrics, "percentage") && len(q.nonTime()) == 0 {
		return errorf("Metric `percentage` can only be queried with a dimension")
	}
	if slices.Contains(q.Metrics, "conversion_rate") && !slices.Contains(q.Dimensions, "event:goal") && !q.hasGoalFilter() {
		return errorf("Metric `conversion_rate` can only be queried with event:goal filters or dimensions.")
	}
	return nil
}

// nonTime returns the dimensions that are no time bucket.
func (q *Query) nonTime() []string {
	var out []string
	for _, d := range q.Dimensions {
		if !isTime(d) {
			out = append(out, d)
		}
	}
	return out
}

func (q *Query) hasGoalFilter() bool {
	var walk func(fs []Filter) bool
	walk = func(fs []Filter) bool {
		for _, f := range fs {
			if f.Dimension == "event:goal" || walk(f.Children) {
				return true
			}
		}
		return false
	}
	return walk(q.Filters)
}

func parseDateRange(raw json.RawMessage) (DateRange, error) {
	if len(raw) == 0 {
		return DateRange{}, errorf("#/date_range: Required property date_range was not present.")
	}
	var preset string
	if json.Unmarshal(raw, &preset) == nil {
		if slices.Contains(presets, preset) {
			return DateRange{Preset: preset}, nil
		}
		return DateRange{}, errorf("#/date_range: Invalid date range %q", preset)
	}
	var pair []string
	if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 {
		return DateRange{}, errorf("#/date_range: Invalid date range %s", raw)
	}
	dr := DateRange{From: pair[0], To: pair[1]}
	// The dates are checked here, against UTC; Run reads them in the
	// site's time zone.
	if _, _, err := dr.resolve(utcSite, fixedNow); err != nil {
		return DateRange{}, err
	}
	return dr, nil
}

// parseFilter reads one node of the filter tree at path, depth deep,
// taking one from budget per node.
func parseFilter(raw json.RawMessage, path string, depth int, budget *int) (Filter, error) {
	if *budget--; *budget < 0 {
		return Filter{}, errorf("#/filters: more than %d conditions", maxFilters)
	}
	if depth > maxDepth {
		return Filter{}, errorf("%s: filters nested more than %d deep", path, maxDepth)
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil || len(parts) < 2 {
		return Filter{}, errorf("%s: Invalid filter %s", path, raw)
	}
	var op string
	if json.Unmarshal(parts[0], &op) != nil {
		return Filter{}, errorf("%s: Invalid filter %s", path, raw)
	}
	switch op {
	case "and", "or":
		var kids []json.RawMessage
		if len(parts) != 2 || json.Unmarshal(parts[1], &kids) != nil || len(kids) == 0 {
			return Filter{}, errorf("%s: Invalid filter %s: %q takes a non-empty list of filters", path, raw, op)
		}
		f := Filter{Op: op}
		for i, k := range kids {
			c, err := parseFilter(k, fmt.Sprintf("%s/1/%d", path, i), depth+1, budget)
			if err != nil {
				return Filter{}, err
			}
			f.Children = append(f.Children, c)
		}
		return f, nil
	case "not":
		if len(parts) != 2 {
			return Filter{}, errorf("%s: Invalid filter %s: \"not\" takes one filter", path, raw)
		}
		c, err := parseFilter(parts[1], path+"/1", depth+1, budget)
		if err != nil {
			return Filter{}, err
		}
		return Filter{Op: op, Children: []Filter{c}}, nil
	case "is", "is_not", "contains", "contains_not":
		var dim string
		var vals []string
		if len(parts) != 3 || json.Unmarshal(parts[1], &dim) != nil || json.Unmarshal(parts[2], &vals) != nil || len(vals) == 0 {
			return Filter{}, errorf("%s: Invalid filter %s: want [%q, dimension, [values]]", path, raw, op)
		}
		if !validDimension(dim) || isTime(dim) {
			return Filter{}, errorf("%s: Invalid filter dimension %q", path, dim)
		}
		if len(vals) > maxValues {
			return Filter{}, errorf("%s: more than %d values", path, maxValues)
		}
		return Filter{Op: op, Dimension: dim, Values: vals}, nil
	}
	return Filter{}, errorf("%s: Invalid filter %s: unknown operator %q", path, raw, op)
}

// MarshalJSON writes the filter as Plausible's array form.
func (f Filter) MarshalJSON() ([]byte, error) {
	switch f.Op {
	case "and", "or":
		return json.Marshal([]any{f.Op, f.Children})
	case "not":
		return json.Marshal([]any{f.Op, f.Children[0]})
	}
	return json.Marshal([]any{f.Op, f.Dimension, f.Values})
}
