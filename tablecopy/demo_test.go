package tablecopy

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/demo"
	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
)

// demoDays of traffic: raw hits live 30 days, so the oldest days' hits
// expire as the clock moves on.
const demoDays = 33

// demoEngine opens an in-memory engine on clk whose TTL sweeper runs every
// millisecond.
func demoEngine(t testing.TB, clk *demo.Clock) *local.DB {
	t.Helper()
	db, err := local.Open("", &local.Options{InMemory: true, Now: clk.Now, TTLInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// demoSource returns an engine holding a small demo site's web analytics
// (package analytics/demo: demoDays days of traffic, aggregated, ending
// at present), on clk, which is left at present.
func demoSource(t testing.TB, present time.Time) (*local.DB, *demo.Clock) {
	t.Helper()
	ctx := context.Background()
	from := present.Truncate(24*time.Hour).AddDate(0, 0, 1-demoDays)
	clk := demo.NewClock(from)
	db := demoEngine(t, clk)
	st, err := analytics.Open(ctx, db, &analytics.Options{Now: clk.Now, AggregateEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := demo.CreateSite(ctx, st, "demo"); err != nil {
		t.Fatal(err)
	}
	g := demo.New(&demo.Options{Site: "demo", Seed: 3, VisitsPerDay: 25, End: present})
	if _, err := demo.Load(ctx, st, clk, g, &demo.LoadOptions{From: from, Days: demoDays, Now: present}); err != nil {
		t.Fatal(err)
	}
	clk.Set(present)
	return db, clk
}

// liveItems returns the items of the analytics table of api whose TTL
// attribute ttl has not passed at now, as conformance.FormatItem renders
// them, sorted.
func liveItems(t testing.TB, api timetable.API, ttl string, now time.Time) []string {
	t.Helper()
	var out []string
	scanItems(t, api, analytics.DefaultTable, func(it map[string]types.AttributeValue) {
		if !expired(it, ttl, now.Unix()) {
			out = append(out, conformance.FormatItem(it))
		}
	})
	return out
}

// ttls returns the TTL attribute ttl of the items of the analytics table
// of api that have one, in seconds.
func ttls(t testing.TB, api timetable.API, ttl string) []int64 {
	t.Helper()
	var out []int64
	scanItems(t, api, analytics.DefaultTable, func(it map[string]types.AttributeValue) {
		if n, ok := it[ttl].(*types.AttributeValueMemberN); ok {
			v, err := strconv.ParseInt(n.Value, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	})
	return out
}

// TestCopy_DemoExpiring copies a demo site's web analytics while the
// clock of both engines runs on by an hour at every write, so that raw
// hits expire, and the source deletes them, during the copy: before their
// page is read, or after. The copy must pass its check and leave the same
// unexpired items on both sides. The destination deletes expired items
// too (so some may be gone by the check), or, like DynamoDB Local
// against this clock, never: then it holds items the source has deleted,
// and a count on both sides at the end, as the check was, differs. This
// is the copy that failed its count check on the demo folder.
func TestCopy_DemoExpiring(t *testing.T) {
	from, clk := demoSource(t, time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	ttl, err := ttlOf(context.Background(), from, analytics.DefaultTable)
	if err != nil || ttl == "" {
		t.Fatalf("the demo's table has no TTL: %q, %v", ttl, err)
	}
	// The second copy starts where the first one's clock stopped.
	for _, sweeps := range []bool{true, false} {
		start := clk.Now()
		before := ttls(t, from, ttl)
		to := demoEngine(t, clk)
		if !sweeps {
			db, err := local.Open("", &local.Options{InMemory: true, Now: clk.Now, TTLInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			to = db
		}
		rep, err := Copy(context.Background(), from, to, &Options{Segments: 4, PageItems: 50, Now: clk.Now,
			Progress: func(p Progress) { clk.Advance(time.Hour) }})
		if err != nil {
			t.Fatalf("destination sweeps %v: %v\n%s", sweeps, err, rep)
		}
		tr := rep.Tables[0]
		if !tr.Checked || tr.Missing != 0 || tr.Found+tr.Expired != tr.Read || tr.Read < 1000 || !sweeps && tr.Expired != 0 {
			t.Errorf("destination sweeps %v: report: %+v", sweeps, tr)
		}
		end := clk.Now()
		expiring := 0
		for _, v := range before {
			if v > start.Unix() && v <= end.Unix() {
				expiring++
			}
		}
		if expiring == 0 {
			t.Fatalf("no item of the source expired during the copy (%v to %v): the test tests nothing", start, end)
		}
		if !sweeps {
			// What the old check compared: the destination holds items
			// that the source deleted once they were copied.
			n, err := count(context.Background(), from, analytics.DefaultTable, 1)
			m, err2 := count(context.Background(), to, analytics.DefaultTable, 1)
			if err != nil || err2 != nil || m <= n {
				t.Errorf("counts: %d in the source, %d in the destination (%v, %v): want more in the destination", n, m, err, err2)
			}
		}
		a, b := liveItems(t, from, ttl, end), liveItems(t, to, ttl, end)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("destination sweeps %v: unexpired items: %d in the source, %d in the destination", sweeps, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("destination sweeps %v: item %d differs:\n%s\n%s", sweeps, i, a[i], b[i])
			}
		}
		t.Logf("destination sweeps %v: %s (clock %v to %v, %d items of the source expired meanwhile)", sweeps, rep, start, end, expiring)
	}
}

// TestCopy_DemoResume copies a demo site's web analytics, interrupted
// mid-way and resumed, to another engine, and to DynamoDB Local and back
// when TIMETABLE_DYNAMODB_ENDPOINT is set: each item arrives once, and the
// copies hold the source's items.
func TestCopy_DemoResume(t *testing.T) {
	present := time.Now().UTC().Truncate(time.Second)
	from, clk := demoSource(t, present)
	// An hour on: the hits that expire within the hour are deleted before
	// the copy, so that DynamoDB Local, which expires items on the wall
	// clock, deletes none of those copied while the test runs.
	clk.Set(present.Add(time.Hour))
	ttl, _ := ttlOf(context.Background(), from, analytics.DefaultTable)
	var want []string
	check := func(api timetable.API, side string) {
		t.Helper()
		got := liveItems(t, api, ttl, clk.Now())
		if len(got) != len(want) {
			t.Fatalf("%s: %d unexpired items, want %d", side, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: item %d differs:\n%s\n%s", side, i, got[i], want[i])
			}
		}
	}
	want = liveItems(t, from, ttl, clk.Now())
	if len(want) < 1000 {
		t.Fatalf("the source holds %d unexpired items", len(want))
	}

	copyResumed := func(to timetable.API) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		state := filepath.Join(t.TempDir(), "state.json")
		o := &Options{Tables: []string{analytics.DefaultTable}, Segments: 3, PageItems: 100, StateFile: state, Now: clk.Now,
			Progress: func(p Progress) {
				if p.Copied > int64(len(want))/2 {
					cancel()
				}
			}}
		if _, err := Copy(ctx, from, to, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted copy: %v", err)
		}
		ctr := &counting{API: to}
		o.Resume, o.Progress = true, nil
		rep, err := Copy(context.Background(), from, ctr, o)
		if err != nil {
			t.Fatal(err)
		}
		tr := rep.Tables[0]
		if tr.Resumed == 0 || !tr.Checked || tr.Read != ctr.puts.Load() || tr.Read >= int64(len(want)) {
			t.Errorf("resumed copy: %d puts, report %+v", ctr.puts.Load(), tr)
		}
	}

	to := demoEngine(t, clk)
	copyResumed(to)
	check(to, "engine")

	endpoint := dynamotest.Endpoint()
	if endpoint == "" {
		t.Skip("TIMETABLE_DYNAMODB_ENDPOINT is not set: the copy to DynamoDB Local and back is skipped")
	}
	ddb := dynamotest.NewClient(endpoint, dynamotest.AccessKey("tablecopydemo"+strconv.FormatInt(time.Now().UnixNano(), 36)))
	t.Cleanup(func() {
		ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(analytics.DefaultTable)})
	})
	copyResumed(ddb)
	check(ddb, "DynamoDB Local")
	back := demoEngine(t, clk)
	if _, err := Copy(context.Background(), ddb, back, &Options{Now: clk.Now}); err != nil {
		t.Fatal(err)
	}
	check(back, "back from DynamoDB Local")
}
