package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/table"
)

// The fleet-cost part: the bill of a device store at scale (the seed 004
// workload: 10,000 devices, one reading a second each, raw readings kept
// 30 days, the latest readings polled with BatchGetItem), priced from
// DynamoDB units measured on DynamoDB Local with several series stores
// ("servers") on one table, each layout in turn, beside the cost model's
// own figure (series.Fleet, `timetable cost`).
//
// The measurement runs a scaled-down fleet on a simulated clock: every
// device writes one reading a simulated second, the servers flush every
// FlushInterval of simulated time, one server (the lease holder) runs
// the rollup and compaction passes every simulated minute, and a
// dashboard polls the latest reading of every device every poll period
// through one server. The clock moves as fast as DynamoDB Local takes
// the writes: what is measured is units, which depend on what is
// written and read, not on how fast.

// fleetCostConfig sizes the fleet-cost part.
type fleetCostConfig struct {
	devices     int           // devices of the measured fleet
	servers     int           // series stores on the table
	simulated   time.Duration // simulated time of the writes
	poll        time.Duration // period of the dashboard's latest poll
	flush       time.Duration // the stores' flush interval (simulated)
	pass        time.Duration // period of the rollup and compaction passes (simulated)
	routings    string        // comma-separated: spread (each reading to the next server), device (each device to one server)
	fullDevices float64       // devices of the priced workload
	layouts     string        // comma-separated layout names; empty: all
}

// fleetKind is the kind of the device store: seed 004's payload.
const fleetKind = "DEVICE"

var fleetFields = []string{"temperature", "humidity", "pressure"}

// fleetPhase names what units were spent on.
type fleetPhase int

const (
	phaseWrite   fleetPhase = iota // Write and Flush
	phaseLatest                    // the dashboard's LatestMany
	phaseRollup                    // rollup passes
	phaseCompact                   // compaction passes
	phaseCount
)

// fleetRun is what one layout's run measured.
type fleetRun struct {
	layout   series.Layout
	spread   bool          // readings spread over the servers, not each device on one
	readings int64         // readings written
	devices  int           // devices of the run
	polls    int64         // latest polls of all devices
	sim      time.Duration // simulated time of the writes
	phases   [phaseCount]table.Stats
	items    fleetItems
	seconds  float64 // wall time of the run
}

// total returns the units of all phases, per operation.
func (r fleetRun) total() table.Stats {
	var t table.Stats
	for _, p := range r.phases {
		t = addStats(t, p)
	}
	return t
}

// addStats returns a + b, per operation and in total.
func addStats(a, b table.Stats) table.Stats {
	out := table.Stats{Ops: map[string]table.OpStats{}, ReadUnits: a.ReadUnits + b.ReadUnits, WriteUnits: a.WriteUnits + b.WriteUnits}
	for _, s := range []table.Stats{a, b} {
		for op, o := range s.Ops {
			x := out.Ops[op]
			x.Calls += o.Calls
			x.Errors += o.Errors
			x.ReadUnits += o.ReadUnits
			x.WriteUnits += o.WriteUnits
			out.Ops[op] = x
		}
	}
	return out
}

// subStats returns a - b, per operation and in total.
func subStats(a, b table.Stats) table.Stats {
	out := table.Stats{Ops: map[string]table.OpStats{}, ReadUnits: a.ReadUnits - b.ReadUnits, WriteUnits: a.WriteUnits - b.WriteUnits}
	for op, o := range a.Ops {
		p := b.Ops[op]
		o.Calls -= p.Calls
		o.Errors -= p.Errors
		o.ReadUnits -= p.ReadUnits
		o.WriteUnits -= p.WriteUnits
		if o.Calls != 0 || o.ReadUnits != 0 || o.WriteUnits != 0 {
			out.Ops[op] = o
		}
	}
	return out
}

// fleet is the servers of one run, their clock and the phase totals.
type fleet struct {
	clk    *simClock
	stores []*series.Store
	kinds  []*series.Kind
	run    *fleetRun
}

// measure runs fn and adds the units every server spent meanwhile to
// phase p. Nothing else runs on the servers meanwhile.
func (f *fleet) measure(p fleetPhase, fn func() error) error {
	before := f.stats()
	err := fn()
	f.run.phases[p] = addStats(f.run.phases[p], subStats(f.stats(), before))
	return err
}

