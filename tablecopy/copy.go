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
	// Tables names the tables to copy; empty means the tables of the
	// resumed state file (with Resume), else every table of the source
	// (ListTables).
	Tables []string
	// Segments is the number of segments of each table's parallel Scan,
	// read and written at once: 1 to 1,000,000; 0 means 4. A table found in
	// the state file keeps the segment count it was started with.
	Segments int
	// PageItems bounds the items of one Scan page, which is also how often
	// progress is saved and items checked; 0 means DynamoDB's 1 MB pages.
	PageItems int
	// StateFile is the path of the JSON file that records progress; ""
	// keeps no state and an interrupted copy starts again from the
	// beginning. The file is removed once every table is copied and
	// checked.
	StateFile string
	// Resume continues the copy that StateFile records; the file must
	// exist (else ErrNoState). Without Resume, a StateFile that exists is
	// ErrStateExists: an interrupted copy is resumed or discarded on
	// purpose, never by accident.
	Resume bool
	// Source and Destination describe the two sides (URLs, say). They are
	// written to a new state file, and a state file that records others
	// is refused, so that a state file is not resumed against other
	// tables. "" matches anything.
	Source, Destination string
	// Progress, if set, is called for each table once before its first
	// write, after each BatchWriteItem call, and once when the table is
	// done (copied and checked, or failed), one call at a time (from the
	// segments' goroutines).
	Progress func(Progress)
	// Now returns the present, against which items' TTL attributes are
	// compared by the check. Default time.Now.
	Now func() time.Time
	// ActiveTimeout bounds the wait for a created table to become active;
	// 0 means 10 minutes.
	ActiveTimeout time.Duration
	// Logger receives a line per table created, reused or checked; nil
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
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r
}

// Progress is how far a Copy has got with one table.
type Progress struct {
	// Table is the table being copied.
	Table string
	// Copied is the number of items of the table written, those of
	// earlier runs with the same state file included.
	Copied int64
	// Resumed is the part of Copied that earlier runs wrote.
	Resumed int64
	// Total is the estimated number of items of the table: the source's
	// ItemCount (which DynamoDB updates about every six hours), or a count
	// scan's if ItemCount is 0. Copied may pass it.
	Total int64
	// Done reports the table's last call: its items are copied and
	// checked, or it failed (then Failed is set too; its TableReport says
	// why).
	Done, Failed bool
}

// Report says what a Copy did, table by table.
type Report struct {
	Tables []TableReport
}

// Failed returns the names of the tables that failed.
func (r *Report) Failed() []string {
	var names []string
	for _, t := range r.Tables {
		if t.Err != nil {
			names = append(names, t.Name)
		}
	}
	return names
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
	// Read is the number of items this Copy read from the source pages
	// that were written and checked; Found of them were in the
	// destination when checked, Expired were not but their TTL had
	// passed (the destination may delete them at any time), Missing were
	// not although their TTL had not passed.
	Read, Found, Expired, Missing int64
	// Checked reports that every page of the table was written and
	// checked, and no item was missing.
	Checked bool
	// Err is why the table failed (nil if it did not): a *MismatchError
	// if items are missing, the error of the step that failed otherwise.
	Err error
}

