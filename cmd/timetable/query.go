package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// reading is a reading as the API answers it.
type reading struct {
	Series string             `json:"series,omitempty"`
	Time   string             `json:"time"`
	Values map[string]float64 `json:"values,omitempty"`
	Tags   map[string]string  `json:"tags,omitempty"`
}

// page is a page of readings.
type page struct {
	Readings []reading `json:"readings"`
	Cursor   string    `json:"cursor"`
}

const queryUsage = `Usage: timetable query KIND SERIES [flags]

Prints the readings of one series in [--from, --to), oldest first (--desc:
newest first), as a table, CSV or JSON lines.

Examples:
  timetable query SENSOR s1 --from 2024-12-01T00:00:00Z --to 2024-12-02T00:00:00Z
  timetable query SENSOR s1 --desc --limit 10 --filter 'temperature>20'
  timetable query SENSOR s1 --aggregate 1h --from 2024-12-01T00:00:00Z
`

// rangeFlags select readings, for query and export.
type rangeFlags struct {
	from, to, format, aggregate string
	desc                        bool
	limit                       int
	filters                     listFlag
}

// listFlag is a flag that may be repeated.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (f *rangeFlags) register(fs *flag.FlagSet, defaultFormat string) {
	fs.StringVar(&f.from, "from", "", "first instant: RFC 3339 or milliseconds since the epoch")
	fs.StringVar(&f.to, "to", "", "end (excluded): RFC 3339 or milliseconds since the epoch")
	fs.BoolVar(&f.desc, "desc", false, "newest first")
	fs.IntVar(&f.limit, "limit", 0, "most readings per series (0: all)")
	fs.Var(&f.filters, "filter", "keep readings that match, e.g. temperature>20, location=lab (repeatable)")
	fs.StringVar(&f.format, "format", defaultFormat, "table, csv or jsonl")
}

func (f *rangeFlags) values() url.Values {
	q := url.Values{}
	if f.from != "" {
		q.Set("from", f.from)
	}
	if f.to != "" {
		q.Set("to", f.to)
	}
	if f.desc {
		q.Set("order", "desc")
	}
	if f.limit > 0 {
		q.Set("limit", strconv.Itoa(f.limit))
	}
	for _, fl := range f.filters {
		q.Add("filter", fl)
	}
	return q
}

// eachReading calls fn with every reading of the series, following the
// cursor of each page.
func eachReading(ctx context.Context, c *client, kind, id string, q url.Values, fn func(reading) error) error {
	path := "/api/v1/kinds/" + url.PathEscape(kind) + "/series/" + url.PathEscape(id) + "/readings"
	for {
		var p page
		if err := c.getJSON(ctx, path, q, &p); err != nil {
			return err
		}
		for _, r := range p.Readings {
			r.Series = id
			if err := fn(r); err != nil {
				return err
			}
		}
		if p.Cursor == "" {
			return nil
		}
		q.Set("cursor", p.Cursor)
	}
}

func newQueryCommand(stdout, stderr io.Writer) command {
	f := &rangeFlags{}
	return &clientCommand{
		name: "query", usage: queryUsage, stdout: stdout, stderr: stderr, minArgs: 2, maxArgs: 2,
		flags: func(fs *flag.FlagSet) {
			f.register(fs, "table")
			fs.StringVar(&f.aggregate, "aggregate", "", "print count, min, max, mean per step instead (1m, 1h, 1d, 1mo)")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			kind, id := args[0], args[1]
			fields, tags, err := schemaColumns(ctx, c, kind)
			if err != nil {
				return err
			}
			if f.aggregate != "" {
				return printAggregate(ctx, c, kind, id, f, fields, stdout)
			}
			out, err := newReadingWriter(stdout, f.format, fields, tags)
			if err != nil {
				return err
			}
			if err := eachReading(ctx, c, kind, id, f.values(), out.write); err != nil {
				return err
			}
			return out.flush()
		},
	}
}

const latestUsage = `Usage: timetable latest KIND SERIES... [flags]

Prints the latest reading of each series.

Example:
  timetable latest SENSOR s1 s2
`

func newLatestCommand(stdout, stderr io.Writer) command {
	format := ""
	return &clientCommand{
		name: "latest", usage: latestUsage, stdout: stdout, stderr: stderr, minArgs: 2, maxArgs: -1,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "table", "table, csv or jsonl")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			kind, ids := args[0], args[1:]
			fields, tags, err := schemaColumns(ctx, c, kind)
			if err != nil {
				return err
			}
			var got struct {
				Readings map[string]reading `json:"readings"`
				Missing  []string           `json:"missing"`
			}
			if err := c.getJSON(ctx, "/api/v1/kinds/"+url.PathEscape(kind)+"/latest", url.Values{"series": ids}, &got); err != nil {
				return err
			}
			out, err := newReadingWriter(stdout, format, fields, tags)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if r, ok := got.Readings[id]; ok {
					r.Series = id
					if err := out.write(r); err != nil {
						return err
					}
				}
			}
			if err := out.flush(); err != nil {
				return err
			}
			if len(got.Missing) > 0 {
				fmt.Fprintf(stderr, "no reading: %s\n", strings.Join(got.Missing, ", "))
			}
			return nil
		},
	}
}

const exportUsage = `Usage: timetable export KIND [SERIES...] [flags]

Writes the readings of the series (all the kind's series when none is
named) in [--from, --to) as CSV or JSON lines, which timetable import reads
back. A progress bar shows on a terminal.

Examples:
  timetable export SENSOR --format csv -o sensors.csv
  timetable export SENSOR s1 --from 2024-12-01T00:00:00Z --format jsonl
`

