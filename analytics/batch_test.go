package analytics

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// TestStore_RecordMany_SameItemsAsRecord records the same hits with Record
// into one table and with RecordMany into another, with the same random
// ids, and checks the two tables hold the same items: hits, realtime
// counters and pending marks.
func TestStore_RecordMany_SameItemsAsRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		open := func() *Store {
			clk := newClock(now)
			s := openStore(t, b, clk, &Options{Rand: rand.NewChaCha8([32]byte{1})})
			if err := s.CreateSite(ctx, Site{ID: "a", Domains: []string{"a.example"}}); err != nil {
				t.Fatal(err)
			}
			return s
		}
		one, many := open(), open()
		var es []Event
		for i := range 60 {
			// The first ten in the realtime window, the others over two days.
			e := Event{Site: "a", Time: now.Add(-time.Duration(i) * 20 * time.Second), Name: PageView, VisitorID: "v" + string(rune('a'+i%7)),
				Path: "/p" + string(rune('a'+i%5)), Referrer: "https://www.google.com/", Country: "DE", Browser: "Firefox", OS: "Mac", Device: "Desktop"}
			if i >= 10 {
				e.Time = now.Add(-time.Duration(i) * 53 * time.Minute)
			}
			if i%4 == 1 {
				e.Name, e.Props, e.UTM = "Signup", map[string]string{"plan": "free"}, UTM{Source: "newsletter", Medium: "email"}
			}
			if i%9 == 8 {
				e.Name = Engagement
			}
			es = append(es, e)
		}
		for _, e := range es {
			if err := one.Record(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := many.RecordMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		a, b2 := items(t, one), items(t, many)
		if len(a) < len(es) {
			t.Fatalf("Record wrote %d items for %d hits", len(a), len(es))
		}
		if !reflect.DeepEqual(a, b2) {
			t.Errorf("RecordMany wrote other items than Record:\nRecord:     %d items\nRecordMany: %d items", len(a), len(b2))
			for k, v := range a {
				if !reflect.DeepEqual(v, b2[k]) {
					t.Errorf("item %s: Record %v, RecordMany %v", k, v, b2[k])
				}
			}
		}
	})
}

func TestStore_RecordMany_BadInputWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk, s := openWithSite(t, b, time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC), "a")
		before := len(items(t, s))
		good := Event{Site: "a", Time: clk.Now(), Name: PageView, VisitorID: "v", Path: "/"}
		bad := good
		bad.Path = "no-slash"
		err := s.RecordMany(ctx, []Event{good, good, bad, good})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "event 2") {
			t.Errorf("RecordMany with a bad third event: %v, want ErrInvalid naming event 2", err)
		}
		old := good
		old.Time = clk.Now().Add(-31 * 24 * time.Hour)
		if err := s.RecordMany(ctx, []Event{old}); !errors.Is(err, ErrInvalid) {
			t.Errorf("RecordMany of an event older than the raw retention: %v, want ErrInvalid", err)
		}
		unknown := good
		unknown.Site = "b"
		if err := s.RecordMany(ctx, []Event{good, unknown}); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("RecordMany on an unknown site: %v, want ErrNotFound", err)
		}
		if n := len(items(t, s)); n != before {
			t.Errorf("refused batches wrote %d items", n-before)
		}
		if err := s.RecordMany(ctx, nil); err != nil {
			t.Errorf("RecordMany(nil) = %v", err)
		}
	})
}

// items returns every item of s's table by its key, string sets sorted
// (a backend returns them in any order).
func items(t *testing.T, s *Store) map[string]table.Item {
	t.Helper()
	// The realtime counters Record gathers for a second, written now.
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string]table.Item{}
	for it, err := range s.Table().ScanAll(context.Background(), &table.Scan{Consistent: true}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range it {
			if ss, ok := v.(*types.AttributeValueMemberSS); ok {
				slices.Sort(ss.Value)
			}
		}
		out[getS(it, attrPK)+" "+getS(it, attrSK)] = it
	}
	return out
}

// TestStore_RawStats: the figures computed from the raw hits equal the
// aggregates' for whole days.
func TestStore_RawStats(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		day := time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)
		_, s := openWithSite(t, b, day.Add(36*time.Hour), "a")
		for i := range 40 {
			rec(t, s, Event{Site: "a", Time: day.Add(time.Duration(i) * 47 * time.Minute), Name: PageView, VisitorID: "v" + string(rune('a'+i%6)),
				Path: "/p" + string(rune('a'+i%4)), Referrer: "https://www.bing.com/"})
		}
		for _, d := range []time.Time{day, day.AddDate(0, 0, 1)} {
			if err := s.AggregateDay(ctx, "a", d); err != nil {
				t.Fatal(err)
			}
		}
		from, to := day, day.AddDate(0, 0, 2)
		sm, top, err := s.RawStats(ctx, "a", from, to, []Dimension{DimPage, DimSource}, 3)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.Summary(ctx, "a", from, to)
		if err != nil {
			t.Fatal(err)
		}
		pages, err := s.Breakdown(ctx, "a", DimPage, from, to, 3)
		if err != nil {
			t.Fatal(err)
		}
		if sm.PageViews != 40 || sm.Visits != want.Visits || sm.PageViews != want.PageViews || sm.Visitors != want.Visitors {
			t.Errorf("RawStats %+v, Summary %+v", sm, want)
		}
		if !reflect.DeepEqual(top[DimPage], pages) || len(top[DimSource]) != 1 || top[DimSource][0].Value != "Bing" {
			t.Errorf("RawStats top %v, Breakdown %v", top, pages)
		}
	})
}
