package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

const writeUsage = `Usage: timetable write [flags] [FILE...]
       timetable import [flags] FILE...

Writes readings from files, or stdin (no FILE, or -), to a server or a data
folder: InfluxDB line protocol (the default; the measurement is the kind),
or with --kind, CSV (header series,time,<field or tag>...), JSON (an array
of readings, or {"readings": [...]}) or JSON lines. Input is sent in batches
of --batch lines; each batch is written whole or refused whole, with the
line and the reason. import is write with a progress bar on a terminal.

Examples:
  echo 'SENSOR,series=s1 temperature=21.5' | timetable write
  timetable write --kind SENSOR --format csv readings.csv
  timetable import --server http://127.0.0.1:8000 --format lp dump.lp
`

// writeFlags are the flags of `timetable write` and `import`.
type writeFlags struct {
	kind, format, precision string
	batch                   int
	sync                    bool
}

func newWriteCommand(stdout, stderr io.Writer) command { return writeCommand("write", stdout, stderr) }
func newImportCommand(stdout, stderr io.Writer) command {
	return writeCommand("import", stdout, stderr)
}

func writeCommand(name string, stdout, stderr io.Writer) command {
	f := &writeFlags{}
	return &clientCommand{
		name: name, usage: writeUsage, stdout: stdout, stderr: stderr, minArgs: 0, maxArgs: -1,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.format, "format", "lp", "lp (line protocol), csv, json or jsonl")
			fs.StringVar(&f.kind, "kind", "", "the kind of the readings (csv, json, jsonl)")
			fs.StringVar(&f.precision, "precision", "ns", "line protocol timestamps: ns, us, ms, s, m or h")
			fs.IntVar(&f.batch, "batch", 5000, "lines per request")
			fs.BoolVar(&f.sync, "sync", false, "return once the table holds the readings, not only the log")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			if len(args) == 0 {
				if name == "import" {
					fmt.Fprint(stderr, writeUsage)
					return errUsage
				}
				args = []string{"-"}
			}
			path, ctype, err := f.endpoint()
			if err != nil {
				return err
			}
			total := 0
			for _, file := range args {
				n, err := f.send(ctx, c, file, path, ctype, name == "import", stderr)
				total += n
				if err != nil {
					return fmt.Errorf("%s: %w (%d readings of earlier batches were written)", file, err, total)
				}
			}
			if name == "import" {
				fmt.Fprintf(stderr, "%d lines written\n", total)
			}
			return nil
		},
	}
}

// endpoint returns the path and content type of the format.
func (f *writeFlags) endpoint() (string, string, error) {
	q := url.Values{}
	if f.sync {
		q.Set("sync", "true")
	}
	if f.format == "lp" {
		q.Set("precision", f.precision)
		return "/api/v1/write?" + q.Encode(), "text/plain", nil
	}
	if f.kind == "" {
		return "", "", fmt.Errorf("--format %s needs --kind", f.format)
	}
	path := "/api/v1/kinds/" + url.PathEscape(f.kind) + "/readings?" + q.Encode()
	switch f.format {
	case "csv":
		return path, "text/csv", nil
	case "json":
		return path, "application/json", nil
	case "jsonl":
		return path, "application/x-ndjson", nil
	}
	return "", "", fmt.Errorf("--format %q: want lp, csv, json or jsonl", f.format)
}

// send writes one file in batches of lines and returns the lines written.
// A JSON document is sent whole.
func (f *writeFlags) send(ctx context.Context, c *client, file, path, ctype string, progress bool, stderr io.Writer) (int, error) {
	in := io.Reader(os.Stdin)
	size := int64(-1)
	if file != "-" {
		fh, err := os.Open(file)
		if err != nil {
			return 0, err
		}
		defer fh.Close()
		if st, err := fh.Stat(); err == nil {
			size = st.Size()
		}
		in = fh
	}
	if progress {
		bar := newProgressBar(stderr, size, "importing "+file, true)
		r := progressbar.NewReader(in, bar)
		in = &r
		defer bar.Finish()
	}
	post := func(body []byte) error {
		return c.do(ctx, http.MethodPost, path, http.Header{"Content-Type": {ctype}}, bytes.NewReader(body), nil)
	}
	if f.format == "json" {
		b, err := io.ReadAll(in)
		if err != nil {
			return 0, err
		}
		return 1, post(b)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var header []byte
	var buf bytes.Buffer
	lines, written, line := 0, 0, 0
	flush := func() error {
		if lines == 0 {
			return nil
		}
		if err := post(buf.Bytes()); err != nil {
			return fmt.Errorf("batch from line %d: %w", line-lines+1, err)
		}
		written += lines
		buf.Reset()
		buf.Write(header)
		lines = 0
		return nil
	}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if f.format == "csv" && header == nil {
			header = append(append([]byte(nil), b...), '\n')
			buf.Write(header)
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		buf.Write(b)
		buf.WriteByte('\n')
		lines++
		if lines >= f.batch {
			if err := flush(); err != nil {
				return written, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return written, fmt.Errorf("line %d: %w", line+1, err)
	}
	return written, flush()
}

// newProgressBar returns a bar with rate and ETA on w when w is a
// terminal, and a silent one otherwise. total < 0 is unknown (a spinner).
func newProgressBar(w io.Writer, total int64, what string, bytes bool) *progressbar.ProgressBar {
	visible := false
	if fh, ok := w.(*os.File); ok && term.IsTerminal(int(fh.Fd())) {
		visible = true
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetVisibility(visible),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(bytes),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	}
	if !bytes {
		// A count of bytes shows its own rate; "it/s" would repeat it
		// in other units.
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionShowIts())
	}
	return progressbar.NewOptions64(total, opts...)
}
