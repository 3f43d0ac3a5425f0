package auth

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// TokenFromRequest returns the token of a request's Authorization header,
// and whether it carries one:
//
//   - "Bearer <token>" (the series API) or "Token <token>" (InfluxDB v2
//     clients), the scheme in any case;
//   - "Basic <base64 of user:token>" (InfluxDB v1 clients such as Telegraf
//     send user and password so; the user is ignored).
//
// An Authorization header of another scheme, or a malformed one, carries no
// token. The URL is not looked at: a token in a URL lands in access logs,
// proxies' logs and browser history; see TokenFromQuery for the one
// protocol that sends it there. The token is not checked here: see
// Store.Authenticate.
func TokenFromRequest(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		return parseAuthorization(h)
	}
	return "", false
}

// TokenFromQuery returns the token of a request's query parameter p, and
// whether it carries one, as InfluxDB 1.x clients send it (?u=USER&p=TOKEN;
// u is ignored). A server should accept it only on its InfluxDB 1.x routes,
// and prefer the Authorization header (TokenFromRequest) when there is one.
func TokenFromQuery(r *http.Request) (string, bool) {
	if r.URL == nil || r.URL.RawQuery == "" {
		return "", false
	}
	if p := r.URL.Query().Get("p"); p != "" {
		return p, true
	}
	return "", false
}

// parseAuthorization returns the token of an Authorization header value.
func parseAuthorization(h string) (string, bool) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.ContainsAny(rest, " \t") {
		return "", false
	}
	switch {
	case strings.EqualFold(scheme, "Bearer"), strings.EqualFold(scheme, "Token"):
		return rest, true
	case strings.EqualFold(scheme, "Basic"):
		b, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return "", false
		}
		_, pass, ok := strings.Cut(string(b), ":")
		if !ok || pass == "" {
			return "", false
		}
		return pass, true
	}
	return "", false
}
