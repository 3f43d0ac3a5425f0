package series

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestMetricIndex_Projection checks that the metric index projects what
// MetricRange reads and not the whole items, and that a kind whose fields
// the index was not made for gets an error rather than no points.
func TestMetricIndex_Projection(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(48 * time.Hour))
		api := b.open(t, clk)
		opts := testOptions(t, clk)
		a := Schema{Name: "A", Fields: []string{"x"}, Tags: []string{"tag"}, Layout: ItemPerReading, MetricIndex: true}
		st := openStore(t, api, opts, a)
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(opts.Table)})
		if err != nil {
			t.Fatal(err)
		}
		var p *types.Projection
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == metricIndex {
				p = g.Projection
			}
		}
		if p == nil || p.ProjectionType != types.ProjectionTypeInclude {
			t.Fatalf("metric index projection %+v, want INCLUDE", p)
		}
		got := slices.Sorted(slices.Values(p.NonKeyAttributes))
		if want := []string{attrData, attrBase, attrRead, attrSrc, "x"}; !slices.Equal(got, want) {
			t.Fatalf("projected %v, want %v", got, want)
		}
		r := Reading{Time: t0, Values: []float64{1.5}, Tags: []string{"t"}}
		if err := mustKind(t, st, "A").WriteSync(ctx, "a1", r); err != nil {
			t.Fatal(err)
		}
		pts, err := mustKind(t, st, "A").MetricRange(ctx, "x", t0, t0.Add(time.Hour), 0)
		if err != nil || len(pts) != 1 || pts[0].Value != 1.5 {
			t.Fatalf("MetricRange: %v, %v", pts, err)
		}

		// Another process registers more kinds on the same table.
		bs := Schema{Name: "B", Fields: []string{"y"}, Layout: DayPartitioned, MetricIndex: true}
		cs := Schema{Name: "C", Fields: []string{"z"}, MetricIndex: true}
		st2, err := Open(ctx, api, opts, a, bs, cs)
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		if err := st2.EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
		if err := mustKind(t, st2, "C").WriteSync(ctx, "c1", Reading{Time: t0, Values: []float64{2.5}}); err != nil {
			t.Fatal(err)
		}
		pts, err = mustKind(t, st2, "C").MetricRange(ctx, "z", t0, t0.Add(time.Hour), 0)
		if err != nil || len(pts) != 1 || pts[0].Value != 2.5 {
			t.Fatalf("MetricRange of a chunk kind added later: %v, %v", pts, err)
		}
		_, err = mustKind(t, st2, "B").MetricRange(ctx, "y", t0, t0.Add(time.Hour), 0)
		if err == nil || !strings.Contains(err.Error(), "does not project") {
			t.Fatalf("MetricRange of a field the index does not project: %v", err)
		}
	})
}
