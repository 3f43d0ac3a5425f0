package plausiblecsv

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// Error is a refused file or row: File is the file's name, Line its line
// (1 is the header; 0 for the file as a whole) and Column the column at
// fault ("" when none is).
type Error struct {
	File   string
	Line   int
	Column string
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, ": column %s", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Defaults of Limits.
const (
	DefaultMaxFiles = 32
	DefaultMaxBytes = 256 << 20
	DefaultMaxRows  = 2_000_000
)

// Limits bound a Reader. The zero value takes the defaults.
type Limits struct {
	// MaxFiles bounds the files of a zip; default DefaultMaxFiles.
	MaxFiles int
	// MaxBytes bounds the bytes of all the files, as read (inflated);
	// default DefaultMaxBytes.
	MaxBytes int64
	// MaxRows bounds the rows of all the files; default DefaultMaxRows.
	MaxRows int
}

func (l *Limits) withDefaults() Limits {
	o := Limits{MaxFiles: DefaultMaxFiles, MaxBytes: DefaultMaxBytes, MaxRows: DefaultMaxRows}
	if l != nil {
		if l.MaxFiles > 0 {
			o.MaxFiles = l.MaxFiles
		}
		if l.MaxBytes > 0 {
			o.MaxBytes = l.MaxBytes
		}
		if l.MaxRows > 0 {
			o.MaxRows = l.MaxRows
		}
	}
	return o
}

// A table is one of Plausible's files: its name (without "imported_"),
// the columns it must have and what a row adds to its day.
type tableSpec struct {
	name     string
	required []string
	add      func(r *row) error
}

// row is one line of a file being read.
type row struct {
	d    *Reader
	day  *analytics.DayFigures
	cols map[string]int
	rec  []string
	line int
	file string
}

func (r *row) str(col string) string {
	if i, ok := r.cols[col]; ok {
		return strings.TrimSpace(r.rec[i])
	}
	return ""
}

func (r *row) num(col string) (int64, error) {
	s := r.str(col)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || n < 0 {
		return 0, &Error{File: r.file, Line: r.line, Column: col, Msg: fmt.Sprintf("%q is not a non-negative integer", s)}
	}
	if err != nil || n > maxCount {
		return 0, &Error{File: r.file, Line: r.line, Column: col, Msg: fmt.Sprintf("%s is over %d", s, int64(maxCount))}
	}
	return n, nil
}

// maxCount bounds a number of a file, and a count summed over its rows.
const maxCount = 1 << 50

// add returns a+b, or an error naming col when the sum is over maxCount.
func (r *row) add(a, b int64, col string) (int64, error) {
	if a > maxCount-b {
		return 0, &Error{File: r.file, Line: r.line, Column: col, Msg: fmt.Sprintf("the sum of the day's rows is over %d", int64(maxCount))}
	}
	return a + b, nil
}

// count adds the row's number in col to the count of value v of dim.
func (r *row) count(dim analytics.Dimension, v, col string) error {
	n, err := r.num(col)
	if err != nil {
		return err
	}
	if v == "" {
		v = analytics.None
	}
	m := r.day.Breakdowns[dim]
	if m == nil {
		m = map[string]int64{}
		r.day.Breakdowns[dim] = m
	}
	m[v], err = r.add(m[v], n, col)
	return err
}

// visits counts a visit dimension read from column col, normalised by
// norm.
func visits(dim analytics.Dimension, col string, norm func(string) string) func(r *row) error {
	return func(r *row) error { return r.count(dim, norm(r.str(col)), "visits") }
}

var tables = []tableSpec{
	{name: "visitors", required: []string{"visitors", "pageviews", "bounces", "visits", "visit_duration"}, add: func(r *row) error {
		if r.d.totals[r.day.Date] {
			return &Error{File: r.file, Line: r.line, Column: "date", Msg: "the day " + r.day.Date.Format(time.DateOnly) + " comes twice"}
		}
		r.d.totals[r.day.Date] = true
		var n [5]int64
		for i, col := range []string{"visitors", "pageviews", "bounces", "visits", "visit_duration"} {
			var err error
			if n[i], err = r.num(col); err != nil {
				return err
			}
		}
		if n[2] > n[3] {
			return &Error{File: r.file, Line: r.line, Column: "bounces", Msg: fmt.Sprintf("%d bounces in %d visits", n[2], n[3])}
		}
		r.day.Visitors, r.day.PageViews, r.day.Bounces, r.day.Visits, r.day.DurationMs = n[0], n[1], n[2], n[3], n[4]*1000
		return nil
	}},
	{name: "sources", required: []string{"source", "visits"}, add: func(r *row) error {
		if err := r.count(analytics.DimSource, analytics.NormalSource(r.str("source")), "visits"); err != nil {
			return err
		}
		for _, u := range []struct {
			col string
			dim analytics.Dimension
		}{{"utm_source", analytics.DimUTMSource}, {"utm_medium", analytics.DimUTMMedium}, {"utm_campaign", analytics.DimUTMCampaign}} {
			if v := r.str(u.col); v != "" {
				if err := r.count(u.dim, v, "visits"); err != nil {
					return err
				}
			}
		}
		return nil
	}},
	{name: "pages", required: []string{"page", "pageviews"}, add: func(r *row) error {
		return r.count(analytics.DimPage, r.str("page"), "pageviews")
	}},
	{name: "entry_pages", required: []string{"entry_page", "entrances"}, add: func(r *row) error {
		return r.count(analytics.DimEntryPage, r.str("entry_page"), "entrances")
	}},
	{name: "exit_pages", required: []string{"exit_page", "exits"}, add: func(r *row) error {
		return r.count(analytics.DimExitPage, r.str("exit_page"), "exits")
	}},
	{name: "locations", required: []string{"country", "visits"}, add: visits(analytics.DimCountry, "country", strings.ToUpper)},
	{name: "devices", required: []string{"device", "visits"}, add: visits(analytics.DimDevice, "device", analytics.NormalDevice)},
	{name: "browsers", required: []string{"browser", "visits"}, add: visits(analytics.DimBrowser, "browser", analytics.NormalBrowser)},
	{name: "operating_systems", required: []string{"operating_system", "visits"}, add: visits(analytics.DimOS, "operating_system", analytics.NormalOS)},
	{name: "custom_events", required: []string{"name", "events"}, add: func(r *row) error {
		n, err := r.num("events")
		if err != nil {
			return err
		}
		if r.str("name") == "" {
			return &Error{File: r.file, Line: r.line, Column: "name", Msg: "an event needs a name"}
		}
		if r.day.Events, err = r.add(r.day.Events, n, "events"); err != nil {
			return err
		}
		return r.count(analytics.DimEvent, r.str("name"), "events")
	}},
}

func specOf(name string) *tableSpec {
	for i := range tables {
		if tables[i].name == name {
			return &tables[i]
		}
	}
	return nil
}

// fileName is a parsed file name: the table and the days it covers.
type fileName struct {
	table    *tableSpec
	from, to time.Time
}

// parseName parses {table}_{YYYYMMDD}_{YYYYMMDD}.csv, the table with or
// without its "imported_" prefix.
func parseName(name string) (fileName, error) {
	base, ok := strings.CutSuffix(name, ".csv")
	if !ok || len(base) < 18 || base[len(base)-18] != '_' || base[len(base)-9] != '_' {
		return fileName{}, errors.New("not a file of Plausible's export: want {table}_{YYYYMMDD}_{YYYYMMDD}.csv, such as imported_visitors_20240101_20241231.csv")
	}
	from, err1 := time.Parse("20060102", base[len(base)-17:len(base)-9])
	to, err2 := time.Parse("20060102", base[len(base)-8:])
	if err1 != nil || err2 != nil || to.Before(from) {
		return fileName{}, errors.New("its name does not end with two dates YYYYMMDD, the first not after the second")
	}
	t := specOf(strings.TrimPrefix(base[:len(base)-18], "imported_"))
	if t == nil {
		var names []string
		for _, t := range tables {
			names = append(names, "imported_"+t.name)
		}
		return fileName{}, fmt.Errorf("%q is not a table of Plausible's export (%s)", base[:len(base)-18], strings.Join(names, ", "))
	}
	return fileName{table: t, from: from, to: to}, nil
}

// A Reader gathers the days of the files of one export, read one by one
// with ReadFile (or all of a zip with ReadZip). It is not safe for
// concurrent use.
type Reader struct {
	l      Limits
	days   map[time.Time]*analytics.DayFigures
	totals map[time.Time]bool
	// read are the tables read, with their ranges, to refuse overlaps.
	read  map[string][][2]time.Time
	bytes int64
	rows  int
	files int
}

// NewReader returns a Reader bounded by l (nil: the defaults).
func NewReader(l *Limits) *Reader {
	return &Reader{l: l.withDefaults(), days: map[time.Time]*analytics.DayFigures{}, totals: map[time.Time]bool{},
		read: map[string][][2]time.Time{}}
}

// ReadFile reads one CSV file named name (its base name is parsed:
// {table}_{YYYYMMDD}_{YYYYMMDD}.csv). A file of a table already read
// whose days overlap the earlier file's is refused, as is a row dated
// outside its file's days. Every error is an *Error.
func (d *Reader) ReadFile(name string, r io.Reader) error {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	fn, err := parseName(base)
	if err != nil {
		return &Error{File: base, Msg: err.Error()}
	}
	if d.files++; d.files > d.l.MaxFiles {
		return &Error{File: base, Msg: fmt.Sprintf("more than %d files", d.l.MaxFiles)}
	}
	for _, rg := range d.read[fn.table.name] {
		if !fn.from.After(rg[1]) && !fn.to.Before(rg[0]) {
			return &Error{File: base, Msg: "its days overlap those of another file of imported_" + fn.table.name}
		}
	}
	d.read[fn.table.name] = append(d.read[fn.table.name], [2]time.Time{fn.from, fn.to})
	lr := &limited{r: r, rest: d.l.MaxBytes - d.bytes}
	defer func() { d.bytes += lr.n }()
	cr := csv.NewReader(lr)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = 0
	head, err := cr.Read()
	if err != nil {
		return d.csvError(base, err, lr)
	}
	cols := map[string]int{}
	for i, c := range head {
		c = strings.TrimSpace(strings.TrimPrefix(c, "\ufeff"))
		if _, dup := cols[c]; dup {
			return &Error{File: base, Line: 1, Column: c, Msg: "the column comes twice"}
		}
		cols[c] = i
	}
	for _, c := range append([]string{"date"}, fn.table.required...) {
		if _, ok := cols[c]; !ok {
			return &Error{File: base, Line: 1, Column: c, Msg: "the header lacks this column"}
		}
	}
	rw := &row{d: d, cols: cols, file: base}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return d.csvError(base, err, lr)
		}
		line, _ := cr.FieldPos(0)
		if d.rows++; d.rows > d.l.MaxRows {
			return &Error{File: base, Line: line, Msg: fmt.Sprintf("more than %d rows in the export", d.l.MaxRows)}
		}
		rw.rec, rw.line = rec, line
		date, err := time.Parse(time.DateOnly, strings.TrimSpace(rec[cols["date"]]))
		if err != nil {
			return &Error{File: base, Line: line, Column: "date", Msg: fmt.Sprintf("%q is not a date YYYY-MM-DD", rec[cols["date"]])}
		}
		if date.Before(fn.from) || date.After(fn.to) {
			return &Error{File: base, Line: line, Column: "date", Msg: fmt.Sprintf("%s is outside the file's days (%s to %s)", date.Format(time.DateOnly),
				fn.from.Format(time.DateOnly), fn.to.Format(time.DateOnly))}
		}
		day := d.days[date]
		if day == nil {
			if len(d.days) >= analytics.MaxImportDays {
				return &Error{File: base, Line: line, Column: "date", Msg: fmt.Sprintf("the export covers more than %d days", analytics.MaxImportDays)}
			}
			day = &analytics.DayFigures{Date: date, Breakdowns: map[analytics.Dimension]map[string]int64{}}
			d.days[date] = day
		}
		rw.day = day
		if err := fn.table.add(rw); err != nil {
			return err
		}
	}
}

