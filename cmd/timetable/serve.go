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
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/front"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/wire"
)

// ServeCommand opens a data folder and serves it until its context is
// cancelled (SIGINT or SIGTERM in the binary): the series API, InfluxDB's
// write endpoints and DynamoDB's protocol on one address. At cancellation
// it stops taking requests, lets those in flight finish, flushes the
// series store, syncs and closes the folder. Each of the two waits is
// bounded by ShutdownTimeout: the readings a flush cut short did not
// write stay in the write-ahead log, and the next start writes them.
type ServeCommand struct {
	Stdout io.Writer // the banner: where the endpoint is and how to use it
	Stderr io.Writer // the log

	// Listen opens the listener for addr. Default net.Listen("tcp", addr).
	Listen func(addr string) (net.Listener, error)

	// ShutdownTimeout bounds each step of the shutdown after cancellation:
	// requests in flight finishing, then the flush of the buffered
	// readings (what it leaves stays in the write-ahead log for the next
	// start), then, with closeGrace more, the data folder closing; past
	// that the command returns without waiting, and the next start
	// recovers from the logs. Default 10 seconds.
	ShutdownTimeout time.Duration

	// ReadHeaderTimeout bounds how long a client may take to send a
	// request's headers; a slower one has its connection closed. Default
	// 10 seconds.
	ReadHeaderTimeout time.Duration
}

const serveUsage = `Usage: timetable serve [flags]

Opens a data folder (or memory, or a remote backend with --backend) and
serves, on one address:
  /api/v1/...          the series API: kinds, readings, latest, ranges, aggregates
  /write, /api/v2/write  InfluxDB line protocol (v1 and v2 clients)
  POST / (X-Amz-Target)  DynamoDB's API, for the AWS SDKs and CLI
  /metrics /healthz /readyz /openapi.json, and a page at /

Tokens are needed unless --no-auth: the first start prints an admin token
and an admin access key for the DynamoDB endpoint, once; make more with
"timetable token create" (--dynamodb for an access key). The DynamoDB
endpoint refuses every request not signed (SigV4) by a known access key.
See docs/security.md. SIGINT or SIGTERM stop it cleanly: writes
acknowledged are flushed and synced; what the flush has not written 10
seconds on stays in the write-ahead log for the next start.

Web pages the user opens cannot use it: browsers' requests from other
origins are refused unless --cors-origins lists them, and on a loopback
--addr requests for host names other than localhost are refused (DNS
rebinding) unless --allowed-hosts lists them (a reverse proxy's name).

On a remote backend (--backend http(s)://HOST:PORT or dynamodb://REGION)
several servers may share the tables behind a load balancer. Each keeps
locally, in --data, only the series write-ahead log (readings acknowledged
and not yet flushed: kill -9 keeps them, a lost disk loses them; nothing
with --sync-writes). Tokens and access keys are in the backend's
--auth-table; the DynamoDB endpoint is a proxy to the backend, behind this
server's access check, with this server's AWS credentials; the auth and
analytics tables are served to admin keys only. A change made through one
server reaches the others within --cache-ttl.

Examples:
  timetable serve --data ./timetable-data --addr 127.0.0.1:8000
  timetable serve --backend dynamodb://eu-west-1 --data ./timetable-local

Flags:
`

// serveFlags are serve's settings.
type serveFlags struct {
	dataDir, addr, addrFile, pprofAt, logFormat, table, cors string
	backendURL, authTable                                    string
	noSync, inMemory, verbose, noAuth, metricsPublic         bool
	syncWrites                                               bool
	cacheTTL                                                 time.Duration
	rate                                                     float64
	burst                                                    int
	maxBody, maxInflated, maxInFlight, minFree               int64
	maxReadings, maxSeries                                   int
	noAutoKinds                                              bool
	otlpPromote                                              string
	maxKinds, maxFields, maxTags                             int
	flushInterval, rollupInterval, compactInterval           time.Duration
	sourceExpiry                                             time.Duration
	shardLifetime                                            time.Duration
	maxPeriods                                               int
	requestTimeout, maxFuture                                time.Duration
	analyticsTable                                           string
	aggregateEvery                                           time.Duration
	// The collect endpoint's (POST /api/event).
	countryHeader, geoipDB, trustedProxies, botIPRanges string
	collectRate                                         float64
	// The names the Host header may give besides this machine's.
	allowedHosts string
	memoryLimit  string
}

