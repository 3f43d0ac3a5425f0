package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
)

// fleetCostCommand is the command line of the fleet-cost part with c's
// sizes, run in bench/.
func fleetCostCommand(c fleetCostConfig) string {
	cmd := fmt.Sprintf("go run ./cmd/benchcompare -only fleet-cost -fleet-cost-devices %d -fleet-cost-servers %d -fleet-cost-simulated %v -fleet-cost-poll %v -fleet-cost-routings %s",
		c.devices, c.servers, c.simulated, c.poll, c.routings)
	if c.layouts != "" {
		cmd += " -fleet-cost-layouts " + c.layouts
	}
	return cmd
}

// fleetCostSection renders the part's section of the report.
func fleetCostSection(c fleetCostConfig, ps []fleetPrice) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Seed 004's device store (10,000 devices, one reading a second each, readings kept 30 days by TTL, the latest readings read with BatchGetItem, hot devices sharded), priced from the DynamoDB units a scaled-down copy of it consumed on DynamoDB Local, in each layout, beside the cost model's own figure and seed 004's estimate. Produced by `ONLY=fleet-cost scripts/bench-compare.sh`, which starts DynamoDB Local and runs, in `bench/`:\n\n```\n%s\n```\n\n", fleetCostCommand(c))
	fmt.Fprintf(&sb, "**The run.** %d `series.Store`s (\"servers\") on one table of DynamoDB Local, kind `DEVICE` with seed 004's three float fields (temperature, humidity, pressure; a random walk with two decimals), default rollups (hourly, daily, monthly) and retention (raw 30 days), no shards. %d devices write one reading each per simulated second for %v of simulated time, routed to the servers in one of two ways, each a run of its own: by device (each device's readings go to one server, as a load balancer with affinity by device, or a device that keeps its connection, sends them) or by reading (each reading goes to the next server in turn, as a load balancer without affinity spreads requests: every server holds readings of every device). Every %v of simulated time each server flushes (the stores' default `FlushInterval`); every %v one server runs a rollup pass and a compaction pass (the passes' default period; in a fleet one server holds their lease); every %v from the first flush on a dashboard reads the latest reading of every device with `LatestMany` (BatchGetItem of 100 keys, eventually consistent), through the servers in turn. After the writes: the last flush, then the passes at the simulated times they fall due (the last hour, the compaction's grace, the day, the month). Units are the table clients' `Stats` (ReturnConsumedCapacity TOTAL) summed over the servers, by phase.\n\n",
		c.servers, c.devices, c.simulated, c.flush, c.pass, c.poll)
	sb.WriteString("**Why not throughput.** The clock is simulated and runs as fast as DynamoDB Local, a Java emulator on this one machine, takes the writes: the run's wall time says how fast the emulator is, not how fast DynamoDB or timetable would be, and DynamoDB's own limits (1,000 write units a second per partition, on-demand scaling) are not in it. What a layout costs depends on what it writes and reads, which the units measure, and DynamoDB Local computes them with DynamoDB's rules (the consumed capacity of each operation matches the embedded engine's; see \"Consumed capacity checked against DynamoDB Local\" above). Each device's units do not depend on how many devices there are (each device has its own items; the passes' marker reads grow with the devices), so the full fleet is the run scaled by devices.\n\n")

	sb.WriteString("### Units measured, per reading\n\n")
	sb.WriteString("Read / write units per reading written, by phase; the latest poll in read units per device and poll; items and stored bytes per reading of the raw readings at the end (after compaction), with DynamoDB's 100 bytes per item.\n\n")
	sb.WriteString("| layout | routed by | readings | writes and flushes | rollups | compaction | all, per reading | latest poll, per device | raw items / reading | raw bytes billed / reading | wall time |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range ps {
		r := p.run
		n := float64(r.readings)
		ru := func(ph fleetPhase) string {
			return fmt.Sprintf("%.4f / %.4f", r.phases[ph].ReadUnits/n, r.phases[ph].WriteUnits/n)
		}
		t := r.total()
		all := fmt.Sprintf("%.4f / %.4f", (t.ReadUnits-r.phases[phaseLatest].ReadUnits)/n, t.WriteUnits/n)
		poll := r.phases[phaseLatest].ReadUnits / float64(r.polls) / float64(r.devices)
		raw := r.items.raw
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %.3f | %.4f | %.2f | %.0f s |\n", r.layout, routingName(r.spread), thousands(n), ru(phaseWrite), ru(phaseRollup), ru(phaseCompact), all,
			poll, float64(raw.items)/n, float64(raw.bytes+100*raw.items)/n, r.seconds)
	}
	sb.WriteString("\n\"all\" leaves out the latest poll, which is priced apart (it grows with the dashboards, not with the readings).\n\n")

	full := c.fullDevices
	fmt.Fprintf(&sb, "### The bill at %s devices\n\n", thousands(full))
	fmt.Fprintf(&sb, "The measured units of every operation scaled to %s devices (x%g) and from %v to a month (%s seconds); storage at steady state: the raw readings' measured items and bytes per reading at %s readings a second kept 30 days, one latest item per device, the rollups' measured item sizes at one item per device and period (hourly kept 90 days, daily 2 years, monthly costed at a year), the directory and bookkeeping items scaled with the devices. Prices are the cost model's (package design, %s: $%g per million write request units, $%g per million read request units, $%g per WCU-hour, $%g per RCU-hour, $%g per GB-month); provisioned capacity is the average at 70%% utilization with no peak (`--peak 1`). The model's figures are `series.Fleet` (what `timetable cost --devices %g --rate 1/s --fields 3 --dashboards 0 --retention 30d --flush 5m` prints) with the same latest poll added as BatchGetItem reads.\n\n",
		thousands(full), full/float64(ps[0].run.devices), c.simulated, thousands(design.SecondsPerMonth), thousands(full*fleetRate),
		design.DefaultPrices.Source, design.DefaultPrices.WriteRequestUnit*1e6, design.DefaultPrices.ReadRequestUnit*1e6,
		design.DefaultPrices.WCUHour, design.DefaultPrices.RCUHour, design.DefaultPrices.StorageGBMonth, full)
	sb.WriteString("| layout | routed by | write units/s | read units/s | storage, GB | on demand, $/month | provisioned, $/month | model: write / read units/s | model: storage, GB | model: on demand | model: provisioned | seed 004's estimate, on demand |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range ps {
		m, o := p.measured, p.model
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | $%s |\n", p.run.layout, routingName(p.run.spread),
			thousands(m.WriteUnits), thousands(m.ReadUnits), thousands(m.StorageBytes/design.BytesPerGB),
			"$"+thousands(m.OnDemand.Total), "$"+thousands(m.Provisioned.Total),
			thousands(o.WriteUnits), thousands(o.ReadUnits), thousands(o.StorageBytes/design.BytesPerGB),
			"$"+thousands(o.OnDemand.Total), "$"+thousands(o.Provisioned.Total), thousands(seed004OnDemand))
	}
	sb.WriteString("\nThe measured bills by part (on demand: writes + reads + storage; provisioned: WCU and RCU provisioned):\n\n")
	sb.WriteString("| layout | routed by | on demand: writes | reads | storage | provisioned: WCU | RCU |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, p := range ps {
		m := p.measured
		fmt.Fprintf(&sb, "| %s | %s | $%s | $%s | $%s | %s | %s |\n", p.run.layout, routingName(p.run.spread), thousands(m.OnDemand.Writes), thousands(m.OnDemand.Reads),
			thousands(m.OnDemand.Storage), thousands(float64(m.WCU)), thousands(float64(m.RCU)))
	}
	secs := float64(design.SecondsPerMonth)
	seedWCU := math.Ceil(1e4 / 0.7)
	fmt.Fprintf(&sb, "\n**Seed 004's figure.** Its $12.5k a month is for one write unit per reading at $1.25 per million, but 10,000 writes a second are %s writes a month (its \"26 M writes/day\" is 864 M a day), which at $1.25 per million is $%s, and at the on-demand price since November 2024 ($0.625) $%s, before storage (%s items of 30 days, some %s GB at the item-per-reading layout's measured size) and before any read. Its provisioned alternative, 5,000 WCU, cannot absorb 10,000 writes of one unit a second; at 70%% utilization it needs %s WCU, $%s a month at $0.00065 per WCU-hour.\n\n",
		thousands(1e4*secs), thousands(1e4*secs*1.25e-6), thousands(1e4*secs*design.USEast1WriteRequestUnit),
		thousands(1e4*fleetRetention.Seconds()), seedStorageGB(ps), thousands(seedWCU), thousands(seedWCU*design.HoursPerMonth*design.USEast1WCUHour))
	// A rollup and a compaction pass every pass period, and the six
	// after the writes: a query of a marker partition each.
	markerQueries := 2 * (int(c.simulated/c.pass) + 6)
	fmt.Fprintf(&sb, "**What the run leaves out.** The simulated time is short of a day, so the per-day work (the daily rollup, the day's compaction of chunks) is spread over fewer readings than a full day's and weighs a little more per reading than in a steady state; for buckets, a bucket part grows through the day up to 300 KB and each flush rewrites it whole, so the units per reading depend on where in the part cycle the run stops. At few devices each pass's strongly consistent query of a marker partition costs its minimum, one read unit, which the scaling multiplies: at %d devices the passes' %d such queries are %.4f read units per reading, %s read units a second once scaled, where the markers of %s devices (some 50 bytes each, one or two per device and hour) would cost a few a second; the passes' read units are overstated by about that much. Item sizes are those of seed 004's field names (temperature, humidity, pressure), which reading items and bucket readings carry with every reading, where the cost model's sizes are calibrated on one-letter names: the model's storage is smaller for that reason. DynamoDB's TTL deletions consume no units and are not simulated; DynamoDB Local keeps expired items. The free 25 GB of storage and the free tier are not subtracted. Hot devices (seed 004's sharding) are not in the run: one reading a second per device is far below a partition's 1,000 write units a second; `Schema.Shards` spreads a hot device, at one item (chunk, bucket) per shard and flush.\n",
		c.devices, markerQueries, float64(markerQueries)/float64(ps[0].run.readings), thousands(float64(markerQueries)/float64(ps[0].run.readings)*full*fleetRate), thousands(full))
	return sb.String()
}

// seedStorageGB is seed 004's 30 days of readings at the measured size of
// the item-per-reading layout's items, in GB, or "?" without that layout.
func seedStorageGB(ps []fleetPrice) string {
	for _, p := range ps {
		if p.run.layout.String() == "item-per-reading" && p.run.items.raw.items > 0 {
			b := p.run.items.raw.mean() + design.ItemOverhead
			return thousands(1e4 * (30 * 24 * time.Hour).Seconds() * b / design.BytesPerGB)
		}
	}
	return "?"
}
