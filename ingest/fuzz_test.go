package ingest

import (
	"bytes"
	"strings"
	"testing"
)

// reencode checks what a decoder accepted: each kind's readings written
// with WriteJSONLines read back the same with JSONLines, and, unless a
// string holds "\r" (which encoding/csv drops before "\n"), written with
// a CSVWriter read back the same with CSV.
func reencode(t *testing.T, b *Batch) {
	t.Helper()
	checkShape(t, b, lookupOf())
	for _, k := range b.Kinds {
		s, _ := lookupOf()(k.Kind)
		one := &Batch{Kinds: []KindBatch{k}}
		cr := false
		for _, sr := range k.Series {
			one.Readings += len(sr.Readings)
			cr = cr || strings.Contains(sr.ID, "\r")
			for _, r := range sr.Readings {
				for _, g := range r.Tags {
					cr = cr || strings.Contains(g, "\r")
				}
			}
		}
		got, err := JSONLines(bytes.NewReader(encodeJSONLines(t, s, one)), k.Kind, lookupOf(), Options{})
		if err != nil {
			t.Fatalf("JSON lines of kind %s: %v", k.Kind, err)
		}
		if diff := sameBatch(one, got); diff != "" {
			t.Fatalf("JSON lines of kind %s: %s", k.Kind, diff)
		}
		if cr {
			continue
		}
		got, err = CSV(bytes.NewReader(encodeCSV(t, s, one)), k.Kind, lookupOf(), Options{})
		if err != nil {
			t.Fatalf("CSV of kind %s: %v", k.Kind, err)
		}
		if diff := sameBatch(one, got); diff != "" {
			t.Fatalf("CSV of kind %s: %s", k.Kind, diff)
		}
	}
}

// checkDecoded holds a fuzzed decode to its contract: an error must be
// an *Error (t fails otherwise); a batch b must pass check and survive
// reencode.
func checkDecoded(t *testing.T, b *Batch, err error, check func(*testing.T, *Batch)) {
	t.Helper()
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error %v (%T), want an *Error", err, err)
		}
		return
	}
	check(t, b)
	reencode(t, b)
}

// bounded returns Options with MaxSeries and a Reserve that counts, and a
// check that a batch decoded with them keeps to both.
func bounded(maxSeries int) (Options, func(*testing.T, *Batch)) {
	var reserved int64
	o := Options{MaxSeries: maxSeries, Reserve: func(n int64) error { reserved += n; return nil }}
	return o, func(t *testing.T, b *Batch) {
		t.Helper()
		if reserved < b.Bytes {
			t.Fatalf("reserved %d bytes for a batch of %d", reserved, b.Bytes)
		}
		n := 0
		for _, k := range b.Kinds {
			n += len(k.Series)
		}
		if maxSeries > 0 && n > maxSeries {
			t.Fatalf("%d series, MaxSeries %d", n, maxSeries)
		}
	}
}

func FuzzLineProtocol(f *testing.F) {
	for _, s := range []string{
		"SENSOR,location=lab,series=123 temperature=21.5,humidity=40i 1733063400000000000\n",
		"# c\n\nMETER,a=1,b=2 kwh=1u 3\nMETER kwh=t\nSENSOR location=\"x\\\"y\",temperature=-0 -1\n",
		`SENSOR,z=1,a\,b=x\=y\\z temperature=1,location="hall"`,
		"SENSOR,series=1 location=\"a\nb\",temperature=1 1\r\n\nSENSOR temp=1 2\n",
		"SENSOR temperature=1e999",
		"SENSOR temperature=1 253402300799",
		"METER,series=a#b kwh=1",
		"FOO x=1",
		"\xff",
	} {
		for p := range Hour + 1 {
			f.Add(s, uint8(p), 0)
		}
	}
	f.Add("METER kwh=1\nMETER kwh=1234567890123456789\n", uint8(0), 24)
	f.Fuzz(func(t *testing.T, in string, prec uint8, max int) {
		o, check := bounded(max % 5)
		o.Precision, o.Now, o.MaxLineBytes = Precision(prec%uint8(Hour+1)), now, max%4096
		b, err := LineProtocol(strings.NewReader(in), lookupOf(), o)
		checkDecoded(t, b, err, check)
		if err != nil {
			return
		}
		// Decoded again while b is held, from the arrays earlier
		// iterations released: the same batch.
		again, err := LineProtocol(strings.NewReader(in), lookupOf(), o)
		if err != nil {
			t.Fatalf("a second decode failed: %v", err)
		}
		if d := sameBatch(b, again); d != "" {
			t.Fatalf("a second decode differs: %s", d)
		}
		b.Release()
		again.Release()
	})
}

func FuzzJSON(f *testing.F) {
	const r = `{"series": "123", "time": "2024-12-01T14:30:00.123999+01:00", "values": {"temperature": 21.5, "humidity": null}, "tags": {"location": "lab"}}`
	for _, s := range []string{
		`{"readings": [` + r + `]}`,
		`[` + r + `, {"series": "7", "time": -62167219200000, "values": {"temperature": -0}}]`,
		r + "\n\n" + `{"series": "x\r\ny", "time": 0, "tags": {"location": "\u00e9\n"}}` + "\n",
		`[{"series": "1", "time": 0, "values": {"temperature": 1e999}}]`,
		`[{"series": "1", "time": 0, "values": {"temperature": {"a": [1]}}}]`,
		`{"readings": [], "readings": []}`,
		`[1, 2`,
		``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, decode := range []func(Options) (*Batch, error){
			func(o Options) (*Batch, error) { return JSON(strings.NewReader(in), "SENSOR", lookupOf(), o) },
			func(o Options) (*Batch, error) { return JSONLines(strings.NewReader(in), "SENSOR", lookupOf(), o) },
		} {
			o, check := bounded(len(in) % 3)
			b, err := decode(o)
			checkDecoded(t, b, err, check)
		}
	})
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"humidity,location,time,series,temperature\n40,lab,2024-12-01T14:30:00.123456Z,123,21.5\n,,1000,7,\n",
		"series,time,location\n1,0,\"a, \"\"b\"\"\r\nc\"\n2,-1,\r\n",
		"series,time,temperature\n1,0, 0x1p-2 \n1,0,-0\n1,0,NaN\n",
		"series,time,colour\n",
		"series,time\n\xff,0\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		o, check := bounded(len(in) % 3)
		b, err := CSV(strings.NewReader(in), "SENSOR", lookupOf(), o)
		checkDecoded(t, b, err, check)
	})
}
