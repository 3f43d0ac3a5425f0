package table

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/timetable-db/timetable"
)

// queryOnly hides an API's optional capabilities: QueryPages runs its
// queries through Query on it.
type queryOnly struct{ timetable.API }

// TestQueryPages_AsQuery: QueryPages answers each query (partitions,
// ranges, limits, page sizes, cursors, both directions, filters,
// projections, large items, bad queries) with Query's page or error, and
// counts the same calls and read units as those Query calls, on each
// backend, with and without the backend's batch capability.
func TestQueryPages_AsQuery(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, hide := range []bool{false, true} {
			t.Run(fmt.Sprintf("through-query=%v", hide), func(t *testing.T) {
				api := b.api
				if hide {
					api = queryOnly{api}
				}
				tbl := newTable(t, api, pkSk, nil)
				ctx := ctxT(t)
				big := strings.Repeat("x", 150_000)
				fill(t, tbl, "A", 40, nil)
				fill(t, tbl, "B", 9, func(i int, it Item) { it["big"] = S(big) })
				fill(t, tbl, "C", 3, nil)
				r := rand.New(rand.NewPCG(3, 4))
				var qs []*Query
				for range 60 {
					q := &Query{Hash: []string{"A", "B", "C", "D"}[r.IntN(4)], Limit: r.IntN(3) * r.IntN(8), PageSize: r.IntN(2) * r.IntN(6), Reverse: r.IntN(2) == 0}
					switch r.IntN(4) {
					case 1:
						q.Range = Between(fmt.Sprintf("r%03d", r.IntN(20)), fmt.Sprintf("r%03d", 10+r.IntN(30)))
					case 2:
						q.Range = Gte(fmt.Sprintf("r%03d", r.IntN(40)))
					}
					if r.IntN(4) == 0 {
						q.Filter = Attr("level").Eq("ERROR")
					}
					if r.IntN(4) == 0 {
						q.Projection = []string{"n"}
					}
					if r.IntN(3) == 0 {
						c := *q
						c.Limit = 2
						if p, err := tbl.Query(ctx, &c); err == nil {
							q.Cursor = p.Cursor
						}
					}
					if r.IntN(15) == 0 {
						q.Cursor = "not a cursor"
					}
					qs = append(qs, q)
				}
				qs = append(qs, nil)
				before := tbl.Stats().Ops["Query"]
				pages, errs := tbl.QueryPages(ctx, qs)
				mid := tbl.Stats().Ops["Query"]
				for i, q := range qs {
					if q == nil {
						if errs[i] == nil {
							t.Errorf("query %d: nil Query answered", i)
						}
						continue
					}
					want, werr := tbl.Query(ctx, q)
					if (werr == nil) != (errs[i] == nil) || werr != nil && werr.Error() != errs[i].Error() {
						t.Fatalf("query %d %+v: error %v, Query's %v", i, *q, errs[i], werr)
					}
					if !reflect.DeepEqual(pages[i], want) {
						t.Fatalf("query %d %+v: page %v, Query's %v", i, *q, pages[i], want)
					}
				}
				after := tbl.Stats().Ops["Query"]
				if got, want := mid.Calls-before.Calls, after.Calls-mid.Calls; got != want {
					t.Errorf("%d calls counted, %d through Query", got, want)
				}
				if got, want := mid.ReadUnits-before.ReadUnits, after.ReadUnits-mid.ReadUnits; got != want {
					t.Errorf("%v read units counted, %v through Query", got, want)
				}
			})
		}
	})
}
