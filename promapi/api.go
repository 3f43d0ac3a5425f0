package promapi

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"

	"github.com/timetable-db/timetable/series"
)

// Defaults of Config.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMaxSamples    = 50_000_000 // Prometheus' --query.max-samples
	DefaultLookbackDelta = 5 * time.Minute
	// MaxPoints is the most points of one series a range query may ask
	// for, as Prometheus has it.
	MaxPoints = 11_000
	// maxFormBytes bounds the body of a form POST.
	maxFormBytes = 1 << 20
)

// Config configures an API.
type Config struct {
	Store *series.Store
	// Allow reports whether the caller of ctx may read kind (nil: every
	// kind): the metrics of other kinds do not exist for it.
	Allow func(ctx context.Context, kind string) bool
	// Timeout bounds a query's evaluation (0: DefaultTimeout); a
	// request's own timeout= may only shorten it.
	Timeout time.Duration
	// MaxSamples is the most samples a query holds at once (0:
	// DefaultMaxSamples), Prometheus' --query.max-samples.
	MaxSamples int
	// MaxSeries is the most series a selection selects (0:
	// DefaultMaxSeries; see Queryable.MaxSeries).
	MaxSeries int
	// Now is the clock of queries without a time (nil: time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// API answers Prometheus' HTTP query API over a series.Store. Each
// method is the handler of one route (see the package doc); it answers
// every error itself, in Prometheus' format.
type API struct {
	cfg    Config
	q      *Queryable
	engine *promql.Engine
	parser parser.Parser
}

// New returns an API for cfg.
func New(cfg Config) *API {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxSamples <= 0 {
		cfg.MaxSamples = DefaultMaxSamples
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p := parser.NewParser(parser.Options{})
	return &API{
		cfg: cfg,
		q:   &Queryable{Store: cfg.Store, Allow: cfg.Allow, MaxSeries: cfg.MaxSeries},
		engine: promql.NewEngine(promql.EngineOpts{
			Logger:               cfg.Logger,
			MaxSamples:           cfg.MaxSamples,
			Timeout:              cfg.Timeout,
			LookbackDelta:        DefaultLookbackDelta,
			EnableAtModifier:     true,
			EnableNegativeOffset: true,
			Parser:               p,
		}),
		parser: p,
	}
}

// Queryable returns the storage.Queryable the API's engine reads.
func (a *API) Queryable() storage.Queryable { return a.q }

// Owns reports whether path is one of the API's, whose errors are
// answered in Prometheus' format.
func Owns(path string) bool {
	switch path {
	case "/api/v1/query", "/api/v1/query_range", "/api/v1/series", "/api/v1/labels",
		"/api/v1/metadata", "/api/v1/status/buildinfo", "/api/v1/format_query", "/api/v1/query_exemplars",
		"/api/v1/rules", "/api/v1/alerts":
		return true
	}
	return strings.HasPrefix(path, "/api/v1/label/") && strings.HasSuffix(path, "/values")
}

// Query answers /api/v1/query: query, time (default now), timeout.
func (a *API) Query(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(ctx context.Context, f form) (any, []string, error) {
		qs, err := f.required("query")
		if err != nil {
			return nil, nil, err
		}
		ts, err := f.time("time", a.cfg.Now())
		if err != nil {
			return nil, nil, err
		}
		ctx, cancel, err := f.timeout(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer cancel()
		q, err := a.engine.NewInstantQuery(ctx, a.q, nil, qs, ts)
		if err != nil {
			return nil, nil, badData(err)
		}
		return a.exec(ctx, q)
	})
}

// QueryRange answers /api/v1/query_range: query, start, end, step,
// timeout.
func (a *API) QueryRange(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(ctx context.Context, f form) (any, []string, error) {
		qs, err := f.required("query")
		if err != nil {
			return nil, nil, err
		}
		start, end, err := f.rangeOf(true)
		if err != nil {
			return nil, nil, err
		}
		if _, ok := f.get("step"); !ok {
			return nil, nil, badDataf("missing parameter step")
		}
		step, err := f.duration("step")
		if err != nil {
			return nil, nil, err
		}
		if step <= 0 {
			return nil, nil, badDataf("zero or negative query resolution step widths are not accepted. Try a positive integer")
		}
		if end.Sub(start)/step > MaxPoints {
			return nil, nil, badDataf("exceeded maximum resolution of %d points per timeseries. Try decreasing the query resolution (?step=XX)", MaxPoints)
		}
		ctx, cancel, err := f.timeout(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer cancel()
		q, err := a.engine.NewRangeQuery(ctx, a.q, nil, qs, start, end, step)
		if err != nil {
			return nil, nil, badData(err)
		}
		return a.exec(ctx, q)
	})
}

// exec runs q and returns its result as JSON values.
func (a *API) exec(ctx context.Context, q promql.Query) (any, []string, error) {
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		return nil, nil, res.Err
	}
	warnings, _ := res.Warnings.AsStrings(q.String(), 10, 10)
	return queryData{Type: res.Value.Type(), Result: result{res.Value}}, warnings, nil
}

// Series answers /api/v1/series: match[] (one at least), start, end,
// limit.
func (a *API) Series(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(ctx context.Context, f form) (any, []string, error) {
		l, err := a.lookupOf(f, true)
		if err != nil {
			return nil, nil, err
		}
		sets, start, end, limit, qr := l.sets, l.start, l.end, l.limit, l.q
		var sel []labels.Labels
		for _, ms := range sets {
			ss := qr.Select(ctx, true, &storage.SelectHints{Start: start.UnixMilli(), End: end.UnixMilli(), Func: "series"}, ms...)
			for ss.Next() {
				sel = append(sel, ss.At().Labels())
			}
			if err := ss.Err(); err != nil {
				return nil, nil, err
			}
		}
		slices.SortFunc(sel, labels.Compare)
		sel = slices.CompactFunc(sel, labels.Equal)
		var warnings []string
		if limit > 0 && len(sel) > limit {
			sel = sel[:limit]
			warnings = append(warnings, "results truncated due to limit")
		}
		out := make([]labelSet, len(sel))
		for i, ls := range sel {
			out[i] = labelSet{ls}
		}
		return out, warnings, nil
	})
}

