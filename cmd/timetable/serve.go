package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// ServeCommand opens the embedded engine and serves it over DynamoDB's HTTP
// protocol until its context is cancelled (SIGINT or SIGTERM in the
// binary), then stops accepting requests, lets those in flight finish and
// closes the data folder.
type ServeCommand struct {
	Stdout io.Writer // the banner: where the endpoint is and how to use it
	Stderr io.Writer // the log

	// Listen opens the listener for addr. Default net.Listen("tcp", addr).
	Listen func(addr string) (net.Listener, error)

	// ShutdownTimeout bounds how long requests in flight may take to finish
	// after cancellation. Default 10 seconds.
	ShutdownTimeout time.Duration
}

const serveUsage = `Usage: timetable serve [flags]

Opens the embedded engine and serves it over DynamoDB's HTTP protocol, so
the AWS CLI and every AWS SDK can use it as a DynamoDB endpoint. Any
credentials and any region are accepted. SIGINT or SIGTERM stop it cleanly.

Flags:
`

// Run parses args and serves until ctx is cancelled.
func (c *ServeCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	var (
		dataDir  = fs.String("data", "./timetable-data", "data folder (created if missing)")
		addr     = fs.String("dynamodb-addr", "127.0.0.1:8000", "listen address of the DynamoDB endpoint (host:port; port 0 picks a free one)")
		noSync   = fs.Bool("no-sync", false, "acknowledge writes before the write-ahead log is synced to disk (faster; a crash may lose the latest writes: a process crash those of the last moments, a machine crash those since the last sync)")
		inMemory = fs.Bool("in-memory", false, "keep all data in memory, lost at exit (--data is ignored)")
		addrFile = fs.String("addr-file", "", "once listening, write the endpoint's host:port to this file (for scripts that use port 0)")
		verbose  = fs.Bool("v", false, "log at debug level")
		pprofAt  = fs.String("pprof-addr", "", "also serve Go's runtime profiles (net/http/pprof, with block and mutex profiling on) at this address, e.g. 127.0.0.1:6060; off by default")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "timetable serve: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: level}))

	if !*inMemory {
		if err := os.MkdirAll(*dataDir, 0o755); err != nil {
			return fmt.Errorf("cannot create the data folder: %w", err)
		}
	}
	db, err := local.Open(*dataDir, &local.Options{InMemory: *inMemory, NoSync: *noSync, Logger: logger})
	if err != nil {
		return err
	}
	listen := c.Listen
	if listen == nil {
		listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	ln, err := listen(*addr)
	if err != nil {
		_ = db.Close()
		return fmt.Errorf("cannot listen on %s: %w", *addr, err)
	}
	endpoint := "http://" + ln.Addr().String()
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			_ = ln.Close()
			_ = db.Close()
			return fmt.Errorf("cannot write --addr-file: %w", err)
		}
	}

	srv := &http.Server{
		Handler:           wire.New(db, &wire.Options{Logger: logger}),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if *pprofAt != "" {
		psrv, err := startProfiles(*pprofAt, listen, logger)
		if err != nil {
			_ = ln.Close()
			_ = db.Close()
			return err
		}
		defer psrv.Close()
	}
	if os.Getenv("GOGC") == "" {
		gctx, stopGC := context.WithCancel(ctx)
		defer stopGC()
		go keepGCHeadroom(gctx, gcHeadroom)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	where := *dataDir
	if *inMemory {
		where = "memory"
	}
	logger.Info("serving DynamoDB endpoint", "endpoint", endpoint, "data", where, "sync", !*noSync)
	printBanner(c.Stdout, endpoint, where)

	var serveErr error
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case serveErr = <-served:
		// Serve returned before cancellation: the listener failed.
	}
	timeout := c.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	shutdownErr := srv.Shutdown(sctx)
	if shutdownErr != nil {
		logger.Warn("requests still running at shutdown deadline", "err", shutdownErr)
		_ = srv.Close()
	}
	closeErr := db.Close()
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serving on %s: %w", endpoint, serveErr)
	}
	if closeErr != nil {
		return fmt.Errorf("cannot close the data folder: %w", closeErr)
	}
	logger.Info("stopped")
	return nil
}

func printBanner(w io.Writer, endpoint, where string) {
	fmt.Fprintf(w, `timetable is serving DynamoDB's API on %[1]s (data: %[2]s)

AWS CLI (any credentials and region do):
  export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1
  aws dynamodb list-tables --endpoint-url %[1]s

Go, aws-sdk-go-v2:
  client := dynamodb.New(dynamodb.Options{
      Region:       "us-east-1",
      BaseEndpoint: aws.String(%[1]q),
      Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
  })

Other SDKs and tools: set the endpoint URL to %[1]s with dummy
credentials, or export AWS_ENDPOINT_URL_DYNAMODB=%[1]s
Stop with Ctrl-C (SIGINT) or SIGTERM.
`, endpoint, where)
}

// startProfiles serves net/http/pprof's handlers on their own listener at
// addr, and turns on block and mutex profiling (which cost a little on
// every contended lock, so only when asked).
func startProfiles(addr string, listen func(string) (net.Listener, error), logger *slog.Logger) (*http.Server, error) {
	ln, err := listen(addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on --pprof-addr %s: %w", addr, err)
	}
	runtime.SetBlockProfileRate(10_000) // one sample per 10 µs blocked
	runtime.SetMutexProfileFraction(100)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	logger.Info("serving profiles", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return srv, nil
}

// gcHeadroom is the least the heap may grow between two garbage
// collections while serving, unless GOGC is set. A served database keeps
// most of its data outside the Go heap (Pebble's memtables and block cache),
// so the live heap is often a few megabytes; with Go's default (GOGC=100:
// grow by as much as the live heap) the collector then runs several times a
// second under load, which costs the server about a sixth of its CPU. With
// this floor it runs a few times less often, for at most 64 MB more memory;
// once the live heap is larger than that, Go's default applies unchanged.
const gcHeadroom = 64 << 20

// keepGCHeadroom adjusts the collector's percentage every second so that
// the heap may grow by at least headroom bytes between collections, until
// ctx is done, and then restores it. The percentage stays between 100
// (Go's default) and 1000.
func keepGCHeadroom(ctx context.Context, headroom uint64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := 100
	orig := debug.SetGCPercent(current)
	defer debug.SetGCPercent(orig)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			want := 100
			if live := sample[0].Value.Uint64(); live > 0 {
				want = int(min(max(headroom*100/live, 100), 1000))
			}
			// Only changes of more than a tenth are worth making.
			if want*10 < current*9 || want*10 > current*11 {
				debug.SetGCPercent(want)
				current = want
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
