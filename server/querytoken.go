package server

import (
	"net/http"

	"github.com/timetable-db/timetable/auth"
)

// influxV1Write is the one route that takes a token in its URL: InfluxDB
// 1.x clients (Telegraf, the client libraries) may send it as the query
// parameter p (?u=USER&p=TOKEN). InfluxDB 1.x's /query is not served.
const influxV1Write = "POST /write"

// token returns the token a request for route rt carries: the one of its
// Authorization header, or on influxV1Write, without that header, the
// query parameter p.
func token(r *http.Request, rt route) (string, bool) {
	if rt.pattern == influxV1Write && r.Header.Get("Authorization") == "" {
		return auth.TokenFromQuery(r)
	}
	return auth.TokenFromRequest(r)
}

// queryToken refuses, while tokens are checked, a request that carries a
// token in its URL (the query parameter p) for any route but
// influxV1Write: URLs land in access logs, proxies' logs and browser
// history. It returns nil for a request it lets pass.
func (s *Server) queryToken(r *http.Request) error {
	if s.cfg.Auth == nil || s.cfg.Trusted || r.URL.RawQuery == "" {
		return nil
	}
	if _, ok := auth.TokenFromQuery(r); !ok {
		return nil
	}
	if _, pattern := s.mux.Handler(r); pattern == influxV1Write {
		return nil
	}
	return errorf(http.StatusUnauthorized, codeUnauth, "a token in the URL (the query parameter p) is accepted only by POST /write, for InfluxDB 1.x clients: send it in the Authorization header (Authorization: Bearer <token>), which access logs do not record")
}
