package table

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/timetable-db/timetable/conformance"
)

func TestScan(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		for p := range 5 {
			fill(t, tbl, fmt.Sprintf("P%d", p), 40, nil)
		}
		all := collect(t, tbl.ScanAll(ctx, &Scan{Consistent: true}))
		if len(all) != 200 {
			t.Fatalf("ScanAll: %d items", len(all))
		}
		ids := func(items []Item) []string {
			out := make([]string, len(items))
			for i, it := range items {
				out[i] = str(it, "P") + "/" + str(it, "S")
			}
			slices.Sort(out)
			return out
		}
		want := ids(all)

		// Pages with a limit and a filter, by cursor.
		got := scanPages(t, tbl, Scan{Limit: 7, Filter: Attr("level").Eq("WARN"), Projection: []string{"level"}})
		if len(got) != 5*13 {
			t.Fatalf("filtered scan pages: %d items, want 65", len(got))
		}
		for _, it := range got {
			if len(it) != 1 || str(it, "level") != "WARN" {
				t.Fatalf("projected item %s", conformance.FormatItem(it))
			}
		}

		// Parallel segments: every item exactly once.
		for _, par := range []int{2, 4, 7} {
			got := collect(t, tbl.ScanAll(ctx, &Scan{Parallel: par, PageSize: 9}))
			if !slices.Equal(ids(got), want) {
				t.Fatalf("parallel %d: %d items", par, len(got))
			}
		}
		// Segments by hand, with cursors within a segment.
		var seg []Item
		for i := range 3 {
			seg = append(seg, scanPages(t, tbl, Scan{Segment: i, Segments: 3, Limit: 11})...)
		}
		if !slices.Equal(ids(seg), want) {
			t.Fatalf("manual segments: %d items", len(seg))
		}
		// A parallel scan with a limit, and stopped early.
		if got := collect(t, tbl.ScanAll(ctx, &Scan{Parallel: 3, Limit: 10})); len(got) != 10 {
			t.Fatalf("parallel with limit: %d items", len(got))
		}
		n := 0
		for range tbl.ScanAll(ctx, &Scan{Parallel: 4, PageSize: 2}) {
			if n++; n == 5 {
				break
			}
		}
		// Errors.
		for _, s := range []*Scan{{Segment: 3, Segments: 3}, {Segment: 1}, {Cursor: "bad"}, {Index: "none"}} {
			if _, err := tbl.Scan(ctx, s); err == nil {
				t.Errorf("Scan(%+v) accepted", *s)
			}
		}
		var gotErr error
		for _, err := range tbl.ScanAll(ctx, &Scan{Parallel: 2, Segments: 2}) {
			gotErr = err
		}
		if gotErr == nil {
			t.Error("parallel scan with Segments accepted")
		}
		if _, err := tbl.Scan(ctx, &Scan{Cursor: "bad"}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("bad cursor: %v", err)
		}
	})
}

func TestScan_Index(t *testing.T) {
	eachTable(t, withGSI, func(t *testing.T, ctx context.Context, tbl *Table) {
		var items []Item
		for i := range 30 {
			it := Item{"id": S(fmt.Sprintf("d%d", i%4)), "at": N(fmt.Sprint(i)), "v": N("1")}
			if i%3 == 0 {
				it["metric"], it["ts"] = S("temp"), S("x")
			}
			items = append(items, it)
		}
		if err := tbl.BatchPut(ctx, items); err != nil {
			t.Fatal(err)
		}
		if n := len(scanPages(t, tbl, Scan{Index: "byMetric", Limit: 3})); n != 10 {
			t.Fatalf("sparse index scan: %d items, want 10", n)
		}
	})
}

// scanPages reads s page by page, following the cursors (at most 100
// pages), and returns the items of all pages.
func scanPages(t *testing.T, tbl *Table, s Scan) []Item {
	t.Helper()
	var items []Item
	for range 100 {
		p, err := tbl.Scan(ctxT(t), &s)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, p.Items...)
		if p.Cursor == "" {
			return items
		}
		s.Cursor = p.Cursor
	}
	t.Fatalf("scan %+v: more than 100 pages", s)
	return nil
}
