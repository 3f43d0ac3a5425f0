package promapi_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/promapi"
	"github.com/timetable-db/timetable/series"
)

// TestSelect_Samples: the samples of a selection of more series than
// are read ahead, asked for in any order and twice, are the readings of
// the range: one sample per instant (the last written of a KeepAll
// kind's), absent values left out, or Prometheus' staleness markers in a
// kind of one field "value"; some of them flushed, some buffered.
func TestSelect_Samples(t *testing.T) {
	ctx := context.Background()
	db := testenv.MemDB(t, &local.Options{Now: func() time.Time { return now }})
	st, err := series.Open(ctx, db, &series.Options{Now: func() time.Time { return now }, FlushInterval: -1},
		series.Schema{Name: "m", Fields: []string{"value"}, Duplicates: series.KeepAll},
		series.Schema{Name: "two", Fields: []string{"a", "b"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	m, _ := st.Kind("m")
	two, _ := st.Kind("two")
	type sample struct {
		t int64
		v float64
	}
	stale := math.Float64frombits(value.StaleNaN)
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Minute) }
	want := map[string][]sample{} // by the series' labels
	const n = 75
	for i := range n {
		id := fmt.Sprintf("host=h%02d", i)
		var rs []series.Reading
		var ws []sample
		for j := range 20 {
			v := float64(i*100 + j)
			rs = append(rs, series.Reading{Time: at(j), Values: []float64{v}})
			switch {
			case j == 5:
				// Two readings of one instant: the last is the sample.
				rs = append(rs, series.Reading{Time: at(j), Values: []float64{-v}})
				v = -v
			case j == 7:
				rs[len(rs)-1].Values[0] = math.NaN()
				v = stale
			case j == 9:
				// A NaN sample, as remote write stores one.
				rs[len(rs)-1].Values[0] = math.Float64frombits(ingest.SampleNaNBits)
				v = math.Float64frombits(value.NormalNaN)
			case j == 11:
				// A staleness marker, as remote write stores one.
				rs[len(rs)-1].Values[0] = stale
				v = stale
			}
			ws = append(ws, sample{at(j).UnixMilli(), v})
		}
		write := m.WriteSync
		if i%3 == 0 {
			write = m.Write // buffered
		}
		if err := write(ctx, id, rs...); err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprintf(`{__name__="m", host="h%02d"}`, i)] = ws

		rs, ws = nil, nil
		for j := range 20 {
			a, b := float64(j), float64(i)
			if j%4 == 0 {
				b = math.NaN() // no sample of two_b
			}
			rs = append(rs, series.Reading{Time: at(j), Values: []float64{a, b}})
			if !math.IsNaN(b) {
				ws = append(ws, sample{at(j).UnixMilli(), b})
			}
		}
		if err := two.WriteSync(ctx, id, rs...); err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprintf(`{__name__="two_b", host="h%02d"}`, i)] = ws
	}

	q, err := (&promapi.Queryable{Store: st}).Querier(at(0).UnixMilli(), at(30).UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var all []storage.Series
	for _, name := range []string{"m", "two_b"} {
		set := q.Select(ctx, true, nil, labels.MustNewMatcher(labels.MatchEqual, "__name__", name))
		var got []storage.Series
		for set.Next() {
			got = append(got, set.At())
		}
		if err := set.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%s: %d series, want %d", name, len(got), n)
		}
		all = append(all, got...)
	}
	check := func(s storage.Series) {
		t.Helper()
		it := s.Iterator(nil)
		var got []sample
		for it.Next() == chunkenc.ValFloat {
			ts, v := it.At()
			got = append(got, sample{ts, v})
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: %v", s.Labels(), err)
		}
		ws, ok := want[s.Labels().String()]
		if !ok {
			t.Fatalf("unexpected series %s", s.Labels())
		}
		same := len(got) == len(ws)
		for i := 0; same && i < len(ws); i++ {
			same = got[i].t == ws[i].t && math.Float64bits(got[i].v) == math.Float64bits(ws[i].v)
		}
		if !same {
			t.Errorf("%s: samples %v, want %v", s.Labels(), got, ws)
		}
	}
	// Backwards, then forwards from the middle, then each again.
	for i := len(all) - 1; i >= 0; i-- {
		check(all[i])
	}
	for i := len(all) / 2; i < len(all); i++ {
		check(all[i])
	}
	for _, s := range all {
		check(s)
	}
}

// TestSelect_SeekWithinSamples: Seek moves to the first sample at or
// after its time, never back.
func TestSelect_SeekWithinSamples(t *testing.T) {
	f := newFixture(t, 5)
	ctx := context.Background()
	q, err := (&promapi.Queryable{Store: f.st}).Querier(base.UnixMilli(), now.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	set := q.Select(ctx, true, nil, labels.MustNewMatcher(labels.MatchEqual, "__name__", "cpu_usage_idle"))
	if !set.Next() {
		t.Fatalf("no series: %v", set.Err())
	}
	s := set.At()
	var ts []int64
	it := s.Iterator(nil)
	for it.Next() == chunkenc.ValFloat {
		ts = append(ts, it.AtT())
	}
	if len(ts) < 100 {
		t.Fatalf("%d samples", len(ts))
	}
	it = s.Iterator(it)
	pos := 0 // the model: the first sample at or after every time sought
	for _, target := range []int64{ts[3], ts[3], ts[3] - 1, ts[50] - 1, ts[49], ts[50] + 1, ts[len(ts)-1]} {
		for pos < len(ts) && ts[pos] < target {
			pos++
		}
		if got := it.Seek(target); got != chunkenc.ValFloat || it.AtT() != ts[pos] {
			t.Fatalf("Seek(%d): %v at %d, want the sample at %d", target, got, it.AtT(), ts[pos])
		}
		if got := it.Next(); pos+1 < len(ts) && (got != chunkenc.ValFloat || it.AtT() != ts[pos+1]) {
			t.Fatalf("Next after Seek(%d): %v at %d, want %d", target, got, it.AtT(), ts[pos+1])
		}
		pos++
	}
	if got := it.Seek(ts[len(ts)-1] + 1); got != chunkenc.ValNone {
		t.Fatalf("Seek past the end: %v", got)
	}
}