// Labels answers /api/v1/labels: match[], start, end, limit.
func (a *API) Labels(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(ctx context.Context, f form) (any, []string, error) {
		return a.labelLookup(ctx, f, func(q storage.Querier, ms []*labels.Matcher) ([]string, error) {
			names, _, err := q.LabelNames(ctx, nil, ms...)
			return names, err
		})
	})
}

// LabelValues answers /api/v1/label/<name>/values: match[], start, end,
// limit.
func (a *API) LabelValues(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	a.serve(w, r, func(ctx context.Context, f form) (any, []string, error) {
		if strings.HasPrefix(name, "U__") {
			name = model.UnescapeName(name, model.ValueEncodingEscaping)
		}
		if !model.UTF8Validation.IsValidLabelName(name) {
			return nil, nil, badDataf("invalid label name: %q", name)
		}
		return a.labelLookup(ctx, f, func(q storage.Querier, ms []*labels.Matcher) ([]string, error) {
			values, _, err := q.LabelValues(ctx, name, nil, ms...)
			return values, err
		})
	})
}

// lookup is the parameters of a series or label lookup.
type lookup struct {
	sets       [][]*labels.Matcher
	start, end time.Time
	limit      int
	q          storage.Querier
}

// lookupOf parses match[] (need: one at least), start, end and limit.
func (a *API) lookupOf(f form, need bool) (lookup, error) {
	var l lookup
	var err error
	if l.sets, err = a.matchers(f, need); err != nil {
		return l, err
	}
	if l.start, l.end, err = f.rangeOf(false); err != nil {
		return l, err
	}
	if l.limit, err = f.limit(); err != nil {
		return l, err
	}
	l.q, _ = a.q.Querier(l.start.UnixMilli(), l.end.UnixMilli())
	return l, nil
}

