package promapi_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"

	"github.com/timetable-db/timetable/promapi"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/table"
)

// indexPartitions start the partition keys of the label index's items
// (series/labelindex.go), which a table written before the index lacks.
var indexPartitions = []string{"~LABELS#", "~VALUES#", "~POSTINGS#", "~PLAIN#", "~INDEXED"}

// TestOldTable: a table written before the label index (the fixture less
// the index's items: what an earlier version leaves) answers every query
// and lookup as the indexed table does, first by listing each kind's
// directory, and, once the index pass has built the index, through it.
func TestOldTable(t *testing.T) {
	f := newFixture(t, 11)
	ctx := context.Background()
	indexed := answers(t, f.st)

	if err := f.st.Close(); err != nil {
		t.Fatal(err)
	}
	var dels []table.WriteRequest
	for it, err := range f.st.Table().ScanAll(ctx, &table.Scan{Consistent: true}) {
		if err != nil {
			t.Fatal(err)
		}
		pk, sk := str(it["pk"]), str(it["sk"])
		for _, p := range indexPartitions {
			if strings.HasPrefix(pk, p) {
				dels = append(dels, table.DeleteRequest(table.K(pk, sk)))
			}
		}
	}
	if err := f.st.Table().BatchWrite(ctx, dels); err != nil {
		t.Fatal(err)
	}
	removed := len(dels)
	if removed == 0 {
		t.Fatal("the fixture has no index items")
	}

	st, err := series.Open(ctx, f.db, &series.Options{Now: func() time.Time { return now }, RollupInterval: -1}, f.schemas...)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, s := range f.schemas {
		k, err := st.Kind(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if ready, err := k.LabelIndexReady(ctx); err != nil || ready {
			t.Fatalf("kind %s without its %d index items: ready %v, %v", s.Name, removed, ready, err)
		}
	}
	if got := answers(t, st); got != indexed {
		t.Errorf("before the index is built:\n%s\nwant (indexed):\n%s", got, indexed)
	}
	if err := st.IndexLabels(ctx); err != nil {
		t.Fatal(err)
	}
	if got := answers(t, st); got != indexed {
		t.Errorf("once built:\n%s\nwant (indexed as written):\n%s", got, indexed)
	}
}

// answers returns the answers of the diff test's queries and of label
// lookups over st, as text.
func answers(t *testing.T, st *series.Store) string {
	t.Helper()
	ctx := context.Background()
	q := &promapi.Queryable{Store: st}
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 50_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute, EnableAtModifier: true})
	var out []string
	for _, qs := range diffQueries {
		pq, err := engine.NewRangeQuery(ctx, q, nil, qs, base.Add(10*time.Minute), base.Add(3*time.Hour+10*time.Minute), 37*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", qs, err)
		}
		res := pq.Exec(ctx)
		if res.Err != nil {
			t.Fatalf("%s: %v", qs, res.Err)
		}
		out = append(out, qs+":\n"+canonical(res.Value))
		pq.Close()
	}
	qr, err := q.Querier(base.UnixMilli(), base.Add(4*time.Hour).UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	p := parser.NewParser(parser.Options{})
	for _, sel := range []string{`{__name__=~".+"}`, `{job="api"}`, `{code!="200",__name__=~"http.*"}`, `{location=~"r.*"}`, `{series="s1"}`, `{host=~"a|b"}`} {
		ms, err := p.ParseMetricSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		set := qr.Select(ctx, true, &storage.SelectHints{Start: base.UnixMilli(), End: base.Add(4 * time.Hour).UnixMilli()}, ms...)
		var got []string
		for set.Next() {
			got = append(got, set.At().Labels().String())
		}
		if err := set.Err(); err != nil {
			t.Fatal(err)
		}
		names, _, err := qr.LabelNames(ctx, nil, ms...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("series %s: %v\nlabels: %v", sel, got, names))
		for _, name := range []string{"__name__", "job", "location", "series", "host"} {
			vs, _, err := qr.LabelValues(ctx, name, nil, ms...)
			if err != nil {
				t.Fatal(err)
			}
			all, _, err := qr.LabelValues(ctx, name, nil, onName(ms)...)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("values of %s: %v; on __name__ only: %v", name, vs, all))
		}
	}
	return strings.Join(out, "\n")
}

// onName returns the matchers of ms on __name__.
func onName(ms []*labels.Matcher) []*labels.Matcher {
	return slices.DeleteFunc(slices.Clone(ms), func(m *labels.Matcher) bool { return m.Name != model.MetricNameLabel })
}

func str(v types.AttributeValue) string {
	s, _ := v.(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}
