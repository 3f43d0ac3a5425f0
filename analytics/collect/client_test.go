package collect

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("127.10.0.0/16")}
	for _, c := range []struct {
		peer    string
		xff     []string
		realIP  string
		trusted []netip.Prefix
		want    string
	}{
		{peer: "127.0.0.9:5000", want: "127.0.0.9"},
		// An untrusted peer's headers are ignored.
		{peer: "127.0.0.9:5000", xff: []string{"127.5.5.5"}, realIP: "127.6.6.6", trusted: trusted, want: "127.0.0.9"},
		{peer: "127.0.0.1:5000", xff: []string{"127.5.5.5"}, want: "127.0.0.1"}, // no trusted proxies
		// A trusted peer: the first untrusted hop from the right.
		{peer: "127.0.0.1:5000", xff: []string{"127.5.5.5"}, trusted: trusted, want: "127.5.5.5"},
		{peer: "127.0.0.1:5000", xff: []string{"127.66.0.1, 127.5.5.5, 127.10.0.3"}, trusted: trusted, want: "127.5.5.5"},
		{peer: "127.0.0.1:5000", xff: []string{"127.66.0.1", "127.5.5.5, 127.10.0.3"}, trusted: trusted, want: "127.5.5.5"},
		// Every hop trusted: the leftmost.
		{peer: "127.0.0.1:5000", xff: []string{"127.10.0.7, 127.10.0.3"}, trusted: trusted, want: "127.10.0.7"},
		// A broken hop: nothing left of it is believed.
		{peer: "127.0.0.1:5000", xff: []string{"127.66.0.1, junk, 127.10.0.3"}, trusted: trusted, want: "127.10.0.3"},
		{peer: "127.0.0.1:5000", xff: []string{"junk"}, trusted: trusted, want: "127.0.0.1"},
		// Ports and IPv6.
		{peer: "127.0.0.1:5000", xff: []string{"127.5.5.5:41000"}, trusted: trusted, want: "127.5.5.5"},
		{peer: "[::1]:5000", xff: []string{"127.5.5.5"}, trusted: []netip.Prefix{netip.MustParsePrefix("::1/128")}, want: "127.5.5.5"},
		{peer: "[::ffff:127.0.0.1]:5000", xff: []string{"127.5.5.5"}, trusted: trusted, want: "127.5.5.5"},
		// X-Real-IP when there is no X-Forwarded-For.
		{peer: "127.0.0.1:5000", realIP: "127.6.6.6", trusted: trusted, want: "127.6.6.6"},
		{peer: "127.0.0.1:5000", realIP: "nonsense", trusted: trusted, want: "127.0.0.1"},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/api/event", nil)
		r.RemoteAddr = c.peer
		for _, h := range c.xff {
			r.Header.Add("X-Forwarded-For", h)
		}
		if c.realIP != "" {
			r.Header.Set("X-Real-IP", c.realIP)
		}
		got, ok := clientIP(r, c.trusted)
		if !ok || got.String() != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q, X-Real-IP %q: %v %v, want %s", c.peer, c.xff, c.realIP, got, ok, c.want)
		}
	}
}

func FuzzClientIP(f *testing.F) {
	f.Add("127.0.0.1:80", "127.5.5.5, 127.10.0.3", "127.6.6.6")
	f.Add("[::1]:80", "junk,,", "")
	f.Add("", "", "")
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	f.Fuzz(func(t *testing.T, peer, xff, realIP string) {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		r.Header.Set("X-Real-IP", realIP)
		ip, ok := clientIP(r, trusted)
		if ok && !ip.IsValid() {
			t.Fatalf("ok with an invalid address for %q %q %q", peer, xff, realIP)
		}
		if _, peerOK := parseAddr(peer); !peerOK && ok {
			t.Fatalf("an unreadable peer %q gave %v", peer, ip)
		}
	})
}

func TestParsePrefixes(t *testing.T) {
	ps, err := ParsePrefixes(" 127.0.0.1, 127.1.2.3/16 ,::1,, ::ffff:127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"127.0.0.1/32", "127.1.0.0/16", "::1/128", "127.0.0.2/32"}
	if len(ps) != len(want) {
		t.Fatalf("%v, want %v", ps, want)
	}
	for i := range ps {
		if ps[i].String() != want[i] {
			t.Errorf("%d: %v, want %s", i, ps[i], want[i])
		}
	}
	for _, bad := range []string{"127.0.0.1/33", "localhost", "127.0.0.0/8/8"} {
		if _, err := ParsePrefixes(bad); err == nil {
			t.Errorf("ParsePrefixes(%q) accepted", bad)
		}
	}
}
