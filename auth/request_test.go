package auth

import (
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTokenFromRequest(t *testing.T) {
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	f := func(target, authorization, want string, wantOK bool) {
		t.Helper()
		r := httptest.NewRequest("POST", target, nil)
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		got, ok := TokenFromRequest(r)
		if got != want || ok != wantOK {
			t.Errorf("TokenFromRequest(%s, Authorization %q) = %q, %v; want %q, %v", target, authorization, got, ok, want, wantOK)
		}
	}
	f("/api/v1/kinds", "Bearer tt_a_b", "tt_a_b", true)
	f("/api/v1/kinds", "bearer   tt_a_b  ", "tt_a_b", true)
	f("/api/v2/write", "Token tt_a_b", "tt_a_b", true)
	f("/api/v2/write", "TOKEN tt_a_b", "tt_a_b", true)
	f("/write", basic("telegraf:tt_a_b"), "tt_a_b", true)
	f("/write", basic(":tt_a:b"), "tt_a:b", true) // the password may hold a colon
	f("/write?p=tt_q", "Bearer tt_h", "tt_h", true)
	// No token: the query is not looked at (TokenFromQuery).
	f("/write?u=me&p=tt_a_b", "", "", false)
	f("/api/v1/kinds?p=tt_a_b", "", "", false)
	f("/api/v1/kinds", "", "", false)
	f("/", "Bearer", "", false)
	f("/", "Bearer ", "", false)
	f("/", "Bearer a b", "", false)
	f("/", "Digest tt_a_b", "", false)
	f("/", "AWS4-HMAC-SHA256 Credential=x", "", false)
	f("/", "Basic !!!", "", false)
	f("/", basic("no colon"), "", false)
	f("/", basic("user:"), "", false)
	f("/?p=tt_q", "Negotiate x", "", false) // a header of another scheme: the query is not looked at
}

func TestTokenFromQuery(t *testing.T) {
	f := func(target, want string, wantOK bool) {
		t.Helper()
		got, ok := TokenFromQuery(httptest.NewRequest("POST", target, nil))
		if got != want || ok != wantOK {
			t.Errorf("TokenFromQuery(%s) = %q, %v; want %q, %v", target, got, ok, want, wantOK)
		}
	}
	f("/write?u=me&p=tt_a_b", "tt_a_b", true)
	f("/write?p=tt_a%2Bb", "tt_a+b", true)
	f("/write", "", false)
	f("/write?u=me", "", false)
	f("/write?p=", "", false)
}

// FuzzParseAuthorization: any header value is parsed without panic, and a
// token, when found, is non-empty and holds no space.
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{
		"Bearer tt_abc_def", "Token x", "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p")),
		"Basic", "Basic =", "bearer  x ", "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00",
		"", " ", "\x00", "Bearer \xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, ok := parseAuthorization(h)
		if ok && (tok == "" || strings.ContainsAny(tok, " \t") && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(h)), "basic")) {
			t.Fatalf("parseAuthorization(%q) = %q, true", h, tok)
		}
		if !ok && tok != "" {
			t.Fatalf("parseAuthorization(%q) = %q, false", h, tok)
		}
	})
}
