package analytics

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"
)

// Caps of a site's exclusions.
const (
	// MaxExcludedIPs is the most address ranges a site may exclude.
	MaxExcludedIPs = 100
	// MaxExcludedPaths is the most path patterns a site may exclude.
	MaxExcludedPaths = 100
)

// ParseIPRange reads an excluded address range: an IPv4 or IPv6 address
// ("127.0.0.1", "::1"), a range of its full length, or a CIDR prefix
// ("127.0.0.0/8", "2001:db8::/32") whose host bits are cleared. Zones and
// IPv4-mapped IPv6 addresses are refused (write those as IPv4).
func ParseIPRange(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	var p netip.Prefix
	if strings.Contains(s, "/") {
		var err error
		if p, err = netip.ParsePrefix(s); err != nil {
			return netip.Prefix{}, fmt.Errorf("%w IP range %q: want an address or a CIDR prefix (127.0.0.0/8, 2001:db8::/32)", ErrInvalid, s)
		}
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("%w IP range %q: want an address or a CIDR prefix (127.0.0.0/8, 2001:db8::/32)", ErrInvalid, s)
		}
		if a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%w IP range %q: an address with a zone", ErrInvalid, s)
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("%w IP range %q: an IPv4-mapped IPv6 address; write it as IPv4", ErrInvalid, s)
	}
	return p.Masked(), nil
}

// ipRangeString is the form a range is stored and shown in: an address
// alone for a range of its full length, else the CIDR prefix.
func ipRangeString(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

// CheckPathPattern reports whether pattern is a valid excluded path
// pattern (the syntax of MatchPath): it starts with '/', holds at most
// 512 bytes of valid UTF-8 without spaces or control characters, and no
// run of more than two '*'.
func CheckPathPattern(pattern string) error {
	switch {
	case !strings.HasPrefix(pattern, "/"):
		return fmt.Errorf("%w path pattern %q: want a path starting with '/' (/admin/**, /blog/*)", ErrInvalid, pattern)
	case len(pattern) > maxPath:
		return fmt.Errorf("%w path pattern %.40q…: longer than %d bytes", ErrInvalid, pattern, maxPath)
	case !utf8.ValidString(pattern) || strings.ContainsFunc(pattern, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("%w path pattern %q: spaces, control characters or bad UTF-8", ErrInvalid, pattern)
	case strings.Contains(pattern, "***"):
		return fmt.Errorf("%w path pattern %q: '*' matches within a segment and '**' across them; three or more in a row mean nothing more", ErrInvalid, pattern)
	}
	return nil
}

// checkExclusions validates and normalises st's excluded ranges and
// patterns (ranges in ipRangeString form), and compiles the ranges.
func (st *Site) checkExclusions() error {
	if len(st.ExcludedIPs) > MaxExcludedIPs {
		return invalidField("ExcludedIPs", "%w excluded IP ranges: %d, at most %d", ErrInvalid, len(st.ExcludedIPs), MaxExcludedIPs)
	}
	nets := make([]netip.Prefix, len(st.ExcludedIPs))
	for i, s := range st.ExcludedIPs {
		p, err := ParseIPRange(s)
		if err != nil {
			return invalidField("ExcludedIPs", "%w", err)
		}
		nets[i], st.ExcludedIPs[i] = p, ipRangeString(p)
	}
	if len(st.ExcludedPaths) > MaxExcludedPaths {
		return invalidField("ExcludedPaths", "%w excluded path patterns: %d, at most %d", ErrInvalid, len(st.ExcludedPaths), MaxExcludedPaths)
	}
	for i, s := range st.ExcludedPaths {
		s = strings.TrimSpace(s)
		if err := CheckPathPattern(s); err != nil {
			return invalidField("ExcludedPaths", "%w", err)
		}
		st.ExcludedPaths[i] = s
	}
	st.excludedNets = nets
	return nil
}

// compileExclusions sets the ranges of a site read from the table, whose
// ranges were checked when it was written (one that no longer parses is
// skipped).
func (st *Site) compileExclusions() {
	st.excludedNets = make([]netip.Prefix, 0, len(st.ExcludedIPs))
	for _, s := range st.ExcludedIPs {
		if p, err := ParseIPRange(s); err == nil {
			st.excludedNets = append(st.excludedNets, p)
		}
	}
}

// ExcludesIP reports whether the client address ip is in one of the
// site's excluded ranges (IPv4-mapped addresses are taken as IPv4). A
// Site read from the Store has its ranges compiled; on one made by hand
// they are parsed at each call.
func (st *Site) ExcludesIP(ip netip.Addr) bool {
	if len(st.ExcludedIPs) == 0 || !ip.IsValid() {
		return false
	}
	nets := st.excludedNets
	if nets == nil {
		c := Site{ExcludedIPs: st.ExcludedIPs}
		c.compileExclusions()
		nets = c.excludedNets
	}
	ip = ip.Unmap().WithZone("")
	for _, p := range nets {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ExcludesPath reports whether path fits one of the site's excluded path
// patterns (MatchPath). A pattern whose literal start path lacks is passed
// over without matching, so that most patterns cost a prefix comparison.
func (st *Site) ExcludesPath(path string) bool {
	for _, p := range st.ExcludedPaths {
		lit, _, wild := strings.Cut(p, "*")
		if !wild {
			if p == path {
				return true
			}
			continue
		}
		if strings.HasPrefix(path, lit) && MatchPath(p, path) {
			return true
		}
	}
	return false
}
