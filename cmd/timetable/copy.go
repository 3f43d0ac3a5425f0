package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/smithy-go/logging"
	"golang.org/x/term"

	"github.com/timetable-db/timetable/backend"
	"github.com/timetable-db/timetable/tablecopy"
)

// CopyCommand is `timetable copy`: it copies tables, their schema and
// every item, from one backend of backend.Open to another (package
// tablecopy), with the progress of each table on stderr and a summary
// per table on stdout.
type CopyCommand struct {
	Stdout io.Writer // the summary of each table
	Stderr io.Writer // the progress of each table

	// Terminal reports whether w is a terminal, where progress is a bar
	// redrawn in place; elsewhere it is a plain line every Every. Default:
	// w is an *os.File that is a terminal.
	Terminal func(w io.Writer) bool
	// Every is the period of the plain progress lines; 0 means 10 seconds.
	Every time.Duration
	// Now returns the present, for rates and durations. Default time.Now,
	// which also redraws the progress on a timer while a page is slow; with
	// another Now, progress is shown only as the copy reports it.
	Now func() time.Time
}

const copyUsage = `Usage: timetable copy --from URL --to URL [flags]

Copies tables from one backend to another: each table's keys, indexes,
billing mode, stream and TTL settings, then every item, in parallel scan
segments. A destination table that exists with the same key schema is
reused. Progress goes to stderr, table by table: a bar on a terminal, a
line every 10 seconds otherwise. A summary line per table goes to stdout.

Each page of items is checked as soon as it is written: its keys are read
back from the destination. An item not found there fails its table, unless
its TTL has passed (DynamoDB may delete it at any time): such items count
as expired. So items that expire during the copy do not fail it. Items
written to the source during the copy are copied if the scan reaches them
after the write, and not if it had passed them; they never fail the check.
A table that fails does not stop the others; the exit status is 1 if any
failed, and the message names them.

Progress is saved after every page in a state file (--state; by default
one per pair of --from and --to in the user's cache folder), removed when
the copy ends without failure. After an interruption (Ctrl-C, a lost
connection) or a failed table, run the same command with --resume: it
goes on where each table stopped, and copies again the tables that failed
their check. Without --resume, a copy whose state file exists is refused;
--restart discards that state and starts again.

URLs are those of every timetable command:

  file:PATH            a data folder of the embedded engine
  mem:                 an empty in-memory engine (for trying things out)
  http://HOST:PORT     a DynamoDB-compatible endpoint (DynamoDB Local, timetable serve)
  dynamodb://REGION    Amazon DynamoDB, credentials from the AWS default chain

Example: move a data folder to DynamoDB, then resume after an interruption.

  timetable copy --from file:./timetable-data --to dynamodb://eu-west-1
  timetable copy --from file:./timetable-data --to dynamodb://eu-west-1 --resume

Flags:
`

