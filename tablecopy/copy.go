package tablecopy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
)

// Options are the options of Copy. A nil *Options is valid; the zero
// value of each field means its default.
type Options struct {
	// Tables names the tables to copy; empty means every table of the
	// source (ListTables).
	Tables []string
	// Segments is the number of segments of each table's parallel Scan,
	// read and written at once: 1 to 1,000,000; 0 means 4. A table found in
	// the state file keeps the segment count it was started with.
	Segments int
	// PageItems bounds the items of one Scan page, which is also how often
	// progress is saved; 0 means DynamoDB's 1 MB pages.
	PageItems int
	// StateFile is the path of the JSON file that records progress, read
	// at the start if it exists; "" keeps no state and an interrupted copy
	// starts again from the beginning.
	StateFile string
	// Source and Destination describe the two sides (URLs, say). They are
	// written to a new state file, and a state file that records others
	// is refused, so that a state file is not resumed against other
	// tables. "" matches anything.
	Source, Destination string
	// Progress, if set, is called after each BatchWriteItem call and once
	// before the first, one call at a time (from the segments' goroutines).
	Progress func(Progress)
	// ActiveTimeout bounds the wait for a created table to become active;
	// 0 means 10 minutes.
	ActiveTimeout time.Duration
	// Logger receives a line per table created, reused or verified; nil
	// discards them.
	Logger *slog.Logger
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Segments <= 0 {
		r.Segments = 4
	}
	if r.ActiveTimeout <= 0 {
		r.ActiveTimeout = 10 * time.Minute
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r
}

// Progress is how far a Copy has got, over all its tables.
type Progress struct {
	// Table is the table being copied.
	Table string
	// Copied is the number of items written, those of earlier runs with
	// the same state file included.
	Copied int64
	// Total is the estimated number of items to copy: the sum of the
	// source tables' ItemCount (which DynamoDB updates about every six
	// hours), or of a count scan for a table whose ItemCount is 0. Copied
	// may pass it.
	Total int64
}

// Report says what a Copy did, table by table.
type Report struct {
	Tables []TableReport
}

// TableReport says what a Copy did with one table.
type TableReport struct {
	Name string
	// Created reports that the destination table was created, by this
	// Copy or by an earlier one with the same state file; otherwise an
	// existing table with the same key schema was reused.
	Created bool
	// TTL is the attribute of the time-to-live setting copied, "" if the
	// source has none.
	TTL string
	// Segments is the number of scan segments.
	Segments int
	// Resumed counts the segments that earlier runs had finished or
	// started.
	Resumed int
	// Copied is the number of items this Copy wrote.
	Copied int64
	// SourceItems and DestinationItems are the verified counts, set once
	// the table's items are copied.
	SourceItems, DestinationItems int64
	// Verified reports that the counts were taken and are equal.
	Verified bool
}

// String returns a line per table.
func (r *Report) String() string {
	var b strings.Builder
	for _, t := range r.Tables {
		how := "reused existing table"
		if t.Created {
			how = "created"
		}
		fmt.Fprintf(&b, "%s: %s, %d items copied", t.Name, how, t.Copied)
		if t.Resumed > 0 {
			fmt.Fprintf(&b, " (resumed %d of %d segments)", t.Resumed, t.Segments)
		}
		if t.TTL != "" {
			fmt.Fprintf(&b, ", TTL on %s", t.TTL)
		}
		if t.Verified {
			fmt.Fprintf(&b, ", verified: %d items on both sides", t.SourceItems)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// MismatchError reports a table whose item counts differ after the copy.
type MismatchError struct {
	Table                         string
	SourceItems, DestinationItems int64
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("tablecopy: table %s: the source holds %d items, the destination %d", e.Table, e.SourceItems, e.DestinationItems)
}

// Copy copies the tables of o.Tables (all of from's if none), schema and
// items, from from to to, resuming from o.StateFile if it records an
// earlier run, and verifies each table's item count at the end. A
// destination table that exists with the same key schema is reused (its
// indexes and settings are left as they are, TTL set if it has none); one
// with another key schema is an error before any item is copied.
//
// It returns the report of what it did, also when it fails part way (the
// tables done so far), and the first error: a *MismatchError if counts
// differ, ctx.Err() (wrapped) if ctx ends. Errors begin "tablecopy: ".
func Copy(ctx context.Context, from, to timetable.API, o *Options) (*Report, error) {
	opts := o.withDefaults()
	if opts.Segments > 1000000 {
		return nil, fmt.Errorf("tablecopy: %d segments: at most 1,000,000", opts.Segments)
	}
	st, err := loadState(opts.StateFile, opts.Source, opts.Destination)
	if err != nil {
		return nil, err
	}
	names := opts.Tables
	if len(names) == 0 {
		if names, err = listTables(ctx, from); err != nil {
			return nil, err
		}
	}
	c := &copier{from: from, to: to, o: opts, st: st}
	rep := &Report{}
	// First every schema, so that a destination that does not fit fails
	// the copy before any item is written.
	var tables []*tableCopy
	for _, name := range names {
		tc, err := c.prepare(ctx, name)
		if err != nil {
			return rep, err
		}
		tables = append(tables, tc)
		rep.Tables = append(rep.Tables, tc.rep)
	}
	for _, tc := range tables {
		n, err := c.estimate(ctx, tc)
		if err != nil {
			return rep, wrapf(err, "cannot count the items of source table %s", tc.name)
		}
		c.total += n
		c.copied += tc.state.copied()
	}
	c.report("")
	for i, tc := range tables {
		err := c.copyItems(ctx, tc)
		if err == nil {
			err = c.verify(ctx, tc)
		}
		rep.Tables[i] = tc.rep
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// copier is one Copy.
type copier struct {
	from, to timetable.API
	o        Options
	st       *state

	mu            sync.Mutex // guards the state, its file and the counters
	copied, total int64
}

// tableCopy is the copy of one table.
type tableCopy struct {
	name      string
	hash      string // key attribute names
	rng       string
	keyTypes  map[string]string
	itemCount int64 // the source's ItemCount
	state     *tableState
	rep       TableReport
}

func listTables(ctx context.Context, api timetable.API) ([]string, error) {
	var names []string
	in := &dynamodb.ListTablesInput{}
	for {
		out, err := api.ListTables(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("tablecopy: cannot list the source's tables: %w", err)
		}
		names = append(names, out.TableNames...)
		if out.LastEvaluatedTableName == nil {
			return names, nil
		}
		in.ExclusiveStartTableName = out.LastEvaluatedTableName
	}
}

// report calls the progress callback, if any, under c.mu.
func (c *copier) report(table string) {
	if c.o.Progress != nil {
		c.o.Progress(Progress{Table: table, Copied: c.copied, Total: c.total})
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// wrapf returns err, or nil if it is nil, prefixed with what was being
// done; a *MismatchError is returned as it is. errors.Is and errors.As
// see through it.
func wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var me *MismatchError
	if errors.As(err, &me) {
		return err
	}
	return fmt.Errorf("tablecopy: "+format+": %w", append(args, err)...)
}
