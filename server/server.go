package server

import (
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/wire"
)

// Defaults of Config's limits.
const (
	DefaultMaxBodyBytes     = 32 << 20  // a request body as sent
	DefaultMaxInflatedBytes = 256 << 20 // a gzip request body once inflated
	DefaultMaxReadings      = 1_000_000 // readings in one write request
	DefaultMaxPageSize      = 10_000    // readings in one page of a range read
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
	// ("*" for any); none by default.
	CORSOrigins []string
	// MaxBodyBytes, MaxInflatedBytes and MaxReadings bound a write
	// request; zero takes the defaults.
	MaxBodyBytes     int64
	MaxInflatedBytes int64
	MaxReadings      int
	// Writable, if set, reports whether the storage under Store (and
	// Analytics) takes writes: the embedded engine's DB.Writable, nil or
	// the error writes are refused with (a full disk). While it fails,
	// /readyz answers 503 and writes are refused with its answer (507 for
	// a full disk) before they reach the store.
	Writable func() error
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
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, store: cfg.Store, log: cfg.Logger}
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
	if s.cfg.Now == nil {
		s.cfg.Now = time.Now
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
	if cfg.Analytics != nil {
		if s.cfg.Collect.Logger == nil {
			s.cfg.Collect.Logger = s.log
		}
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

// ServeHTTP answers a request: DynamoDB's protocol if the request carries
// its X-Amz-Target header, the routes otherwise.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.DynamoDB != nil && (r.Header.Get("X-Amz-Target") != "" || wire.IsPreflight(r)) {
		s.cfg.DynamoDB.ServeHTTP(w, r)
		return
	}
	if s.cors(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// cors sets the CORS headers for an allowed origin and answers a
// preflight request; it reports whether the request was answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || len(s.cfg.CORSOrigins) == 0 {
		return false
	}
	allowed := false
	for _, o := range s.cfg.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			allowed = true
			break
		}
	}
	if !allowed {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Encoding")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
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