func (c *ServeCommand) flags(fs *flag.FlagSet) *serveFlags {
	f := &serveFlags{}
	fs.StringVar(&f.dataDir, "data", defaultDataDir, "data folder (created if missing); with a remote --backend, the folder of what this server keeps locally: the series write-ahead log (readings acknowledged, not yet flushed to the backend)")
	fs.StringVar(&f.backendURL, "backend", "", "where the data is: file:DIR (the same as --data DIR), mem: (as --in-memory), or a remote backend: http(s)://HOST:PORT (DynamoDB Local, ScyllaDB Alternator, another timetable serve) or dynamodb://REGION (Amazon DynamoDB); credentials and region from the AWS default chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...). On a remote backend tokens and access keys are in its --auth-table, the DynamoDB endpoint is a proxy to the backend behind this server's access check, and several servers may share the tables")
	fs.BoolVar(&f.syncWrites, "sync-writes", false, "answer each write once its readings are in the table (the backend), not once they are in the local write-ahead log: slower, but a server whose disk is lost loses nothing acknowledged. Without it, on a remote backend, readings acknowledged in the last --flush-interval live only in this server's --data folder until flushed; kill -9 keeps them (the next start writes them), losing the disk loses them. With it and a fresh --data folder, the server keeps nothing locally")
	fs.DurationVar(&f.cacheTTL, "cache-ttl", authCacheDefault, "on a remote backend: how long this server trusts what it read of tokens, access keys, sites and kinds' schemas, so the longest a change made through another server (a token revoked, a site made private, a kind changed) takes to reach this one (at most 10s is advised for a fleet; on a data folder the stores' own caches apply: 10s each)")
	fs.StringVar(&f.authTable, "auth-table", auth.DefaultTable, "the table of tokens and access keys (in the backend on a remote --backend; in the data folder's own auth engine otherwise)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8000", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&f.addr, "dynamodb-addr", "127.0.0.1:8000", "the same as --addr (older name)")
	fs.BoolVar(&f.noSync, "no-sync", false, "acknowledge writes before the engine's write-ahead log is synced to disk (faster; a machine crash may lose the latest writes)")
	fs.BoolVar(&f.inMemory, "in-memory", false, "keep all data in memory, lost at exit (--data is ignored)")
	fs.StringVar(&f.addrFile, "addr-file", "", "once listening, write host:port to this file (for scripts that use port 0)")
	fs.BoolVar(&f.verbose, "v", false, "log at debug level")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&f.pprofAt, "pprof-addr", "", "also serve Go's runtime profiles at this address, e.g. 127.0.0.1:6060; off by default")
	fs.BoolVar(&f.noAuth, "no-auth", false, "serve without tokens: anyone who can connect can read, write and change everything (local development only)")
	fs.BoolVar(&f.metricsPublic, "metrics-public", false, "serve /metrics without a token")
	fs.Float64Var(&f.rate, "rate-limit", 0, "requests per second each token may make (0: no limit)")
	fs.IntVar(&f.burst, "rate-burst", 0, "requests a token may make at once above --rate-limit (default: one second's worth)")
	fs.StringVar(&f.cors, "cors-origins", "", "comma-separated origins (https://app.example) whose pages may call the API and the DynamoDB endpoint from a browser (* for any); pages of other origins can neither read the answers nor change anything")
	fs.StringVar(&f.allowedHosts, "allowed-hosts", "", "comma-separated host names the server answers to besides its IP addresses and localhost (a name a reverse proxy passes on; * for any). On a loopback --addr other names are refused, against DNS rebinding; on another address any name is answered unless this is set")
	fs.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBodyBytes, "largest request body in bytes, as sent (the DynamoDB endpoint's is DynamoDB's 16 MB)")
	fs.Int64Var(&f.maxInflated, "max-inflated", server.DefaultMaxInflatedBytes, "largest gzip request body in bytes once inflated, checked as it inflates")
	fs.IntVar(&f.maxReadings, "max-readings", server.DefaultMaxReadings, "most readings in one write request (a decoded reading holds some 90 to 220 bytes until the request is answered)")
	fs.IntVar(&f.maxSeries, "max-series", server.DefaultMaxSeries, "most distinct series in one write request")
	fs.BoolVar(&f.noAutoKinds, "no-auto-kinds", false, "refuse line-protocol, Prometheus remote-write and OTLP readings of kinds, fields and tags not defined beforehand (by default those writes define them: docs/metrics.md)")
	fs.StringVar(&f.otlpPromote, "otlp-promote-resource-attributes", "", "comma-separated OTLP resource attributes (k8s.namespace.name,...) copied into the labels of every series of their resource, as Prometheus' otlp.promote_resource_attributes; the others are in target_info only (docs/metrics.md)")
	fs.IntVar(&f.maxKinds, "max-kinds", server.DefaultMaxKinds, "most kinds the writes of open protocols may bring the store to (0: no limit)")
	fs.IntVar(&f.maxFields, "max-fields", server.DefaultMaxFields, "most fields those writes may bring a kind to (0: no limit)")
	fs.IntVar(&f.maxTags, "max-tags", server.DefaultMaxTags, "most tags (labels) those writes may bring a kind to (0: no limit)")
	fs.Int64Var(&f.maxInFlight, "max-inflight-bytes", server.DefaultMaxInFlightBytes, "bytes of memory all requests in progress may hold at once (bodies, decoded readings), shared by every face; a request that would pass it waits a second, then gets 503 (ThrottlingException on the DynamoDB endpoint)")
	fs.Int64Var(&f.minFree, "min-free-bytes", 0, "bytes the data folder's disk must keep free: below them writes are refused 507 (and /readyz fails) until space is freed, so the engine never meets a full disk (0: four memtables and 16 MiB, 80 MiB; negative: no check)")
	fs.IntVar(&f.maxPeriods, "max-periods", series.DefaultMaxPeriods, "most periods one aggregate, or time buckets one Stats API query, may produce (more is refused 400)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", server.DefaultRequestTimeout, "longest time a read (series API, Stats API, analytics) may take before it is answered 504 (negative: no limit)")
	fs.DurationVar(&f.maxFuture, "max-future", series.DefaultMaxFuture, "how far ahead of the server's clock a reading's time may be (later is refused 400; negative: no bound)")
	fs.StringVar(&f.table, "table", series.DefaultTable, "the table of the time series")
	fs.StringVar(&f.analyticsTable, "analytics-table", analytics.DefaultTable, "the table of the web analytics (sites, page views, aggregates)")
	fs.DurationVar(&f.aggregateEvery, "aggregate-every", time.Minute, "how often the web analytics' aggregates are brought up to date with the hits recorded since")
	fs.StringVar(&f.countryHeader, "country-header", "", "request header a CDN puts the visitor's country in, e.g. CF-IPCountry (web analytics)")
	fs.StringVar(&f.geoipDB, "geoip-db", "", "a MaxMind GeoLite2/GeoIP2 or DB-IP country (or city) .mmdb file giving visitors' countries (web analytics)")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated addresses and CIDR prefixes of proxies whose X-Forwarded-For and X-Real-IP give the visitor's address (web analytics)")
	fs.StringVar(&f.botIPRanges, "bot-ip-ranges", "", "comma-separated addresses and CIDR prefixes whose hits are dropped as bots' (web analytics)")
	fs.Float64Var(&f.collectRate, "collect-rate-limit", collect.DefaultRateLimit, "events per second accepted per site and visitor address (an IPv6 address by its /64) on /api/event (negative: no limit)")
	fs.DurationVar(&f.flushInterval, "flush-interval", time.Minute, "how often buffered readings are written to the table (they are in the series log at once)")
	fs.DurationVar(&f.rollupInterval, "rollup-interval", time.Minute, "how often the series' hourly, daily and monthly rollups of the periods written to are computed, and the label index of a kind written by an earlier version is built (on a shared backend, by one server per kind at a time, under a lease of three intervals; negative: never)")
	fs.DurationVar(&f.compactInterval, "compact-interval", time.Minute, "how often the small chunk items of each series and hour are merged (on a shared backend, by one server per kind at a time, under a lease of three intervals; negative: never)")
	fs.DurationVar(&f.sourceExpiry, "source-expiry", 0, "on a remote DynamoDB-compatible backend (--backend http(s):// or dynamodb://), with --compact-interval on: the chunk items that compaction merges expire this long after their day instead of being deleted one by one, which saves a write unit each (e.g. "+suggestedSourceExpiry.String()+"); readings written while no server compacts for that long are lost when they expire (0, the default: delete them; the embedded engine always deletes)")
	fs.DurationVar(&f.shardLifetime, "stream-shard-lifetime", 4*time.Hour, "how long a shard of a DynamoDB stream takes records before a child shard follows it, as DynamoDB rolls shards over about every 4 hours (shorter, e.g. 1m, to test that consumers follow closed shards; negative: never)")
	fs.StringVar(&f.memoryLimit, "memory-limit", "auto", "soft limit of the memory the Go runtime holds (heap, stacks; not the engine's block cache and memtables), as 512MiB or 2GB: near it the garbage collector runs more often, for some CPU; past it (live data larger) it runs back to back with at most half the CPU. auto: GOMEMLIMIT if set, else 256MiB or half the machine's memory if less; off: no limit")
	return f
}

