package analytics

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseIPRange(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1/32"},
		{" 127.0.0.1 ", "127.0.0.1/32"},
		{"127.0.0.0/8", "127.0.0.0/8"},
		{"127.1.2.3/16", "127.1.0.0/16"}, // host bits cleared
		{"::1", "::1/128"},
		{"2001:db8::/32", "2001:db8::/32"},
		{"2001:db8:1:2::5/64", "2001:db8:1:2::/64"},
		{"0.0.0.0/0", "0.0.0.0/0"},
	} {
		p, err := ParseIPRange(c.in)
		if err != nil || p.String() != c.want {
			t.Errorf("ParseIPRange(%q) = %v, %v; want %s", c.in, p, err, c.want)
		}
	}
	for _, bad := range []string{"", "127.0.0.256", "127.0.0.0/33", "::1/129", "fe80::1%eth0", "::ffff:127.0.0.1", "::ffff:127.0.0.0/104", "example.com", "127.0.0.1/", "127.0.0.1-127.0.0.9", "/8"} {
		if _, err := ParseIPRange(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseIPRange(%q): %v, want ErrInvalid", bad, err)
		}
	}
}

func FuzzParseIPRange(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "127.0.0.0/8", "::1", "2001:db8::/32", "::ffff:1.2.3.4", "fe80::1%z", "1.2.3.4/99", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseIPRange(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseIPRange(%q): %v, not ErrInvalid", s, err)
			}
			return
		}
		// Its stored form reads back as itself, contains its own first
		// address, and is masked.
		again, err := ParseIPRange(ipRangeString(p))
		if err != nil || again != p {
			t.Fatalf("ParseIPRange(%q) = %v, whose form %q reads as %v, %v", s, p, ipRangeString(p), again, err)
		}
		if !p.Contains(p.Addr()) || p != p.Masked() {
			t.Fatalf("ParseIPRange(%q) = %v: not masked or not containing its address", s, p)
		}
		st := Site{ExcludedIPs: []string{s}}
		if !st.ExcludesIP(p.Addr()) {
			t.Fatalf("a site excluding %q does not exclude %v", s, p.Addr())
		}
	})
}

