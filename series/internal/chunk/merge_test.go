package chunk

import (
	"errors"
	"math"
	"testing"
)

func TestMerge(t *testing.T) {
	open := func(s *series) *Chunk {
		t.Helper()
		c, err := Open(s.encode(t))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	whole := walkSeries(1, 3600, 2, 1000, 0.5)
	// Flushes of a minute each, the last two swapped, and a late reading
	// at the same instant as one of an earlier flush.
	var parts []*Chunk
	for start := 0; start < 3600; start += 60 {
		p := &series{fields: whole.fields, ts: whole.ts[start : start+60], vals: [][]float64{whole.vals[0][start : start+60], whole.vals[1][start : start+60]}}
		parts = append(parts, open(p))
	}
	parts[58], parts[59] = parts[59], parts[58]
	late := newSeries("humidity", "temperature", "pressure")
	late.add(whole.ts[100], 1, 2, 3)
	parts = append(parts, open(late))

	a, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	want := newSeries("temperature", "humidity", "pressure")
	for j, tm := range whole.ts {
		want.add(tm, whole.vals[0][j], whole.vals[1][j], math.NaN())
		if j == 100 {
			want.add(tm, 2, 1, 3)
		}
	}
	if got := a.Fields(); len(got) != 3 || got[2] != "pressure" {
		t.Fatalf("fields %q", got)
	}
	want.check(t, a.Bytes())
	if agg := a.Aggregates(); agg[2].Count != 1 || agg[0].Count != 3601 {
		t.Errorf("aggregates %+v", agg)
	}

	if _, err := Merge(); err != nil {
		t.Errorf("Merge of nothing: %v", err)
	}
	big := open(constSeries(MaxReadings/2+1, 1))
	if _, err := Merge(big, big); !errors.Is(err, ErrFull) {
		t.Errorf("Merge past MaxReadings = %v, want ErrFull", err)
	}
}