// Run parses args and serves until ctx is cancelled.
func (c *ServeCommand) Run(ctx context.Context, args []string) error {
	fs := newFlagSet("serve", serveUsage, c.Stderr)
	f := c.flags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "timetable serve: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	logger, err := newLogger(c.Stderr, f.logFormat, f.verbose)
	if err != nil {
		return err
	}
	explicit := false
	fs.Visit(func(fl *flag.Flag) { explicit = explicit || fl.Name == "memory-limit" })
	memLimit, setLimit, err := memoryLimit(f.memoryLimit, explicit, os.Getenv("GOMEMLIMIT"), machineMemory())
	if err != nil {
		fmt.Fprintf(c.Stderr, "timetable serve: %v\n", err)
		return errUsage
	}
	if setLimit {
		orig := debug.SetMemoryLimit(memLimit)
		defer debug.SetMemoryLimit(orig)
	}

	if f.maxInFlight <= 2*wire.DefaultMaxBodyBytes {
		fmt.Fprintf(c.Stderr, "timetable serve: --max-inflight-bytes must be more than %d (two DynamoDB requests of the largest size)\n", 2*wire.DefaultMaxBodyBytes)
		return errUsage
	}
	co, closeGeoIP, err := f.collectOptions()
	if err != nil {
		fmt.Fprintf(c.Stderr, "timetable serve: %v\n", err)
		return errUsage
	}
	defer closeGeoIP()

	st, err := f.storage(fs)
	if err != nil {
		fmt.Fprintf(c.Stderr, "timetable serve: %v\n", err)
		return errUsage
	}
	if st.remote != "" {
		// The sites of the collect endpoint are read by its own cache.
		co.SiteCacheTTL, co.UnknownSiteTTL = f.cacheTTL, min(f.cacheTTL, collect.DefaultUnknownSiteTTL)
	}
	eng, err := openEngine(ctx, engineOptions{storage: st, noSync: f.noSync, shardLifetime: f.shardLifetime,
		table: f.table, flushInterval: f.flushInterval, rollupInterval: f.rollupInterval, compactInterval: f.compactInterval, sourceExpiry: f.sourceExpiry, maxFuture: f.maxFuture, minFreeBytes: f.minFree, analyticsTable: f.analyticsTable, aggregateEvery: f.aggregateEvery, rebuildRealtime: true, compactAtClose: true,
		auth: !f.noAuth, authTable: f.authTable, cacheTTL: f.cacheTTL, logger: logger})
	if err != nil {
		return err
	}
	closing := false // closeBy closes eng on the way out of serving
	defer func() {
		if !closing {
			eng.Close()
		}
	}()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		server.NewStoreCollector(eng.store))
	if eng.db != nil {
		reg.MustRegister(newPebbleCollector(eng.db.Metrics))
	}
	listen := c.Listen
	if listen == nil {
		listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	ln, err := listen(f.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", f.addr, err)
	}
	cors := splitList(f.cors)
	budget := server.NewBudget(f.maxInFlight, 0)
	wireOpts := &wire.Options{Logger: logger, CORSOrigins: cors, Budget: budget}
	dynamo := http.Handler(wire.New(eng.api, wireOpts))
	cfg := server.Config{
		Store: eng.store, Analytics: eng.analytics, DynamoDB: dynamo, Registry: reg, Gatherer: reg,
		MetricsPublic: f.metricsPublic, MaxBodyBytes: f.maxBody, MaxInflatedBytes: f.maxInflated,
		MaxReadings: f.maxReadings, MaxSeries: f.maxSeries, Budget: budget,
		NoAutoKinds: f.noAutoKinds, OTLPPromoteResourceAttributes: splitList(f.otlpPromote), KindLimits: series.Limits{MaxKinds: noCap(f.maxKinds), MaxFields: noCap(f.maxFields), MaxTags: noCap(f.maxTags)},
		MaxPeriods: f.maxPeriods, RequestTimeout: f.requestTimeout, SyncWrites: f.syncWrites,
		Logger: logger, Version: moduleVersion(), Collect: co,
	}
	cfg.CORSOrigins, cfg.Addr, cfg.AllowedHosts = cors, ln.Addr().String(), listenHosts(f.addr, ln.Addr(), splitList(f.allowedHosts))
	if eng.db != nil {
		cfg.Writable = eng.db.Writable
	}
	if eng.auth != nil {
		cfg.Auth = eng.auth
		var protected []string
		if eng.analytics != nil {
			protected = append(protected, eng.analytics.Table().Name())
		}
		cfg.DynamoDB = eng.auth.DynamoDB(eng.api, &auth.DynamoDBOptions{Wire: wireOpts, Protected: protected})
		if f.rate > 0 {
			burst := f.burst
			if burst <= 0 {
				burst = max(1, int(f.rate))
			}
			cfg.Limiter = auth.NewLimiter(f.rate, burst)
		}
	} else {
		logger.Warn("AUTHENTICATION IS OFF (--no-auth): anyone who can connect can read, write and delete everything, and the DynamoDB endpoint accepts any credentials")
		if eng.remote != nil {
			logger.Warn("the DynamoDB endpoint is a proxy to the backend with this server's credentials: with --no-auth anyone who can connect uses them", "backend", eng.where)
		}
	}
	srv, err := server.New(cfg)
	if err != nil {
		_ = ln.Close()
		return err
	}
	hostport := dialable(ln.Addr())
	endpoint := "http://" + hostport
	if f.addrFile != "" {
		if err := writeFileAtomic(f.addrFile, []byte(hostport+"\n")); err != nil {
			_ = ln.Close()
			return fmt.Errorf("cannot write --addr-file: %w", err)
		}
	}

	headerTimeout := c.ReadHeaderTimeout
	if headerTimeout <= 0 {
		headerTimeout = 10 * time.Second
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       5 * time.Minute,
		IdleTimeout:       5 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// The DynamoDB requests of the SDKs take front's fast path; every other
	// connection is served by hs.
	frontSrv := &front.Server{Handler: srv, Fallback: hs, MaxBodyBytes: wire.DefaultMaxBodyBytes,
		HeaderTimeout: headerTimeout, IdleTimeout: hs.IdleTimeout, ReadTimeout: hs.ReadTimeout, Logger: logger}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "timetable_http_fast_requests_total",
			Help: "DynamoDB requests answered on the listener's fast path."},
			func() float64 { return float64(frontSrv.Stats().FastRequests) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "timetable_http_handed_off_connections_total",
			Help: "Connections the listener handed to net/http: every one whose first request is not a plain DynamoDB request, or that later sends one that is not."},
			func() float64 { return float64(frontSrv.Stats().HandedOff) }))
	if f.pprofAt != "" {
		psrv, err := startProfiles(f.pprofAt, listen, logger)
		if err != nil {
			_ = ln.Close()
			return err
		}
		defer psrv.Close()
	}
	if os.Getenv("GOGC") == "" {
		gctx, stopGC := context.WithCancel(ctx)
		defer stopGC()
		go keepGCHeadroom(gctx, gcHeadroom)
	}
	mctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go watchMemoryLimit(mctx, logger, 10*time.Second)
	served := make(chan error, 1)
	go func() { served <- frontSrv.Serve(ln) }()

	logger.Info("serving", "endpoint", endpoint, "data", eng.where, "auth", eng.auth != nil, "sync", !f.noSync && !st.inMemory, "sync_writes", f.syncWrites, "memory_limit", fmtMemoryLimit(debug.SetMemoryLimit(-1)))
	if st.remote != "" {
		logger.Info("on a remote backend", "local", localKept(st, f.syncWrites), "cache_ttl", f.cacheTTL)
	}
	if err := c.greet(ctx, eng, endpoint); err != nil {
		logger.Error("cannot make the first token", "err", err)
	}

	var serveErr error
	select {
	case <-ctx.Done():
		logger.Info("shutting down: no new requests, flushing")
	case serveErr = <-served:
		// Serve returned before cancellation: the listener failed.
	}
	srv.Drain()
	timeout := c.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := frontSrv.Shutdown(sctx); err != nil {
		logger.Warn("requests still running at shutdown deadline", "err", err)
		_ = frontSrv.Close()
	}
	// The flush of what is buffered is bounded too: on a folder, what it
	// leaves is in the write-ahead log, and the next start writes it. The
	// folder's closing after it has closeGrace more.
	closing = true
	fctx, cancelFlush := context.WithTimeout(context.Background(), timeout)
	defer cancelFlush()
	wctx, cancelWait := context.WithTimeout(context.Background(), timeout+closeGrace)
	defer cancelWait()
	closeErr := closeBy(wctx, func() error { return eng.Shutdown(fctx) })
	if closeErr != nil && errors.Is(closeErr, context.DeadlineExceeded) && !st.inMemory {
		logger.Warn("flush not done at the shutdown deadline: the readings not flushed stay in the write-ahead log for the next start", "err", closeErr)
		closeErr = nil
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serving on %s: %w", endpoint, serveErr)
	}
	if closeErr != nil {
		return fmt.Errorf("cannot close the data folder: %w", closeErr)
	}
	logger.Info("stopped")
	return nil
}

