package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// lineGen makes the readings of the series-http part as InfluxDB line
// protocol with timestamps in seconds, in time order across series (the
// order in which devices reporting together send them): the reading of
// step 0 of every series, then of step 1, and so on. Each series' values
// come from its dataset's source of the series' seed, so the same
// arguments give the same lines, byte for byte, whichever server they are
// sent to. It keeps the
// values the checks of the reads need. It is not safe for concurrent use.
type lineGen struct {
	ids         int
	start, step int64 // Unix seconds of step 0, seconds between steps
	sources     []fieldSource
	prefix      [][]byte // "SENSOR,series=ID " of each series
	vals        []float64
	next        int64 // the next reading: step next/ids of series next%ids

	watch   int64       // the step whose values atWatch keeps
	atWatch [][]float64 // per series
	last    [][]float64 // per series: the values of its newest reading
}

func newLineGen(ds tsDataset, ids int, start, step, watch int64) *lineGen {
	g := &lineGen{ids: ids, start: start, step: step, watch: watch, vals: make([]float64, len(tsFields))}
	for i := range ids {
		g.sources = append(g.sources, ds.source(uint64(i), len(tsFields)))
		g.prefix = append(g.prefix, []byte(tsKind+","+tsSeriesTag+"="+seriesID(i)+" "))
		g.atWatch = append(g.atWatch, make([]float64, len(tsFields)))
		g.last = append(g.last, make([]float64, len(tsFields)))
	}
	return g
}

// appendLines appends the next readings, at most n and none at or past
// reading limit, to buf, and returns it and how many it appended.
func (g *lineGen) appendLines(buf []byte, n int, limit int64) ([]byte, int) {
	k := 0
	for ; k < n && g.next < limit; k++ {
		id, step := int(g.next%int64(g.ids)), g.next/int64(g.ids)
		g.sources[id].step(g.vals)
		buf = append(buf, g.prefix[id]...)
		for f, v := range g.vals {
			if f > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, tsFields[f]...)
			buf = append(buf, '=')
			buf = strconv.AppendFloat(buf, v, 'f', -1, 64)
		}
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, g.start+step*g.step, 10)
		buf = append(buf, '\n')
		copy(g.last[id], g.vals)
		if step == g.watch {
			copy(g.atWatch[id], g.vals)
		}
		g.next++
	}
	return buf, k
}

// newTSClient is the HTTP client of the series-http part, the same for
// every server: keep-alive connections for conns concurrent callers, and
// no compression (everything is on 127.0.0.1; without Accept-Encoding no
// server spends time compressing its answers).
func newTSClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 2 * time.Minute,
		Transport: &http.Transport{
			MaxIdleConns:        conns * 2,
			MaxIdleConnsPerHost: conns * 2,
			DisableCompression:  true,
		},
	}
}

// postLines sends one request of line protocol; any 2xx is success.
func postLines(ctx context.Context, c *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	_, err = do(c, req, 0)
	return err
}

// sendConfig is how sendLines sends.
type sendConfig struct {
	batch   int           // readings per request
	senders int           // concurrent requests
	limit   int64         // send readings up to (not including) this one
	every   time.Duration // if > 0, at most one request started per every
	until   time.Time     // if not zero, start no request after it
}

// sendLines sends g's readings to url: one goroutine makes the requests'
// bodies, sc.senders send them, each waiting for its answer before it
// sends the next. It returns once every request sent has been answered,
// with the number of readings acknowledged and the first error (which
// stops it). acked, if not nil, is kept up to date as answers come.
func sendLines(ctx context.Context, c *http.Client, url string, g *lineGen, sc sendConfig, acked *atomic.Int64) (int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type body struct {
		buf []byte
		n   int
	}
	work := make(chan body, sc.senders)
	free := make(chan []byte, 2*sc.senders+1)
	for range cap(free) {
		free <- nil
	}
	var done atomic.Int64
	var wg sync.WaitGroup
	for range sc.senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if err := postLines(ctx, c, url, b.buf); err != nil {
					cancel(err)
					continue // drain work
				}
				done.Add(int64(b.n))
				if acked != nil {
					acked.Add(int64(b.n))
				}
				free <- b.buf
			}
		}()
	}
	var tick <-chan time.Time
	if sc.every > 0 {
		t := time.NewTicker(sc.every)
		defer t.Stop()
		tick = t.C
	}
