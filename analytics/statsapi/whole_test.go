package statsapi

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestQuery_WholeVisits: the queries whose visits count whole are those
// with visit: filters alone, visit: and time dimensions, no conversion
// rate, and whole UTC days for their range and time buckets; the 12-month
// queries of the analytics-range benchmark are among them.
func TestQuery_WholeVisits(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 7, 15, 4, 5, 0, time.UTC)
	google := `"filters":[["is","visit:source",["Google"]]]`
	for _, c := range []struct {
		query string
		loc   *time.Location
		want  bool
	}{
		{`"metrics":["visits"],"dimensions":["visit:country"],"date_range":"12mo",` + google, time.UTC, true},
		{`"metrics":["visitors","pageviews"],"dimensions":["time:month"],"date_range":"12mo",` + google, time.UTC, true},
		{`"metrics":["visitors","visits","pageviews"],"dimensions":["visit:country","time:month"],"date_range":"12mo",` + google, time.UTC, true},
		{`"metrics":["visits","bounce_rate"],"dimensions":["visit:entry_page","time:day"],"date_range":"7d","filters":[["not",["is","visit:device",["Mobile"]]]]`, time.UTC, true},
		{`"metrics":["visits"],"dimensions":["time:hour"],"date_range":"day",` + google, time.UTC, false},
		{`"metrics":["visits"],"dimensions":["visit:country"],"date_range":["2026-12-01T10:00:00Z","2026-12-02T00:00:00Z"],` + google, time.UTC, false},
		{`"metrics":["visits"],"dimensions":["visit:country"],"date_range":"12mo",` + google, paris, false},
		{`"metrics":["visits"],"dimensions":["event:page"],"date_range":"12mo",` + google, time.UTC, false},
		{`"metrics":["visits"],"dimensions":["visit:country"],"date_range":"12mo","filters":[["is","event:page",["/"]]]`, time.UTC, false},
		{`"metrics":["visits"],"dimensions":["visit:country"],"date_range":"12mo","filters":[["or",[["is","visit:source",["Google"]],["is","event:name",["Buy"]]]]]`, time.UTC, false},
		{`"metrics":["visits","conversion_rate"],"dimensions":["visit:country"],"date_range":"12mo","filters":[["is","event:goal",["signup"]]]`, time.UTC, false},
	} {
		q, err := Parse([]byte(`{"site_id":"a",` + c.query + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		from, to, err := q.DateRange.resolve(siteTime{loc: c.loc}, now)
		if err != nil {
			t.Fatal(err)
		}
		var bs []bucket
		if ti := q.timeIndex(); ti >= 0 {
			var ok bool
			if bs, ok = buckets(granularityOf(q.Dimensions[ti], from, to), from, to, c.loc, 1000); !ok {
				t.Fatalf("%s: too many buckets", c.query)
			}
		}
		if got := q.wholeVisits(bs, from, to); got != c.want {
			t.Errorf("%s in %s: wholeVisits %v, want %v", c.query, c.loc, got, c.want)
		}
	}
}

// TestVisitorSet: a visitorSet counts the distinct ids of a map of
// strings, with ids of 16 lowercase hex digits, the same digits in upper
// case (another id), shorter and longer ones, and repeats; counted
// midway and at the end, with few ids and with more than it gathers
// before it compacts them.
func TestVisitorSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 50 {
		s, want := newVisitorSet(), map[string]struct{}{}
		// Some rounds gather enough ids for the set to compact them.
		n, distinct := r.IntN(300), uint64(40)
		if round%10 == 0 {
			n, distinct = 5*minCompact, minCompact
		}
		for k := range n {
			if k%40000 == 39999 && s.len() != len(want) { // counted midway, and added to after
				t.Fatalf("round %d, id %d: %d visitors, want %d", round, k, s.len(), len(want))
			}
			id := fmt.Sprintf("%016x", r.Uint64N(distinct))
			switch r.IntN(6) {
			case 0:
				id = strings.ToUpper(id)
			case 1:
				id = id[:r.IntN(16)]
			case 2:
				id += "0"
			case 3:
				id = id[:15] + "g"
			}
			s.add(id)
			want[id] = struct{}{}
		}
		if s.len() != len(want) {
			t.Fatalf("round %d: %d visitors, want %d", round, s.len(), len(want))
		}
	}
	if u, ok := hex64("00000000000000ff"); !ok || u != 255 {
		t.Errorf("hex64(00000000000000ff) = %d, %v; want 255, true", u, ok)
	}
}