// labelLookup answers a lookup of label names or values: the union of
// those of each match[] (every series without one), sorted, at most
// limit.
func (a *API) labelLookup(_ context.Context, f form, look func(storage.Querier, []*labels.Matcher) ([]string, error)) (any, []string, error) {
	l, err := a.lookupOf(f, false)
	if err != nil {
		return nil, nil, err
	}
	sets, limit, qr := l.sets, l.limit, l.q
	if len(sets) == 0 {
		sets = [][]*labels.Matcher{nil}
	}
	var all []string
	for _, ms := range sets {
		got, err := look(qr, ms)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if all == nil {
		all = []string{}
	}
	var warnings []string
	if limit > 0 && len(all) > limit {
		all = all[:limit]
		warnings = append(warnings, "results truncated due to limit")
	}
	return all, warnings, nil
}

// matchers parses the match[] of f; need: at least one.
func (a *API) matchers(f form, need bool) ([][]*labels.Matcher, error) {
	raw := f.all("match[]")
	if need && len(raw) == 0 {
		return nil, badDataf("no match[] parameter provided")
	}
	var out [][]*labels.Matcher
	for _, s := range raw {
		ms, err := a.parser.ParseMetricSelector(s)
		if err != nil {
			return nil, badData(err)
		}
		out = append(out, ms)
	}
	return out, nil
}

// metadataEntry is one entry of /api/v1/metadata.
type metadataEntry struct {
	Type string `json:"type"`
	Help string `json:"help"`
	Unit string `json:"unit"`
}

// Metadata answers /api/v1/metadata: metric, limit, limit_per_metric.
// A metric of its own (a kind whose only field is "value", as remote
// write and OTLP make them) has the type, help and unit stored with its
// kind (series.Schema.Meta); any other metric, and a type not stored, is
// of type unknown, its help naming its kind and field.
func (a *API) Metadata(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(ctx context.Context, f form) (any, []string, error) {
		limit, err := f.intParam("limit")
		if err != nil {
			return nil, nil, err
		}
		want, _ := f.get("metric")
		qr := &querier{q: a.q}
		out := map[string][]metadataEntry{}
		var names []string
		for _, m := range qr.metrics(ctx, nil) {
			if want != "" && m.name != want {
				continue
			}
			sc := m.kind.Schema()
			e := metadataEntry{Type: "unknown", Help: "field " + sc.Fields[m.field] + " of kind " + sc.Name}
			if m.marks {
				if sc.Meta.Type != "" {
					e.Type = sc.Meta.Type
				}
				if sc.Meta.Help != "" {
					e.Help = sc.Meta.Help
				}
				e.Unit = sc.Meta.Unit
			}
			if _, ok := out[m.name]; !ok {
				names = append(names, m.name)
			}
			out[m.name] = append(out[m.name], e)
		}
		if limit > 0 && len(names) > limit {
			slices.Sort(names)
			for _, n := range names[limit:] {
				delete(out, n)
			}
		}
		return out, nil, nil
	})
}

// BuildInfo answers /api/v1/status/buildinfo: the version of Prometheus
// whose engine answers (what clients such as Grafana look at to choose
// the features they use), and the build of this program.
func (a *API) BuildInfo(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(context.Context, form) (any, []string, error) {
		info := map[string]string{
			"version": EngineVersion(), "revision": "unknown", "branch": "timetable",
			"buildUser": "", "buildDate": "", "goVersion": runtime.Version(),
		}
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					info["revision"] = s.Value
				case "vcs.time":
					info["buildDate"] = s.Value
				}
			}
		}
		return info, nil, nil
	})
}

// EngineVersion returns the version of Prometheus whose PromQL engine
// the binary holds ("3.16.0" for the module github.com/prometheus/
// prometheus v0.316.0), or "3.0.0" when the build records none.
func EngineVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "3.0.0"
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/prometheus/prometheus" {
			return moduleToRelease(d.Version)
		}
	}
	return "3.0.0"
}

// moduleToRelease maps a Prometheus module version, v0.MNN.P, to its
// release M.NN.P.
func moduleToRelease(v string) string {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 3 || parts[0] != "0" || len(parts[1]) < 3 {
		return "3.0.0"
	}
	mm, err := strconv.Atoi(parts[1])
	if err != nil {
		return "3.0.0"
	}
	patch, _, _ := strings.Cut(parts[2], "-")
	return strconv.Itoa(mm/100) + "." + strconv.Itoa(mm%100) + "." + patch
}

// QueryExemplars answers /api/v1/query_exemplars: query, start, end,
// checked as Prometheus checks them, and an empty list, as Prometheus
// answers with its exemplar storage off (its default): the store keeps
// no exemplars, so Grafana's exemplar switch shows none rather than an
// error.
func (a *API) QueryExemplars(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(_ context.Context, f form) (any, []string, error) {
		qs, err := f.required("query")
		if err != nil {
			return nil, nil, err
		}
		if _, _, err := f.rangeOf(false); err != nil {
			return nil, nil, err
		}
		if _, err := a.parser.ParseExpr(qs); err != nil {
			return nil, nil, badData(err)
		}
		return []struct{}{}, nil, nil
	})
}

