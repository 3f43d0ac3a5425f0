package series

import (
	"math"
	"slices"
	"testing"
)

func TestWALRecordRoundTrip(t *testing.T) {
	nan := math.NaN()
	cases := map[string][]rec{
		"consecutive": {
			{t: 60_000, seq: 7, vals: []float64{1.5, nan, -2}},
			{t: 120_000, seq: 8, vals: []float64{1.25, 3, 0}},
			{t: 90_000, seq: 9, vals: []float64{0, 0, 0}},
		},
		"gaps and tags": {
			{t: minMs, seq: 1 << 60, vals: []float64{1}, tags: []string{"a", ""}},
			{t: maxMs - 1, seq: 3, vals: []float64{2}, tags: []string{"é", "bb"}},
		},
		"uneven": { // not all readings have as many values: a readings record
			{t: 5, seq: 1, vals: []float64{1, 2}},
			{t: 6, seq: 2, vals: []float64{3}},
		},
		"one":  {{t: -1, seq: 0, vals: nil}},
		"none": nil,
	}
	for name, recs := range cases {
		t.Run(name, func(t *testing.T) {
			b := encodeWALReadings("SENSOR", "s1", recs)
			want := byte(walColumns)
			if name == "uneven" || name == "none" {
				want = walReadings
			}
			if b[0] != want {
				t.Fatalf("record type %d, want %d", b[0], want)
			}
			r, err := decodeWAL(b)
			if err != nil {
				t.Fatal(err)
			}
			if r.kind != "SENSOR" || r.id != "s1" || len(r.recs) != len(recs) {
				t.Fatalf("decoded %q %q with %d readings", r.kind, r.id, len(r.recs))
			}
			for i := range recs {
				if !sameWALRec(r.recs[i], recs[i]) {
					t.Fatalf("reading %d: %+v, want %+v", i, r.recs[i], recs[i])
				}
			}
			// A log written before columns records: the same readings
			// as a readings record.
			old, err := decodeWAL(appendWALRows(nil, "SENSOR", "s1", recs))
			if err != nil {
				t.Fatal(err)
			}
			for i := range recs {
				if !sameWALRec(old.recs[i], recs[i]) {
					t.Fatalf("readings record, reading %d: %+v, want %+v", i, old.recs[i], recs[i])
				}
			}
		})
	}
}

func TestWALColumnsSmaller(t *testing.T) {
	recs := make([]rec, 60)
	for i := range recs {
		recs[i] = rec{t: 1_700_000_000_000 + int64(i)*60_000, seq: 1<<40 + uint64(i), vals: []float64{20.01, 30.5, 40}}
	}
	cols, rows := len(encodeWALReadings("SENSOR", "100123", recs)), len(appendWALRows(nil, "SENSOR", "100123", recs))
	if per := float64(cols) / 60; per > 28 {
		t.Errorf("columns record: %.1f bytes per reading (readings record: %.1f)", per, float64(rows)/60)
	}
}

// sameWALRec reports whether a log record gave back r exactly (bits of the
// values, sequence number).
func sameWALRec(a, b rec) bool {
	if a.t != b.t || a.seq != b.seq || len(a.vals) != len(b.vals) || !slices.Equal(a.tags, b.tags) {
		return false
	}
	for i := range a.vals {
		if math.Float64bits(a.vals[i]) != math.Float64bits(b.vals[i]) {
			return false
		}
	}
	return true
}