// String returns a line per table.
func (r *Report) String() string {
	var b strings.Builder
	for _, t := range r.Tables {
		b.WriteString(t.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// String returns a line that says what was done with the table.
func (t TableReport) String() string {
	var b strings.Builder
	if errors.Is(t.Err, context.Canceled) {
		fmt.Fprintf(&b, "%s: interrupted", t.Name)
		if t.Copied > 0 {
			fmt.Fprintf(&b, " (%d items copied)", t.Copied)
		}
		return b.String()
	}
	if t.Err != nil {
		fmt.Fprintf(&b, "%s: FAILED: %v", t.Name, t.Err)
		if t.Copied > 0 {
			fmt.Fprintf(&b, " (%d items copied)", t.Copied)
		}
		return b.String()
	}
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
	if t.Checked {
		fmt.Fprintf(&b, ", checked: %d of %d items read are in the destination", t.Found, t.Read)
		if t.Expired > 0 {
			fmt.Fprintf(&b, ", %d expired on the way", t.Expired)
		}
	}
	return b.String()
}

// MismatchError reports a table some of whose items, read from the source
// and written, were not in the destination when checked, although their
// TTL had not passed.
type MismatchError struct {
	Table string
	// Missing is the number of such items, Read the number of items read.
	Missing, Read int64
	// Key is the key of one of them, as "hash=value range=value".
	Key string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("tablecopy: table %s: %d of the %d items read from the source are not in the destination (one: %s)", e.Table, e.Missing, e.Read, e.Key)
}

// ErrStateExists is the error of a Copy without Options.Resume whose state
// file exists: the record of an earlier copy, to resume or remove.
var ErrStateExists = errors.New("tablecopy: the state file exists")

// ErrNoState is the error of a Copy with Options.Resume whose state file
// does not exist.
var ErrNoState = errors.New("tablecopy: no state file to resume from")

// Copy copies the tables of o.Tables, schema and items, from from to to,
// resuming from o.StateFile with o.Resume, and checks each page of items
// it writes (see the package documentation). A destination table that
// exists with the same key schema is reused (its indexes and settings are
// left as they are, TTL set if it has none); one with another key schema
// fails that table before any of its items is copied.
//
// A table that fails does not stop the others: every table is prepared
// first (created, or its schema compared), then copied and checked in
// turn, each with its TableReport, Err set if it failed. Only the end of
// ctx stops the copy (the tables not done then fail with ctx's error).
// Copy returns the report, of every table asked for, and nil if none
// failed, else the tables' errors joined (errors.Is and errors.As see
// through: a *MismatchError, or ctx.Err()). Errors of the whole copy (the
// state file, the list of tables) come with a report of no tables.
// Errors begin "tablecopy: ".
func Copy(ctx context.Context, from, to timetable.API, o *Options) (*Report, error) {
	opts := o.withDefaults()
	rep := &Report{}
	if opts.Segments > 1000000 {
		return rep, fmt.Errorf("tablecopy: %d segments: at most 1,000,000", opts.Segments)
	}
	st, err := loadState(opts.StateFile, opts.Resume, opts.Source, opts.Destination)
	if err != nil {
		return rep, err
	}
	names := opts.Tables
	if len(names) == 0 && opts.Resume {
		names = st.Names
	}
	if len(names) == 0 {
		if names, err = listTables(ctx, from, "source"); err != nil {
			return rep, err
		}
	}
	st.Names = names
	c := &copier{from: from, to: to, o: opts, st: st}
	// First every schema, so that a destination that does not fit is
	// known before any item is written.
	tables := make([]*tableCopy, len(names))
	rep.Tables = make([]TableReport, len(names))
	for i, name := range names {
		tc, err := c.prepare(ctx, name)
		if err == nil {
			tc.total, err = c.estimate(ctx, tc)
			err = wrapf(err, "cannot count the items of source table %s", name)
		}
		if err != nil {
			rep.Tables[i] = TableReport{Name: name, Err: err}
			continue
		}
		tables[i] = tc
	}
	var errs []error
	for i, tc := range tables {
		if tc == nil {
			errs = append(errs, rep.Tables[i].Err)
			continue
		}
		err := ctx.Err()
		if err == nil {
			err = c.copyItems(ctx, tc)
		} else {
			err = wrapf(err, "table %s not copied", tc.name)
		}
		c.finish(tc, err)
		rep.Tables[i] = tc.rep
		if tc.rep.Err != nil {
			errs = append(errs, tc.rep.Err)
		}
	}
	if len(errs) > 0 {
		return rep, errors.Join(errs...)
	}
	return rep, st.remove()
}

// copier is one Copy.
type copier struct {
	from, to timetable.API
	o        Options
	st       *state

	mu sync.Mutex // guards the state, its file and the reports

	dstTables map[string]bool // the destination's tables, once listed
}

// tableCopy is the copy of one table.
type tableCopy struct {
	name      string
	hash      string // key attribute names
	rng       string
	keyTypes  map[string]string
	itemCount int64 // the source's ItemCount
	ttl       string
	total     int64 // the estimate of its items
	before    int64 // the items earlier runs wrote
	state     *tableState
	rep       TableReport
	key       string // a missing item's key
}

// listTables returns the names of the tables of api, the side named.
func listTables(ctx context.Context, api timetable.API, side string) ([]string, error) {
	var names []string
	in := &dynamodb.ListTablesInput{}
	for {
		out, err := api.ListTables(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("tablecopy: cannot list the %s's tables: %w", side, err)
		}
		names = append(names, out.TableNames...)
		if out.LastEvaluatedTableName == nil {
			return names, nil
		}
		in.ExclusiveStartTableName = out.LastEvaluatedTableName
	}
}

// report calls the progress callback, if any, under c.mu.
func (c *copier) report(tc *tableCopy, done bool) {
	if c.o.Progress != nil {
		c.o.Progress(Progress{Table: tc.name, Copied: tc.before + tc.rep.Copied, Resumed: tc.before, Total: tc.total, Done: done, Failed: done && tc.rep.Err != nil})
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
