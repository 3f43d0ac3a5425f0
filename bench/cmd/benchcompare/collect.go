package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/server"
)

// The analytics-collect part measures POST /api/event, the collect endpoint
// of timetable serve: Plausible payloads sent by many connections at once
// to a server.Server over the engine on disk (as serve opens it), against
// two ceilings on the same HTTP stack with the same client and payloads: a
// net/http handler that reads the body and answers 202, and server.Server
// with web analytics off (the same middleware, answering 404 at once).
// Server and client share this process and the machine's cores.

// collectConfig sizes the analytics-collect part.
type collectConfig struct {
	clients  int // connections sending at once
	visitors int // distinct (address, user agent) pairs
	// cpuProfile, if set, is where a CPU profile of timetable's measured
	// run goes.
	cpuProfile string
}

// collectUAs are the user agents of the load, real browsers'.
var collectUAs = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
}

// collectPayloads are what Plausible's tracker sends: page views with
// referrers and campaigns, custom events with props, engagement events.
func collectPayloads() [][]byte {
	var out [][]byte
	refs := []string{`null`, `"https://www.google.com/"`, `"https://news.ycombinator.com/item?id=1"`, `"https://t.co/x"`}
	for i := range 50 {
		u := fmt.Sprintf("https://shop.example/products/%d", i)
		if i%5 == 0 {
			u += "?utm_source=newsletter&utm_medium=email&utm_campaign=spring"
		}
		out = append(out, fmt.Appendf(nil, `{"n":"pageview","v":36,"u":%q,"d":"shop.example","r":%s}`, u, refs[i%len(refs)]))
		if i%4 == 0 {
			out = append(out, fmt.Appendf(nil, `{"n":"Add to cart","v":36,"u":%q,"d":"shop.example","r":null,"p":{"sku":"p%d","price":%d}}`, u, i, 10+i))
		}
		if i%3 == 0 {
			out = append(out, fmt.Appendf(nil, `{"n":"engagement","sd":%d,"d":"shop.example","u":%q,"p":{},"e":%d,"v":36}`, i*2, u, 1000+i*37))
		}
	}
	return out
}

type collectResult struct {
	name   string
	events int64
	errors int64
	took   time.Duration
	status map[int]int64
}

func (r collectResult) rate() float64 { return float64(r.events) / r.took.Seconds() }

