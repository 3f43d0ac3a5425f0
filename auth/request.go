package auth

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// TokenFromRequest returns the token a request carries, and whether it
// carries one, from the first of:
//
//   - the Authorization header "Bearer <token>" (the series API) or
//     "Token <token>" (InfluxDB v2 clients), the scheme in any case;
//   - the Authorization header "Basic <base64 of user:token>" (InfluxDB v1
//     clients such as Telegraf send user and password so; the user is
//     ignored);
//   - the query parameter p (InfluxDB v1's u and p; u is ignored).
//
// An Authorization header of another scheme, or a malformed one, carries no
// token (the query is not looked at then). The token is not checked here:
// see Store.Authenticate.
func TokenFromRequest(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		return parseAuthorization(h)
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
