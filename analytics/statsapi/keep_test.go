package statsapi

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// TestQuery_Keep: a visit that the filters on visit: dimensions refuse
// has no hit that the query selects, with its goal conditions or without
// (the conversion rate's denominator): leaving it out before its hits are
// formed changes no figure. Checked on random visits and filters; the
// test of the filters refuses some visits and keeps some with selected
// hits, so that it proves something.
func TestQuery_Keep(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	dims := []string{"visit:country", "visit:source", "visit:device", "visit:entry_page", "event:page", "event:name", "event:goal", "event:props:plan"}
	leaf := func() Filter {
		d := pick(dims...)
		return Filter{Op: pick("is", "is_not", "contains", "contains_not"), Dimension: d, Values: []string{pick("FR", "DE", "Google", "mobile", "/", "/a", "Buy", "pro", "g1", "o")}}
	}
	filter := func(depth int) Filter {
		if depth > 0 && r.IntN(3) == 0 {
			op := pick("and", "or", "not")
			n := 2
			if op == "not" {
				n = 1
			}
			f := Filter{Op: op}
			for range n {
				f.Children = append(f.Children, leaf())
			}
			return f
		}
		return leaf()
	}
	visit := func() *analytics.Visit {
		v := &analytics.Visit{VisitorID: fmt.Sprint(r.IntN(9)), Start: time.Unix(0, 0), Country: pick("FR", "DE", ""), Source: pick("Google", "", "x.org"),
			Device: pick("mobile", "desktop"), EntryPage: pick("/", "/a")}
		for range 1 + r.IntN(4) {
			h := analytics.Hit{Name: pick(analytics.PageView, "Buy"), Path: pick("/", "/a", "/b")}
			if r.IntN(2) == 0 {
				h.Goals = []string{pick("g1", "g2")}
			}
			if h.Name != analytics.PageView && r.IntN(2) == 0 {
				h.Props = map[string]string{"plan": pick("pro", "free")}
			}
			v.Hits = append(v.Hits, h)
		}
		return v
	}
	refused, keptSelected := 0, 0
	for range 3000 {
		q := &Query{}
		for range 1 + r.IntN(2) {
			q.Filters = append(q.Filters, filter(1))
		}
		keep := q.keep()
		for range 5 {
			v := visit()
			if keep != nil && !keep(v) {
				refused++
				for i := range v.Hits {
					if q.match(v, &v.Hits[i], false) || q.match(v, &v.Hits[i], true) {
						t.Fatalf("filters %+v refuse visit %+v, whose hit %d they select", q.Filters, v, i)
					}
				}
				continue
			}
			for i := range v.Hits {
				if keep != nil && q.match(v, &v.Hits[i], false) {
					keptSelected++
					break
				}
			}
		}
	}
	if refused < 1000 || keptSelected < 1000 {
		t.Fatalf("%d visits refused, %d kept with a selected hit: the check proves little", refused, keptSelected)
	}
}