// closeGrace is how long closing the data folder may take after the
// shutdown's flush before serve gives up on it.
const closeGrace = 5 * time.Second

// closeBy runs shut (the data folder's closing), or gives up when ctx ends
// first: the caller then exits with the folder not closed, which the next
// start recovers from its logs as after a crash (every acknowledged write
// is in them). A write stuck on a failed disk must not keep the process
// alive. The error of giving up does not wrap ctx's.
func closeBy(ctx context.Context, shut func() error) error {
	closed := make(chan error, 1)
	go func() { closed <- shut() }()
	select {
	case err := <-closed:
		return err
	case <-ctx.Done():
		return fmt.Errorf("not closed by the shutdown deadline (the next start recovers from the logs): %v", ctx.Err())
	}
}

// greet prints the banner and, with authentication, the credentials
// made on a first start, once: an admin token when there is no token, an
// admin access key for the DynamoDB endpoint when there is no key.
func (c *ServeCommand) greet(ctx context.Context, eng *engine, endpoint string) error {
	var first firstCredentials
	if eng.auth != nil {
		ts, err := eng.auth.Tokens(ctx)
		if err != nil {
			return err
		}
		admin := []auth.Scope{auth.ScopeAdmin}
		if len(ts) == 0 {
			if first.token, _, err = eng.auth.CreateToken(ctx, "first admin", admin, nil); err != nil {
				return err
			}
		}
		keys, err := eng.auth.AccessKeys(ctx)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			if first.key, err = eng.auth.CreateAccessKey(ctx, "first admin", admin, nil); err != nil {
				return err
			}
		}
	}
	printBanner(c.Stdout, endpoint, eng.where, eng.auth != nil, first)
	return nil
}

