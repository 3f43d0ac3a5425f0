package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/timetable-db/timetable/wire"
)

// A server on a developer's machine is reachable by every web page the
// developer opens: a page may send it requests (a form's POST needs no
// CORS approval), and a page whose name the attacker re-points at
// 127.0.0.1 (DNS rebinding) may even read its answers, since the browser
// then takes the server for the page's own origin. Before a request is
// routed, on every face (the DynamoDB endpoint too, and the requests of the
// listener's fast path, which call ServeHTTP as well), the server checks:
//
//   - its Host header, when listening on a loopback address or when
//     Config.AllowedHosts is set (hostPolicy): a rebinding page's requests
//     name the attacker's host;
//   - its origin, when it is a browser's request with a method other than
//     GET, HEAD or OPTIONS (crossOrigin): one from another origin is refused
//     unless Config.CORSOrigins lists it, except POST /api/event, which
//     sites' pages post to from their own origins;
//   - for the routes, a token in the URL (queryToken.go).
//
// Answers to browsers carry Access-Control-Allow-Origin only for the
// origins of Config.CORSOrigins (cors here; wire.Options.CORSOrigins for the
// DynamoDB handler), except the tracker script and POST /api/event, which
// any origin may use.

// hostPolicy decides which Host headers the server answers. The port is
// not compared: a rebinding page's requests differ from a local client's
// by the name, and the port of an address that is its own IP or loopback
// name is the server's business, not the browser's.
type hostPolicy struct {
	check bool                // false: any Host
	names map[string]struct{} // names allowed besides IP literals and localhost, lower case
	addr  string              // the address listened on, for the refusal's message
}

// newHostPolicy returns the Host policy of a server listening on addr
// (host:port; empty when unknown) with the names allowed: the Host is
// checked when addr is a loopback address (or the name localhost), or when
// names are given, unless they include "*". A checked Host passes when it
// is empty (not a browser's request), an IP literal (a name an attacker
// re-points is never one), localhost or a name under .localhost (which
// browsers resolve to loopback themselves), addr's host, or one of names.
func newHostPolicy(addr string, names []string) (*hostPolicy, error) {
	p := &hostPolicy{addr: addr, names: make(map[string]struct{})}
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = normalHost(host)
	p.check = len(names) > 0 || isLoopbackHost(host)
	if host != "" {
		p.names[host] = struct{}{}
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "*" {
			p.check = false
			continue
		}
		if h, _, err := net.SplitHostPort(n); err == nil {
			n = h
		}
		n = normalHost(n)
		if n == "" || strings.ContainsAny(n, "/ ") {
			return nil, fmt.Errorf("allowed host %q is not a host name", n)
		}
		p.names[n] = struct{}{}
	}
	return p, nil
}

// allows reports whether a request whose Host header is hostport may be
// answered.
func (p *hostPolicy) allows(hostport string) bool {
	if !p.check || hostport == "" {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = normalHost(host)
	if _, err := netip.ParseAddr(host); err == nil || isLoopbackName(host) {
		return true
	}
	_, ok := p.names[host]
	return ok
}

// refusal is the reason given for a Host that is not allowed.
func (p *hostPolicy) refusal(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	where := "this server answers"
	if p.addr != "" {
		where = "this server, listening on " + p.addr + ", answers"
	}
	return fmt.Sprintf("host %q is not served here: %s requests for its IP addresses, localhost and the allowed hosts only, so that a web page cannot reach it under another name (DNS rebinding); to serve this name, allow it: --allowed-hosts %s", host, where, host)
}

// normalHost returns host in lower case, without the brackets of an IPv6
// literal or a trailing dot.
func normalHost(host string) string {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// isLoopbackName reports whether host is localhost or a name under it,
// which browsers resolve to the loopback address without asking DNS.
func isLoopbackName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// isLoopbackHost reports whether host, normalised, is a loopback IP
// address or name.
func isLoopbackHost(host string) bool {
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().IsLoopback()
	}
	return isLoopbackName(host)
}

// newCrossOrigin returns the check of browsers' unsafe requests (not GET,
// HEAD or OPTIONS): refused from another origin (by Sec-Fetch-Site, or the
// Origin header against Host) unless it is in origins, except POST
// /api/event; nil when origins has "*", which allows any.
func newCrossOrigin(origins []string) (*http.CrossOriginProtection, error) {
	if slices.Contains(origins, "*") {
		return nil, nil
	}
	c := http.NewCrossOriginProtection()
	for _, o := range origins {
		// Browsers send origins in lower case; wire.OriginAllowed, for
		// CORS, compares without case.
		if err := c.AddTrustedOrigin(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))); err != nil {
			return nil, fmt.Errorf("CORS origin %q: %w", o, err)
		}
	}
	c.AddInsecureBypassPattern("POST /api/event")
	return c, nil
}

// isDynamoDB reports whether r is for the DynamoDB endpoint, whose
// refusals are DynamoDB's error JSON.
func (s *Server) isDynamoDB(r *http.Request) bool {
	return s.cfg.DynamoDB != nil && (r.Header.Get("X-Amz-Target") != "" || wire.IsPreflight(r))
}

// screen makes the checks above and answers a request that fails one; it
// reports whether it answered.
func (s *Server) screen(w http.ResponseWriter, r *http.Request) bool {
	var msg string
	switch {
	case !s.hosts.allows(r.Host):
		msg = s.hosts.refusal(r.Host)
	case s.crossOrigin != nil && s.crossOrigin.Check(r) != nil:
		msg = fmt.Sprintf("a browser's %s from another origin (%s) is refused: only the origins allowed by --cors-origins may change anything here", r.Method, originOf(r))
	default:
		if err := s.queryToken(r); err != nil {
			if s.isDynamoDB(r) {
				return false // the DynamoDB endpoint reads no token
			}
			s.log.Debug("refused", "method", r.Method, "path", r.URL.Path, "err", err)
			s.fail(w, r, err)
			return true
		}
		return false
	}
	s.log.Debug("refused", "method", r.Method, "path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "reason", msg)
	if s.isDynamoDB(r) {
		wire.WriteError(w, &wire.Error{Code: "AccessDeniedException", Message: msg, Status: http.StatusForbidden})
		return true
	}
	writeError(w, errorf(http.StatusForbidden, codeDenied, "%s", msg))
	return true
}

// originOf names the origin of a browser's request, for a message.
func originOf(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return o
	}
	return "Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site")
}

// cors sets the CORS headers of an answer to a browser's request from an
// origin of Config.CORSOrigins, and answers its preflight; it reports
// whether the request was answered. The DynamoDB handler, the tracker
// script and POST /api/event answer their own.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if !wire.OriginAllowed(s.cfg.CORSOrigins, origin) {
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
