package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/timetable-db/timetable/backend"
	"github.com/timetable-db/timetable/tablecopy"
)

// CopyCommand is `timetable copy`: it copies tables, their schema and
// every item, from one backend of backend.Open to another (package
// tablecopy), with a progress bar on a terminal.
type CopyCommand struct {
	Stdout io.Writer // the summary line
	Stderr io.Writer // the progress bar and the report of each table, on a terminal

	// Terminal reports whether w is a terminal, where the progress bar
	// and the per-table report are shown. Default: w is an *os.File that
	// is a terminal.
	Terminal func(w io.Writer) bool
}

const copyUsage = `Usage: timetable copy --from URL --to URL [flags]

Copies tables from one backend to another: each table's keys, indexes,
billing mode, stream and TTL settings, then every item, in parallel scan
segments, then counts the items on both sides. A destination table that
exists with the same key schema is reused. With --state, progress is saved
after every page, and the same command run again resumes an interrupted
copy where it stopped (a finished one is only verified again).

URLs are those of every timetable command:

  file:PATH            a data folder of the embedded engine
  http://HOST:PORT     a DynamoDB-compatible endpoint (DynamoDB Local, timetable serve)
  dynamodb://REGION    Amazon DynamoDB, credentials from the AWS default chain

Example: move a data folder to DynamoDB, resumably.

  timetable copy --from file:./timetable-data --to dynamodb://eu-west-1 --state copy-state.json

Flags:
`

// Run parses args and copies.
func (c *CopyCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("copy", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), copyUsage)
		fs.PrintDefaults()
	}
	var (
		from     = fs.String("from", "", "the source backend's URL (required)")
		to       = fs.String("to", "", "the destination backend's URL (required)")
		tables   = fs.String("tables", "", "the tables to copy, comma-separated (default: every table of the source)")
		segments = fs.Int("segments", 4, "parallel scan segments per table (1 to 1000000); a resumed table keeps its count")
		state    = fs.String("state", "", "the file that records progress, to resume an interrupted copy (default: none)")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	bad := ""
	switch {
	case fs.NArg() > 0:
		bad = fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case *from == "" || *to == "":
		bad = "--from and --to are required"
	case *from == *to:
		bad = "--from and --to name the same backend"
	case *segments < 1 || *segments > 1000000:
		bad = fmt.Sprintf("--segments %d is not in 1 to 1000000", *segments)
	}
	if bad != "" {
		fmt.Fprintf(c.Stderr, "timetable copy: %s\n\n", bad)
		fs.Usage()
		return errUsage
	}

	src, err := backend.Open(ctx, *from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := backend.Open(ctx, *to)
	if err != nil {
		return err
	}
	defer dst.Close()

	o := &tablecopy.Options{
		Tables: splitList(*tables), Segments: *segments, StateFile: *state,
		Source: *from, Destination: *to,
	}
	terminal := c.Terminal
	if terminal == nil {
		terminal = copyIsTerminal
	}
	var bar *progressbar.ProgressBar
	if terminal(c.Stderr) {
		o.Progress = func(p tablecopy.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions64(max(p.Total, 1),
					progressbar.OptionSetWriter(c.Stderr),
					progressbar.OptionSetItsString("items"),
					progressbar.OptionShowCount(),
					progressbar.OptionShowIts(),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionSetElapsedTime(true),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionFullWidth(),
					progressbar.OptionSetRenderBlankState(true),
				)
			}
			if p.Copied > p.Total { // the total is an estimate
				bar.ChangeMax64(p.Copied)
			}
			if p.Table != "" {
				bar.Describe(p.Table)
			}
			_ = bar.Set64(p.Copied)
		}
	}
	start := time.Now()
	rep, err := tablecopy.Copy(ctx, src, dst, o)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(c.Stderr)
		if rep != nil {
			fmt.Fprint(c.Stderr, rep)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			if *state != "" {
				return fmt.Errorf("interrupted; progress is in %s: run the same command again to resume", *state)
			}
			return errors.New("interrupted; with --state FILE a copy can resume where it stopped")
		}
		return err
	}
	var items int64
	for _, t := range rep.Tables {
		items += t.Copied
	}
	fmt.Fprintf(c.Stdout, "copied %d items of %d tables from %s to %s in %v; item counts verified\n",
		items, len(rep.Tables), *from, *to, time.Since(start).Round(time.Millisecond))
	return nil
}

// copyIsTerminal reports whether w is a terminal.
func copyIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