// Run parses args and copies.
func (c *CopyCommand) Run(ctx context.Context, args []string) error {
	fs := newFlagSet("copy", copyUsage, c.Stderr)
	var (
		from     = fs.String("from", "", "the source backend's URL (required)")
		to       = fs.String("to", "", "the destination backend's URL (required)")
		tables   = fs.String("tables", "", "the tables to copy, comma-separated (default: those of the resumed copy, else every table of the source)")
		segments = fs.Int("segments", 4, "parallel scan segments per table (1 to 1000000); a resumed table keeps its count")
		state    = fs.String("state", "", "the file that records progress (default: copy-HASH.json in the timetable folder of the user's cache folder, HASH of --from and --to)")
		resume   = fs.Bool("resume", false, "continue the interrupted or failed copy that the state file records")
		restart  = fs.Bool("restart", false, "discard the state file of an earlier copy and start again")
		page     = fs.Int("page-items", 0, "items per scan page, after which progress is saved (default: pages of 1 MB)")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
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
	case *page < 0:
		bad = fmt.Sprintf("--page-items %d is negative", *page)
	case *resume && *restart:
		bad = "--resume and --restart exclude each other"
	}
	if bad != "" {
		fmt.Fprintf(c.Stderr, "timetable copy: %s\n\n", bad)
		fs.Usage()
		return errUsage
	}
	statePath := *state
	if statePath == "" {
		var err error
		if statePath, err = defaultCopyState(*from, *to); err != nil {
			return err
		}
	}
	if *restart {
		if err := os.Remove(statePath); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("cannot remove the state file: %w", err)
		}
	}

	// The SDK's warnings (connections closed by the server, retried)
	// would break the progress lines: they are counted, and shown in one
	// line per table.
	warnings := &sdkWarnings{}
	bo := &backend.Options{SDKLogger: warnings}
	src, err := backend.OpenWith(ctx, *from, bo)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := backend.OpenWith(ctx, *to, bo)
	if err != nil {
		return err
	}
	defer dst.Close()

	now := c.Now
	if now == nil {
		now = time.Now
	}
	terminal := c.Terminal
	if terminal == nil {
		terminal = copyIsTerminal
	}
	every := c.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	pr := &copyProgress{w: c.Stderr, terminal: terminal(c.Stderr), every: every, now: now, warnings: warnings}
	if f, ok := c.Stderr.(*os.File); ok && pr.terminal {
		pr.cols, _, _ = term.GetSize(int(f.Fd()))
	}
	o := &tablecopy.Options{
		Tables: splitList(*tables), Segments: *segments, PageItems: *page, StateFile: statePath, Resume: *resume,
		Source: *from, Destination: *to, Progress: pr.update,
	}
	start := now()
	stop := func() {}
	if c.Now == nil {
		stop = pr.ticking(min(max(every, 10*time.Millisecond), time.Second))
	}
	rep, err := tablecopy.Copy(ctx, src, dst, o)
	stop()
	switch {
	case errors.Is(err, tablecopy.ErrStateExists):
		return fmt.Errorf("an earlier copy from %s to %s did not finish; its progress is in %s: add --resume to continue it, or --restart to start again", *from, *to, statePath)
	case errors.Is(err, tablecopy.ErrNoState):
		return fmt.Errorf("there is no copy from %s to %s to resume (no state file %s)", *from, *to, statePath)
	case len(rep.Tables) == 0 && err != nil:
		return err
	}
	fmt.Fprint(c.Stdout, rep)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("interrupted; progress is in %s: run the same command with --resume to continue", statePath)
	}
	if failed := rep.Failed(); len(failed) > 0 {
		return fmt.Errorf("%d of %d tables failed: %s; progress is in %s: run the same command with --resume to copy them again",
			len(failed), len(rep.Tables), strings.Join(failed, ", "), statePath)
	}
	var items, expired int64
	for _, t := range rep.Tables {
		items += t.Copied
		expired += t.Expired
	}
	fmt.Fprintf(c.Stdout, "copied %s items of %d tables from %s to %s in %v; every page checked",
		num(float64(items)), len(rep.Tables), *from, *to, now().Sub(start).Round(time.Millisecond))
	if expired > 0 {
		fmt.Fprintf(c.Stdout, " (%s items expired on the way)", num(float64(expired)))
	}
	fmt.Fprintln(c.Stdout)
	return nil
}

// defaultCopyState returns the default state file of a copy from from to
// to: copy-HASH.json in the timetable folder of the user's cache folder,
// which it creates.
func defaultCopyState(from, to string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for the state file (%w): give one with --state", err)
	}
	dir = filepath.Join(dir, "timetable")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create the folder of the state file: %w", err)
	}
	h := sha256.Sum256([]byte(from + "\n" + to))
	return filepath.Join(dir, "copy-"+hex.EncodeToString(h[:6])+".json"), nil
}

// copyIsTerminal reports whether w is a terminal.
func copyIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// copyProgress shows the progress of a copy, table by table: on a
// terminal a bar redrawn in place at most ten times a second (and at least
// once a second), elsewhere a line when a table starts, every every, and
// when it is done. It is safe for concurrent use.
type copyProgress struct {
	w        io.Writer
	terminal bool
	every    time.Duration
	now      func() time.Time

	cols     int          // the terminal's width, 0 if unknown
	warnings *sdkWarnings // nil: none counted

	mu          sync.Mutex         // guards what follows, and the writes to w
	table       string             // the table shown
	cur         tablecopy.Progress // its last progress
	start, last time.Time          // of the table, and of the last line or bar
}

// update is the tablecopy.Options.Progress callback.
func (p *copyProgress) update(pr tablecopy.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = pr
	p.show(pr, p.now())
}

// tick shows the progress of the table being copied again, if it is due,
// so that a slow page does not freeze the display: every second on a
// terminal, every p.every otherwise.
func (p *copyProgress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	switch {
	case p.table == "" || p.cur.Done:
	case p.terminal && now.Sub(p.last) >= time.Second:
		p.last = now
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(p.cur, now))
	case !p.terminal && now.Sub(p.last) >= p.every:
		p.last = now
		fmt.Fprintln(p.w, p.line(p.cur, now))
	}
}

