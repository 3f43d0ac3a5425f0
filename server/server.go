package server

import (
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

// Defaults of Config's limits.
const (
	DefaultMaxBodyBytes     = 32 << 20 // a request body as sent
	DefaultMaxInflatedBytes = 64 << 20 // a gzip request body once inflated
	// DefaultMaxReadings bounds the readings of one write request: a
	// decoded reading holds 90 to 220 bytes (BenchmarkWrite, ingest's
	// TestBatch_Bytes), so a request holds at most some 10 to 25 MB.
	DefaultMaxReadings = 100_000
	DefaultMaxSeries   = 10_000 // series in one write request
	// Defaults of Config.KindLimits: what the writes of open protocols
	// may bring the store to.
	DefaultMaxKinds    = 10_000
	DefaultMaxFields   = 1_000
	DefaultMaxTags     = 64
	DefaultMaxPageSize = 10_000 // readings in one page of a range read
	// DefaultRequestTimeout bounds the time of a read: a series read or
	// aggregate, a Stats API query, an analytics read.
	DefaultRequestTimeout = 30 * time.Second
)

// Config is what a Server serves. Store is required; the others are
// optional.
type Config struct {
	// Store holds the time series.
	Store *series.Store
	// Analytics, if set, holds the web analytics: sites, goals, the
	// collected hits and their aggregates.
	Analytics *analytics.Store
	// Collect configures the collect endpoint of Analytics (bots, proxies,
	// country, rate limit); the zero value takes collect's defaults.
	Collect collect.Options
	// DynamoDB, if set, answers DynamoDB's protocol: POST requests with an
	// X-Amz-Target header (the wire handler, wrapped in SigV4 checks).
	DynamoDB http.Handler
	// Auth, if set, checks every request of the series API for a token
	// and serves the token routes; nil serves without authentication
	// (--no-auth).
	Auth *auth.Store
	// Trusted serves every request as an admin's without a token, with
	// Auth for the token routes only: for a caller in this process that
	// opened the data folder itself (the CLI with --data).
	Trusted bool
	// Limiter, if set, limits each token's requests.
	Limiter *auth.Limiter
	// Registry, if set, receives the server's metrics, and Gatherer is
	// served at /metrics (both default to a registry of the server's own
	// and Go's runtime).
	Registry prometheus.Registerer
	Gatherer prometheus.Gatherer
	// MetricsPublic serves /metrics without a token.
	MetricsPublic bool
	// CORSOrigins are the origins allowed to call the API from a browser
	// ("*" for any); none by default. A browser's request other than GET,
	// HEAD and OPTIONS from any other origin is refused (origin.go).
	CORSOrigins []string
	// Addr is the address the server listens on (host:port, as its
	// listener reports it). On a loopback address, requests are answered
	// only when their Host header names an IP address, localhost or one of
	// AllowedHosts (origin.go); empty: the Host is not checked unless
	// AllowedHosts is set.
	Addr string
	// AllowedHosts are names the Host header may give besides those; given
	// any, the Host is checked whatever Addr is; "*" turns the check off.
	AllowedHosts []string
	// MaxBodyBytes (as sent) and MaxInflatedBytes (a gzip body once
	// inflated, checked as it inflates) bound every request body;
	// MaxReadings and MaxSeries bound the readings and the distinct series
	// of a write request. Past one the request is refused 413 naming it.
	// Zero takes the defaults.
	MaxBodyBytes     int64
	MaxInflatedBytes int64
	MaxReadings      int
	MaxSeries        int
	// NoAutoKinds refuses the readings of line protocol and Prometheus
	// remote write whose kind, fields or tags are not defined; by default
	// those writes define them (series.Store.Grow, docs/metrics.md).
	NoAutoKinds bool
	// OTLPPromoteResourceAttributes names the OTLP resource attributes
	// copied into the labels of every series of their resource (as
	// Prometheus' otlp.promote_resource_attributes); the others are in
	// target_info only. nil promotes none.
	OTLPPromoteResourceAttributes []string
	// KindLimits caps what those writes define: kinds, and fields and
	// tags per kind. Past a cap a write is refused 400 naming it. Zero
	// fields take DefaultMaxKinds, DefaultMaxFields and DefaultMaxTags;
	// a negative one caps nothing.
	KindLimits series.Limits
	// Budget bounds the bytes all requests hold in memory at once; give
	// the same one to the DynamoDB handler (wire.Options.Budget) so that
	// every face shares it. Default NewBudget(MaxInFlightBytes, 0).
	Budget *Budget
	// MaxInFlightBytes is the size of the default Budget; zero means
	// DefaultMaxInFlightBytes. Ignored when Budget is set.
	MaxInFlightBytes int64
	// MaxPeriods bounds the periods of one aggregate (?step over
	// [from, to)) and the time buckets of one Stats API query: more is
	// refused 400, naming the bound. Zero takes series.DefaultMaxPeriods
	// and statsapi.DefaultMaxBuckets (10,000: a year of hours fits).
	MaxPeriods int
	// RequestTimeout bounds the time of each request that reads (the
	// series API's GET routes, the Stats API, the analytics' reads):
	// past it the request's context ends and it is answered 504 with the
	// reason. Zero takes DefaultRequestTimeout; a negative value sets no
	// bound. Writes are bounded by their size instead (MaxBodyBytes).
	RequestTimeout time.Duration
	// Writable, if set, reports whether the storage under Store (and
	// Analytics) takes writes: the embedded engine's DB.Writable, nil or
	// the error writes are refused with (a full disk). While it fails,
	// /readyz answers 503 and writes are refused with its answer (507 for
	// a full disk) before they reach the store.
	Writable func() error
	// SyncWrites answers every write request (the series API, InfluxDB
	// writes) once the table has its readings, as ?sync=true does, not
	// once they are in the store's buffer and log.
	SyncWrites bool
	// Now is the clock of readings sent without a time; default time.Now.
	Now func() time.Time
	// Logger receives request errors; default discard.
	Logger *slog.Logger
	// Version is shown on the index page.
	Version string
}

// Server is the HTTP face of timetable: the series API, InfluxDB's write
// endpoints, the DynamoDB endpoint, health, metrics and the OpenAPI
// document, on one http.Handler. It is safe for concurrent use.
type Server struct {
	cfg     Config
	store   *series.Store
	log     *slog.Logger
	mux     *http.ServeMux
	metrics *httpMetrics
	// collector records the hits of POST /api/event; nil when Analytics is.
	collector *collect.Collector
	gather    http.Handler
	// draining is set by Drain: readiness fails and writes are refused.
	draining atomic.Bool
	// hosts and crossOrigin screen requests before routing (origin.go).
	hosts       *hostPolicy
	crossOrigin *http.CrossOriginProtection
	// series remembers the series of the label sets of remote write.
	series *ingest.SeriesCache
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, store: cfg.Store, log: cfg.Logger, series: ingest.NewSeriesCache(ingest.DefaultSeriesCacheBytes)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.cfg.MaxBodyBytes <= 0 {
		s.cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if s.cfg.MaxInflatedBytes <= 0 {
		s.cfg.MaxInflatedBytes = DefaultMaxInflatedBytes
	}
	if s.cfg.MaxReadings <= 0 {
		s.cfg.MaxReadings = DefaultMaxReadings
	}
	if s.cfg.MaxSeries <= 0 {
		s.cfg.MaxSeries = DefaultMaxSeries
	}
	for _, l := range []struct {
		v   *int
		def int
	}{{&s.cfg.KindLimits.MaxKinds, DefaultMaxKinds}, {&s.cfg.KindLimits.MaxFields, DefaultMaxFields}, {&s.cfg.KindLimits.MaxTags, DefaultMaxTags}} {
		switch {
		case *l.v == 0:
			*l.v = l.def
		case *l.v < 0:
			*l.v = 0
		}
	}
	if s.cfg.Budget == nil {
		s.cfg.Budget = NewBudget(s.cfg.MaxInFlightBytes, 0)
	}
	if s.cfg.Now == nil {
		s.cfg.Now = time.Now
	}
	if s.cfg.RequestTimeout == 0 {
		s.cfg.RequestTimeout = DefaultRequestTimeout
	}
	var err error
	if s.hosts, err = newHostPolicy(cfg.Addr, cfg.AllowedHosts); err != nil {
		return nil, err
	}
	if s.crossOrigin, err = newCrossOrigin(cfg.CORSOrigins); err != nil {
		return nil, err
	}
	reg, gat := cfg.Registry, cfg.Gatherer
	if reg == nil || gat == nil {
		r := prometheus.NewRegistry()
		reg, gat = r, r
	}
	m, err := newHTTPMetrics(reg)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	if err := registerBudget(reg, s.cfg.Budget); err != nil {
		return nil, err
	}
	if cfg.Analytics != nil {
		s.collector = collect.New(cfg.Analytics, &s.cfg.Collect)
		if err := reg.Register(newCollectMetrics(s.collector)); err != nil {
			return nil, err
		}
	}
	s.gather = promhttp.HandlerFor(gat, promhttp.HandlerOpts{})
	s.mux = http.NewServeMux()
	for _, rt := range s.routes() {
		s.mux.Handle(rt.pattern, s.instrument(rt))
	}
	return s, nil
}

// Drain makes the server refuse new writes and report not ready, for a
// shutdown: the caller then stops the listener and flushes the store.
func (s *Server) Drain() { s.draining.Store(true) }

// ServeHTTP answers a request: once it has passed the checks of origin.go
// (Host, origin, a token in the URL), DynamoDB's protocol if it carries
// its X-Amz-Target header, the routes otherwise.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.screen(w, r) {
		return
	}
	if s.isDynamoDB(r) {
		s.cfg.DynamoDB.ServeHTTP(w, r)
		return
	}
	if s.cors(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// ready reports whether the server can take writes: not draining, the
// storage takes writes and the store's table exists.
func (s *Server) ready() error {
	if s.draining.Load() {
		return errorf(http.StatusServiceUnavailable, codeUnavailable, "shutting down")
	}
	if err := s.writable(); err != nil {
		return err
	}
	return s.store.Ready()
}

// writable returns Config.Writable's error, if any.
func (s *Server) writable() error {
	if s.cfg.Writable == nil {
		return nil
	}
	return s.cfg.Writable()
}
