package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/series"
)

// seed004OnDemand is seed 004's own estimate of its bill: "~ $12.5 k/month
// for 10 k writes/s" on demand, one item per reading, at $1.25 per
// million write request units.
const seed004OnDemand = 12500

// fleetRate is the readings per second of each device, as in seed 004.
const fleetRate = 1.0

// fleetRetention is seed 004's TTL, which is also the store's default raw
// retention.
const fleetRetention = 30 * 24 * time.Hour

// costMonthSeconds is a 30-day month, the monthly rollup's period in the
// storage tiers.
const costMonthSeconds = 30 * 24 * 3600

// fleetPrice is a layout's bill at full scale, from the run's units and
// from the cost model.
type fleetPrice struct {
	run      fleetRun
	measured *design.Estimate
	model    *design.Estimate
}

// measuredWorkload turns a run into the design workload of the full
// fleet: the units of every operation scaled from the run's devices to
// full devices (each device writes and is read at the same rate), over the
// run's simulated time; storage from the run's items: the raw readings'
// items and bytes per reading at the full rate kept full retention, one
// latest item per device, the rollups' measured sizes at one item per
// device and period, and the bookkeeping items (directory, markers left,
// schema) scaled with the devices.
func measuredWorkload(r fleetRun, full float64) (*design.Workload, error) {
	if r.devices <= 0 || r.readings <= 0 || r.sim <= 0 || full <= 0 {
		return nil, fmt.Errorf("a run of %d devices, %d readings over %v cannot be scaled to %g devices", r.devices, r.readings, r.sim, full)
	}
	scale := full / float64(r.devices)
	u := design.Usage{Duration: r.sim, Ops: map[string]design.Units{}}
	for op, o := range r.total().Ops {
		u.Ops[op] = design.Units{Read: o.ReadUnits * scale, Write: o.WriteUnits * scale}
	}
	w := &design.Workload{Name: r.layout.String() + " layout, measured", Measured: &u}
	perReading := func(c itemClass) float64 { return float64(c.items) / float64(r.readings) }
	tier := func(name string, c itemClass, perSecond, fixed float64, ret time.Duration) {
		if c.items == 0 {
			return
		}
		w.Storage = append(w.Storage, design.Tier{Name: name, ItemsPerSecond: perSecond, Items: fixed,
			ItemBytes: int(math.Round(c.mean())), Retention: ret})
	}
	it := r.items
	tier("raw readings", it.raw, perReading(it.raw)*full*fleetRate, 0, fleetRetention)
	tier("latest readings", it.latest, 0, full, 0)
	tier("hourly rollups", it.hourly, full/3600, 0, series.DefaultHourlyRetention)
	tier("daily rollups", it.daily, full/86400, 0, series.DefaultDailyRetention)
	tier("monthly rollups", it.monthly, full/costMonthSeconds, 0, 0)
	tier("directory, markers, schema", it.other, 0, float64(it.other.items)*scale, 0)
	return w, nil
}

// modelWorkload is the cost model's workload of the same fleet
// (series.Fleet, as `timetable cost` prices it, with no dashboards), with
// the latest poll added: BatchGetItem calls of 100 latest items, of
// latestBytes each, every poll.
func modelWorkload(lay series.Layout, full float64, poll time.Duration, latestBytes int) (*design.Workload, error) {
	l := series.Fleet{Devices: full, Rate: fleetRate, Fields: len(fleetFields), Retention: fleetRetention,
		Flush: 5 * time.Minute, Rollups: true, Peak: 1, DashboardRange: time.Hour, DashboardRefresh: time.Minute}
	w, err := l.Workload(lay)
	if err != nil {
		return nil, err
	}
	w.Name = lay.String() + " layout, cost model"
	w.Reads = append(w.Reads, design.Read{Pattern: "latest poll of every device", Op: design.BatchGetItem,
		PerSecond: full / 100 / poll.Seconds(), Items: 100, ItemBytes: latestBytes, Consistency: design.Eventual})
	return w, nil
}

// priceFleet prices a run at full devices, measured and modelled.
func priceFleet(r fleetRun, full float64, poll time.Duration) (fleetPrice, error) {
	mw, err := measuredWorkload(r, full)
	if err != nil {
		return fleetPrice{}, err
	}
	me, err := mw.Estimate()
	if err != nil {
		return fleetPrice{}, fmt.Errorf("measured estimate: %w", err)
	}
	lb := int(math.Round(r.items.latest.mean()))
	if lb == 0 {
		lb = 1
	}
	ow, err := modelWorkload(r.layout, full, poll, lb)
	if err != nil {
		return fleetPrice{}, err
	}
	oe, err := ow.Estimate()
	if err != nil {
		return fleetPrice{}, fmt.Errorf("model estimate: %w", err)
	}
	return fleetPrice{run: r, measured: me, model: oe}, nil
}

// fleetLayouts parses the -fleet-cost-layouts flag: layout names,
// comma-separated, or empty for all.
func fleetLayouts(s string) ([]series.Layout, error) {
	if strings.TrimSpace(s) == "" {
		return series.Layouts(), nil
	}
	var out []series.Layout
	for _, n := range strings.Split(s, ",") {
		l, ok := series.LayoutNamed(strings.TrimSpace(n))
		if !ok {
			return nil, fmt.Errorf("-fleet-cost-layouts: unknown layout %q", n)
		}
		out = append(out, l)
	}
	return out, nil
}