func newExportCommand(stdout, stderr io.Writer) command {
	f := &rangeFlags{}
	output := ""
	return &clientCommand{
		name: "export", usage: exportUsage, stdout: stdout, stderr: stderr, minArgs: 1, maxArgs: -1,
		flags: func(fs *flag.FlagSet) {
			f.register(fs, "csv")
			fs.StringVar(&output, "o", "-", "output file (- for stdout)")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			kind, ids := args[0], args[1:]
			if f.format == "table" {
				return fmt.Errorf("export writes csv or jsonl")
			}
			fields, tags, err := schemaColumns(ctx, c, kind)
			if err != nil {
				return err
			}
			if len(ids) == 0 {
				if ids, err = allSeries(ctx, c, kind); err != nil {
					return err
				}
			}
			w := stdout
			if output != "-" {
				fh, err := os.Create(output)
				if err != nil {
					return err
				}
				defer fh.Close()
				w = fh
			}
			out, err := newReadingWriter(w, f.format, fields, tags)
			if err != nil {
				return err
			}
			bar := newProgressBar(stderr, int64(len(ids)), "exporting "+kind, false)
			n := 0
			for _, id := range ids {
				err := eachReading(ctx, c, kind, id, f.values(), func(r reading) error { n++; return out.write(r) })
				if err != nil {
					return fmt.Errorf("series %s: %w", id, err)
				}
				_ = bar.Add(1)
			}
			_ = bar.Finish()
			if err := out.flush(); err != nil {
				return err
			}
			if output != "-" {
				fmt.Fprintf(stderr, "%d readings of %d series written to %s\n", n, len(ids), output)
			}
			return nil
		},
	}
}

// allSeries lists the series of a kind.
func allSeries(ctx context.Context, c *client, kind string) ([]string, error) {
	var ids []string
	q := url.Values{"limit": {"10000"}}
	for {
		var p struct {
			Series []string `json:"series"`
			Cursor string   `json:"cursor"`
		}
		if err := c.getJSON(ctx, "/api/v1/kinds/"+url.PathEscape(kind)+"/series", q, &p); err != nil {
			return nil, err
		}
		ids = append(ids, p.Series...)
		if p.Cursor == "" {
			return ids, nil
		}
		q.Set("cursor", p.Cursor)
	}
}

// schemaColumns returns the fields and tags of a kind.
func schemaColumns(ctx context.Context, c *client, kind string) (fields, tags []string, err error) {
	var sc struct {
		Fields []string `json:"fields"`
		Tags   []string `json:"tags"`
	}
	err = c.getJSON(ctx, "/api/v1/kinds/"+url.PathEscape(kind), nil, &sc)
	return sc.Fields, sc.Tags, err
}

// readingWriter prints readings as a table, CSV (the columns import reads:
// series,time,<fields>,<tags>) or JSON lines.
type readingWriter struct {
	format       string
	fields, tags []string
	tw           *tabwriter.Writer
	cw           *csv.Writer
	enc          *json.Encoder
}

func newReadingWriter(w io.Writer, format string, fields, tags []string) (*readingWriter, error) {
	rw := &readingWriter{format: format, fields: fields, tags: tags}
	header := append(append([]string{"series", "time"}, fields...), tags...)
	switch format {
	case "table":
		rw.tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(rw.tw, strings.ToUpper(strings.Join(header, "\t")))
	case "csv":
		rw.cw = csv.NewWriter(w)
		if err := rw.cw.Write(header); err != nil {
			return nil, err
		}
	case "jsonl":
		rw.enc = json.NewEncoder(w)
		rw.enc.SetEscapeHTML(false)
	default:
		return nil, fmt.Errorf("--format %q: want table, csv or jsonl", format)
	}
	return rw, nil
}

func (rw *readingWriter) write(r reading) error {
	if rw.enc != nil {
		return rw.enc.Encode(r)
	}
	row := []string{r.Series, r.Time}
	for _, f := range rw.fields {
		if v, ok := r.Values[f]; ok {
			row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
		} else {
			row = append(row, "")
		}
	}
	for _, t := range rw.tags {
		row = append(row, r.Tags[t])
	}
	if rw.cw != nil {
		return rw.cw.Write(row)
	}
	_, err := fmt.Fprintln(rw.tw, strings.Join(row, "\t"))
	return err
}

func (rw *readingWriter) flush() error {
	switch {
	case rw.cw != nil:
		rw.cw.Flush()
		return rw.cw.Error()
	case rw.tw != nil:
		return rw.tw.Flush()
	}
	return nil
}

// printAggregate prints count, min, max and mean of each field per step.
func printAggregate(ctx context.Context, c *client, kind, id string, f *rangeFlags, fields []string, w io.Writer) error {
	q := url.Values{"step": {f.aggregate}}
	if f.from != "" {
		q.Set("from", f.from)
	}
	if f.to != "" {
		q.Set("to", f.to)
	}
	var agg struct {
		Tier    string `json:"tier"`
		Periods []struct {
			Start  string `json:"start"`
			Count  int64  `json:"count"`
			Fields map[string]struct {
				Count          int64
				Min, Max, Mean float64
			} `json:"fields"`
		} `json:"periods"`
	}
	if err := c.getJSON(ctx, "/api/v1/kinds/"+url.PathEscape(kind)+"/series/"+url.PathEscape(id)+"/aggregate", q, &agg); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"START", "COUNT"}
	for _, fl := range fields {
		head = append(head, strings.ToUpper(fl)+" MIN", "MAX", "MEAN")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, p := range agg.Periods {
		row := []string{p.Start, strconv.FormatInt(p.Count, 10)}
		for _, fl := range fields {
			a, ok := p.Fields[fl]
			if !ok {
				row = append(row, "", "", "")
				continue
			}
			row = append(row, fmtFloat(a.Min), fmtFloat(a.Max), fmtFloat(a.Mean))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
