package server

import (
	"context"
	"net/http"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
)

// access is what a route needs of the caller's token.
type access uint8

const (
	public access = iota // no token
	read                 // auth.ScopeRead
	write                // auth.ScopeWrite
	admin                // auth.ScopeAdmin
	// siteRead: a token if there is one (authenticated, no scope checked),
	// else none; the handler checks the site (token, shared link, public).
	siteRead
)

// route is one pattern of the mux and what answers it. The OpenAPI
// document lists the same patterns (a test keeps them in step).
type route struct {
	pattern string // a net/http pattern: "GET /api/v1/kinds/{kind}"
	access  access
	handle  func(w http.ResponseWriter, r *http.Request) error
}

// routes lists every route of the server.
func (s *Server) routes() []route {
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

		{"GET /api/v1/kinds", read, s.listKinds},
		{"POST /api/v1/kinds", admin, s.createKind},
		{"GET /api/v1/kinds/{kind}", read, s.getKind},
		{"PUT /api/v1/kinds/{kind}", admin, s.changeKind},

		{"POST /api/v1/kinds/{kind}/readings", write, s.writeReadings},
		{"POST /api/v1/write", write, s.lineProtocol},
		{"POST /write", write, s.lineProtocol},
		{"POST /api/v2/write", write, s.lineProtocol},

		{"GET /api/v1/kinds/{kind}/series", read, s.listSeries},
		{"GET /api/v1/kinds/{kind}/latest", read, s.latestMany},
		{"GET /api/v1/kinds/{kind}/series/{id}/latest", read, s.latest},
		{"GET /api/v1/kinds/{kind}/series/{id}/readings", read, s.readings},
		{"GET /api/v1/kinds/{kind}/series/{id}/aggregate", read, s.aggregate},
		{"GET /api/v1/kinds/{kind}/metric/{field}", read, s.metricRange},
		{"DELETE /api/v1/kinds/{kind}/series/{id}", write, s.deleteSeries},
		{"DELETE /api/v1/kinds/{kind}/series/{id}/readings", write, s.deleteReadings},

		{"GET /api/v1/tokens", admin, s.listTokens},
		{"POST /api/v1/tokens", admin, s.createToken},
		{"DELETE /api/v1/tokens/{id}", admin, s.revokeToken},
		{"GET /api/v1/access-keys", admin, s.listAccessKeys},
		{"POST /api/v1/access-keys", admin, s.createAccessKey},
		{"DELETE /api/v1/access-keys/{id}", admin, s.revokeAccessKey},

		{"POST /api/event", public, s.collectEvent},
		{"OPTIONS /api/event", public, s.collectPreflight},
		{"POST /api/v1/sites/{site}/events", write, s.collectBatch},
		{"GET /api/v1/sites", read, s.listSites},
		{"POST /api/v1/sites", admin, s.createSite},
		{"GET /api/v1/sites/{site}", siteRead, s.getSite},
		{"PUT /api/v1/sites/{site}", admin, s.updateSite},
		{"DELETE /api/v1/sites/{site}", admin, s.deleteSite()},
		{"GET /api/v1/sites/{site}/shared-links", admin, s.listSharedLinks},
		{"POST /api/v1/sites/{site}/shared-links", admin, s.createSharedLink},
		{"DELETE /api/v1/sites/{site}/shared-links/{id}", admin, s.deleteOf((*analytics.Store).DeleteSharedLink)},
		{"GET /api/v1/sites/{site}/goals", siteRead, s.listGoals()},
		{"POST /api/v1/sites/{site}/goals", admin, s.putGoal()},
		{"DELETE /api/v1/sites/{site}/goals/{id}", admin, s.deleteOf((*analytics.Store).DeleteGoal)},
		{"GET /api/v1/sites/{site}/funnels", siteRead, s.listFunnels()},
		{"POST /api/v1/sites/{site}/funnels", admin, s.putFunnel()},
		{"DELETE /api/v1/sites/{site}/funnels/{id}", admin, s.deleteOf((*analytics.Store).DeleteFunnel)},
		{"GET /api/v1/sites/{site}/funnels/{id}/steps", siteRead, s.funnelSteps},
		{"GET /api/v1/sites/{site}/realtime", siteRead, s.realtime},
		{"POST /api/v2/query", siteRead, s.query},

		// Every other path: JSON 404 (and 405 where the path exists).
		{"/", public, s.notFound},
	}
}

func (s *Server) metricsAccess() access {
	if s.cfg.MetricsPublic {
		return public
	}
	return read
}

type principalKey struct{}

// principal returns the caller's token, nil when the server runs without
// authentication.
func principal(ctx context.Context) *auth.Principal {
	p, _ := ctx.Value(principalKey{}).(*auth.Principal)
	return p
}

// allow checks that the caller may act on kind with scope ("" for a
// request not about one kind).
func allow(ctx context.Context, need access, kind string) error {
	p := principal(ctx)
	if p == nil || need == public {
		return nil
	}
	if p.Allows(scopeOf(need), kind) {
		return nil
	}
	if kind != "" {
		return errorf(http.StatusForbidden, codeDenied, "token %s may not %s kind %s", p.ID(), scopeOf(need), kind)
	}
	return errorf(http.StatusForbidden, codeDenied, "token %s lacks the %s scope", p.ID(), scopeOf(need))
}

func scopeOf(a access) auth.Scope {
	switch a {
	case write:
		return auth.ScopeWrite
	case admin:
		return auth.ScopeAdmin
	}
	return auth.ScopeRead
}

// instrument wraps a route's handler with authentication, the rate limit,
// the metrics and the error answer.
func (s *Server) instrument(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		r, cancel := s.withDeadline(rt, r)
		defer cancel()
		ctx, err := s.authorize(r, rt)
		if err == nil {
			err = s.timedOut(r, rt.handle(sw, r.WithContext(ctx)))
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

// authorize authenticates the request's token for a route that needs one,
// checks its scope (kind-specific checks are the handler's) and its rate,
// and returns the request's context with the principal.
func (s *Server) authorize(r *http.Request, rt route) (context.Context, error) {
	ctx := r.Context()
	if s.cfg.Auth == nil || s.cfg.Trusted || rt.access == public {
		return ctx, nil
	}
	secret, ok := auth.TokenFromRequest(r)
	if !ok && rt.access == siteRead {
		return ctx, nil
	}
	if !ok {
		return ctx, errorf(http.StatusUnauthorized, codeUnauth, "a token is needed: Authorization: Bearer <token> (make one with `timetable token create`)")
	}
	p, err := s.cfg.Auth.Authenticate(ctx, secret)
	if err != nil {
		return ctx, err
	}
	if s.cfg.Limiter != nil {
		if ok, wait := s.cfg.Limiter.Allow(p.ID()); !ok {
			return ctx, &apiError{status: http.StatusTooManyRequests, code: codeRateLimited,
				message: "token " + p.ID() + " is over its rate limit", retryAfter: wait}
		}
	}
	ctx = context.WithValue(ctx, principalKey{}, p)
	if rt.access == siteRead {
		return ctx, nil
	}
	return ctx, allow(ctx, rt.access, r.PathValue("kind"))
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
