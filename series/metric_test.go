package series

import (
	"context"
	"errors"
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
		api, opts := openOn(t, b, clk)
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
		st2 := mustOpen(t, ctx, api, opts, a, bs, cs)
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

// TestMetricIndex_DefineAddsIndex: a kind defined, or changed, with
// MetricIndex on a table without the index adds it, so MetricRange
// answers at once; a kind of Open's schemas on a table without the index
// gets ErrIndexNotReady, not the backend's error, until EnsureTable.
func TestMetricIndex_DefineAddsIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(48 * time.Hour))
		api, opts := openOn(t, b, clk)
		st := openStore(t, api, opts)
		r := Reading{Time: t0, Values: []float64{1.5}}
		var sc Schema
		for _, change := range []bool{true, false} {
			sc = Schema{Name: "D", Fields: []string{"x"}, MetricIndex: true}
			if change {
				sc.Name = "E"
				plain := sc
				plain.MetricIndex = false
				if _, err := st.Define(ctx, plain); err != nil {
					t.Fatal(err)
				}
			}
			var k *Kind
			var err error
			if change {
				k, err = st.Change(ctx, sc)
			} else {
				k, err = st.Define(ctx, sc)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := k.WriteSync(ctx, "d1", r); err != nil {
				t.Fatal(err)
			}
			pts, err := k.MetricRange(ctx, "x", t0, t0.Add(time.Hour), 0)
			if err != nil || len(pts) != 1 || pts[0].Value != 1.5 {
				t.Fatalf("change %v: MetricRange: %v, %v", change, pts, err)
			}
			// Drop the index, for the next round.
			_, err = api.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(opts.Table),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(metricIndex)}}}})
			if err != nil {
				t.Fatal(err)
			}
			waitNoIndex(t, api, opts.Table)
		}
		// Another Store opened with the kind finds no index.
		st2 := mustOpen(t, ctx, api, opts, sc)
		defer st2.Close()
		_, err := mustKind(t, st2, "D").MetricRange(ctx, "x", t0, t0.Add(time.Hour), 0)
		if !errors.Is(err, ErrIndexNotReady) {
			t.Fatalf("MetricRange without the index: %v, want ErrIndexNotReady", err)
		}
		if err := st2.EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
		if pts, err := mustKind(t, st2, "D").MetricRange(ctx, "x", t0, t0.Add(time.Hour), 0); err != nil || len(pts) != 1 {
			t.Fatalf("MetricRange after EnsureTable: %v, %v", pts, err)
		}
	})
}

// waitNoIndex waits until table has no metric index.
func waitNoIndex(t *testing.T, api interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}, name string) {
	t.Helper()
	for range 600 {
		out, err := api.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(out.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
			return aws.ToString(g.IndexName) == metricIndex
		}) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the metric index is still there")
}
