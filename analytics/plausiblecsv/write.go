package plausiblecsv

import (
	"archive/zip"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// column is one column of a written file: its name and its value in a
// row of value v counted n times on a day (v and n are unused by the
// files of totals).
type column struct {
	name  string
	value func(d *analytics.DayFigures, v string, n int64) string
}

func fixed(name, value string) column {
	return column{name, func(*analytics.DayFigures, string, int64) string { return value }}
}

func val(name string) column {
	return column{name, func(_ *analytics.DayFigures, v string, _ int64) string {
		if v == analytics.None {
			return ""
		}
		return v
	}}
}

func cnt(name string) column {
	return column{name, func(_ *analytics.DayFigures, _ string, n int64) string { return strconv.FormatInt(n, 10) }}
}

func total(name string, f func(d *analytics.DayFigures) int64) column {
	return column{name, func(d *analytics.DayFigures, _ string, _ int64) string { return strconv.FormatInt(f(d), 10) }}
}

// outFile is a written file: its table, the breakdown its rows come from
// ("" for the day's totals: one row a day) and its columns after date.
type outFile struct {
	table string
	dim   analytics.Dimension
	cols  []column
}

// visitFile is the file of a visit dimension: the value, then the
// columns of Plausible's current layout that follow it.
func visitFile(table string, dim analytics.Dimension, name string, version bool) outFile {
	cols := []column{val(name)}
	if version {
		cols = append(cols, fixed(name+"_version", ""))
	}
	cols = append(cols, cnt("visitors"), cnt("visits"), fixed("visit_duration", "0"), fixed("bounces", "0"), fixed("pageviews", "0"))
	return outFile{table, dim, cols}
}

var outFiles = []outFile{
	{"imported_visitors", "", []column{
		total("visitors", func(d *analytics.DayFigures) int64 { return d.Visitors }),
		total("pageviews", func(d *analytics.DayFigures) int64 { return d.PageViews }),
		total("bounces", func(d *analytics.DayFigures) int64 { return d.Bounces }),
		total("visits", func(d *analytics.DayFigures) int64 { return d.Visits }),
		total("visit_duration", func(d *analytics.DayFigures) int64 { return d.DurationMs / 1000 }),
	}},
	{"imported_sources", analytics.DimSource, []column{val("source"), fixed("referrer", ""), fixed("utm_source", ""), fixed("utm_medium", ""),
		fixed("utm_campaign", ""), fixed("utm_content", ""), fixed("utm_term", ""), fixed("pageviews", "0"), cnt("visitors"), cnt("visits"),
		fixed("visit_duration", "0"), fixed("bounces", "0")}},
	{"imported_pages", analytics.DimPage, []column{fixed("hostname", ""), val("page"), cnt("visits"), cnt("visitors"), cnt("pageviews"),
		fixed("scroll_depth", ""), fixed("pageleave_visitors", "0")}},
	{"imported_entry_pages", analytics.DimEntryPage, []column{val("entry_page"), cnt("visitors"), cnt("entrances"), fixed("visit_duration", "0"),
		fixed("bounces", "0"), fixed("pageviews", "0")}},
	{"imported_exit_pages", analytics.DimExitPage, []column{val("exit_page"), cnt("visitors"), fixed("visit_duration", "0"), cnt("exits"),
		fixed("bounces", "0"), fixed("pageviews", "0")}},
	{"imported_custom_events", analytics.DimEvent, []column{val("name"), fixed("link_url", ""), fixed("path", ""), cnt("visitors"), cnt("events")}},
	{"imported_locations", analytics.DimCountry, []column{val("country"), fixed("region", ""), fixed("city", "0"), cnt("visitors"), cnt("visits"),
		fixed("visit_duration", "0"), fixed("bounces", "0"), fixed("pageviews", "0")}},
	visitFile("imported_devices", analytics.DimDevice, "device", false),
	visitFile("imported_browsers", analytics.DimBrowser, "browser", true),
	visitFile("imported_operating_systems", analytics.DimOS, "operating_system", true),
}

// FileNames returns the names of the files WriteZip writes for the days
// from through last.
func FileNames(from, last time.Time) []string {
	var out []string
	for _, f := range outFiles {
		out = append(out, fileNameOf(f.table, from, last))
	}
	return out
}

func fileNameOf(table string, from, last time.Time) string {
	return fmt.Sprintf("%s_%s_%s.csv", table, from.UTC().Format("20060102"), last.UTC().Format("20060102"))
}

// WriteZip writes days (in date order, each between from and last, the
// first and last day of the export) to w as a zip of Plausible's export
// files: every file of FileNames, each with its header line, rows by
// date then by count (highest first) and value.
func WriteZip(w io.Writer, days []analytics.DayFigures, from, last time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range outFiles {
		// Files are dated the day after the last: the export's end, so
		// that the same figures make the same zip.
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: fileNameOf(f.table, from, last), Method: zip.Deflate, Modified: last.UTC().AddDate(0, 0, 1)})
		if err != nil {
			return err
		}
		cw := csv.NewWriter(fw)
		head := []string{"date"}
		for _, c := range f.cols {
			head = append(head, c.name)
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		rec := make([]string, len(head))
		for i := range days {
			d := &days[i]
			rec[0] = d.Date.UTC().Format(time.DateOnly)
			if f.dim == "" {
				for j, c := range f.cols {
					rec[j+1] = c.value(d, "", 0)
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
				continue
			}
			for _, vc := range sorted(d.Breakdowns[f.dim]) {
				for j, c := range f.cols {
					rec[j+1] = c.value(d, vc.Value, vc.Count)
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	return zw.Close()
}

func sorted(m map[string]int64) []analytics.Count {
	out := make([]analytics.Count, 0, len(m))
	for v, n := range m {
		out = append(out, analytics.Count{Value: v, Count: n})
	}
	slices.SortFunc(out, func(a, b analytics.Count) int {
		if a.Count != b.Count {
			if a.Count > b.Count {
				return -1
			}
			return 1
		}
		if a.Value < b.Value {
			return -1
		}
		if a.Value > b.Value {
			return 1
		}
		return 0
	})
	return out
}
