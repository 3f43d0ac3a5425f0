// Package geoiptest writes small MaxMind-format country databases for
// tests, the shape of GeoLite2-Country's records.
package geoiptest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// Record is a network's record: country.iso_code and
// registered_country.iso_code, each left out when "" (a record with
// neither has only a continent).
type Record struct {
	Country, Registered string
}

// Write writes a database of nets (CIDR prefixes; reserved ranges such as
// 127.0.0.0/8 allowed) into a temporary folder of t and returns its path.
func Write(t testing.TB, nets map[string]Record) string {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-Country", RecordSize: 24, IncludeReservedNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	iso := func(code string) mmdbtype.Map { return mmdbtype.Map{"iso_code": mmdbtype.String(code)} }
	for cidr, r := range nets {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		rec := mmdbtype.Map{"continent": mmdbtype.Map{"code": mmdbtype.String("EU")}}
		if r.Country != "" {
			rec["country"] = iso(r.Country)
		}
		if r.Registered != "" {
			rec["registered_country"] = iso(r.Registered)
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