func TestCheckPathPattern(t *testing.T) {
	for _, ok := range []string{"/", "/admin/**", "/blog/*", "/a*b*c", "/x/**/edit", "/über"} {
		if err := CheckPathPattern(ok); err != nil {
			t.Errorf("CheckPathPattern(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "admin", "*", "/a b", "/a\tb", "/a***", "/\xff", "/" + strings.Repeat("a", maxPath)} {
		if err := CheckPathPattern(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckPathPattern(%q): %v, want ErrInvalid", bad, err)
		}
	}
}

// FuzzExcludedPath: a valid pattern matches the path made of it by
// replacing each "**" with a run holding '/' and each '*' with a run
// without; ExcludesPath agrees with MatchPath; and "**" patterns match
// what the same pattern with '*' does.
func FuzzExcludedPath(f *testing.F) {
	for _, s := range [][2]string{{"/admin/**", "/admin/a/b"}, {"/blog/*", "/blog/x"}, {"/a*b**c", "/aXbY/Zc"}, {"/", "/"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if CheckPathPattern(pattern) != nil {
			return
		}
		filled := strings.ReplaceAll(strings.ReplaceAll(pattern, "**", "\x00"), "*", "seg")
		filled = strings.ReplaceAll(filled, "\x00", "x/y")
		st := Site{ExcludedPaths: []string{pattern}}
		if !st.ExcludesPath(filled) {
			t.Fatalf("%q does not exclude %q", pattern, filled)
		}
		if got, want := st.ExcludesPath(path), MatchPath(pattern, path); got != want {
			t.Fatalf("ExcludesPath(%q) = %v with the pattern %q, MatchPath %v", path, got, pattern, want)
		}
		if MatchPath(pattern, path) && !MatchPath(strings.ReplaceAll(strings.ReplaceAll(pattern, "**", "*"), "*", "**"), path) {
			t.Fatalf("%q matches %q but its '**' form does not", pattern, path)
		}
	})
}

func TestSite_Excludes(t *testing.T) {
	st := Site{ExcludedIPs: []string{"127.0.0.0/24", "127.9.9.9", "2001:db8::/32"}, ExcludedPaths: []string{"/admin/**", "/blog/*/edit", "/exact"}}
	for _, c := range []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"127.0.0.255", true}, {"127.0.1.0", false}, {"127.9.9.9", true}, {"127.9.9.8", false},
		{"::ffff:127.0.0.7", true}, {"2001:db8:ffff::1", true}, {"2001:db9::1", false}, {"::1", false},
	} {
		if got := st.ExcludesIP(netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("ExcludesIP(%s) = %v, want %v", c.ip, got, c.want)
		}
	}
	if st.ExcludesIP(netip.Addr{}) {
		t.Error("the zero address is excluded")
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/admin/users", true}, {"/admin/a/b", true}, {"/admin", false}, {"/administrator", false},
		{"/blog/post/edit", true}, {"/blog/a/b/edit", false}, {"/exact", true}, {"/exact/", false}, {"/", false},
	} {
		if got := st.ExcludesPath(c.path); got != c.want {
			t.Errorf("ExcludesPath(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestStore_SiteExclusions(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s := openStore(t, b, newClock(time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)), nil)
		in := Site{ID: "a", ExcludedIPs: []string{"127.0.0.5/24", " ::1 ", "127.0.0.1"}, ExcludedPaths: []string{"/b/*", " /a/** "}}
		if err := s.CreateSite(ctx, in); err != nil {
			t.Fatal(err)
		}
		if in.ExcludedIPs[0] != "127.0.0.5/24" {
			t.Errorf("CreateSite changed its argument's slice: %v", in.ExcludedIPs)
		}
		st, err := s.Site(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"127.0.0.0/24", "127.0.0.1", "::1"}; !slices.Equal(st.ExcludedIPs, want) {
			t.Errorf("ExcludedIPs = %q, want %q", st.ExcludedIPs, want)
		}
		if want := []string{"/a/**", "/b/*"}; !slices.Equal(st.ExcludedPaths, want) {
			t.Errorf("ExcludedPaths = %q, want %q", st.ExcludedPaths, want)
		}
		if !st.ExcludesIP(netip.MustParseAddr("127.0.0.200")) || !st.ExcludesPath("/a/x/y") {
			t.Errorf("the site read back does not exclude what it lists: %+v", st)
		}

		many := make([]string, MaxExcludedIPs+1)
		for i := range many {
			many[i] = fmt.Sprintf("127.0.%d.%d", i/256, i%256)
		}
		for _, c := range []struct {
			site  Site
			field string
		}{
			{Site{ID: "a", ExcludedIPs: []string{"127.0.0.0/33"}}, "ExcludedIPs"},
			{Site{ID: "a", ExcludedIPs: many}, "ExcludedIPs"},
			{Site{ID: "a", ExcludedPaths: []string{"admin"}}, "ExcludedPaths"},
			{Site{ID: "a", ExcludedPaths: slices.Repeat([]string{"/x"}, MaxExcludedPaths+1)}, "ExcludedPaths"},
		} {
			err := s.UpdateSite(ctx, c.site)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !errors.Is(err, ErrInvalid) {
				t.Errorf("UpdateSite(%.80v): %v, want an ErrInvalid of field %s", c.site, err, c.field)
			}
		}
		if err := s.UpdateSite(ctx, Site{ID: "a", ExcludedIPs: many[:MaxExcludedIPs]}); err != nil {
			t.Errorf("UpdateSite with %d ranges: %v", MaxExcludedIPs, err)
		}
		if err := s.UpdateSite(ctx, Site{ID: "a"}); err != nil {
			t.Fatal(err)
		}
		if st, err = s.Site(ctx, "a"); err != nil || st.ExcludedIPs != nil || st.ExcludedPaths != nil || st.ExcludesIP(netip.MustParseAddr("127.0.0.1")) {
			t.Errorf("after an update without exclusions: %+v, %v", st, err)
		}
	})
}

// BenchmarkSite_Excludes: the exclusion checks of one hit, on a site
// with none and on one at the caps (100 ranges, 100 patterns, none of
// which fits), side by side.
func BenchmarkSite_Excludes(b *testing.B) {
	full := Site{ID: "a"}
	for i := range MaxExcludedIPs {
		full.ExcludedIPs = append(full.ExcludedIPs, fmt.Sprintf("2001:db8:%x::/48", i))
	}
	for i := range MaxExcludedPaths {
		full.ExcludedPaths = append(full.ExcludedPaths, fmt.Sprintf([]string{"/section-%d/**", "/s/*/edit-%d"}[i%2], i))
	}
	full.ExcludedPaths[0] = "/blog/**/draft" // one whose literal start fits the path
	if err := full.check(); err != nil {
		b.Fatal(err)
	}
	ip, path := netip.MustParseAddr("127.0.0.1"), "/blog/2024/03/a-rather-long-post-title-about-time-series"
	for _, c := range []struct {
		name string
		site Site
	}{{"none", Site{ID: "a"}}, {"caps", full}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c.site.ExcludesIP(ip) || c.site.ExcludesPath(path) {
					b.Fatal("excluded")
				}
			}
		})
	}
}
