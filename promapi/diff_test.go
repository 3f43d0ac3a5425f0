package promapi_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/util/teststorage"

	"github.com/timetable-db/timetable/promapi"
)

// diffQueries are evaluated by Prometheus' engine over the store and
// over Prometheus' own TSDB holding the same samples.
var diffQueries = []string{
	`http_requests_total`,
	`rate(http_requests_total[5m])`,
	`irate(http_requests_total[5m])`,
	`increase(http_requests_total[1h])`,
	`sum by (code) (rate(http_requests_total[5m]))`,
	`sum without (instance) (rate(http_requests_total{job="api"}[10m]))`,
	`topk(2, rate(http_requests_total[5m]))`,
	`http_requests_total{code=~"2..|5.."}`,
	`http_requests_total{code!~"5..",instance!="a:80"}`,
	`{__name__=~"http_.*",job="web"}`,
	`avg_over_time(cpu_usage_idle[10m])`,
	`quantile_over_time(0.9, cpu_usage_user[15m])`,
	`cpu_usage_idle offset 30m`,
	`cpu_usage_idle @ 1740794400`,
	`max_over_time(rate(http_requests_total[5m])[30m:1m])`,
	`count({__name__=~"cpu_.*"})`,
	`cpu_usage_idle - on(host) cpu_usage_user`,
	`absent(nonexistent_metric)`,
	`absent(cpu_usage_idle)`,
	`label_replace(cpu_usage_idle, "h", "$1", "host", "(.*)")`,
	`temp`,
	`max by (location) (temp)`,
	`temp{location="roof"}`,
	`changes(temp[10m])`,
	`histogram_quantile(0.5, sum by (le) (label_replace(rate(http_requests_total[5m]), "le", "$1", "code", "(.*)")))`,
}

// TestDiff_PrometheusTSDB: the same samples in the store and in
// Prometheus' TSDB give the same answers to the same queries, instant
// and range, through the same engine.
func TestDiff_PrometheusTSDB(t *testing.T) {
	f := newFixture(t, 7)
	ctx := context.Background()
	db := teststorage.New(t)
	app := db.Appender(ctx)
	for _, p := range f.points {
		if _, err := app.Append(0, p.labels, p.t, p.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.Commit(); err != nil {
		t.Fatal(err)
	}
	ours := &promapi.Queryable{Store: f.st}
	engine := promql.NewEngine(promql.EngineOpts{
		MaxSamples: 50_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute,
		EnableAtModifier: true, EnableNegativeOffset: true,
	})
	run := func(q storage.Queryable, qs string, rng bool) string {
		var pq promql.Query
		var err error
		if rng {
			pq, err = engine.NewRangeQuery(ctx, q, nil, qs, base.Add(10*time.Minute), base.Add(3*time.Hour+10*time.Minute), 37*time.Second)
		} else {
			pq, err = engine.NewInstantQuery(ctx, q, nil, qs, base.Add(95*time.Minute+300*time.Millisecond))
		}
		if err != nil {
			t.Fatalf("%s: %v", qs, err)
		}
		defer pq.Close()
		res := pq.Exec(ctx)
		if res.Err != nil {
			t.Fatalf("%s: %v", qs, res.Err)
		}
		return canonical(res.Value)
	}
	for _, qs := range diffQueries {
		for _, rng := range []bool{false, true} {
			want, got := run(db, qs, rng), run(ours, qs, rng)
			if want != got {
				t.Errorf("%s (range %v):\nPrometheus' TSDB:\n%s\nthe store:\n%s", qs, rng, clip(want), clip(got))
			}
			if want == "" || want == "[]" {
				if !strings.HasPrefix(qs, "absent(cpu") {
					t.Errorf("%s (range %v): no samples: the query tests nothing", qs, rng)
				}
			}
		}
	}
}

// canonical prints a result in an order that does not depend on the
// storage, floats by their bits.
func canonical(v any) string {
	var lines []string
	f := func(x float64) string {
		if math.IsNaN(x) {
			return "NaN"
		}
		return fmt.Sprintf("%x", math.Float64bits(x))
	}
	switch v := v.(type) {
	case promql.Vector:
		for _, s := range v {
			lines = append(lines, fmt.Sprintf("%s %d %s", s.Metric, s.T, f(s.F)))
		}
		slices.Sort(lines)
	case promql.Matrix:
		for _, s := range v {
			var b strings.Builder
			b.WriteString(s.Metric.String())
			for _, p := range s.Floats {
				fmt.Fprintf(&b, " %d:%s", p.T, f(p.F))
			}
			lines = append(lines, b.String())
		}
		slices.Sort(lines)
	case promql.Scalar:
		lines = append(lines, fmt.Sprintf("%d %s", v.T, f(v.V)))
	default:
		lines = append(lines, fmt.Sprint(v))
	}
	if len(lines) == 0 {
		return "[]"
	}
	return strings.Join(lines, "\n")
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

var _ = labels.EmptyLabels
