package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/series"
)

// TestCLI_SitesGoalsStats: sites, goals and stats on a data folder whose
// analytics hold a few hits.
func TestCLI_SitesGoalsStats(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	mustCLI(t, "sites", "create", "blog", "--data", data, "--name", "My blog", "--domains", "blog.example", "--time-zone", "Europe/Paris")
	if code, _, errs := runCLI(t, "sites", "create", "blog", "--data", data); code != 1 || !strings.Contains(errs, "already exists") {
		t.Fatalf("second create: exit %d: %s", code, errs)
	}
	mustCLI(t, "sites", "update", "blog", "--data", data, "--name", "Blog", "--domains", "blog.example", "--public")
	if out := mustCLI(t, "sites", "show", "blog", "--data", data); !strings.Contains(out, "Blog") || !strings.Contains(out, "true") {
		t.Fatalf("sites show:\n%s", out)
	}
	mustCLI(t, "goals", "create", "signup", "--site", "blog", "--page", "/signup/*", "--data", data)
	mustCLI(t, "goals", "create", "buy", "--site", "blog", "--event", "Purchase", "--data", data)
	if code, _, errs := runCLI(t, "goals", "create", "x", "--site", "blog", "--data", data); code != 1 || !strings.Contains(errs, "--page") {
		t.Fatalf("goal without a match: exit %d: %s", code, errs)
	}
	if out := mustCLI(t, "goals", "list", "--site", "blog", "--data", data); !strings.Contains(out, "/signup/*") || !strings.Contains(out, "Purchase") {
		t.Fatalf("goals list:\n%s", out)
	}
	mustCLI(t, "goals", "delete", "buy", "--site", "blog", "--data", data)

	// Hits, recorded and aggregated in this process.
	ctx := context.Background()
	eng, err := openEngine(ctx, engineOptions{storage: storage{dir: data}, table: series.DefaultTable, flushInterval: -1, analyticsTable: analytics.DefaultTable,
		logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Hour).Add(-50 * time.Minute) // three minutes within one UTC day
	for i, p := range []string{"/", "/signup/a", "/"} {
		if err := eng.analytics.Record(ctx, analytics.Event{Site: "blog", Time: at.Add(time.Duration(i) * time.Minute), Name: analytics.PageView,
			VisitorID: "v" + string(rune('1'+i%2)), Path: p, Country: "FR"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.analytics.AggregateDay(ctx, "blog", at); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	days := at.UTC().AddDate(0, 0, -1).Format(time.DateOnly) + "," + at.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	out := mustCLI(t, "stats", "--site", "blog", "--range", days, "--metrics", "visitors,pageviews", "--data", data)
	if !strings.Contains(out, "VISITORS") || !strings.Contains(out, "2") || !strings.Contains(out, "3") {
		t.Fatalf("stats:\n%s", out)
	}
	out = mustCLI(t, "stats", "--site", "blog", "--range", days, "--dimension", "event:page", "--metrics", "pageviews", "--data", data)
	if !strings.Contains(out, "/signup/a") || !strings.Contains(out, "EVENT:PAGE") {
		t.Fatalf("stats by page:\n%s", out)
	}
	out = mustCLI(t, "stats", "--site", "blog", "--range", days, "--dimension", "event:page", "--metrics", "visitors", "--filter", "is:visit:country:FR", "--data", data)
	if !strings.Contains(out, "/signup/a") {
		t.Fatalf("stats with a filter:\n%s", out)
	}
	if code, _, errs := runCLI(t, "stats", "--site", "blog", "--range", "8d", "--data", data); code != 1 || !strings.Contains(errs, "Invalid date range") {
		t.Fatalf("stats with a bad range: exit %d: %s", code, errs)
	}
	if out := mustCLI(t, "sites", "--data", data); !strings.Contains(out, "blog") {
		t.Fatalf("sites list:\n%s", out)
	}
	mustCLI(t, "sites", "delete", "blog", "--data", data)
	if code, _, _ := runCLI(t, "sites", "show", "blog", "--data", data); code != 1 {
		t.Fatalf("show of a deleted site: exit %d", code)
	}
	tok := strings.TrimSpace(mustCLI(t, "token", "create", "--data", data, "--name", "dash", "--site", "blog", "--site", "shop"))
	if out := mustCLI(t, "token", "list", "--data", data); !strings.Contains(out, "blog,shop") || !strings.HasPrefix(tok, "tt_") {
		t.Fatalf("token list:\n%s", out)
	}
}

// TestCLI_SiteExclusions: sites update takes excluded address ranges and
// path patterns, shows them normalised, refuses a bad range with the
// server's reason, and an update without them clears them.
func TestCLI_SiteExclusions(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	mustCLI(t, "sites", "create", "blog", "--data", data, "--domains", "blog.example")
	mustCLI(t, "sites", "update", "blog", "--data", data, "--domains", "blog.example",
		"--excluded-ips", "127.0.0.9/8, ::1", "--excluded-paths", "/admin/**,/preview/*")
	out := mustCLI(t, "sites", "show", "blog", "--data", data)
	if !strings.Contains(out, "EXCLUDED IPS") || !strings.Contains(out, "127.0.0.0/8,::1") || !strings.Contains(out, "/admin/**,/preview/*") {
		t.Fatalf("sites show:\n%s", out)
	}
	if code, _, errs := runCLI(t, "sites", "update", "blog", "--data", data, "--excluded-ips", "127.0.0.0/33"); code != 1 || !strings.Contains(errs, `IP range "127.0.0.0/33"`) {
		t.Fatalf("a bad range: exit %d: %s", code, errs)
	}
	mustCLI(t, "sites", "update", "blog", "--data", data, "--domains", "blog.example")
	if out := mustCLI(t, "sites", "show", "blog", "--data", data); strings.Contains(out, "/admin/**") {
		t.Fatalf("sites show after an update without exclusions:\n%s", out)
	}
}
