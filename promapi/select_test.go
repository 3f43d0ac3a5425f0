package promapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/series"
)

// The selection model: series of every sort (label-set ids, "_", plain
// ids labelled by their readings' tags, hashed label sets), some flushed
// and some only buffered, selected by random matchers through the label
// index and by a naive filter over the Prometheus series they are.

// selectAt is the time of the model's readings: far ahead, so that
// DynamoDB Local's TTL, which reads the real clock, deletes none while the
// test runs.
var selectAt = time.Date(2099, 3, 1, 0, 0, 0, 0, time.UTC)

// selectWorld is a store and the Prometheus series it holds.
type selectWorld struct {
	st   *series.Store
	want []labels.Labels // every Prometheus series, with __name__
}

var (
	selectNames  = []string{"a", "b", "c", "d"}
	selectValues = []string{"1", "2", "x y", "é", `p,q`}
)

// newSelectWorld writes the model's series to a store on backend b.
func newSelectWorld(t *testing.T, b testenv.Backend, seed uint64) *selectWorld {
	t.Helper()
	ctx := context.Background()
	clk := testenv.NewClock(selectAt.Add(time.Hour))
	api := b.OpenOn(t, clk)
	opts := &series.Options{Table: dynamotest.TableName(t, "promapi"), FlushInterval: -1, RollupInterval: -1, CompactInterval: -1, Now: clk.Now}
	st, err := series.Open(ctx, api, opts,
		series.Schema{Name: "up", Fields: []string{"value"}, Tags: selectNames, NoRollups: true},
		series.Schema{Name: "temp", Fields: []string{"value"}, Tags: []string{"location"}, NoRollups: true},
		series.Schema{Name: "cpu", Fields: []string{"idle", "user"}, Tags: []string{"host"}, NoRollups: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = st.Close()
		_ = st.Table().Drop(context.Background())
	})
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	w := &selectWorld{st: st}
	rng := rand.New(rand.NewPCG(seed, 9))
	kind := func(name string) *series.Kind {
		k, err := st.Kind(name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(k *series.Kind, id string, rs ...series.Reading) {
		if err := k.Write(ctx, id, rs...); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	add := func(ls labels.Labels) {
		if !seen[ls.String()] {
			seen[ls.String()] = true
			w.want = append(w.want, ls)
		}
	}
	// up: label sets as remote write writes them (their tags the same
	// labels), "_", and hashed label sets, whose tags are their labels.
	up := kind("up")
	for i := range 120 {
		var ls []labels.Label
		tags := make([]string, len(selectNames))
		for j, n := range selectNames {
			if rng.IntN(3) > 0 {
				v := selectValues[rng.IntN(len(selectValues))]
				ls = append(ls, labels.Label{Name: n, Value: v})
				tags[j] = v
			}
		}
		set := labels.New(ls...)
		id := FormatLabelSet(set)
		if i%30 == 0 {
			id = fmt.Sprintf("%s%064x", series.HashedIDPrefix, i)
		}
		write(up, id, series.Reading{Time: selectAt, Values: []float64{float64(i)}, Tags: tags})
		add(labels.NewBuilder(set).Set(model.MetricNameLabel, "up").Labels())
		if i == 60 {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	// temp: plain ids, the tag location changing within a series.
	temp := kind("temp")
	for i := range 12 {
		id := fmt.Sprintf("dev-%d", i)
		for j, loc := range []string{"lab", "roof", ""}[:1+i%3] {
			write(temp, id, series.Reading{Time: selectAt.Add(time.Duration(j) * time.Second), Values: []float64{1}, Tags: []string{loc}})
			b := labels.NewBuilder(labels.FromStrings(model.MetricNameLabel, "temp", series.SeriesLabel, id))
			b.Set("location", loc)
			add(b.Labels())
		}
	}
	// cpu: two metrics of one kind.
	cpu := kind("cpu")
	for i := range 6 {
		host := fmt.Sprintf("h%d", i)
		write(cpu, "host="+host, series.Reading{Time: selectAt, Values: []float64{1, 2}, Tags: []string{host}})
		add(labels.FromStrings(model.MetricNameLabel, "cpu_idle", "host", host))
		add(labels.FromStrings(model.MetricNameLabel, "cpu_user", "host", host))
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Some series buffered only: the Store sees its own writes.
	for i := range 10 {
		id := FormatLabelSet(labels.FromStrings("a", selectValues[i%5], "d", "new"))
		write(up, id, series.Reading{Time: selectAt, Values: []float64{1}, Tags: []string{selectValues[i%5], "", "", "new"}})
		add(labels.FromStrings(model.MetricNameLabel, "up", "a", selectValues[i%5], "d", "new"))
	}
	write(up, "_", series.Reading{Time: selectAt, Values: []float64{1}, Tags: []string{"1", "", "", ""}})
	add(labels.FromStrings(model.MetricNameLabel, "up"))
	return w
}

// randomMatchers returns one to three matchers on the model's labels.
func randomMatchers(rng *rand.Rand) []*labels.Matcher {
	names := append([]string{model.MetricNameLabel, series.SeriesLabel, "location", "host", "zz"}, selectNames...)
	plain := append([]string{"", "nope", "up", "temp", "cpu_user", "lab", "h1", "dev-4", "new"}, selectValues...)
	regexps := []string{".*", ".+", "", "1|2", "x.*", "(é|2)", "p,q|new", "h[0-2]", "dev-[0-4]", "te.*|cpu_idle", "u.", "[0-9]+", "l.*|r.*"}
	var ms []*labels.Matcher
	for range 1 + rng.IntN(3) {
		typ := labels.MatchType(rng.IntN(4))
		v := plain[rng.IntN(len(plain))]
		if typ == labels.MatchRegexp || typ == labels.MatchNotRegexp {
			v = regexps[rng.IntN(len(regexps))]
		}
		ms = append(ms, labels.MustNewMatcher(typ, names[rng.IntN(len(names))], v))
	}
	return ms
}

// naive returns the series of want that ms select.
func (w *selectWorld) naive(ms []*labels.Matcher) []labels.Labels {
	var out []labels.Labels
	for _, ls := range w.want {
		if matchesAll(ms, ls) {
			out = append(out, ls)
		}
	}
	return out
}

// strs returns the sorted String of each of lss.
func strs(lss []labels.Labels) []string {
	out := make([]string, 0, len(lss))
	for _, ls := range lss {
		out = append(out, ls.String())
	}
	slices.Sort(out)
	return out
}

// check compares the selection of n random matcher sets with the naive
// filter's, and the label lookups with the names and values of the
// series selected; it reports the selections that differ.
func (w *selectWorld) check(t *testing.T, q *Queryable, n int, rng *rand.Rand) (diffs []string) {
	ctx := context.Background()
	qr, err := q.Querier(selectAt.Add(-time.Hour).UnixMilli(), selectAt.Add(time.Hour).UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		ms := randomMatchers(rng)
		want := strs(w.naive(ms))
		set := qr.Select(ctx, true, nil, ms...)
		var got []string
		for set.Next() {
			got = append(got, set.At().Labels().String())
		}
		if err := set.Err(); err != nil {
			t.Fatalf("%v: %v", ms, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("select %v: %s", ms, setDiff(got, want)))
		}
		// The lookups, with these matchers and with those on __name__
		// only (which read the label index).
		for _, lms := range [][]*labels.Matcher{ms, onName(ms)} {
			wantNames, wantValues := map[string]bool{}, map[string]bool{}
			name := []string{"a", "location", series.SeriesLabel, model.MetricNameLabel}[rng.IntN(4)]
			for _, ls := range w.naive(lms) {
				ls.Range(func(l labels.Label) { wantNames[l.Name] = true })
				if v := ls.Get(name); v != "" {
					wantValues[v] = true
				}
			}
			names, _, err := qr.LabelNames(ctx, nil, lms...)
			if err != nil {
				t.Fatalf("%v: %v", lms, err)
			}
			if !slices.Equal(names, sortedKeys(wantNames)) {
				diffs = append(diffs, fmt.Sprintf("label names %v: %s", lms, setDiff(names, sortedKeys(wantNames))))
			}
			values, _, err := qr.LabelValues(ctx, name, nil, lms...)
			if err != nil {
				t.Fatalf("%v: %v", lms, err)
			}
			if !slices.Equal(values, sortedKeys(wantValues)) {
				diffs = append(diffs, fmt.Sprintf("values of %s %v: %s", name, lms, setDiff(values, sortedKeys(wantValues))))
			}
		}
	}
	return diffs
}

// setDiff says what got lacks of want and holds beyond it (both sorted).
func setDiff(got, want []string) string {
	var missing, extra []string
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if _, ok := slices.BinarySearch(want, g); !ok {
			extra = append(extra, g)
		}
	}
	return fmt.Sprintf("%d answers, %d wanted; missing %v; extra %v", len(got), len(want), missing, extra)
}

func onName(ms []*labels.Matcher) []*labels.Matcher {
	var out []*labels.Matcher
	for _, m := range ms {
		if m.Name == model.MetricNameLabel {
			out = append(out, m)
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSelect_Model: the selection through the label index selects what a
// naive filter of every series selects, for random matchers, and the
// label lookups give the names and values of those series.
func TestSelect_Model(t *testing.T) {
	testenv.EachBackend(t, func(t *testing.T, b testenv.Backend) {
		w := newSelectWorld(t, b, 1)
		n := 400
		if testing.Short() {
			n = 100
		}
		for _, d := range w.check(t, &Queryable{Store: w.st}, n, rand.New(rand.NewPCG(2, 3))) {
			t.Error(d)
		}
	})
}

// TestSelect_ModelControl: the model test catches a planted bug (the
// postings of a regular expression's first value only).
func TestSelect_ModelControl(t *testing.T) {
	w := newSelectWorld(t, testenv.Backends()[0], 1)
	diffs := w.check(t, &Queryable{Store: w.st, plant: firstValueOnly}, 400, rand.New(rand.NewPCG(2, 3)))
	if len(diffs) == 0 {
		t.Fatal("the planted bug went unnoticed")
	}
	t.Logf("%d differences, the first: %s", len(diffs), diffs[0])
}
