package plausiblecsv_test

import (
	"archive/zip"
	"bytes"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/plausiblecsv"
)

// exported are the breakdowns an export writes: all but the UTM ones,
// goals and properties.
var exported = []analytics.Dimension{analytics.DimSource, analytics.DimPage, analytics.DimEntryPage, analytics.DimExitPage,
	analytics.DimEvent, analytics.DimCountry, analytics.DimDevice, analytics.DimBrowser, analytics.DimOS}

// onlyExported returns days with the breakdowns an export writes.
func onlyExported(days []analytics.DayFigures) []analytics.DayFigures {
	out := slices.Clone(days)
	for i := range out {
		b := map[analytics.Dimension]map[string]int64{}
		for _, d := range exported {
			if m := out[i].Breakdowns[d]; len(m) > 0 {
				b[d] = maps.Clone(m)
			}
		}
		out[i].Breakdowns = b
	}
	return out
}

// What WriteZip writes, ReadZip reads back: the totals (durations to the
// second) and every exported breakdown.
func TestWriteZip_RoundTrip(t *testing.T) {
	days, err := plausiblecsv.ReadZip(zipOf(t, export...), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := plausiblecsv.WriteZip(&buf, days, day("2024-01-01"), day("2024-01-02")); err != nil {
		t.Fatal(err)
	}
	back, err := plausiblecsv.ReadZip(buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := onlyExported(days); !reflect.DeepEqual(back, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, want)
	}
}

// The zip holds Plausible's file names, each file with the header of
// Plausible's current export; a value without a name is written empty.
func TestWriteZip_Layout(t *testing.T) {
	days := []analytics.DayFigures{{Date: day("2024-03-05"), Visitors: 2, Visits: 3, PageViews: 4, Bounces: 1, DurationMs: 61_500,
		Breakdowns: map[analytics.Dimension]map[string]int64{analytics.DimSource: {analytics.None: 2, "Google": 1}}}}
	var buf bytes.Buffer
	if err := plausiblecsv.WriteZip(&buf, days, day("2024-03-01"), day("2024-03-31")); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
		names = append(names, f.Name)
	}
	if want := plausiblecsv.FileNames(day("2024-03-01"), day("2024-03-31")); !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	for name, want := range map[string]string{
		"imported_visitors_20240301_20240331.csv": "date,visitors,pageviews,bounces,visits,visit_duration\n2024-03-05,2,4,1,3,61\n",
		"imported_sources_20240301_20240331.csv": "date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces\n" +
			"2024-03-05,,,,,,,,0,2,2,0,0\n2024-03-05,Google,,,,,,,0,1,1,0,0\n",
		"imported_pages_20240301_20240331.csv":      "date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n",
		"imported_browsers_20240301_20240331.csv":   "date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews\n",
		"imported_locations_20240301_20240331.csv":  "date,country,region,city,visitors,visits,visit_duration,bounces,pageviews\n",
		"imported_exit_pages_20240301_20240331.csv": "date,exit_page,visitors,visit_duration,exits,bounces,pageviews\n",
	} {
		if files[name] != want {
			t.Errorf("%s:\n%s\nwant\n%s", name, files[name], want)
		}
	}
}

// FuzzReadFile: no CSV file crashes the reader or makes it exceed its
// bounds; what it accepts, it writes and reads back alike.
func FuzzReadFile(f *testing.F) {
	for i := 0; i+1 < len(export); i += 2 {
		f.Add(export[i], export[i+1])
	}
	f.Add("imported_visitors_20240101_20240101.csv", "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,1,1,1,1,99999999999999\n")
	f.Add("visitors_20240101_20240101.csv", "\ufeffdate,visitors\n\"2024-01-01\n")
	f.Fuzz(func(t *testing.T, name, data string) {
		r := plausiblecsv.NewReader(&plausiblecsv.Limits{MaxBytes: 1 << 16, MaxRows: 1000})
		if err := r.ReadFile(name, strings.NewReader(data)); err != nil {
			if _, ok := err.(*plausiblecsv.Error); !ok {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
			return
		}
		if r.Bytes() > 1<<16 {
			t.Fatalf("read %d bytes past the bound", r.Bytes())
		}
		days := r.Days()
		if len(days) == 0 {
			return
		}
		var buf bytes.Buffer
		if err := plausiblecsv.WriteZip(&buf, days, days[0].Date, days[len(days)-1].Date); err != nil {
			t.Fatal(err)
		}
		back, err := plausiblecsv.ReadZip(buf.Bytes(), nil)
		if err != nil {
			t.Fatalf("the written export is refused: %v", err)
		}
		// Durations are written to the second and UTM values not at all;
		// a day without a row of totals is written with zeros.
		want := onlyExported(days)
		for i := range want {
			want[i].DurationMs -= want[i].DurationMs % 1000
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("read back\n%+v\nwant\n%+v", back, want)
		}
	})
}

// FuzzReadZip: no upload crashes the zip reader; every refusal is an
// *Error, and nothing inflates past the bound.
func FuzzReadZip(f *testing.F) {
	f.Add(zipOf(f, export...))
	f.Add(zipOf(f, "imported_visitors_20240101_20240131.csv", "date,visitors,pageviews,bounces,visits,visit_duration\n"+strings.Repeat(" ", 1<<17)))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := plausiblecsv.NewReader(&plausiblecsv.Limits{MaxBytes: 1 << 16, MaxRows: 1000})
		err := r.ReadZip(b)
		if err != nil {
			if _, ok := err.(*plausiblecsv.Error); !ok {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
		}
		if r.Bytes() > 1<<16 {
			t.Fatalf("read %d bytes past the bound", r.Bytes())
		}
	})
}
