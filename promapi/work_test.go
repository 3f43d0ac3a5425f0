package promapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
)

// workSeries is the size of the kind of TestSelect_Work: more than
// DefaultMaxSeries.
const workSeries = 200_000

// TestSelect_Work: in a kind of 200,000 series, twice MaxSeries, a
// selection by labels reads from the table about as many items as it
// selects series (postings, a few values), whatever the kind's size; one
// that selects every series is refused. The counts are the Query calls
// and the items they return, not times.
func TestSelect_Work(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes 200,000 series: not with -short or -race")
	}
	ctx := context.Background()
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	clk := testenv.NewClock(at.Add(time.Hour))
	// A memtable that holds every write: no compaction to wait for.
	api := &testenv.Counter{API: testenv.MemDB(t, &local.Options{Now: clk.Now, MemTableSize: 1 << 30})}
	st, err := series.Open(ctx, api, &series.Options{FlushInterval: -1, RollupInterval: -1, CompactInterval: -1, FlushSize: 50_000, Now: clk.Now},
		series.Schema{Name: "up", Fields: []string{"value"}, Tags: []string{"instance", "job"}, NoRollups: true, NoCompaction: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	k, err := st.Kind("up")
	if err != nil {
		t.Fatal(err)
	}
	// Jobs: "few" has 10 series, "some" 200, "many" 1,000, "big" the rest.
	jobOf := func(i int) string {
		switch {
		case i%1000 == 7 && i < 10_000:
			return "few"
		case i%1000 == 11:
			return "some"
		case i%200 == 3:
			return "many"
		}
		return "big"
	}
	var batch []series.SeriesReadings
	for i := range workSeries {
		inst, job := fmt.Sprintf("i%06d", i), jobOf(i)
		id := FormatLabelSet(labels.FromStrings("instance", inst, "job", job))
		batch = append(batch, series.SeriesReadings{ID: id, Readings: []series.Reading{{Time: at, Values: []float64{1}, Tags: []string{inst, job}}}})
		if len(batch) == 10_000 {
			if err := k.WriteMany(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	q := &Queryable{Store: st}
	qr, err := q.Querier(at.Add(-time.Hour).UnixMilli(), at.Add(time.Hour).UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	sel := func(s string) (int, error) {
		ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		set := qr.Select(ctx, false, &storage.SelectHints{Start: at.Add(-time.Hour).UnixMilli(), End: at.Add(time.Hour).UnixMilli()}, ms...)
		n := 0
		for set.Next() {
			n++
		}
		return n, set.Err()
	}
	if _, err := k.LabelIndexReady(ctx); err != nil { // the index state, read once
		t.Fatal(err)
	}
	api.Reads()
	// Every selection of the kind also looks for series labelled by
	// their readings (ids that are not label sets: none here), which
	// costs a call that returns nothing.
	const readLabelled = 1
	for _, c := range []struct {
		sel  string
		want int
		// The most items and calls the selection may read: the series
		// selected, and some pages of postings or values.
		items, calls int
	}{
		{`up{job="few"}`, 10, 10, 1},
		{`up{job="some"}`, 200, 200, 2},
		{`up{job="many"}`, 1000, 1000, 5},
		{`up{job="few",instance!="i000007"}`, 9, 10, 1},
		{`up{job=~"few|some"}`, 210, 210, 3},
		// A selective matcher with a large one: the large one reads a
		// page of postings in turn, no more.
		{`up{job="big",instance="i000123"}`, 1, 2 + firstPostingsPage, 2},
		// A regular expression: the values with its prefix, then their
		// postings.
		{`up{instance=~"i00001[0-9]"}`, 10, 10 + 10, 11},
		{`up{job="none"}`, 0, 0, 1},
	} {
		c.calls += readLabelled
		n, err := sel(c.sel)
		if err != nil {
			t.Fatalf("%s: %v", c.sel, err)
		}
		calls, items := api.Reads()
		t.Logf("%s: %d series, %d Query calls, %d items", c.sel, n, calls, items)
		if n != c.want {
			t.Errorf("%s: %d series, want %d", c.sel, n, c.want)
		}
		// Each call reads one item more than it returns, to know whether
		// more follow.
		if items > c.items+calls || calls > c.calls {
			t.Errorf("%s: %d Query calls and %d items read, want at most %d and %d (and one per call)", c.sel, calls, items, c.calls, c.items)
		}
	}
	// Selecting every series lists the directory until the cap.
	if _, err := sel(`up{job!="none"}`); !errors.Is(err, ErrTooManySeries) {
		t.Errorf("every series: %v, want ErrTooManySeries", err)
	}
	calls, items := api.Reads()
	t.Logf(`up{job!="none"}: refused after %d Query calls, %d items`, calls, items)
	if items > (DefaultMaxSeries/seriesPage+1)*(seriesPage+1) {
		t.Errorf("refused after reading %d items, the cap is %d", items, DefaultMaxSeries)
	}
	// The label lookups read the values, not the series.
	vs, _, err := qr.LabelValues(ctx, "job", nil)
	if err != nil {
		t.Fatal(err)
	}
	calls, items = api.Reads()
	t.Logf("label values of job: %v, %d Query calls, %d items", vs, calls, items)
	if len(vs) != 4 || items > 4 {
		t.Errorf("label values of job: %v after %d items", vs, items)
	}
	vs, _, err = qr.LabelValues(ctx, "instance", &storage.LabelHints{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	calls, items = api.Reads()
	t.Logf("5 label values of instance: %v, %d Query calls, %d items", vs, calls, items)
	if len(vs) != 5 || items > 5+1 {
		t.Errorf("5 values of instance: %v after %d items", vs, items)
	}
}