func (f *fleet) stats() table.Stats {
	var t table.Stats
	for _, st := range f.stores {
		t = addStats(t, st.Table().Stats())
	}
	return t
}

func (f *fleet) close() {
	for _, st := range f.stores {
		st.Close()
	}
}

// passes runs one rollup pass and one compaction pass on the first
// server, as the holder of their leases would.
func (f *fleet) passes(ctx context.Context) error {
	if err := f.measure(phaseRollup, func() error { return f.stores[0].Rollup(ctx) }); err != nil {
		return fmt.Errorf("rollup: %w", err)
	}
	if err := f.measure(phaseCompact, func() error { return f.stores[0].Compact(ctx) }); err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	return nil
}

func (f *fleet) flush(ctx context.Context) error {
	return f.measure(phaseWrite, func() error {
		for _, st := range f.stores {
			if err := st.Flush(ctx); err != nil {
				return fmt.Errorf("flush: %w", err)
			}
		}
		return nil
	})
}

// fleetStart is the first simulated instant of the runs: midnight UTC
// two days ago, so that the readings' TTLs lie in the future of the
// backend's real clock too.
func fleetStart() time.Time { return time.Now().UTC().Truncate(24 * time.Hour).Add(-48 * time.Hour) }

// runFleetLayout runs the scaled-down fleet in one layout on api, in a
// new table tableName, and returns what it measured. The table is left
// for the caller to drop.
// With spread, each reading goes to the next server in turn; otherwise
// each device's readings go to one server.
func runFleetLayout(ctx context.Context, api timetable.API, tableName string, layout series.Layout, spread bool, c fleetCostConfig) (fleetRun, error) {
	began := time.Now()
	run := &fleetRun{layout: layout, spread: spread, devices: c.devices, sim: c.simulated}
	clk := &simClock{}
	start := fleetStart()
	clk.Set(start)
	schema := series.Schema{Name: fleetKind, Fields: fleetFields, Layout: layout}
	f := &fleet{clk: clk, run: run}
	defer f.close()
	for i := range c.servers {
		// Background loops off: the run calls Flush, Rollup and Compact
		// itself at the simulated times (FlushInterval, and the passes'
		// one-minute default), on the simulated clock.
		o := &series.Options{Table: tableName, FlushInterval: -1, RollupInterval: -1, CompactInterval: -1,
			FlushSize: 1 << 22, MaxBuffered: 1 << 23, Now: clk.Now}
		st, err := series.Open(ctx, api, o, schema)
		if err != nil {
			return fleetRun{}, fmt.Errorf("server %d: %w", i, err)
		}
		f.stores = append(f.stores, st)
		if i == 0 {
			if err := st.EnsureTable(ctx); err != nil {
				return fleetRun{}, err
			}
		}
		k, err := st.Kind(fleetKind)
		if err != nil {
			return fleetRun{}, err
		}
		f.kinds = append(f.kinds, k)
	}
	for _, st := range f.stores {
		st.Table().ResetStats()
	}

	ids := make([]string, c.devices)
	walks := make([]*walk, c.devices)
	for d := range ids {
		ids[d] = fmt.Sprintf("dev-%05d", d)
		walks[d] = newWalk(uint64(d)+1, len(fleetFields))
	}
	per := int(c.poll / time.Second) // readings of each device per step
	vals := make([]float64, len(fleetFields))
	steps := int(c.simulated / c.poll)
	for s := range steps {
		t0 := start.Add(time.Duration(s) * c.poll)
		t1 := t0.Add(c.poll)
		clk.Set(t1)
		batches := make([][]series.SeriesReadings, c.servers)
		for d, id := range ids {
			for j := range per {
				walks[d].step(vals)
				srv := d % c.servers
				if spread {
					srv = (d + s*per + j) % c.servers
				}
				b := batches[srv]
				if n := len(b); n == 0 || b[n-1].ID != id {
					b = append(b, series.SeriesReadings{ID: id})
				}
				b[len(b)-1].Readings = append(b[len(b)-1].Readings, series.Reading{Time: t0.Add(time.Duration(j) * time.Second), Values: append([]float64(nil), vals...)})
				batches[srv] = b
			}
		}
		err := f.measure(phaseWrite, func() error {
			for i, b := range batches {
				if err := f.kinds[i].WriteMany(ctx, b); err != nil {
					return fmt.Errorf("server %d: write: %w", i, err)
				}
			}
			return nil
		})
		if err != nil {
			return fleetRun{}, err
		}
		run.readings += int64(c.devices * per)
		el := t1.Sub(start)
		if el%c.flush == 0 {
			if err := f.flush(ctx); err != nil {
				return fleetRun{}, err
			}
		}
		if el%c.pass == 0 {
			if err := f.passes(ctx); err != nil {
				return fleetRun{}, err
			}
		}
		// The dashboard, through one server after another; its reads see
		// what the table holds and that server's buffer. It starts after
		// the first flush, when every device has its latest item (a
		// BatchGetItem of a missing item costs nothing on DynamoDB
		// Local).
		if el < c.flush {
			continue
		}
		k := f.kinds[s%c.servers]
		err = f.measure(phaseLatest, func() error {
			got, err := k.LatestMany(ctx, ids)
			if err == nil && len(got) != len(ids) {
				err = fmt.Errorf("latest poll: %d of %d devices", len(got), len(ids))
			}
			return err
		})
		if err != nil {
			return fleetRun{}, err
		}
		run.polls++
	}
	if err := f.flush(ctx); err != nil {
		return fleetRun{}, err
	}
	// Then the background work that the writes left due: the last hour's
	// rollup and compaction, the merged items' deletion after the
	// compaction's grace, the day's rollup and compaction, the month's
	// rollup. Each at the simulated time it would run.
	end := start.Add(c.simulated)
	day := end.Truncate(24 * time.Hour).Add(24 * time.Hour)
	month := time.Date(end.Year(), end.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	const late, grace = 5 * time.Minute, 10 * time.Minute // the stores' defaults
	for _, at := range []time.Time{end.Add(time.Hour + late), end.Add(time.Hour + late + grace + time.Minute),
		day.Add(late), day.Add(late + grace + time.Minute), month.Add(late), month.Add(late + time.Hour)} {
		clk.Set(at)
		if err := f.passes(ctx); err != nil {
			return fleetRun{}, err
		}
	}
	items, err := countFleetItems(ctx, api, tableName)
	if err != nil {
		return fleetRun{}, err
	}
	run.items = items
	run.seconds = time.Since(began).Seconds()
	return *run, nil
}

// fleetItems are the items of a run's table by class, with the sum of
// their sizes as DynamoDB counts them (without the 100 bytes per item it
// adds for storage).
type fleetItems struct {
	raw, latest, hourly, daily, monthly, other itemClass
}

type itemClass struct{ items, bytes int64 }

func (c itemClass) mean() float64 {
	if c.items == 0 {
		return 0
	}
	return float64(c.bytes) / float64(c.items)
}

// countFleetItems scans the table and sorts its items by the last
// component of their partition key: #L latest readings, #H, #D, #M
// rollups, bookkeeping (pk ~..., and the days index #P) apart, the rest
// raw readings.
func countFleetItems(ctx context.Context, api timetable.API, tableName string) (fleetItems, error) {
	var fi fleetItems
	err := scanItems(ctx, api, tableName, func(pk string, size int) {
		c := &fi.raw
		switch last := pk[strings.LastIndexByte(pk, '#')+1:]; {
		case strings.HasPrefix(pk, "~") || last == "P":
			c = &fi.other
		case last == "L":
			c = &fi.latest
		case last == "H":
			c = &fi.hourly
		case last == "D":
			c = &fi.daily
		case last == "M":
			c = &fi.monthly
		}
		c.items++
		c.bytes += int64(size)
	})
	return fi, err
}

// scanItems calls fn with the partition key and the size (as DynamoDB
// counts it, without its per-item overhead) of every item of the table.
func scanItems(ctx context.Context, api timetable.API, tableName string, fn func(pk string, size int)) error {
	in := &dynamodb.ScanInput{TableName: aws.String(tableName)}
	for {
		out, err := api.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		for _, it := range out.Items {
			pk, _ := it["pk"].(*types.AttributeValueMemberS)
			if pk == nil {
				return fmt.Errorf("scan: an item without a string pk")
			}
			fn(pk.Value, local.ItemSize(it))
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