produce:
	for g.next < sc.limit && ctx.Err() == nil {
		if !sc.until.IsZero() && !time.Now().Before(sc.until) {
			break
		}
		var buf []byte
		select {
		case buf = <-free:
		case <-ctx.Done():
			break produce
		}
		buf, n := g.appendLines(buf[:0], sc.batch, sc.limit)
		select {
		case work <- body{buf, n}:
		case <-ctx.Done():
			break produce
		}
		if tick != nil {
			select {
			case <-tick:
			case <-ctx.Done():
			}
		}
	}
	close(work)
	wg.Wait()
	return done.Load(), context.Cause(ctx)
}

// settle waits until srv has used less than 2% of one CPU over quiet, or
// until timeout, and says whether it went quiet: the end of the
// background work (merges, flushes, compactions) a server does after a
// load.
func settle(ctx context.Context, srv *peers.Server, quiet, timeout time.Duration) (time.Duration, bool, error) {
	start := time.Now()
	prev, err := srv.CPU()
	if err != nil {
		return 0, false, err
	}
	for time.Since(start) < timeout {
		if err := sleepCtx(ctx, quiet); err != nil {
			return 0, false, err
		}
		cur, err := srv.CPU()
		if err != nil {
			return 0, false, err
		}
		if cur-prev < quiet/50 {
			return time.Since(start), true, nil
		}
		prev = cur
	}
	return time.Since(start), false, nil
}

// queryRun times the reads of one server: n calls of Latest, then n of
// Range, one at a time, on the series in the order of order (repeated if
// n is larger); warmup calls of each on random series before, not timed.
// Every answer is checked against g's values.
type queryRun struct {
	latest, rng []time.Duration // sorted
}

func timeQueries(ctx context.Context, t tsTarget, c *http.Client, endpoint string, g *lineGen, day [2]int64, want, warmup, n int) (queryRun, error) {
	from, to := (g.start+day[0]*g.step)*1000, (g.start+day[1]*g.step)*1000
	latest := func(i int) error {
		vals, err := t.Latest(ctx, c, endpoint, seriesID(i))
		if err != nil {
			return err
		}
		if !sameValues(vals, g.last[i]) {
			return fmt.Errorf("latest of %s: values %v, want %v", seriesID(i), vals, g.last[i])
		}
		return nil
	}
	rangeDay := func(i int) error {
		k, first, err := t.Range(ctx, c, endpoint, seriesID(i), from, to)
		if err != nil {
			return err
		}
		if k != want || !sameValues(first, g.atWatch[i]) {
			return fmt.Errorf("range of %s: %d readings, the first %v; want %d, %v", seriesID(i), k, first, want, g.atWatch[i])
		}
		return nil
	}
	warm := rand.New(rand.NewPCG(1, 2))
	for range warmup {
		for _, q := range []func(int) error{latest, rangeDay} {
			if err := q(warm.IntN(g.ids)); err != nil {
				return queryRun{}, err
			}
		}
	}
	order := rand.New(rand.NewPCG(3, 4)).Perm(g.ids)
	var r queryRun
	for _, q := range []struct {
		call func(int) error
		out  *[]time.Duration
	}{{latest, &r.latest}, {rangeDay, &r.rng}} {
		for j := range n {
			t0 := time.Now()
			if err := q.call(order[j%len(order)]); err != nil {
				return queryRun{}, err
			}
			*q.out = append(*q.out, time.Since(t0))
		}
		slices.Sort(*q.out)
	}
	return r, nil
}

func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// soakRun is a soak of one server: steady ingest and queries for a while,
// its RSS sampled.
type soakRun struct {
	duration   time.Duration
	readings   int64 // acknowledged
	wantRate   int
	queries    int
	empty      int             // latest answers without a reading
	latest     []time.Duration // sorted
	rng        []time.Duration // sorted
	samples    []rssSample
	serverCPU  time.Duration
	ingestErr  error
	queryError error
}

type rssSample struct {
	at  time.Duration
	rss int64
}

// soakConfig sizes a soak.
type soakConfig struct {
	duration time.Duration
	rate     int           // readings per second sent
	batch    int           // readings per request
	senders  int           // concurrent requests
	ids      int           // series
	qps      float64       // queries per second (latest and range in turn)
	sample   time.Duration // between RSS samples
}

