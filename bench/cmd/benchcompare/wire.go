package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/bench/workload"
)

// The load generator's clients: the SDK (the figure the targets are about)
// and a raw HTTP client that costs the client side much less.
const (
	clientSDK = iota
	clientRaw
	numClients
)

var clientNames = [numClients]string{"aws-sdk-go-v2", "raw HTTP"}

func newLoadClient(kind int, endpoint string, conns int) workload.Client {
	if kind == clientRaw {
		return peers.NewRawClient(endpoint, conns)
	}
	return peers.NewClient(endpoint, conns)
}

type wireTarget struct {
	name  string
	start func(context.Context) (running, error)
	res   [numClients]workload.LoadResult
}

// running is a started server.
type running struct {
	endpoint string
	stop     func()
	cpu      func() (time.Duration, error) // nil when not measured
}

// peerTarget adapts a server started by env.
func peerTarget(e *env, name string, start func(context.Context) (*peers.Server, error)) *wireTarget {
	return &wireTarget{name: name, start: func(ctx context.Context) (running, error) {
		s, err := start(ctx)
		if err != nil {
			return running{}, err
		}
		return running{endpoint: s.Endpoint, stop: func() { e.stopServer(s) }, cpu: s.CPU}, nil
	}}
}

// runWire runs the same load against timetable serve (on disk and in
// memory), dynalite, DynamoDB Local and a server that does no work (the
// ceiling), one server at a time, first with the SDK client, then with the
// raw HTTP client.
func runWire(ctx context.Context, e *env) ([]Figure, section, error) {
	ceiling := &wireTarget{name: "no-op server (client ceiling)", start: func(ctx context.Context) (running, error) {
		s, err := startCeiling(ctx, e.work)
		if err != nil {
			return running{}, err
		}
		return running{endpoint: s.Endpoint, stop: s.Stop, cpu: s.CPU}, nil
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
	n := 0
	for _, t := range targets {
		srv, err := t.start(ctx)
		if err != nil {
			return nil, section{}, err
		}
		lc.ServerCPU = srv.cpu
		for kind := range numClients {
			n++
			lc.Table = fmt.Sprintf("bench_load_%d", n)
			e.logf("wire load against %s with the %s client for %v", t.name, clientNames[kind], lc.Duration)
			res, err := workload.Load(ctx, newLoadClient(kind, srv.endpoint, lc.Workers), lc)
			if err == nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			if err == nil && res.Errors*100 > res.Ops {
				err = fmt.Errorf("%d errors in %d operations, first: %v", res.Errors, res.Ops, res.FirstError)
			}
			if err != nil {
				srv.stop()
				return nil, section{}, fmt.Errorf("%s, %s client: %w", t.name, clientNames[kind], err)
			}
			t.res[kind] = res
			e.logf("%s, %s client: %.0f ops/s (%d ops, %d errors), server CPU %v/op", t.name, clientNames[kind], res.OpsPerSec(), res.Ops, res.Errors, res.ServerCPUPerOp())
		}
		srv.stop() // leave the machine to the next target
	}

	var figs []Figure
	for kind := range numClients {
		for _, ours := range targets[:2] {
			for _, peer := range targets[2:4] {
				o, p := ours.res[kind].OpsPerSec(), peer.res[kind].OpsPerSec()
				f := Figure{
					Name:     fmt.Sprintf("wire endpoint, %s client, %d workers, PutItem/GetItem/Query(%d): %s vs %s", clientNames[kind], lc.Workers, lc.QueryItems, ours.name, peer.name),
					Ours:     round(o, 0),
					Peer:     ptr(round(p, 0)),
					Unit:     "ops/s",
					Ratio:    ptr(round(o/p, 1)),
					peerName: peer.name,
				}
				figs = append(figs, f)
			}
		}
	}

	// The ceiling: the no-op server's throughput, and so the highest ratio
	// this load generator can show against each peer on this machine.
	for kind := range numClients {
		c := ceiling.res[kind].OpsPerSec()
		for _, peer := range targets[2:4] {
			p := peer.res[kind].OpsPerSec()
			figs = append(figs, Figure{
				Name:     fmt.Sprintf("wire endpoint, %s client, %d workers, PutItem/GetItem/Query(%d): the ceiling (a no-op server in its own process: the load generator's own limit on this machine) vs %s", clientNames[kind], lc.Workers, lc.QueryItems, peer.name),
				Ours:     round(c, 0),
				Peer:     ptr(round(p, 0)),
				Unit:     "ops/s",
				Ratio:    ptr(round(c/p, 1)),
				peerName: peer.name,
			})
		}
	}

	// How close each of ours comes to the ceiling: the share of the
	// throughput a server that costs nothing gets from the same client.
	for _, ours := range targets[:2] {
		o, c := ours.res[clientSDK].OpsPerSec(), ceiling.res[clientSDK].OpsPerSec()
		figs = append(figs, Figure{
			Name:     fmt.Sprintf("wire endpoint, aws-sdk-go-v2 client, %d workers, PutItem/GetItem/Query(%d): %s vs the ceiling (no-op server)", lc.Workers, lc.QueryItems, ours.name),
			Ours:     round(o, 0),
			Peer:     ptr(round(c, 0)),
			Unit:     "ops/s",
			Ratio:    ptr(round(o/c, 2)),
			peerName: "no-op server",
		})
	}

	// Server CPU per operation does not depend on how fast the client is.
	for _, ours := range targets[:2] {
		for _, peer := range targets[2:4] {
			o, p := ours.res[clientSDK].ServerCPUPerOp(), peer.res[clientSDK].ServerCPUPerOp()
			if o <= 0 || p <= 0 {
				continue
			}
			figs = append(figs, Figure{
				Name:     fmt.Sprintf("wire endpoint, server CPU time per operation (same load, aws-sdk-go-v2 client): %s vs %s", ours.name, peer.name),
				Ours:     round(float64(o)/1e3, 1),
				Peer:     ptr(round(float64(p)/1e3, 1)),
				Unit:     "µs/op",
				Ratio:    ptr(round(float64(p)/float64(o), 1)),
				peerName: peer.name,
			})
		}
	}

	// Server CPU per operation against the no-op server's in the same run:
	// what codec, routing and engine add to the HTTP floor. The target is
	// on the in-memory server, the peers' setting; on disk the difference
	// is what the synced write-ahead log costs.
	floor := ceiling.res[clientSDK].ServerCPUPerOp()
	for i, ours := range targets[:2] {
		o := ours.res[clientSDK].ServerCPUPerOp()
		if o <= 0 || floor <= 0 {
			continue
		}
		f := Figure{
			Name:     fmt.Sprintf("wire endpoint, server CPU time per operation (same load, aws-sdk-go-v2 client): %s vs the no-op server (the HTTP floor)", ours.name),
			Ours:     round(float64(o)/1e3, 1),
			Peer:     ptr(round(float64(floor)/1e3, 1)),
			Unit:     "µs/op",
			Ratio:    ptr(round(float64(floor)/float64(o), 2)),
			peerName: "no-op server",
		}
		if i == 1 {
			f.target = fmt.Sprintf("<= 2x the floor: %.1fx", float64(o)/float64(floor))
			f.met = ptrBool(o <= 2*floor)
		}
		figs = append(figs, f)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "The same load generator (`bench/workload.Load`) against each server on 127.0.0.1, one server at a time: %d workers, each looping over PutItem (overwrites one of %d items, %d-byte payload), GetItem (eventually consistent) and Query (one partition, %d items), in equal shares; %v of warm-up, then %v measured. No retries; every answer is checked. The load generator (with `GOGC=400`) shares the machine with the server.\n\n",
		lc.Workers, lc.Partitions*lc.QueryItems, lc.PayloadBytes, lc.QueryItems, lc.Warmup, lc.Duration)
	sb.WriteString("Two clients drive it: aws-sdk-go-v2's DynamoDB client (the figure the targets are about; `peers.NewClient`: requests signed with SigV4, as dynalite and DynamoDB Local refuse unsigned ones, no retries, no check of the responses' CRC32, 2 idle connections per worker), and a raw HTTP client (`bench/internal/peers.RawClient`) that sends hand-built DynamoDB JSON with a fixed signature header and reads back only what the generator checks, so that less of the machine goes to the client and more of the server is measured.\n\n")
	sb.WriteString("Server CPU is the user and system time of the server's process over the measured time (from /proc), per operation: it does not depend on how much of the machine the client takes. Client CPU is the same for the load generator's process (nothing else runs in it during the wire runs).\n\n")
	sb.WriteString("| server | client | ops/s | server CPU/op | client CPU/op | PutItem p50 / p99 | GetItem p50 / p99 | Query p50 / p99 | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for kind := range numClients {
		for _, t := range targets {
			r := t.res[kind]
			cpu := "-"
			if r.ServerCPU > 0 {
				cpu = fmtDur(r.ServerCPUPerOp())
			}
			ccpu := "-"
			if r.ClientCPU > 0 {
				ccpu = fmtDur(r.ClientCPUPerOp())
			}
			fmt.Fprintf(&sb, "| %s | %s | %.0f | %s | %s |", t.name, clientNames[kind], r.OpsPerSec(), cpu, ccpu)
			for _, s := range r.PerOp {
				fmt.Fprintf(&sb, " %s / %s |", fmtDur(s.P50), fmtDur(s.P99))
			}
			fmt.Fprintf(&sb, " %d |\n", r.Errors)
		}
	}
	sb.WriteString("\nThe no-op server (in a child process of its own, like every other server, with a minimal HTTP/1.1 loop that costs less than any real server's HTTP) answers every request with fixed bytes and does no work, so the load against it shows what the client and HTTP cost by themselves on this machine: no server can be measured above it, and the highest ratio each client can show is")
	for kind := range numClients {
		c := ceiling.res[kind].OpsPerSec()
		sep := ";"
		if kind == numClients-1 {
			sep = "."
		}
		fmt.Fprintf(&sb, " %.1fx against dynalite and %.1fx against DynamoDB Local with the %s client%s",
			c/targets[2].res[kind].OpsPerSec(), c/targets[3].res[kind].OpsPerSec(), clientNames[kind], sep)
	}
	for kind := range numClients {
		r := ceiling.res[kind]
		if r.ClientCPU <= 0 || r.ServerCPU <= 0 {
			continue
		}
		cpus := float64(runtime.NumCPU())
		client, server := r.ClientCPUPerOp().Seconds(), r.ServerCPUPerOp().Seconds()
		fmt.Fprintf(&sb, " With the %s client, the load generator used %s of CPU per operation against it and the no-op server %s: on %.0f CPUs that bounds any server at %.0f ops/s (%.1fx dynalite, %.1fx DynamoDB Local) if the machine did nothing else, and the client alone at %.0f ops/s (%.1fx, %.1fx) if the server cost nothing.",
			clientNames[kind], fmtDur(r.ClientCPUPerOp()), fmtDur(r.ServerCPUPerOp()), cpus,
			cpus/(client+server), cpus/(client+server)/targets[2].res[kind].OpsPerSec(), cpus/(client+server)/targets[3].res[kind].OpsPerSec(),
			cpus/client, cpus/client/targets[2].res[kind].OpsPerSec(), cpus/client/targets[3].res[kind].OpsPerSec())
	}
	sb.WriteString("\n")
	if disk, mem := targets[0].res[clientSDK], targets[1].res[clientSDK]; floor > 0 && disk.ServerCPU > 0 && mem.ServerCPU > 0 {
		fmt.Fprintf(&sb, "\nServer CPU per operation against the HTTP floor (the no-op server's, %s, with the aws-sdk-go-v2 client): %.1fx in memory (%s; the target is at most 2x), %.1fx on disk (%s). The synced write-ahead log on disk costs %s of server CPU per operation of the mix (a third of them writes) and moves PutItem's p50 from %s to %s.\n",
			fmtDur(floor), float64(mem.ServerCPUPerOp())/float64(floor), fmtDur(mem.ServerCPUPerOp()),
			float64(disk.ServerCPUPerOp())/float64(floor), fmtDur(disk.ServerCPUPerOp()),
			fmtDur(disk.ServerCPUPerOp()-mem.ServerCPUPerOp()), fmtDur(mem.PerOp[workload.OpPut].P50), fmtDur(disk.PerOp[workload.OpPut].P50))
	}
	if len(e.cfg.serveArgs) > 0 {
		fmt.Fprintf(&sb, "\ntimetable serve ran with `%s`.\n", strings.Join(e.cfg.serveArgs, " "))
	}
	return figs, section{title: "Wire endpoint", body: sb.String()}, nil
}
