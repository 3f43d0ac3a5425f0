package server

import (
	"context"
	"net/http"
	"strings"
)

// reads reports whether a route reads, and so runs under
// Config.RequestTimeout: the GET routes and the Stats API's query. Writes
// are bounded by their size (Config.MaxBodyBytes) and are not cut short
// halfway.
func (rt route) reads() bool {
	return strings.HasPrefix(rt.pattern, "GET ") || rt.pattern == "POST /api/v2/query"
}

// withDeadline returns r under Config.RequestTimeout if rt reads, and the
// function that releases the deadline.
func (s *Server) withDeadline(rt route, r *http.Request) (*http.Request, context.CancelFunc) {
	if !rt.reads() || s.cfg.RequestTimeout < 0 {
		return r, func() {}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	return r.WithContext(ctx), cancel
}

// timedOut returns the answer of a request whose deadline (withDeadline)
// passed while its handler ran, and err otherwise: whatever the layers
// below made of their context's end, the client learns the limit.
func (s *Server) timedOut(r *http.Request, err error) error {
	if err == nil || r.Context().Err() != context.DeadlineExceeded {
		return err
	}
	return errorf(http.StatusGatewayTimeout, codeTimeout,
		"the request took longer than %v, the limit of one read (RequestTimeout; serve --request-timeout): narrow its range or widen its step", s.cfg.RequestTimeout)
}
