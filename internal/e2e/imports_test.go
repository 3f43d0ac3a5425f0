package e2e

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/timetable-db/timetable/internal/browsertest"
)

// TestDashboard_ImportedData: a site with collected visits and a
// Plausible export imported (files written here in Plausible's layout)
// shows the switch "Include imported data", on by default: the figures,
// the chart and the sources add the imported days, as Plausible's
// dashboard does; turned off, the figures are the collected ones and the
// URL keeps the choice.
func TestDashboard_ImportedData(t *testing.T) {
	e := newDashboardEnv(t)
	e.seed("imports.test", "", 26*time.Hour, 50*time.Hour)
	d1, d2 := time.Now().UTC().AddDate(0, 0, -6), time.Now().UTC().AddDate(0, 0, -5)
	name := func(table string) string {
		return fmt.Sprintf("imported_%s_%s_%s.csv", table, d1.Format("20060102"), d2.Format("20060102"))
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for file, body := range map[string]string{
		name("visitors"): "date,visitors,pageviews,bounces,visits,visit_duration\n" +
			d1.Format(time.DateOnly) + ",40,90,10,50,3000\n" + d2.Format(time.DateOnly) + ",20,30,5,25,1200\n",
		name("sources"): "date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces\n" +
			d1.Format(time.DateOnly) + ",Imported Blog,,,,,,,90,40,50,3000,10\n" + d2.Format(time.DateOnly) + ",Imported Blog,,,,,,,30,20,25,1200,5\n",
	} {
		w, err := zw.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(e.api+"/api/v1/sites/imports.test/import", "application/zip", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("import: status %d", resp.StatusCode)
	}
	visitors := func(imports bool) string {
		var a struct{ Results []struct{ Metrics []float64 } }
		q := map[string]any{"site_id": "imports.test", "date_range": "30d", "metrics": []string{"visitors"}, "include": map[string]bool{"imports": imports}}
		if st := e.call(http.MethodPost, "/api/v2/query", q, &a); st != http.StatusOK || len(a.Results) != 1 {
			t.Fatalf("visitors: status %d, %+v", st, a)
		}
		return fmt.Sprint(a.Results[0].Metrics[0])
	}
	with, without := visitors(true), visitors(false)
	if with == without {
		t.Fatalf("visitors with imports %s, without %s: the import added nothing", with, without)
	}

	tab, con := e.dashboard("/?site=imports.test", 1280, chromedp.WaitVisible(chromedp.CSS("#imports")),
		chromedp.WaitVisible(chromedp.CSS(`#figures [data-metric="visitors"][data-value="`+with+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#panel-sources-list .row[data-key="Imported Blog"]`)))
	b := e.browser
	note := browsertest.Run(t, b, tab, "read the imports note", chromedp.Text(chromedp.CSS("#imports-note")))
	if !strings.Contains(note, "Imported data is included") {
		t.Errorf("the note reads %q", note)
	}
	b.Screenshot(t, tab, "imports-included")

	b.Do(t, tab, "turn imported data off", chromedp.Click(chromedp.CSS("#imports")),
		chromedp.WaitVisible(chromedp.CSS(`#figures [data-metric="visitors"][data-value="`+without+`"]`)))
	loc := browsertest.Run(t, b, tab, "read the URL", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("imports") != "0" {
		t.Errorf("the URL %s does not keep imports=0", loc)
	}
	b.Do(t, tab, "wait for the sources without the imported one", chromedp.WaitNotPresent(chromedp.CSS(`#panel-sources-list .row[data-key="Imported Blog"]`)))
	b.Screenshot(t, tab, "imports-excluded")
	noErrors(t, con)
}
