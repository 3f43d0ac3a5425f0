package plausiblecsv_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/plausiblecsv"
)

// zipOf returns a zip of the files, name then content, in order.
func zipOf(t testing.TB, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// export is an export of two days in Plausible's current layout: the
// columns of each file in the order Plausible writes them.
var export = []string{
	"imported_visitors_20240101_20240102.csv", "date,visitors,pageviews,bounces,visits,visit_duration\n" +
		"2024-01-01,10,30,4,12,600\n" +
		"2024-01-02,5,8,2,6,120\n",
	"imported_sources_20240101_20240102.csv", "date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces\n" +
		"2024-01-01,Google,,,,,,,10,4,5,100,1\n" +
		"2024-01-01,,,,,,,,3,3,3,0,3\n" +
		"2024-01-01,Newsletter,,newsletter,email,spring,,,9,4,4,50,0\n" +
		"2024-01-02,google,,,,,,,8,5,6,120,2\n",
	"imported_pages_20240101_20240102.csv", "date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n" +
		"2024-01-01,example.com,/,8,7,20,,5\n" +
		"2024-01-01,example.com,/pricing,4,3,10,40,3\n" +
		"2024-01-02,example.com,/,6,5,8,,4\n",
	"imported_entry_pages_20240101_20240102.csv", "date,entry_page,visitors,entrances,visit_duration,bounces,pageviews\n" +
		"2024-01-01,/,9,11,500,4,25\n" +
		"2024-01-01,/pricing,1,1,100,0,5\n",
	"imported_exit_pages_20240101_20240102.csv", "date,exit_page,visitors,visit_duration,exits,bounces,pageviews\n" +
		"2024-01-01,/pricing,6,300,7,1,10\n",
	"imported_custom_events_20240101_20240102.csv", "date,name,link_url,path,visitors,events\n" +
		"2024-01-01,Signup,,,2,2\n" +
		"2024-01-01,Outbound Link: Click,https://a.example,,1,1\n" +
		"2024-01-01,Outbound Link: Click,https://b.example,,1,2\n",
	"imported_locations_20240101_20240102.csv", "date,country,region,city,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2024-01-01,FR,FR-IDF,2988507,5,6,300,2,15\n" +
		"2024-01-01,FR,FR-ARA,2996944,2,2,100,1,5\n" +
		"2024-01-01,,,0,3,4,200,1,10\n",
	"imported_devices_20240101_20240102.csv", "date,device,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2024-01-01,Desktop,8,9,500,3,25\n" +
		"2024-01-01,Mobile,2,3,100,1,5\n",
	"imported_browsers_20240101_20240102.csv", "date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2024-01-01,Chrome,120.0,6,7,400,2,20\n" +
		"2024-01-01,Chrome,119.0,1,1,0,1,1\n" +
		"2024-01-01,Firefox,121.0,3,4,200,1,9\n",
	"imported_operating_systems_20240101_20240102.csv", "date,operating_system,operating_system_version,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2024-01-01,Mac,14.2,4,5,300,1,15\n" +
		"2024-01-01,Windows,11,6,7,300,3,15\n",
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestReadZip_PlausibleLayout(t *testing.T) {
	days, err := plausiblecsv.ReadZip(zipOf(t, export...), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []analytics.DayFigures{
		{Date: day("2024-01-01"), Visitors: 10, PageViews: 30, Bounces: 4, Visits: 12, DurationMs: 600_000, Events: 5,
			Breakdowns: map[analytics.Dimension]map[string]int64{
				analytics.DimSource:      {"Google": 5, analytics.None: 3, "Newsletter": 4},
				analytics.DimUTMSource:   {"newsletter": 4},
				analytics.DimUTMMedium:   {"email": 4},
				analytics.DimUTMCampaign: {"spring": 4},
				analytics.DimPage:        {"/": 20, "/pricing": 10},
				analytics.DimEntryPage:   {"/": 11, "/pricing": 1},
				analytics.DimExitPage:    {"/pricing": 7},
				analytics.DimEvent:       {"Signup": 2, "Outbound Link: Click": 3},
				analytics.DimCountry:     {"FR": 8, analytics.None: 4},
				analytics.DimDevice:      {"Desktop": 9, "Mobile": 3},
				analytics.DimBrowser:     {"Chrome": 8, "Firefox": 4},
				analytics.DimOS:          {"Mac": 5, "Windows": 7},
			}},
		{Date: day("2024-01-02"), Visitors: 5, PageViews: 8, Bounces: 2, Visits: 6, DurationMs: 120_000,
			Breakdowns: map[analytics.Dimension]map[string]int64{
				analytics.DimSource: {"Google": 6},
				analytics.DimPage:   {"/": 8},
			}},
	}
	if !reflect.DeepEqual(days, want) {
		t.Errorf("days\n%+v\nwant\n%+v", days, want)
	}
}

// Files named without "imported_", and the columns of Plausible's
// earlier exports (pages with exits and time_on_page, sources without
// referrer and utm_source), in another order, read alike.
func TestReadZip_EarlierLayout(t *testing.T) {
	days, err := plausiblecsv.ReadZip(zipOf(t,
		"export/visitors_20230101_20230131.csv", "date,visitors,pageviews,bounces,visits,visit_duration\r\n2023-01-05,3,4,1,3,30\r\n",
		"export/pages_20230101_20230131.csv", "date,hostname,page,visitors,pageviews,exits,time_on_page\n2023-01-05,example.com,/a,3,4,3,20\n",
		"export/sources_20230101_20230131.csv", "date,source,utm_medium,utm_campaign,utm_content,utm_term,visitors,visits,visit_duration,bounces\n2023-01-05,Twitter,social,,,,3,3,30,1\n",
		"__MACOSX/._visitors_20230101_20230131.csv", "junk",
	), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []analytics.DayFigures{{Date: day("2023-01-05"), Visitors: 3, PageViews: 4, Bounces: 1, Visits: 3, DurationMs: 30_000,
		Breakdowns: map[analytics.Dimension]map[string]int64{
			analytics.DimPage: {"/a": 4}, analytics.DimSource: {"Twitter": 3}, analytics.DimUTMMedium: {"social": 3},
		}}}
	if !reflect.DeepEqual(days, want) {
		t.Errorf("days\n%+v\nwant\n%+v", days, want)
	}
}

func TestReadZip_Errors(t *testing.T) {
	const vis = "imported_visitors_20240101_20240131.csv"
	const head = "date,visitors,pageviews,bounces,visits,visit_duration\n"
	for _, c := range []struct {
		name  string
		files []string
		l     *plausiblecsv.Limits
		want  plausiblecsv.Error // Msg: a part of the message
	}{
		{"not a number", []string{vis, head + "2024-01-01,1,2,0,1,5\n2024-01-02,1,x,0,1,5\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 3, Column: "pageviews", Msg: `"x" is not a non-negative integer`}},
		{"negative", []string{vis, head + "2024-01-01,-1,2,0,1,5\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 2, Column: "visitors", Msg: "non-negative"}},
		{"bad date", []string{vis, head + "01/02/2024,1,2,0,1,5\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 2, Column: "date", Msg: "not a date"}},
		{"date outside the file's days", []string{vis, head + "2024-02-01,1,2,0,1,5\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 2, Column: "date", Msg: "outside the file's days"}},
		{"a day twice", []string{vis, head + "2024-01-01,1,2,0,1,5\n2024-01-01,1,2,0,1,5\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 3, Column: "date", Msg: "comes twice"}},
		{"more bounces than visits", []string{vis, head + "2024-01-01,1,2,3,1,5\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 2, Column: "bounces", Msg: "3 bounces in 1 visits"}},
		{"missing column", []string{vis, "date,visitors,pageviews,bounces,visits\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 1, Column: "visit_duration", Msg: "lacks"}},
		{"short row", []string{vis, head + "2024-01-01,1,2\n"}, nil,
			plausiblecsv.Error{File: vis, Line: 2, Msg: "wrong number of fields"}},
		{"empty file", []string{vis, ""}, nil, plausiblecsv.Error{File: vis, Line: 1, Msg: "empty"}},
		{"unknown table", []string{"imported_cities_20240101_20240131.csv", "date\n"}, nil,
			plausiblecsv.Error{File: "imported_cities_20240101_20240131.csv", Msg: "not a table"}},
		{"bad name", []string{"stats.csv", "date\n"}, nil, plausiblecsv.Error{File: "stats.csv", Msg: "YYYYMMDD"}},
		{"overlapping files", []string{vis, head, "visitors_20240115_20240215.csv", head}, nil,
			plausiblecsv.Error{File: "visitors_20240115_20240215.csv", Msg: "overlap"}},
		{"empty event name", []string{"imported_custom_events_20240101_20240131.csv", "date,name,link_url,path,visitors,events\n2024-01-01,,,,1,1\n"}, nil,
			plausiblecsv.Error{File: "imported_custom_events_20240101_20240131.csv", Line: 2, Column: "name", Msg: "needs a name"}},
		{"too many rows", []string{vis, head + "2024-01-01,1,2,0,1,5\n2024-01-02,1,2,0,1,5\n"}, &plausiblecsv.Limits{MaxRows: 1},
			plausiblecsv.Error{File: vis, Line: 3, Msg: "more than 1 rows"}},
		{"too many files", []string{vis, head, "pages_20240101_20240131.csv", "date,page,pageviews\n"}, &plausiblecsv.Limits{MaxFiles: 1},
			plausiblecsv.Error{File: "pages_20240101_20240131.csv", Msg: "more than 1 files"}},
		{"no file", nil, nil, plausiblecsv.Error{File: "the upload", Msg: "no file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := plausiblecsv.ReadZip(zipOf(t, c.files...), c.l)
			var pe *plausiblecsv.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *plausiblecsv.Error", err, err)
			}
			if pe.File != c.want.File || pe.Line != c.want.Line || pe.Column != c.want.Column || !strings.Contains(pe.Msg, c.want.Msg) {
				t.Errorf("error %+v, want %+v", *pe, c.want)
			}
		})
	}
	if _, err := plausiblecsv.ReadZip([]byte("PK not a zip"), nil); err == nil || !strings.Contains(err.Error(), "not a zip") {
		t.Errorf("not a zip: %v", err)
	}
}

// A file that inflates past MaxBytes is refused once the bound is
// passed, whatever its header says: a zip bomb costs the bound.
func TestReadZip_InflatedBound(t *testing.T) {
	big := "date,visitors,pageviews,bounces,visits,visit_duration\n" + strings.Repeat("2024-01-01,1,1,0,1,1\n", 1)
	big += strings.Repeat(" ", 4<<20) // compresses to a few KB
	b := zipOf(t, "imported_visitors_20240101_20240131.csv", big)
	if len(b) > 64<<10 {
		t.Fatalf("the zip is %d bytes: not a bomb", len(b))
	}
	_, err := plausiblecsv.ReadZip(b, &plausiblecsv.Limits{MaxBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "over 1048576 bytes once inflated") {
		t.Fatalf("a 4 MiB file under a 1 MiB bound: %v", err)
	}
	d := plausiblecsv.NewReader(&plausiblecsv.Limits{MaxBytes: 1 << 20})
	_ = d.ReadZip(b)
	if d.Bytes() > 1<<20 {
		t.Errorf("read %d bytes, over the bound", d.Bytes())
	}
}
