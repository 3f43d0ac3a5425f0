package chunk

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// patchedWalk is two decimal walks with a NaN, an infinity and a -0.
func patchedWalk() *series {
	s := walkSeries(4, 600, 2, 1000, 0.5)
	s.vals[0][3], s.vals[0][300], s.vals[1][0] = math.NaN(), math.Inf(1), math.Copysign(0, -1)
	return s
}

// v1Series are the series whose chunks, as the version 1 encoder wrote
// them (commit 38773e6), are kept in testdata/v1: decimal walks of several step sizes
// (range and Rice blocks), a gauge (XOR), patched decimals, and jittered
// timestamps.
func v1Series() map[string]*series {
	return map[string]*series{
		"walk-1hz":     walkSeries(1, 3600, 1, 1000, 0.5),
		"walk-minute3": walkSeries(2, 1440, 3, 60000, 0.1),
		"walk-small":   walkSeries(5, 700, 1, 1000, 0.03),
		"gauge":        gaugeSeries(3, 500),
		"patched":      patchedWalk(),
		"counter":      counterSeries(300),
	}
}

// TestVersion1 decodes chunks written by the version 1 encoder: old data
// stays readable.
func TestVersion1(t *testing.T) {
	checkKept(t, "v1", 1, v1Series())
}

// checkKept decodes each series' chunk kept in testdata/dir, of format
// version, and compares it with the series bit for bit; it returns the
// encodings of the chunks' fields.
func checkKept(t *testing.T, dir string, version byte, ss map[string]*series) map[Encoding]bool {
	t.Helper()
	encs := map[Encoding]bool{}
	for name, s := range ss {
		b, err := os.ReadFile(filepath.Join("testdata", dir, name+".chunk"))
		if err != nil {
			t.Fatal(err)
		}
		if b[0] != version {
			t.Fatalf("%s: version %d, want %d", name, b[0], version)
		}
		s.check(t, b)
		c, err := Open(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.NumFields() {
			enc, _ := c.Encoding(i)
			encs[enc] = true
		}
	}
	return encs
}

// v2Series are the series whose chunks, as the encoder of format version 2
// wrote them before encodings 3 and 4 existed, are kept in testdata/v2:
// they must decode to the same readings whatever the encoder now writes.
func v2Series() map[string]*series {
	return map[string]*series{
		"walk-1hz":      walkSeries(1, 3600, 1, 1000, 0.5),
		"cents-minute3": centsSeries(6, 1440, 3, 60000, 10),
		"gauge":         gaugeSeries(3, 500),
		"patched":       patchedWalk(),
		"counter":       counterSeries(300),
		"sensor":        sensorSeries(1, 3600, 1000),
		"node-exporter": nodeExporterSeries(1, 240),
	}
}

// TestVersion2 decodes chunks written by the version 2 encoder before
// it had encodings 3 and 4: old data stays readable.
func TestVersion2(t *testing.T) {
	if encs := checkKept(t, "v2", 2, v2Series()); encs[DecimalFactor] || encs[DecimalFactorPatched] {
		t.Fatalf("encodings %v: the files predate the factored ones", encs)
	}
}

// factorSeriesFiles are the series whose chunks testdata/factor keeps, as
// written when encodings 3 and 4 were added: the format of those
// encodings must not change under them.
func factorSeriesFiles() map[string]*series {
	return map[string]*series{
		"pages":         factorSeries(1, 1000, 4096, 0),
		"pages-patched": patchedPages(),
		"halves":        factorSeries(3, 600, 5, 1),
		"node-exporter": nodeExporterSeries(1, 240),
	}
}

// TestFactorFiles decodes the chunks of testdata/factor, which hold
// DecimalFactor and DecimalFactorPatched fields.
func TestFactorFiles(t *testing.T) {
	if encs := checkKept(t, "factor", 2, factorSeriesFiles()); !encs[DecimalFactor] || !encs[DecimalFactorPatched] {
		t.Fatalf("encodings %v: want both factored ones", encs)
	}
}
