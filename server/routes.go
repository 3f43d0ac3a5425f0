package server

import (
	"context"
	"net/http"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
)

// route is one pattern of the mux, who may call it and what answers it.
// The OpenAPI document lists the same patterns (a test keeps them in
// step), and the access matrix test has a row for each.
type route struct {
	pattern string // a net/http pattern: "GET /api/v1/kinds/{kind}"
	access  access
	handle  func(w http.ResponseWriter, r *http.Request) error
}

// routes lists every route of the server.
func (s *Server) routes() []route {
	pq := s.promAPI()
	return []route{
		{"GET /{$}", public, s.index},
		{"GET /about", public, s.about},
		{"GET /share/{site}", public, s.shared},
		{"GET /ui/{file...}", public, s.uiAsset},
		{"GET /healthz", public, s.healthz},
		{"GET /readyz", public, s.readyz},
		{"GET /openapi.json", public, s.openapi},
		{"GET /metrics", s.metricsAccess(), s.serveMetrics},
		{"GET /js/script.js", public, s.trackerScript},

		{"GET /api/v1/kinds", need(auth.ScopeRead, someKind), s.listKinds},
		{"POST /api/v1/kinds", need(auth.ScopeAdmin, everything), s.createKind},
		{"GET /api/v1/kinds/{kind}", need(auth.ScopeRead, kindOfPath), s.getKind},
		{"PUT /api/v1/kinds/{kind}", need(auth.ScopeAdmin, kindOfPath), s.changeKind},

		{"POST /api/v1/kinds/{kind}/readings", need(auth.ScopeWrite, kindOfPath), s.writeReadings},
		{"POST /api/v1/write", need(auth.ScopeWrite, someKind), s.write},
		{"POST /write", need(auth.ScopeWrite, someKind), s.lineProtocol},
		{"POST /api/v2/write", need(auth.ScopeWrite, someKind), s.lineProtocol},
		{"POST /v1/metrics", need(auth.ScopeWrite, someKind), s.otlpMetrics},

		{"GET /api/v1/kinds/{kind}/series", need(auth.ScopeRead, kindOfPath), s.listSeries},
		{"GET /api/v1/kinds/{kind}/latest", need(auth.ScopeRead, kindOfPath), s.latestMany},
		{"GET /api/v1/kinds/{kind}/series/{id}/latest", need(auth.ScopeRead, kindOfPath), s.latest},
		{"GET /api/v1/kinds/{kind}/series/{id}/readings", need(auth.ScopeRead, kindOfPath), s.readings},
		{"GET /api/v1/kinds/{kind}/series/{id}/aggregate", need(auth.ScopeRead, kindOfPath), s.aggregate},
		{"GET /api/v1/kinds/{kind}/metric/{field}", need(auth.ScopeRead, kindOfPath), s.metricRange},
		{"DELETE /api/v1/kinds/{kind}/series/{id}", need(auth.ScopeWrite, kindOfPath), s.deleteSeries},
		{"DELETE /api/v1/kinds/{kind}/series/{id}/readings", need(auth.ScopeWrite, kindOfPath), s.deleteReadings},

		{"GET /api/v1/tokens", need(auth.ScopeAdmin, everything), s.listTokens},
		{"POST /api/v1/tokens", need(auth.ScopeAdmin, everything), s.createToken},
		{"DELETE /api/v1/tokens/{id}", need(auth.ScopeAdmin, everything), s.revokeToken},
		{"GET /api/v1/access-keys", need(auth.ScopeAdmin, everything), s.listAccessKeys},
		{"POST /api/v1/access-keys", need(auth.ScopeAdmin, everything), s.createAccessKey},
		{"DELETE /api/v1/access-keys/{id}", need(auth.ScopeAdmin, everything), s.revokeAccessKey},

		{"POST /api/event", public, s.collectEvent},
		{"OPTIONS /api/event", public, s.collectPreflight},
		{"POST /api/v1/sites/{site}/events", need(auth.ScopeWrite, siteOfPath), s.collectBatch},
		{"GET /api/v1/sites", need(auth.ScopeRead, someSite), s.listSites},
		{"POST /api/v1/sites", need(auth.ScopeAdmin, everything), s.createSite},
		{"GET /api/v1/sites/{site}", need(auth.ScopeRead, siteOfPath), s.getSite},
		{"PUT /api/v1/sites/{site}", need(auth.ScopeAdmin, siteOfPath), s.updateSite},
		{"DELETE /api/v1/sites/{site}", need(auth.ScopeAdmin, siteOfPath), s.deleteSite()},
		{"GET /api/v1/sites/{site}/shared-links", need(auth.ScopeAdmin, siteOfPath), s.listSharedLinks},
		{"POST /api/v1/sites/{site}/shared-links", need(auth.ScopeAdmin, siteOfPath), s.createSharedLink},
		{"DELETE /api/v1/sites/{site}/shared-links/{id}", need(auth.ScopeAdmin, siteOfPath), s.deleteOf((*analytics.Store).DeleteSharedLink)},
		{"GET /api/v1/sites/{site}/goals", need(auth.ScopeRead, siteOfPath), s.listGoals()},
		{"POST /api/v1/sites/{site}/goals", need(auth.ScopeAdmin, siteOfPath), s.putGoal()},
		{"DELETE /api/v1/sites/{site}/goals/{id}", need(auth.ScopeAdmin, siteOfPath), s.deleteOf((*analytics.Store).DeleteGoal)},
		{"GET /api/v1/sites/{site}/funnels", need(auth.ScopeRead, siteOfPath), s.listFunnels()},
		{"POST /api/v1/sites/{site}/funnels", need(auth.ScopeAdmin, siteOfPath), s.putFunnel()},
		{"DELETE /api/v1/sites/{site}/funnels/{id}", need(auth.ScopeAdmin, siteOfPath), s.deleteOf((*analytics.Store).DeleteFunnel)},
		{"GET /api/v1/sites/{site}/funnels/{id}/steps", need(auth.ScopeRead, siteOfPath), s.funnelSteps},
		{"GET /api/v1/sites/{site}/realtime", need(auth.ScopeRead, siteOfPath), s.realtime},
		{"GET /api/v1/sites/{site}/properties", need(auth.ScopeRead, siteOfPath), s.properties},
		{"GET /api/v1/sites/{site}/export", need(auth.ScopeRead, siteOfPath), s.exportStats},
		{"POST /api/v1/sites/{site}/import", need(auth.ScopeAdmin, siteOfPath), s.importStats},
		{"DELETE /api/v1/sites/{site}/import", need(auth.ScopeAdmin, siteOfPath), s.deleteImported},
		{"POST /api/v2/query", inBody(auth.ScopeRead), s.query},

		// Prometheus' query API (promapi): the metrics of the kinds the
		// caller may read.
		{"GET /api/v1/query", need(auth.ScopeRead, someKind), prom(pq.Query)},
		{"POST /api/v1/query", need(auth.ScopeRead, someKind), prom(pq.Query)},
		{"GET /api/v1/query_range", need(auth.ScopeRead, someKind), prom(pq.QueryRange)},
		{"POST /api/v1/query_range", need(auth.ScopeRead, someKind), prom(pq.QueryRange)},
		{"GET /api/v1/series", need(auth.ScopeRead, someKind), prom(pq.Series)},
		{"POST /api/v1/series", need(auth.ScopeRead, someKind), prom(pq.Series)},
		{"GET /api/v1/labels", need(auth.ScopeRead, someKind), prom(pq.Labels)},
		{"POST /api/v1/labels", need(auth.ScopeRead, someKind), prom(pq.Labels)},
		{"GET /api/v1/label/{name}/values", need(auth.ScopeRead, someKind), prom(pq.LabelValues)},
		{"GET /api/v1/metadata", need(auth.ScopeRead, someKind), prom(pq.Metadata)},
		{"GET /api/v1/status/buildinfo", need(auth.ScopeRead, someKind), prom(pq.BuildInfo)},
		{"GET /api/v1/format_query", need(auth.ScopeRead, someKind), prom(pq.FormatQuery)},
		{"POST /api/v1/format_query", need(auth.ScopeRead, someKind), prom(pq.FormatQuery)},
		{"GET /api/v1/query_exemplars", need(auth.ScopeRead, someKind), prom(pq.QueryExemplars)},
		{"POST /api/v1/query_exemplars", need(auth.ScopeRead, someKind), prom(pq.QueryExemplars)},
		{"GET /api/v1/rules", need(auth.ScopeRead, someKind), prom(pq.Rules)},
		{"POST /api/v1/rules", need(auth.ScopeRead, someKind), prom(pq.Rules)},
		{"GET /api/v1/alerts", need(auth.ScopeRead, someKind), prom(pq.Alerts)},

		// Every other path: JSON 404 (and 405 where the path exists).
		{"/", public, s.notFound},
	}
}

// instrument wraps a route's handler with authentication, the rate limit,
// the metrics and the error answer.
func (s *Server) instrument(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h := &hold{b: s.cfg.Budget}
		defer h.release()
		r, cancel := s.withDeadline(rt, r)
		defer cancel()
		ctx, err := s.authorize(r, rt)
		if err == nil && r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			err = h.grow(ctx, bodyBase)
		}
		if err == nil {
			err = s.timedOut(r, rt.handle(sw, r.WithContext(context.WithValue(ctx, holdKey{}, h))))
		}
		if err != nil {
			s.fail(sw, r, err)
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		took := time.Since(start)
		s.metrics.observe(rt.pattern, sw.status, took)
		s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "route", rt.pattern, "status", sw.status, "took", took)
	})
}

// statusWriter records the status of an answer for the metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