func (d *Reader) csvError(file string, err error, lr *limited) error {
	if lr.over {
		return &Error{File: file, Msg: fmt.Sprintf("the export is over %d bytes once inflated", d.l.MaxBytes)}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Line, Msg: fmt.Sprintf("column %d: %v", pe.Column, pe.Err)}
	}
	if err == io.EOF {
		return &Error{File: file, Line: 1, Msg: "the file is empty: want a header line"}
	}
	return &Error{File: file, Msg: err.Error()}
}

// Bytes returns the bytes of the files read so far, as read (inflated).
func (d *Reader) Bytes() int64 { return d.bytes }

// Days returns the days read, in date order.
func (d *Reader) Days() []analytics.DayFigures {
	out := make([]analytics.DayFigures, 0, len(d.days))
	for _, x := range d.days {
		out = append(out, *x)
	}
	slices.SortFunc(out, func(a, b analytics.DayFigures) int { return a.Date.Compare(b.Date) })
	return out
}

// ReadZip reads every file of the zip b (directories are skipped, and
// so are the files of macOS's __MACOSX folder) with ReadFile, and returns
// the days. A zip that is not one, or holds no file, is an *Error.
func ReadZip(b []byte, l *Limits) ([]analytics.DayFigures, error) {
	d := NewReader(l)
	if err := d.ReadZip(b); err != nil {
		return nil, err
	}
	return d.Days(), nil
}

// ReadZip reads every file of the zip b with ReadFile, as the function
// ReadZip does.
func (d *Reader) ReadZip(b []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return &Error{File: "the upload", Msg: "not a zip: " + err.Error()}
	}
	n := 0
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") {
			continue
		}
		if n++; n > d.l.MaxFiles {
			return &Error{File: f.Name, Msg: fmt.Sprintf("more than %d files in the zip", d.l.MaxFiles)}
		}
		rc, err := f.Open()
		if err != nil {
			return &Error{File: f.Name, Msg: err.Error()}
		}
		err = d.ReadFile(f.Name, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	if n == 0 {
		return &Error{File: "the upload", Msg: "the zip holds no file"}
	}
	return nil
}

// limited reads at most rest bytes of r; a byte more sets over and fails.
type limited struct {
	r    io.Reader
	rest int64
	n    int64
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	if l.rest <= 0 {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			l.over = true
			return 0, errors.New("over the bound")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.rest {
		p = p[:l.rest]
	}
	k, err := l.r.Read(p)
	l.rest -= int64(k)
	l.n += int64(k)
	return k, err
}