// runCollect runs the analytics-collect part.
func runCollect(ctx context.Context, e *env) ([]Figure, section, error) {
	cc := e.cfg.collect
	payloads := collectPayloads()
	var results []collectResult
	measure := func(name string, h http.Handler, profile string) error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
		go hs.Serve(ln)
		defer hs.Close()
		url := "http://" + ln.Addr().String() + "/api/event"
		e.logf("analytics-collect: %s, %d connections, warm-up %s then %s", name, cc.clients, e.cfg.warmup, e.cfg.duration)
		if _, err := collectLoad(ctx, url, payloads, cc, e.cfg.warmup); err != nil {
			return err
		}
		if profile != "" {
			f, err := os.Create(profile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		}
		r, err := collectLoad(ctx, url, payloads, cc, e.cfg.duration)
		if profile != "" {
			pprof.StopCPUProfile()
		}
		if err != nil {
			return err
		}
		r.name = name
		e.logf("analytics-collect: %s: %.0f events/s, statuses %v", name, r.rate(), r.status)
		results = append(results, r)
		return nil
	}

	noop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("ok"))
	})
	if err := measure("net/http no-op", noop, ""); err != nil {
		return nil, section{}, err
	}
	off, err := server.New(server.Config{})
	if err != nil {
		return nil, section{}, err
	}
	if err := measure("server.Server, analytics off", off, ""); err != nil {
		return nil, section{}, err
	}

	dir, err := os.MkdirTemp(e.work, "collect-")
	if err != nil {
		return nil, section{}, err
	}
	defer os.RemoveAll(dir)
	db, err := local.Open(dir, &local.Options{MemTableSize: 16 << 20, L0CompactionThreshold: 12, L0CompactionFileThreshold: 48})
	if err != nil {
		return nil, section{}, err
	}
	defer db.Close()
	a, err := analytics.Open(ctx, db, &analytics.Options{AggregateEvery: -1})
	if err != nil {
		return nil, section{}, err
	}
	if err := a.EnsureTable(ctx); err != nil {
		return nil, section{}, err
	}
	if err := a.CreateSite(ctx, analytics.Site{ID: "shop", Domains: []string{"shop.example"}}); err != nil {
		return nil, section{}, err
	}
	srv, err := server.New(server.Config{Analytics: a, Collect: collect.Options{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	}})
	if err != nil {
		return nil, section{}, err
	}
	if err := measure("timetable", srv, cc.cpuProfile); err != nil {
		return nil, section{}, err
	}
	ours, noopR, offR := results[2], results[0], results[1]
	if ours.errors > 0 || ours.status[http.StatusAccepted] != ours.events {
		return nil, section{}, fmt.Errorf("the collect endpoint answered %v (%d transport errors)", ours.status, ours.errors)
	}
	ceil := max(noopR.rate(), offR.rate())
	met := ours.rate() >= 20000 && ours.rate()/ceil >= 0.5
	figs := []Figure{
		{Name: "analytics-collect/events-per-second", Ours: round(ours.rate(), 0), Unit: "events/s", peerName: "ceiling (best no-op)",
			Peer: ptr(round(ceil, 0)), Ratio: ptr(round(ours.rate()/ceil, 2)), target: ">= 20000 events/s and >= 0.5 of the ceiling", met: &met},
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "`POST /api/event` with Plausible's payloads (page views with referrers and campaigns, custom events with props, engagement events; %d kinds) from %d keep-alive connections, %d visitors (addresses in X-Forwarded-For from a trusted 127.0.0.0/8 peer, browser user agents), %s measured after %s of warm-up. Client and servers in one process on 127.0.0.1.\n\n",
		len(payloads), cc.clients, cc.visitors, e.cfg.duration, e.cfg.warmup)
	sb.WriteString("| server | events/s | ratio to the ceiling | answers |\n|---|---:|---:|---|\n")
	for _, r := range results {
		fmt.Fprintf(&sb, "| %s | %.0f | %.2f | %s |\n", r.name, r.rate(), r.rate()/ceil, statuses(r.status))
	}
	fmt.Fprintf(&sb, "\nTarget: at least 20,000 events/s and 0.5 of the ceiling: %s.\n", map[bool]string{true: "met", false: "not met"}[met])
	return figs, section{title: "Web analytics: the collect endpoint", body: sb.String()}, nil
}

// collectLoad posts payloads to url from cc.clients connections for d and
// counts the answers.
func collectLoad(ctx context.Context, url string, payloads [][]byte, cc collectConfig, d time.Duration) (collectResult, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: cc.clients, MaxConnsPerHost: cc.clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var events, errs atomic.Int64
	var mu sync.Mutex
	status := map[int]int64{}
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cc.clients {
		wg.Go(func() {
			local := map[int]int64{}
			defer func() {
				mu.Lock()
				for s, n := range local {
					status[s] += n
				}
				mu.Unlock()
			}()
			for i := c; ctx.Err() == nil; i += cc.clients {
				v := i % cc.visitors
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payloads[i%len(payloads)]))
				req.Header.Set("Content-Type", "text/plain")
				req.Header.Set("User-Agent", collectUAs[v%len(collectUAs)])
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("127.%d.%d.%d", 1+v>>16&0xff, v>>8&0xff, v&0xff))
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				local[resp.StatusCode]++
				events.Add(1)
			}
		})
	}
	wg.Wait()
	return collectResult{events: events.Load(), errors: errs.Load(), took: time.Since(start), status: status}, nil
}

// statuses renders status counts as "202: 1000, 404: 3", by status.
func statuses(m map[int]int64) string {
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d: %d", s, m[s]))
	}
	return strings.Join(parts, ", ")
}
