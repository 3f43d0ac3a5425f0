package main

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
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

// TestCLI_SitesImportExport: a zip in Plausible's export layout imported
// with `sites import`, its figures shown by `stats --with-imported` (and
// not without), then exported with `sites export --with-imported`.
func TestCLI_SitesImportExport(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	mustCLI(t, "sites", "create", "blog", "--data", data)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"imported_visitors_20240101_20240102.csv": "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,7,19,2,8,400\n2024-01-02,3,4,1,3,30\n",
		"imported_pages_20240101_20240102.csv":    "date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n2024-01-01,blog.example,/hello,5,5,12,,3\n",
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "plausible-export.zip")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, "sites", "import", "blog", in, "--data", data); !strings.Contains(out, "imported 2 days (2024-01-01 to 2024-01-02) into blog") {
		t.Fatalf("sites import:\n%s", out)
	}
	out := mustCLI(t, "stats", "--site", "blog", "--range", "2024-01-01,2024-01-31", "--metrics", "visitors,pageviews", "--with-imported", "--data", data)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || strings.Fields(lines[1])[0] != "10" || strings.Fields(lines[1])[1] != "23" {
		t.Fatalf("stats --with-imported:\n%s", out)
	}
	out = mustCLI(t, "stats", "--site", "blog", "--range", "2024-01-01,2024-01-31", "--metrics", "visitors", "--data", data)
	if strings.Contains(out, "10") {
		t.Fatalf("stats without imports shows them:\n%s", out)
	}
	exp := filepath.Join(dir, "out.zip")
	mustCLI(t, "sites", "export", "blog", "--range", "2024-01-01,2024-01-02", "--with-imported", "--output", exp, "--data", data)
	b, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open("imported_visitors_20240101_20240102.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	if want := "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,7,19,2,8,400\n2024-01-02,3,4,1,3,30\n"; string(got) != want {
		t.Errorf("exported visitors:\n%s\nwant\n%s", got, want)
	}
	if code, _, errs := runCLI(t, "sites", "import", "blog", filepath.Join(dir, "missing.zip"), "--data", data); code != 1 || !strings.Contains(errs, "missing.zip") {
		t.Errorf("import of a missing file: exit %d: %s", code, errs)
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
