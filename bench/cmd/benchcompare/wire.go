package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/bench/workload"
)

type wireTarget struct {
	name  string
	start func(context.Context) (*peers.Server, error)
	res   workload.LoadResult
}

// runWire runs the same load against timetable serve, dynalite and
// DynamoDB Local, one after another, each server alone on the machine.
func runWire(ctx context.Context, e *env) ([]Figure, section, error) {
	targets := []*wireTarget{
		{name: "timetable serve", start: e.Serve},
		{name: "timetable serve --in-memory", start: func(ctx context.Context) (*peers.Server, error) {
			return e.ServeWith(ctx, append(slices.Clone(e.cfg.serveArgs), "--in-memory")...)
		}},
		{name: "dynalite", start: e.Dynalite},
		{name: "DynamoDB Local", start: e.DynamoDBLocal},
	}
	lc := workload.LoadConfig{
		Workers:  e.cfg.workers,
		Duration: e.cfg.duration,
		Warmup:   e.cfg.warmup,
		MaxOps:   e.cfg.maxOps,
	}.WithDefaults()
	for i, t := range targets {
		s, err := t.start(ctx)
		if err != nil {
			return nil, section{}, err
		}
		lc.Table = fmt.Sprintf("bench_load_%d", i)
		e.logf("wire load against %s for %v", t.name, lc.Duration)
		res, err := workload.Load(ctx, peers.NewClient(s.Endpoint, lc.Workers), lc)
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
		e.stopServer(s) // leave the machine to the next target
	}

	var figs []Figure
	for _, ours := range targets[:2] {
		for _, peer := range targets[2:] {
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
	fmt.Fprintf(&sb, "The same aws-sdk-go-v2 load generator (`bench/workload.Load`) against each server on 127.0.0.1, one server at a time: %d workers, each looping over PutItem (overwrites one of %d items, %d-byte payload), GetItem (eventually consistent) and Query (one partition, %d items), in equal shares; %v of warm-up, then %v measured. No retries; every answer is checked. The load generator shares the machine with the server.\n\n",
		lc.Workers, lc.Partitions*lc.QueryItems, lc.PayloadBytes, lc.QueryItems, lc.Warmup, lc.Duration)
	sb.WriteString("| server | ops/s | PutItem p50 / p99 | GetItem p50 / p99 | Query p50 / p99 | errors |\n|---|---:|---:|---:|---:|---:|\n")
	for _, t := range targets {
		fmt.Fprintf(&sb, "| %s | %.0f |", t.name, t.res.OpsPerSec())
		for _, s := range t.res.PerOp {
			fmt.Fprintf(&sb, " %s / %s |", fmtDur(s.P50), fmtDur(s.P99))
		}
		fmt.Fprintf(&sb, " %d |\n", t.res.Errors)
	}
	if len(e.cfg.serveArgs) > 0 {
		fmt.Fprintf(&sb, "\ntimetable serve ran with `%s`.\n", strings.Join(e.cfg.serveArgs, " "))
	}
	return figs, section{title: "Wire endpoint", body: sb.String()}, nil
}