// Rules answers /api/v1/rules: its parameters (type, exclude_alerts,
// match[], group_limit, group_next_token) checked as Prometheus checks
// them, and no rule groups, as Prometheus answers with no rule files: the
// store evaluates no recording or alerting rules, so Grafana's alerting
// pages list none for the data source rather than an error.
func (a *API) Rules(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(_ context.Context, f form) (any, []string, error) {
		if _, err := a.matchers(f, false); err != nil {
			return nil, nil, err
		}
		if t, _ := f.get("type"); t != "" && !strings.EqualFold(t, "alert") && !strings.EqualFold(t, "record") {
			return nil, nil, badDataf("invalid parameter \"type\": not supported value %q", strings.ToLower(t))
		}
		if v, _ := f.get("exclude_alerts"); v != "" {
			if _, err := strconv.ParseBool(strings.ToLower(v)); err != nil {
				return nil, nil, badDataf("invalid parameter \"exclude_alerts\": error converting exclude_alerts: %v", err)
			}
		}
		limit, _ := f.get("group_limit")
		token, _ := f.get("group_next_token")
		switch n, err := strconv.ParseInt(limit, 10, 32); {
		case limit == "" && token != "":
			return nil, nil, badDataf("invalid parameter \"group_next_token\": group_limit needs to be present in order to paginate over the groups")
		case limit != "" && err != nil:
			return nil, nil, badDataf("invalid parameter \"group_limit\": group_limit needs to be a valid number: %v", err)
		case limit != "" && n <= 0:
			return nil, nil, badDataf("invalid parameter \"group_limit\": group_limit needs to be greater than 0")
		case token != "":
			// No group holds the token: there are none.
			return nil, nil, badDataf("invalid parameter \"group_next_token\": invalid group_next_token '%v'. were rule groups changed?", token)
		}
		return struct {
			Groups []struct{} `json:"groups"`
		}{Groups: []struct{}{}}, nil, nil
	})
}

// Alerts answers /api/v1/alerts: no alerts, as Prometheus answers with no
// alerting rules (see Rules).
func (a *API) Alerts(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(context.Context, form) (any, []string, error) {
		return struct {
			Alerts []struct{} `json:"alerts"`
		}{Alerts: []struct{}{}}, nil, nil
	})
}

// FormatQuery answers /api/v1/format_query: the query, prettified.
func (a *API) FormatQuery(w http.ResponseWriter, r *http.Request) {
	a.serve(w, r, func(_ context.Context, f form) (any, []string, error) {
		qs, err := f.required("query")
		if err != nil {
			return nil, nil, err
		}
		expr, err := a.parser.ParseExpr(qs)
		if err != nil {
			return nil, nil, badData(err)
		}
		return parser.Prettify(expr), nil, nil
	})
}

// serve parses the request's form, runs h under Config.Timeout and
// answers its data or its error.
func (a *API) serve(w http.ResponseWriter, r *http.Request, h func(context.Context, form) (any, []string, error)) {
	if r.Method == http.MethodPost && r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	}
	if err := r.ParseForm(); err != nil {
		WriteError(w, http.StatusBadRequest, "bad_data", "cannot parse the form: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.Timeout)
	defer cancel()
	data, warnings, err := h(ctx, form{r.Form})
	if err != nil {
		status, typ, msg := a.classify(ctx, err)
		WriteError(w, status, typ, msg)
		return
	}
	writeSuccess(w, data, warnings)
}

// apiError is an error with its Prometheus error type and status.
type apiError struct {
	status int
	typ    string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badData(err error) error { return &apiError{http.StatusBadRequest, "bad_data", err.Error()} }

func badDataf(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, "bad_data", sprintf(format, args...)}
}

// classify maps an error to its status, error type and message, as
// Prometheus' API does.
func (a *API) classify(ctx context.Context, err error) (int, string, string) {
	var ae *apiError
	var es promql.ErrStorage
	switch {
	case errors.As(err, &ae):
		return ae.status, ae.typ, ae.msg
	case errors.Is(err, ErrTooManySeries):
		return http.StatusUnprocessableEntity, "execution", err.Error()
	case errors.Is(err, series.ErrInvalidQuery):
		return http.StatusBadRequest, "bad_data", err.Error()
	case errors.As(err, &es) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled):
		a.cfg.Logger.Error("prometheus query: storage", "err", err)
		return http.StatusInternalServerError, "internal", "the store failed to read (logged by the server)"
	}
	switch err.(type) {
	case promql.ErrQueryTimeout:
		return http.StatusServiceUnavailable, "timeout", err.Error()
	case promql.ErrQueryCanceled:
		if ctx.Err() == context.DeadlineExceeded {
			return http.StatusServiceUnavailable, "timeout", "query timed out after " + a.cfg.Timeout.String() + " (serve --request-timeout)"
		}
		return 499, "canceled", err.Error()
	case promql.ErrTooManySamples:
		return http.StatusUnprocessableEntity, "execution", err.Error()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded:
		return http.StatusServiceUnavailable, "timeout", "query timed out after " + a.cfg.Timeout.String() + " (serve --request-timeout)"
	case errors.Is(err, context.Canceled):
		return 499, "canceled", err.Error()
	}
	return http.StatusUnprocessableEntity, "execution", err.Error()
}

// appendFloat appends v as Prometheus' API writes a sample's value.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}
