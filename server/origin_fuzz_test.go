package server

import (
	"net"
	"net/netip"
	"strings"
	"testing"
)

// FuzzHostPolicy: any Host header is judged without panic by the policy of
// a loopback server that allows tt.example, and a Host it lets pass names
// an IP address, a loopback name or tt.example, with any port.
func FuzzHostPolicy(f *testing.F) {
	for _, s := range []string{"", "127.0.0.1:8000", "[::1]:8000", "[::1", "localhost.", "LOCALHOST:1", "a.localhost",
		"evil.example:8000", "tt.example", "TT.EXAMPLE.:9", "localhost.evil.example", "[fe80::1%25eth0]:80", ":80", "::1", "%00", "tt.example:"} {
		f.Add(s)
	}
	p, err := newHostPolicy("127.0.0.1:0", []string{"tt.example"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		if !p.allows(hostport) {
			if msg := p.refusal(hostport); !strings.Contains(msg, "--allowed-hosts") {
				t.Fatalf("refusal of %q: %q", hostport, msg)
			}
			return
		}
		host := hostport
		if h, _, err := net.SplitHostPort(hostport); err == nil {
			host = h
		}
		host = normalHost(host)
		_, ipErr := netip.ParseAddr(host)
		if hostport != "" && ipErr != nil && !isLoopbackName(host) && host != "tt.example" && host != "127.0.0.1" {
			t.Fatalf("Host %q (%q) passed", hostport, host)
		}
	})
}
