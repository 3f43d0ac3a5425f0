package collect

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// writeCountryDB writes a GeoLite2-Country-shaped database into a
// temporary folder and returns its path: 127.0.0.0/24 in Germany,
// 127.0.1.0/24 with only a registered country (France), 127.0.2.0/24 with
// a record without a country.
func writeCountryDB(t testing.TB) string {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-Country", RecordSize: 24, IncludeReservedNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	iso := func(code string) mmdbtype.Map { return mmdbtype.Map{"iso_code": mmdbtype.String(code)} }
	for cidr, rec := range map[string]mmdbtype.Map{
		"127.0.0.0/24": {"country": iso("DE"), "registered_country": iso("DE")},
		"127.0.1.0/24": {"registered_country": iso("FR")},
		"127.0.2.0/24": {"continent": mmdbtype.Map{"code": mmdbtype.String("EU")}},
	} {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		if err := tree.Insert(n, rec); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "country.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGeoIP(t *testing.T) {
	g, err := OpenGeoIP(writeCountryDB(t))
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
