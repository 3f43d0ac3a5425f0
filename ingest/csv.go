package ingest

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/timetable-db/timetable/series"
)

// CSV decodes the readings of one kind from CSV (RFC 4180, as
// encoding/csv reads it): a header row naming the columns, "series",
// "time" and any of the schema's fields and tags, in any order, then one
// reading per row. A time is an RFC 3339 string of any precision or an
// integer of milliseconds since the epoch, truncated to the millisecond;
// a field's cell is a finite number as strconv.ParseFloat reads it; an
// empty field or tag cell is absent. Every row has as many cells as the
// header. encoding/csv turns "\r\n" inside a quoted cell into "\n".
//
// The kind is looked up first; its error is returned as it is. Any other
// refusal is an *Error naming the line (the header is line 1; a row
// spanning lines is named by its first): a header without "series" or
// "time", or with a column that is neither or is given twice (the error
// names it), a CSV syntax error, a row of another length, an empty series
// or time, a cell that is not a number, a series id series refuses, more
// than o.MaxReadings readings, a row of more than o.MaxLineBytes.
func CSV(r io.Reader, kind string, lookup Lookup, o Options) (*Batch, error) {
	b := newBuilder(lookup, &o, "")
	k, err := b.kind([]byte(kind))
	if err != nil {
		return nil, err
	}
	br := &budgetReader{r: r}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	max := o.maxLine()
	var cols []int // per column: field index, len(Fields)+tag index, or colSeries, colTime
	for {
		br.mark(max)
		rec, err := cr.Read()
		if err == io.EOF {
			if cols == nil {
				return nil, b.errf(1, "no header row: want series,time,<field or tag>...")
			}
			return b.batch(), nil
		}
		if err != nil {
			return nil, csvErr(b, br, err, max)
		}
		line, _ := cr.FieldPos(0)
		if cols == nil {
			if cols, err = csvHeader(b, k, rec); err != nil {
				return nil, err
			}
			continue
		}
		if err := csvRow(b, k, cols, rec, line); err != nil {
			return nil, err
		}
	}
}

const (
	colSeries = -1
	colTime   = -2
)

func csvErr(b *builder, br *budgetReader, err error, max int) error {
	if br.err == errBudget {
		return &Error{Line: br.line(), Reason: fmt.Sprintf("longer than %d bytes", max), Err: ErrTooLong}
	}
	if br.err != nil {
		return fmt.Errorf("ingest: cannot read CSV: %w", br.err)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return b.errf(pe.StartLine, "the row has a different number of cells than the header")
		}
		return b.errf(pe.Line, "invalid CSV: %v", pe.Err)
	}
	return b.errf(0, "invalid CSV: %v", err)
}

// csvHeader maps the header's columns to the kind's fields and tags.
func csvHeader(b *builder, k *kind, rec []string) ([]int, error) {
	nf := len(k.s.Fields)
	cols := make([]int, len(rec))
	seen := map[string]bool{}
	for i, name := range rec {
		switch {
		case seen[name]:
			return nil, b.errf(1, "column %s appears twice", clip(name))
		case name == "series":
			cols[i] = colSeries
		case name == "time":
			cols[i] = colTime
		default:
			if f, ok := k.fields[name]; ok {
				cols[i] = f
			} else if t, ok := k.tags[name]; ok {
				cols[i] = nf + t
			} else {
				return nil, b.errf(1, "column %s is not series, time or a field or tag of kind %s", clip(name), k.s.Name)
			}
		}
		seen[name] = true
	}
	switch {
	case !seen["series"]:
		return nil, b.errf(1, `no "series" column: want series,time,<field or tag>...`)
	case !seen["time"]:
		return nil, b.errf(1, `no "time" column: want series,time,<field or tag>...`)
	}
	return cols, nil
}

// csvRow adds the reading of a row.
func csvRow(b *builder, k *kind, cols []int, rec []string, line int) error {
	nf := len(k.s.Fields)
	r := series.Reading{Values: k.values()}
	var id string
	for i, cell := range rec {
		switch c := cols[i]; {
		case c == colSeries:
			if cell == "" {
				return b.errf(line, "empty series")
			}
			id = cell
		case c == colTime:
			if cell == "" {
				return b.errf(line, "empty time")
			}
			t, reason := parseTime(cell)
			if reason != "" {
				return b.errf(line, "%s", reason)
			}
			r.Time = t
		case cell == "":
		case c < nf:
			f, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return b.errf(line, "field %s: %s is not a finite number", clip(k.s.Fields[c]), clip(cell))
			}
			r.Values[c] = f
		default:
			if r.Tags == nil {
				r.Tags = k.newTags()
			}
			r.Tags[c-nf] = b.strS(cell)
		}
	}
	return b.add(k, []byte(id), r, line)
}
