package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/bench/workload"
	"github.com/timetable-db/timetable/local"
)

// section is a part of the markdown report.
type section struct {
	title string
	body  string
}

type suiteBackend struct {
	name  string
	open  func(ctx context.Context) (workload.Client, func(), error)
	times []time.Duration
}

func (b *suiteBackend) median() time.Duration {
	t := slices.Clone(b.times)
	slices.Sort(t)
	return t[len(t)/2]
}

// runSuite runs workload.Suite on each backend: one warm-up run, then
// cfg.suiteRuns measured runs taken in turns across the backends, each on
// a new table of one open backend.
func runSuite(ctx context.Context, e *env) ([]Figure, section, error) {
	mem := &suiteBackend{name: "in process, memory", open: func(context.Context) (workload.Client, func(), error) {
		db, err := local.Open("", &local.Options{InMemory: true})
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	}}
	disk := &suiteBackend{name: "in process, disk (synced)", open: func(context.Context) (workload.Client, func(), error) {
		dir, err := os.MkdirTemp(e.work, "suite-disk-")
		if err != nil {
			return nil, nil, err
		}
		db, err := local.Open(dir, nil)
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close(); os.RemoveAll(dir) }, nil
	}}
	http := func(name string, start func(context.Context) (*peers.Server, error)) *suiteBackend {
		return &suiteBackend{name: name, open: func(ctx context.Context) (workload.Client, func(), error) {
			s, err := start(ctx)
			if err != nil {
				return nil, nil, err
			}
			return peers.NewClient(s.Endpoint, 1), func() {}, nil
		}}
	}
	serveMem := http("timetable serve --in-memory over HTTP", func(ctx context.Context) (*peers.Server, error) {
		return e.ServeWith(ctx, append(slices.Clone(e.cfg.serveArgs), "--in-memory")...)
	})
	serve := http("timetable serve over HTTP (disk, synced)", e.Serve)
	// The floor: the answers of one run against serve --in-memory,
	// replayed in order by a server that does nothing else.
	floor := http("floor: a replay server (recorded answers, no work) over HTTP", func(ctx context.Context) (*peers.Server, error) {
		s, err := e.ServeWith(ctx, append(slices.Clone(e.cfg.serveArgs), "--in-memory")...)
		if err != nil {
			return nil, err
		}
		c, rec := peers.NewRecordingClient(s.Endpoint)
		if err := workload.Suite(ctx, c, "bench_suite_recorded"); err != nil {
			return nil, fmt.Errorf("recording the answers: %w", err)
		}
		file, err := writeReplay(e.work, rec.Answers())
		if err != nil {
			return nil, err
		}
		r, err := startReplay(ctx, file, e.work)
		if err != nil {
			return nil, err
		}
		return e.track(r), nil
	})
	ddb := http("DynamoDB Local over HTTP", e.DynamoDBLocal)
	backends := []*suiteBackend{mem, disk, serveMem, serve, floor, ddb}

	// Each backend is opened once and warmed up with one run; then the
	// measured runs go round the backends, one run of each in turn, so that
	// a change in the machine's load during the part touches all alike.
	clients := make([]workload.Client, len(backends))
	for i, b := range backends {
		c, closeFn, err := b.open(ctx)
		if err != nil {
			return nil, section{}, fmt.Errorf("%s: %w", b.name, err)
		}
		defer closeFn()
		clients[i] = c
	}
	for run := -1; run < e.cfg.suiteRuns; run++ {
		for i, b := range backends {
			table := fmt.Sprintf("bench_suite_%d_%d", i, run+1)
			t0 := time.Now()
			if err := workload.Suite(ctx, clients[i], table); err != nil {
				return nil, section{}, fmt.Errorf("%s: %w", b.name, err)
			}
			if run >= 0 {
				b.times = append(b.times, time.Since(t0))
			}
		}
	}
	for _, b := range backends {
		e.logf("suite workload, %s: median %v of %v", b.name, b.median().Round(time.Microsecond), b.times)
	}

	peer := ddb.median().Seconds()
	var figs []Figure
	for _, b := range []*suiteBackend{mem, disk, serveMem, serve} {
		ours := b.median().Seconds()
		f := Figure{
			Name:     "suite workload, " + b.name,
			Ours:     round(ours, 4),
			Peer:     ptr(round(peer, 4)),
			Unit:     "s",
			Ratio:    ptr(round(peer/ours, 1)),
			peerName: "DynamoDB Local",
		}
		if b == serveMem {
			// The fair comparison: DynamoDB Local runs with -inMemory.
			// The floor's ratio bounds what any server can reach.
			f.target = fmt.Sprintf(">= 5 (the floor's: %.1fx)", peer/floor.median().Seconds())
		}
		figs = append(figs, f)
	}
	// The floor's ratio is the highest any server can show with this
	// client on this machine; ours against the floor is how close it comes.
	figs = append(figs, Figure{
		Name:     "suite workload, the floor (a replay server in its own process: recorded answers, no work; the client's and HTTP's own time on this machine)",
		Ours:     round(floor.median().Seconds(), 4),
		Peer:     ptr(round(peer, 4)),
		Unit:     "s",
		Ratio:    ptr(round(peer/floor.median().Seconds(), 1)),
		peerName: "DynamoDB Local",
	}, Figure{
		Name:     "suite workload, timetable serve --in-memory over HTTP vs the floor (replay server)",
		Ours:     round(serveMem.median().Seconds(), 4),
		Peer:     ptr(round(floor.median().Seconds(), 4)),
		Unit:     "s",
		Ratio:    ptr(round(floor.median().Seconds()/serveMem.median().Seconds(), 2)),
		peerName: "replay server",
	})
	// What each server adds to the floor is its own share of the time: the
	// ratio the target stands for once the client's share is taken out.
	if ours, theirs := serveMem.median()-floor.median(), ddb.median()-floor.median(); ours > 0 && theirs > 0 {
		figs = append(figs, Figure{
			Name:     "suite workload, time added over the floor (the server's own share): timetable serve --in-memory over HTTP",
			Ours:     round(ours.Seconds(), 4),
			Peer:     ptr(round(theirs.Seconds(), 4)),
			Unit:     "s",
			Ratio:    ptr(round(theirs.Seconds()/ours.Seconds(), 1)),
			peerName: "DynamoDB Local",
		})
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "Create a table with a GSI, %d puts, %d queries (half on the GSI), %d conditional updates (one in ten fails its condition on purpose), delete the table: the same Go code (`bench/workload.Suite`), one call at a time, every answer checked. Median of %d runs after one warm-up run; the backend is opened once and not counted, and the measured runs go round the backends in turns. Over HTTP the client is aws-sdk-go-v2's (`peers.NewClient`, as in the wire runs).\n\n"+
		"The floor is a server that does no work: it answers each request with the answer timetable serve --in-memory gave to the same request in a recorded run (status, header fields and body), in order, over the no-op server's minimal HTTP loop, in a child process of its own. A run against it is the client's and HTTP's own time on this machine: no server can run the workload faster, and DynamoDB Local's time over the floor's (%.1fx in this run) is the highest ratio any server can show here. A server's time less the floor's is its own share of the run (its work, and its HTTP beyond the minimal loop's); the summary sets timetable's share against DynamoDB Local's.\n\n",
		workload.SuitePuts, workload.SuiteQueries, workload.SuiteUpdates, e.cfg.suiteRuns, peer/floor.median().Seconds())
	sb.WriteString("| backend | median | runs | vs DynamoDB Local |\n|---|---:|---|---:|\n")
	for _, b := range backends {
		runs := make([]string, len(b.times))
		for i, t := range b.times {
			runs[i] = fmtDur(t)
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %.1fx |\n", b.name, fmtDur(b.median()), strings.Join(runs, ", "), peer/b.median().Seconds())
	}
	return figs, section{title: "Test-suite workload", body: sb.String()}, nil
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	}
}
