package server

import (
	"context"
	"math"
	"net/http"

	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/promapi"
)

// promAPI returns Prometheus' query API over the server's store
// (promapi): a query runs under Config.RequestTimeout, and a caller sees
// the metrics of the kinds it may read only.
func (s *Server) promAPI() *promapi.API {
	timeout := s.cfg.RequestTimeout
	if timeout < 0 {
		timeout = math.MaxInt64 // --request-timeout negative: no limit
	}
	return promapi.New(promapi.Config{
		Store: s.store,
		Allow: func(ctx context.Context, kind string) bool {
			return s.allow(ctx, nil, auth.ScopeRead, auth.Kind(kind)) == nil
		},
		Timeout: timeout,
		Now:     s.cfg.Now,
		Logger:  s.log,
	})
}

// prom adapts a handler of promapi, which answers its errors itself, to
// a route.
func prom(h http.HandlerFunc) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		h(w, r)
		return nil
	}
}

// writeErrorFor answers ae in the format of the route of r: Prometheus'
// ({"status": "error", "errorType", "error"}, the type being the code)
// on its query API, else the server's.
func writeErrorFor(w http.ResponseWriter, r *http.Request, ae *apiError) {
	if !promapi.Owns(r.URL.Path) {
		writeError(w, ae)
		return
	}
	ae.setRetryAfter(w)
	promapi.WriteError(w, ae.status, ae.code, ae.message)
}
