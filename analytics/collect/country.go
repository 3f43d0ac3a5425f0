package collect

import (
	"fmt"
	"net/netip"

	"github.com/oschwald/maxminddb-golang/v2"
)

// GeoIP looks countries up in a MaxMind-format database: GeoLite2 or
// GeoIP2 Country or City, DB-IP's IP-to-Country Lite, or any file whose
// records have country.iso_code (or registered_country.iso_code). It is
// safe for concurrent use.
type GeoIP struct {
	r *maxminddb.Reader
}

// OpenGeoIP opens the database file at path (memory-mapped). Close it when
// done.
func OpenGeoIP(path string) (*GeoIP, error) {
	r, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("collect: cannot open the country database %s: %w", path, err)
	}
	return &GeoIP{r: r}, nil
}

// Close releases the database.
func (g *GeoIP) Close() error { return g.r.Close() }

type countryRecord struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	Registered struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"registered_country"`
}

// Country returns the ISO 3166-1 alpha-2 code of ip's country, "" when the
// database has none (or cannot be read for that address).
func (g *GeoIP) Country(ip netip.Addr) string {
	var rec countryRecord
	if err := g.r.Lookup(ip).Decode(&rec); err != nil {
		return ""
	}
	if c := countryCode(rec.Country.ISOCode); c != "" {
		return c
	}
	return countryCode(rec.Registered.ISOCode)
}

// countryCode returns s in upper case if it is two ASCII letters, except
// Cloudflare's XX (unknown) and T1 (Tor); "" otherwise.
func countryCode(s string) string {
	if len(s) != 2 {
		return ""
	}
	b := []byte{s[0] &^ 0x20, s[1] &^ 0x20}
	for _, c := range b {
		if c < 'A' || c > 'Z' {
			return ""
		}
	}
	if c := string(b); c != "XX" {
		return c
	}
	return ""
}
