package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/bench/workload"
)

type wireTarget struct {
	name string
	// start returns the endpoint and a function that stops the server.
	start func(context.Context) (endpoint string, stop func(), err error)
	res   workload.LoadResult
}

// peerTarget adapts a server started by env.
func peerTarget(e *env, name string, start func(context.Context) (*peers.Server, error)) *wireTarget {
	return &wireTarget{name: name, start: func(ctx context.Context) (string, func(), error) {
		s, err := start(ctx)
		if err != nil {
			return "", nil, err
		}
		return s.Endpoint, func() { e.stopServer(s) }, nil
	}}
}

// runWire runs the same load against timetable serve (on disk and in
// memory), dynalite, DynamoDB Local and a server that does no work (the
// ceiling), one after another, each server alone on the machine.
func runWire(ctx context.Context, e *env) ([]Figure, section, error) {
	ceiling := &wireTarget{name: "no-op server (client ceiling)", start: func(context.Context) (string, func(), error) {
		c, err := startCeiling()
		if err != nil {
			return "", nil, err
		}
		return c.endpoint, c.close, nil
	}}
	targets := []*wireTarget{
		peerTarget(e, "timetable serve", e.Serve),
		peerTarget(e, "timetable serve --in-memory", func(ctx context.Context) (*peers.Server, error) {
			return e.ServeWith(ctx, append(slices.Clone(e.cfg.serveArgs), "--in-memory")...)
		}),
		peerTarget(e, "dynalite", e.Dynalite),
		peerTarget(e, "DynamoDB Local", e.DynamoDBLocal),
		ceiling,
	}
	// The load generator's own garbage collection is the same for every
	// server; collecting less often leaves more of the machine to them.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	lc := workload.LoadConfig{
		Workers:  e.cfg.workers,
		Duration: e.cfg.duration,
		Warmup:   e.cfg.warmup,
		MaxOps:   e.cfg.maxOps,
	}.WithDefaults()
	for i, t := range targets {
		endpoint, stop, err := t.start(ctx)
		if err != nil {
			return nil, section{}, err
		}
		lc.Table = fmt.Sprintf("bench_load_%d", i)
		e.logf("wire load against %s for %v", t.name, lc.Duration)
		res, err := workload.Load(ctx, peers.NewClient(endpoint, lc.Workers), lc)
		stop() // leave the machine to the next target
		if err != nil {
			return nil, section{}, fmt.Errorf("%s: %w", t.name, err)
		}
		if ctx.Err() != nil {
			return nil, section{}, ctx.Err()
		}
		if res.Errors*100 > res.Ops {
			return nil, section{}, fmt.Errorf("%s: %d errors in %d operations, first: %v", t.name, res.Errors, res.Ops, res.FirstError)
		}
		t.res = res
		e.logf("%s: %.0f ops/s (%d ops, %d errors)", t.name, res.OpsPerSec(), res.Ops, res.Errors)
	}

	var figs []Figure
	for _, ours := range targets[:2] {
		for _, peer := range targets[2:4] {
			o, p := ours.res.OpsPerSec(), peer.res.OpsPerSec()
			figs = append(figs, Figure{
				Name:     fmt.Sprintf("wire endpoint, %d workers, PutItem/GetItem/Query(%d) mix: %s vs %s", lc.Workers, lc.QueryItems, ours.name, peer.name),
				Ours:     round(o, 0),
				Peer:     ptr(round(p, 0)),
				Unit:     "ops/s",
				Ratio:    ptr(round(o/p, 1)),
				peerName: peer.name,
				target:   map[string]string{"dynalite": ">= 10", "DynamoDB Local": ">= 25"}[peer.name],
			})
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "The same aws-sdk-go-v2 load generator (`bench/workload.Load`) against each server on 127.0.0.1, one server at a time: %d workers, each looping over PutItem (overwrites one of %d items, %d-byte payload), GetItem (eventually consistent) and Query (one partition, %d items), in equal shares; %v of warm-up, then %v measured. No retries; every answer is checked. The load generator (with `GOGC=400`) shares the machine with the server.\n\n",
		lc.Workers, lc.Partitions*lc.QueryItems, lc.PayloadBytes, lc.QueryItems, lc.Warmup, lc.Duration)
	sb.WriteString("| server | ops/s | PutItem p50 / p99 | GetItem p50 / p99 | Query p50 / p99 | errors |\n|---|---:|---:|---:|---:|---:|\n")
	for _, t := range targets {
		fmt.Fprintf(&sb, "| %s | %.0f |", t.name, t.res.OpsPerSec())
		for _, s := range t.res.PerOp {
			fmt.Fprintf(&sb, " %s / %s |", fmtDur(s.P50), fmtDur(s.P99))
		}
		fmt.Fprintf(&sb, " %d |\n", t.res.Errors)
	}
	c := ceiling.res.OpsPerSec()
	fmt.Fprintf(&sb, "\nThe no-op server answers every request with fixed bytes and does no work, so the load generator against it shows what the client and HTTP cost by themselves on this machine: no server can be measured above %.0f ops/s here, so the highest ratio this benchmark can show is %.1fx against dynalite and %.1fx against DynamoDB Local.\n",
		c, c/targets[2].res.OpsPerSec(), c/targets[3].res.OpsPerSec())
	if len(e.cfg.serveArgs) > 0 {
		fmt.Fprintf(&sb, "\ntimetable serve ran with `%s`.\n", strings.Join(e.cfg.serveArgs, " "))
	}
	return figs, section{title: "Wire endpoint", body: sb.String()}, nil
}