// fleetRoutings parses the -fleet-cost-routings flag: "spread" and
// "device", comma-separated, into the spread argument of runFleetLayout.
func fleetRoutings(s string) ([]bool, error) {
	var out []bool
	for _, n := range strings.Split(s, ",") {
		switch strings.TrimSpace(n) {
		case "spread":
			out = append(out, true)
		case "device":
			out = append(out, false)
		default:
			return nil, fmt.Errorf("-fleet-cost-routings: unknown routing %q (want spread or device)", n)
		}
	}
	return out, nil
}

// routingName names a routing in the report.
func routingName(spread bool) string {
	if spread {
		return "reading (spread)"
	}
	return "device (affinity)"
}

// checkFleetCost refuses a configuration the simulation cannot run.
func checkFleetCost(c fleetCostConfig) error {
	switch {
	case c.devices < 1 || c.servers < 1:
		return fmt.Errorf("-fleet-cost-devices and -fleet-cost-servers must be at least 1")
	case c.poll < time.Second || c.poll%time.Second != 0:
		return fmt.Errorf("-fleet-cost-poll must be whole seconds, at least 1s")
	case c.flush < c.poll || c.flush%c.poll != 0 || c.pass < c.poll || c.pass%c.poll != 0:
		return fmt.Errorf("-fleet-cost-flush and -fleet-cost-pass must be multiples of -fleet-cost-poll")
	case c.simulated < c.flush || c.simulated%c.flush != 0:
		return fmt.Errorf("-fleet-cost-simulated must be a multiple of -fleet-cost-flush")
	case !(c.fullDevices >= 1) || math.IsInf(c.fullDevices, 0):
		return fmt.Errorf("-fleet-cost-full-devices must be at least 1")
	}
	return nil
}

// runFleetCost is the fleet-cost part: each layout's scaled-down fleet on
// DynamoDB Local, priced at full scale beside the cost model.
func runFleetCost(ctx context.Context, e *env) ([]Figure, section, error) {
	c := e.cfg.fleetCost
	if err := checkFleetCost(c); err != nil {
		return nil, section{}, err
	}
	lays, err := fleetLayouts(c.layouts)
	if err != nil {
		return nil, section{}, err
	}
	endpoint := e.cfg.ddbEndpoint
	if endpoint == "" {
		srv, err := e.DynamoDBLocal(ctx)
		if err != nil {
			return nil, section{}, err
		}
		endpoint = srv.Endpoint
	}
	spreads, err := fleetRoutings(c.routings)
	if err != nil {
		return nil, section{}, err
	}
	client := newSeriesClient(endpoint)
	var prices []fleetPrice
	for _, spread := range spreads {
		for _, l := range lays {
			e.logf("fleet-cost: %s, %s, %d devices on %d servers, %v simulated", l, routingName(spread), c.devices, c.servers, c.simulated)
			name := fmt.Sprintf("bench_fleet_%s_%d", strings.ReplaceAll(l.String(), "-", "_"), time.Now().UnixNano())
			r, err := runFleetLayout(ctx, client, name, l, spread, c)
			deleteTable(ctx, client, name)
			if err != nil {
				return nil, section{}, fmt.Errorf("%s: %w", l, err)
			}
			p, err := priceFleet(r, c.fullDevices, c.poll)
			if err != nil {
				return nil, section{}, fmt.Errorf("%s: %w", l, err)
			}
			e.logf("fleet-cost: %s, %s: %.4f write units per reading, $%.0f a month on demand (model $%.0f), in %.0fs", l, routingName(spread),
				r.total().WriteUnits/float64(r.readings), p.measured.OnDemand.Total, p.model.OnDemand.Total, r.seconds)
			prices = append(prices, p)
		}
	}
	var figs []Figure
	for _, p := range prices {
		r := p.run
		what := fmt.Sprintf("fleet cost, seed 004 (%s devices x 1 reading/s, 30-day TTL, latest poll every %v), %s, %d servers, readings routed by %s",
			thousands(c.fullDevices), c.poll, r.layout, c.servers, routingName(r.spread))
		figs = append(figs,
			Figure{Name: what + ": write units per reading, measured on DynamoDB Local", Ours: round(r.total().WriteUnits/float64(r.readings), 4), Unit: "WCU/reading"},
			Figure{Name: what + ": on-demand bill from measured units vs the cost model",
				Ours: math.Round(p.measured.OnDemand.Total), Peer: ptr(math.Round(p.model.OnDemand.Total)), peerName: "cost model", Unit: "$/month"},
			Figure{Name: what + ": provisioned bill from measured units vs the cost model",
				Ours: math.Round(p.measured.Provisioned.Total), Peer: ptr(math.Round(p.model.Provisioned.Total)), peerName: "cost model", Unit: "$/month"},
		)
	}
	return figs, section{title: "The bill at scale", body: fleetCostSection(c, prices)}, nil
}

// thousands renders x with thousands separators, no decimals.
func thousands(x float64) string {
	s := fmt.Sprintf("%.0f", math.Round(x))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
