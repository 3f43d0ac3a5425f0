package collect

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/timetable-db/timetable/internal/geoiptest"
)

func TestGeoIP(t *testing.T) {
	g, err := OpenGeoIP(geoiptest.Write(t, map[string]geoiptest.Record{
		"127.0.0.0/24": {Country: "DE", Registered: "DE"},
		"127.0.1.0/24": {Registered: "FR"},
		"127.0.2.0/24": {},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for ip, want := range map[string]string{
		"127.0.0.7": "DE", "127.0.1.200": "FR", "127.0.2.1": "", "127.0.3.1": "", "::1": "",
	} {
		if got := g.Country(netip.MustParseAddr(ip)); got != want {
			t.Errorf("Country(%s) = %q, want %q", ip, got, want)
		}
	}
	if _, err := OpenGeoIP(filepath.Join(t.TempDir(), "missing.mmdb")); err == nil {
		t.Error("OpenGeoIP of a missing file succeeded")
	}
	bad := filepath.Join(t.TempDir(), "bad.mmdb")
	os.WriteFile(bad, []byte("not a database"), 0o644)
	if _, err := OpenGeoIP(bad); err == nil {
		t.Error("OpenGeoIP of a file that is no database succeeded")
	}
}

func TestCountryCode(t *testing.T) {
	for in, want := range map[string]string{"DE": "DE", "de": "DE", "XX": "", "T1": "", "D": "", "DEU": "", "1A": "", "@[": "", "": ""} {
		if got := countryCode(in); got != want {
			t.Errorf("countryCode(%q) = %q, want %q", in, got, want)
		}
	}
}