// soak runs steady ingest (one-second steps of cfg.ids series, sent at
// cfg.rate) and queries (latest of a random series, and its last hour)
// against srv for cfg.duration, sampling srv's RSS every cfg.sample.
// The readings end about now (the servers take them as recent).
func soak(ctx context.Context, t tsTarget, srv *peers.Server, c *http.Client, cfg soakConfig) (soakRun, error) {
	steps := int64(cfg.duration.Seconds()*float64(cfg.rate)/float64(cfg.ids)) + 2
	start := time.Now().Unix() - steps
	g := newLineGen(tsDatasets[0], cfg.ids, start, 1, -1)
	r := soakRun{duration: cfg.duration, wantRate: cfg.rate}
	every := time.Duration(float64(time.Second) * float64(cfg.batch) / float64(cfg.rate))
	began := time.Now()
	until := began.Add(cfg.duration)
	cpu0, err := srv.CPU()
	if err != nil {
		return r, err
	}
	var acked atomic.Int64
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		r.readings, r.ingestErr = sendLines(ctx, c, t.WriteURL(srv.Endpoint), g, sendConfig{
			batch: cfg.batch, senders: cfg.senders, limit: steps * int64(cfg.ids), every: every, until: until,
		}, &acked)
	}()
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(5, 6))
		pause := time.Duration(float64(time.Second) / cfg.qps)
		for i := 0; time.Now().Before(until) && ctx.Err() == nil; i++ {
			if sleepCtx(ctx, pause) != nil {
				return
			}
			written := start + acked.Load()/int64(cfg.ids) // seconds
			if written <= start {
				continue
			}
			id := seriesID(rng.IntN(cfg.ids))
			t0 := time.Now()
			var err error
			if i%2 == 0 {
				// A series whose first readings the server has not
				// made searchable yet has none.
				if _, err = t.Latest(ctx, c, srv.Endpoint, id); errors.Is(err, errNoReading) {
					r.empty, err = r.empty+1, nil
				}
				r.latest = append(r.latest, time.Since(t0))
			} else {
				_, _, err = t.Range(ctx, c, srv.Endpoint, id, max(start, written-3600)*1000, written*1000)
				r.rng = append(r.rng, time.Since(t0))
			}
			r.queries++
			if err != nil {
				r.queryError = err
				return
			}
		}
	}()
	tick := time.NewTicker(cfg.sample)
	defer tick.Stop()
	sample := func() {
		if rss, err := srv.RSS(); err == nil {
			r.samples = append(r.samples, rssSample{time.Since(began), rss})
		}
	}
	sample()
	for time.Now().Before(until) && ctx.Err() == nil {
		select {
		case <-tick.C:
			sample()
		case <-ctx.Done():
		case <-time.After(time.Until(until)):
		}
	}
	wg.Wait()
	sample()
	cpu1, err := srv.CPU()
	if err != nil {
		return r, err
	}
	r.serverCPU = cpu1 - cpu0
	slices.Sort(r.latest)
	slices.Sort(r.rng)
	if err := errors.Join(r.ingestErr, r.queryError, ctx.Err()); err != nil {
		return r, err
	}
	return r, nil
}

// rssSlope returns the least-squares slope, in bytes per minute, of the
// samples taken from from to to.
func rssSlope(samples []rssSample, from, to time.Duration) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range samples {
		if s.at < from || s.at > to {
			continue
		}
		x, y := s.at.Minutes(), float64(s.rss)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if n < 2 || n*sxx-sx*sx == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// levelled reports whether the RSS stopped growing: the last third of the
// soak grew at most a quarter as fast as the first third, or by less than
// 5% of the final RSS over the last third. The sample at the start, of
// the idle server, is left out of the slopes: the step from idle to
// loaded is not growth.
func (r soakRun) levelled() (first, last float64, ok bool) {
	d := r.duration
	first, last = rssSlope(r.samples, 1, d/3), rssSlope(r.samples, 2*d/3, d+time.Minute)
	end := float64(r.samples[len(r.samples)-1].rss)
	return first, last, last <= first/4 || last*(d/3).Minutes() < 0.05*end
}
