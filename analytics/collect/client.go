package collect

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientIP returns the address of the client of r: the connection's peer,
// or, when the peer is in trusted, the first address of X-Forwarded-For
// read from the right that is not in trusted (the leftmost if all are),
// else X-Real-IP. ok is false when no address can be read.
func clientIP(r *http.Request, trusted []netip.Prefix) (ip netip.Addr, ok bool) {
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok || !contains(trusted, peer) {
		return peer, ok
	}
	if hops := r.Header.Values("X-Forwarded-For"); len(hops) > 0 {
		var last netip.Addr
		for i := len(hops) - 1; i >= 0; i-- {
			parts := strings.Split(hops[i], ",")
			for j := len(parts) - 1; j >= 0; j-- {
				a, ok := parseAddr(parts[j])
				if !ok {
					// A forged or broken entry: trust nothing left of it.
					return orPeer(last, peer), true
				}
				if !contains(trusted, a) {
					return a, true
				}
				last = a
			}
		}
		return orPeer(last, peer), true
	}
	if a, ok := parseAddr(r.Header.Get("X-Real-IP")); ok {
		return a, true
	}
	return peer, true
}

func orPeer(a, peer netip.Addr) netip.Addr {
	if a.IsValid() {
		return a
	}
	return peer
}

// parseAddr reads an address with or without a port ("[::1]:80",
// "127.0.0.1:80", "::1", "127.0.0.1"), 4-in-6 addresses unmapped.
func parseAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

// contains reports whether a is in one of ps.
func contains(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParsePrefixes reads a comma-separated list of addresses and CIDR
// prefixes ("127.0.0.1, 127.1.0.0/16"); an address is a prefix of its full
// length. It is what the --trusted-proxies and --bot-ip-ranges flags take.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var ps []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, err
			}
			ps = append(ps, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, err
		}
		a = a.Unmap()
		ps = append(ps, netip.PrefixFrom(a, a.BitLen()))
	}
	return ps, nil
}