// ticking calls tick every period until the returned function is called.
func (p *copyProgress) ticking(period time.Duration) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// show shows pr at now. The caller holds p.mu.
func (p *copyProgress) show(pr tablecopy.Progress, now time.Time) {
	if pr.Table != p.table {
		p.table, p.start, p.last = pr.Table, now, now
		if p.terminal {
			p.last = time.Time{} // draw the bar at once
		} else {
			fmt.Fprintf(p.w, "%s: copying about %s items", pr.Table, num(float64(pr.Total)))
			if pr.Resumed > 0 {
				fmt.Fprintf(p.w, ", %s of them copied before", num(float64(pr.Resumed)))
			}
			fmt.Fprintln(p.w)
			return
		}
	}
	switch {
	case pr.Done && p.terminal:
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", p.line(pr, now))
		p.warned(pr.Table)
	case pr.Failed:
		fmt.Fprintln(p.w, p.line(pr, now))
		p.warned(pr.Table)
	case pr.Done:
		done := pr.Copied - pr.Resumed
		fmt.Fprintf(p.w, "%s: %s items in %v (%s items/s)\n", pr.Table, num(float64(done)), now.Sub(p.start).Round(time.Second), num(rate(done, now.Sub(p.start))))
		p.warned(pr.Table)
	case p.terminal && now.Sub(p.last) >= 100*time.Millisecond:
		p.last = now
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(pr, now))
	case !p.terminal && now.Sub(p.last) >= p.every:
		p.last = now
		fmt.Fprintln(p.w, p.line(pr, now))
	}
}

// warned prints a line that counts the SDK's warnings since the last
// such line, if there were any, with the last of them.
func (p *copyProgress) warned(table string) {
	if n, last := p.warnings.take(); n > 0 {
		fmt.Fprintf(p.w, "%s: %d warnings of the AWS SDK, the copy went on; the last: %s\n", table, n, last)
	}
}

// line returns the progress of a table: a bar on a terminal, then the
// items copied of the estimate, the rate of this run and the time left.
func (p *copyProgress) line(pr tablecopy.Progress, now time.Time) string {
	total := max(pr.Total, pr.Copied, 1)
	frac := float64(pr.Copied) / float64(total)
	if pr.Done && !pr.Failed {
		frac = 1
	}
	elapsed := now.Sub(p.start)
	r := rate(pr.Copied-pr.Resumed, elapsed)
	var b strings.Builder
	fmt.Fprintf(&b, "%3.0f%% %s/%s items, %s items/s", 100*frac, num(float64(pr.Copied)), num(float64(total)), num(r))
	switch {
	case pr.Failed:
		fmt.Fprintf(&b, ", stopped after %v", elapsed.Round(time.Second))
	case pr.Done:
		fmt.Fprintf(&b, ", done in %v", elapsed.Round(time.Second))
	case r > 0 && total > pr.Copied:
		fmt.Fprintf(&b, ", ETA %v", (time.Duration(float64(total-pr.Copied)/r) * time.Second).Round(time.Second))
	default:
		b.WriteString(", ETA ?")
	}
	bar := ""
	if p.terminal {
		// A bar of 30 characters, shorter on a narrow terminal (none
		// below 5), so that the line does not wrap.
		width := 30
		if p.cols > 0 {
			width = min(width, p.cols-1-len(pr.Table)-2-3-b.Len())
		}
		if width >= 5 {
			n := int(frac * float64(width))
			bar = "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] "
		}
	}
	return pr.Table + ": " + bar + b.String()
}

// rate returns n items over d, per second, rounded; 0 if d is not
// positive.
func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(int64(float64(n)/d.Seconds() + 0.5))
}

// sdkWarnings counts the log lines of the AWS SDK and keeps the last. It
// is safe for concurrent use.
type sdkWarnings struct {
	mu   sync.Mutex
	n    int
	last string
}

// Logf is logging.Logger's.
func (w *sdkWarnings) Logf(_ logging.Classification, format string, v ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	w.last = strings.ReplaceAll(fmt.Sprintf(format, v...), "\n", " ")
}

// take returns the count and the last line, and starts counting again.
func (w *sdkWarnings) take() (int, string) {
	if w == nil {
		return 0, ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	n, last := w.n, w.last
	w.n, w.last = 0, ""
	return n, last
}