// listenHosts returns the host names the server answers to besides its IP
// addresses and localhost: those of --allowed-hosts, and when --addr names
// the host (--addr myhost:8000) and the listener is on a loopback address,
// that name, which the user will browse to.
func listenHosts(addr string, bound net.Addr, allowed []string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host) != nil || len(allowed) == 0 && !isLoopback(bound) {
		return allowed
	}
	return append(allowed, host)
}

// isLoopback reports whether a listener's address is a loopback one.
func isLoopback(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	return false
}

// firstCredentials are those a first start makes: an admin token's secret
// and an admin access key, each zero when not made.
type firstCredentials struct {
	token string
	key   auth.AccessKey
}

// dialable returns an address a client can dial for a listener's address:
// an unspecified host (":0", "[::]:0") becomes the loopback address.
func dialable(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			host = "127.0.0.1"
		} else {
			host = "::1"
		}
		if host == "::1" && !hasIPv6Loopback() {
			host = "127.0.0.1"
		}
	}
	return net.JoinHostPort(host, port)
}

// hasIPv6Loopback reports whether ::1 can be listened on here.
func hasIPv6Loopback() bool {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it, so a reader never sees a half-written file.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func printBanner(w io.Writer, endpoint, where string, authOn bool, first firstCredentials) {
	fmt.Fprintf(w, "timetable is serving on %s (data: %s)\n\n", endpoint, where)
	if first.token != "" {
		fmt.Fprintf(w, `First start: an admin token was made. It is shown this once; keep it:

  export TIMETABLE_TOKEN=%s

`, first.token)
	}
	if first.key.ID != "" {
		fmt.Fprintf(w, `First start: an admin access key for the DynamoDB endpoint was made. It is
shown this once; keep it (make narrower ones with timetable token create --dynamodb):

  export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s

`, first.key.ID, first.key.Secret)
	}
	creds := `(signed with an access key: timetable token create --dynamodb)
  export AWS_DEFAULT_REGION=us-east-1`
	if !authOn {
		creds = `(--no-auth: any credentials)
  export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1`
	}
	token := ""
	if authOn {
		token = ` -H "Authorization: Bearer $TIMETABLE_TOKEN"`
	}
	fmt.Fprintf(w, `Time series (see %[1]s/ and %[1]s/openapi.json):
  curl%[2]s -X POST %[1]s/api/v1/kinds -d '{"name":"SENSOR","fields":["temperature"]}'
  curl%[2]s --data-binary 'SENSOR,series=s1 temperature=21.5' %[1]s/api/v1/write
  curl%[2]s %[1]s/api/v1/kinds/SENSOR/series/s1/latest

DynamoDB's API, for the AWS SDKs and CLI %[3]s
  aws dynamodb list-tables --endpoint-url %[1]s
  Go: dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(%[1]q), Region: "us-east-1", ...})

Stop with Ctrl-C (SIGINT) or SIGTERM.
`, endpoint, token, creds)
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

// collectOptions returns the collect endpoint's options from the flags,
// with the country database open (close it with the function returned).
func (f *serveFlags) collectOptions() (collect.Options, func(), error) {
	o := collect.Options{CountryHeader: f.countryHeader, RateLimit: f.collectRate}
	if f.collectRate == 0 {
		o.RateLimit = -1 // 0 means none on the command line
	}
	var err error
	if o.TrustedProxies, err = collect.ParsePrefixes(f.trustedProxies); err != nil {
		return o, nil, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if o.BotRanges, err = collect.ParsePrefixes(f.botIPRanges); err != nil {
		return o, nil, fmt.Errorf("--bot-ip-ranges: %w", err)
	}
	if f.geoipDB == "" {
		return o, func() {}, nil
	}
	g, err := collect.OpenGeoIP(f.geoipDB)
	if err != nil {
		return o, nil, fmt.Errorf("--geoip-db: %w", err)
	}
	o.GeoIP = g
	return o, func() { _ = g.Close() }, nil
}

// defaultDataDir is --data's default: the data folder, or on a remote
// backend the folder of what a server keeps locally.
const defaultDataDir = "./timetable-data"

// authCacheDefault is --cache-ttl's default: the bound of a change made
// through one server reaching the others of a fleet.
const authCacheDefault = 10 * time.Second

// storage returns where serve's data is, from --data, --backend and
// --in-memory, after checking that the flags fit it: the engine's own
// flags (--in-memory, --no-sync, --min-free-bytes,
// --stream-shard-lifetime) are refused on a remote backend, which has no
// disk, Sync or streams of this process to set. With --sync-writes on a
// remote backend the local folder is used only if it holds a write-ahead
// log of an earlier start (whose readings are written, not stranded);
// otherwise the server keeps nothing locally.
func (f *serveFlags) storage(fs *flag.FlagSet) (storage, error) {
	set := flagsGiven(fs)
	if f.inMemory && f.backendURL != "" {
		return storage{}, errors.New("--in-memory and --backend both name the data: give one (--backend mem: is --in-memory)")
	}
	if f.inMemory {
		return storage{dir: f.dataDir, inMemory: true}, nil
	}
	st, err := parseStorage(f.dataDir, set["data"], f.backendURL, true)
	if err != nil || st.remote == "" {
		return st, err
	}
	for _, name := range []string{"no-sync", "min-free-bytes", "stream-shard-lifetime"} {
		if set[name] {
			return storage{}, fmt.Errorf("--%s applies to a data folder (the embedded engine), not to a remote --backend", name)
		}
	}
	if f.cacheTTL <= 0 {
		return storage{}, fmt.Errorf("--cache-ttl %v: want a positive duration such as 10s", f.cacheTTL)
	}
	if f.syncWrites {
		if _, err := os.Stat(filepath.Join(st.dir, walDir)); errors.Is(err, os.ErrNotExist) {
			st.dir = ""
		}
	}
	return st, nil
}

// localKept says what a server on a remote backend keeps locally.
func localKept(st storage, syncWrites bool) string {
	switch {
	case st.dir == "":
		return "nothing (--sync-writes: each write is acknowledged once in the backend)"
	case syncWrites:
		return "the series write-ahead log of an earlier start in " + filepath.Join(st.dir, walDir) + " (each write is acknowledged once in the backend)"
	}
	return "the series write-ahead log in " + filepath.Join(st.dir, walDir) + " (readings acknowledged, not yet flushed)"
}

// noCap turns a cap flag's 0 (no limit) into server.Config's (negative).
func noCap(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
