package server_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
)

// statsOf runs a Stats API query on site and returns its rows as
// "dimensions: metrics" lines and its meta.
func statsOf(t *testing.T, e *env, site, extra string) ([]string, map[string]any) {
	t.Helper()
	var res struct {
		Results []struct {
			Metrics    []float64
			Dimensions []string
		}
		Meta map[string]any
	}
	body := fmt.Sprintf(`{"site_id":%q,"date_range":["2024-03-10","2024-03-19"]%s}`, site, extra)
	e.as(e.token, "POST", "/api/v2/query", body).must(t, 200).json(t, &res)
	var out []string
	for _, r := range res.Results {
		out = append(out, fmt.Sprint(r.Dimensions, r.Metrics))
	}
	return out, res.Meta
}

// Export a site's stats in Plausible's layout, import them into another
// site, and the second site's figures with imports included are the
// first's: totals, the daily time series and the breakdowns the
// dashboard shows. Without include.imports the second site has none: the
// imported figures are kept apart.
func TestPlausible_ExportImportRoundTrip(t *testing.T) {
	e, now := analyticsEnv(t)
	ctx := context.Background()
	e.as(e.token, "POST", "/api/v1/sites", `{"id":"a"}`).must(t, 201)
	e.as(e.token, "POST", "/api/v1/sites", `{"id":"b"}`).must(t, 201)
	rec := func(at time.Time, visitor, name, path, referrer, country, device string) {
		t.Helper()
		err := e.analytics.Record(ctx, analytics.Event{Site: "a", Time: at, VisitorID: visitor, Name: name, Path: path, Referrer: referrer,
			Country: country, Device: device, Browser: "Firefox", OS: "Linux"})
		if err != nil {
			t.Fatal(err)
		}
	}
	for d := 2; d <= 6; d++ {
		day := now.Add(-time.Duration(d) * 24 * time.Hour).Truncate(24 * time.Hour).Add(9 * time.Hour)
		for v := range d {
			id := fmt.Sprintf("v%d-%d", d, v)
			src := []string{"https://www.google.com/", "", "https://news.example/"}[v%3]
			rec(day.Add(time.Duration(v)*time.Minute), id, analytics.PageView, "/", src, []string{"FR", "DE"}[v%2], "Desktop")
			if v%2 == 0 {
				rec(day.Add(time.Duration(v)*time.Minute+30*time.Second), id, analytics.PageView, "/pricing", src, "FR", "Desktop")
				rec(day.Add(time.Duration(v)*time.Minute+40*time.Second), id, "Signup", "/pricing", src, "FR", "Desktop")
			}
		}
	}
	if _, err := e.analytics.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}

	ans := e.as(e.token, "GET", "/api/v1/sites/a/export?date_range=2024-03-10,2024-03-19", "").must(t, 200)
	if ct := ans.header.Get("Content-Type"); ct != "application/zip" {
		t.Fatalf("Content-Type %q", ct)
	}
	zr, err := zip.NewReader(bytes.NewReader(ans.body), int64(len(ans.body)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 10 || zr.File[0].Name != "imported_visitors_20240310_20240319.csv" {
		t.Fatalf("%d files, the first %q", len(zr.File), zr.File[0].Name)
	}

	// A read token may export, not import.
	reader := e.mint([]auth.Scope{auth.ScopeRead}, nil)
	e.as(reader, "GET", "/api/v1/sites/a/export?date_range=7d", "").must(t, 200)
	e.do("POST", "/api/v1/sites/b/import", "application/zip", bytes.NewReader(ans.body), "Authorization", "Bearer "+reader).must(t, 403)

	var imp struct {
		Days     int
		From, To string
	}
	e.do("POST", "/api/v1/sites/b/import", "application/zip", bytes.NewReader(ans.body)).must(t, 200).json(t, &imp)
	if imp.Days != 5 || imp.From != "2024-03-14" || imp.To != "2024-03-18" {
		t.Errorf("import %+v, want 5 days from 2024-03-14 to 2024-03-18", imp)
	}

	for _, q := range []string{
		`,"metrics":["visitors","visits","pageviews","bounce_rate","visit_duration","events"]`,
		`,"metrics":["visitors","pageviews","visits"],"dimensions":["time:day"]`,
		`,"metrics":["visits"],"dimensions":["visit:source"]`,
		`,"metrics":["visits"],"dimensions":["visit:country"]`,
		`,"metrics":["visits"],"dimensions":["visit:device"]`,
		`,"metrics":["visits"],"dimensions":["visit:entry_page"]`,
		`,"metrics":["pageviews"],"dimensions":["event:page"]`,
		`,"metrics":["events"],"dimensions":["event:name"]`,
	} {
		want, _ := statsOf(t, e, "a", q)
		if len(want) == 0 {
			t.Fatalf("%s: site a has no rows", q)
		}
		got, meta := statsOf(t, e, "b", q+`,"include":{"imports":true}`)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nimported %v\ncollected %v", q, got, want)
		}
		if meta["imports_included"] != true {
			t.Errorf("%s: meta %v, want imports_included", q, meta)
		}
		apart, meta := statsOf(t, e, "b", q)
		if len(apart) > 0 || meta["imports_included"] != false {
			t.Errorf("%s without imports: %v %v, want nothing", q, apart, meta)
		}
	}

	// A query the raw hits answer leaves the imported days out, and says so.
	_, meta := statsOf(t, e, "b", `,"metrics":["visits"],"filters":[["is","visit:country",["FR"]]],"include":{"imports":true}`)
	if w := fmt.Sprint(meta["warnings"]); meta["imports_included"] != false || !strings.Contains(w, "Imported stats are not included") {
		t.Errorf("filtered query with imports: meta %v", meta)
	}
	_, meta = statsOf(t, e, "a", `,"metrics":["visits"],"filters":[["is","visit:country",["FR"]]],"include":{"imports":true}`)
	if meta["warnings"] != nil {
		t.Errorf("a site without imported days warns of them: %v", meta)
	}

	// The export of b with its imported days is a's export.
	again := e.as(e.token, "GET", "/api/v1/sites/b/export?date_range=2024-03-10,2024-03-19&with_imported=true", "").must(t, 200)
	if !bytes.Equal(filesOf(t, again.body), filesOf(t, ans.body)) {
		t.Errorf("b's export with its imported days differs from a's")
	}
	e.as(e.token, "DELETE", "/api/v1/sites/b/import", "").must(t, 204)
	if got, _ := statsOf(t, e, "b", `,"metrics":["visits"],"include":{"imports":true}`); len(got) != 0 {
		t.Errorf("after DELETE: %v", got)
	}
}

// filesOf returns the files of a zip, names and contents, as one text.
func filesOf(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "== %s\n", f.Name)
		_, _ = out.ReadFrom(rc)
		rc.Close()
	}
	return out.Bytes()
}

// A refused row is a 400 naming its file, line and column, and nothing
// of the upload is imported, not even its valid files.
func TestPlausible_ImportRefused(t *testing.T) {
	e, _ := analyticsEnv(t)
	e.as(e.token, "POST", "/api/v1/sites", `{"id":"b"}`).must(t, 201)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"imported_visitors_20240101_20240131.csv": "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,5,9,1,6,60\n",
		"imported_pages_20240101_20240131.csv":    "date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n2024-01-01,x,/,1,1,many,,0\n",
	} {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var er struct{ Error, Message string }
	e.do("POST", "/api/v1/sites/b/import", "application/zip", bytes.NewReader(buf.Bytes())).must(t, 400).json(t, &er)
	if want := `imported_pages_20240101_20240131.csv: line 2: column pageviews: "many" is not a non-negative integer`; er.Message != want {
		t.Errorf("message %q, want %q", er.Message, want)
	}
	var res struct{ Results []struct{ Metrics []float64 } }
	e.as(e.token, "POST", "/api/v2/query", `{"site_id":"b","date_range":["2024-01-01","2024-01-31"],"metrics":["visits"],"include":{"imports":true}}`).must(t, 200).json(t, &res)
	if b, _ := json.Marshal(res.Results); len(res.Results) != 0 {
		t.Errorf("after a refused import: %s, want no rows", b)
	}
	e.do("POST", "/api/v1/sites/b/import", "text/csv", strings.NewReader("date\n")).must(t, 415)
	e.do("POST", "/api/v1/sites/b/import", "application/zip", strings.NewReader("not a zip")).must(t, 400)
	e.do("POST", "/api/v1/sites/nope/import", "application/zip", bytes.NewReader(buf.Bytes())).must(t, 404)
}

// An imported day is a date of the site's time zone, as Plausible's
// export dates its rows: west of UTC it is still that date's bucket.
func TestPlausible_ImportedDatesInSiteZone(t *testing.T) {
	e, _ := analyticsEnv(t)
	e.as(e.token, "POST", "/api/v1/sites", `{"id":"ny","time_zone":"America/New_York"}`).must(t, 201)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("imported_visitors_20240315_20240315.csv")
	_, _ = w.Write([]byte("date,visitors,pageviews,bounces,visits,visit_duration\n2024-03-15,7,9,1,8,80\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/api/v1/sites/ny/import", "application/zip", bytes.NewReader(buf.Bytes())).must(t, 200)
	var res struct {
		Results []struct {
			Metrics    []float64
			Dimensions []string
		}
	}
	e.as(e.token, "POST", "/api/v2/query", `{"site_id":"ny","date_range":["2024-03-14","2024-03-16"],"metrics":["visitors"],"dimensions":["time:day"],"include":{"imports":true}}`).must(t, 200).json(t, &res)
	if got := fmt.Sprint(res.Results); got != "[{[7] [2024-03-15]}]" {
		t.Errorf("rows %s, want 7 visitors on 2024-03-15", got)
	}
	e.as(e.token, "POST", "/api/v2/query", `{"site_id":"ny","date_range":["2024-03-16","2024-03-16"],"metrics":["visitors"],"include":{"imports":true}}`).must(t, 200).json(t, &res)
	if len(res.Results) != 0 {
		t.Errorf("the next day has the imported day: %v", res.Results)
	}
}
