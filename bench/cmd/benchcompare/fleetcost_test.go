package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/table"
)

func tinyFleet() fleetCostConfig {
	return fleetCostConfig{devices: 4, servers: 3, simulated: 30 * time.Minute, poll: 10 * time.Second,
		flush: 5 * time.Minute, pass: time.Minute, routings: "device,spread", fullDevices: 10000}
}

// TestFleetLayout_Embedded runs the tiny fleet of every layout and
// routing on the embedded engine and reads every device's readings back
// through a store of its own: each reading is in the table once, the
// bookkeeping counts match the run, and the units add up.
func TestFleetLayout_Embedded(t *testing.T) {
	ctx := context.Background()
	c := tinyFleet()
	perDevice := int(c.simulated / time.Second)
	writeUnits := map[string]float64{}
	for _, l := range series.Layouts() {
		for _, spread := range []bool{false, true} {
			name := fmt.Sprintf("%s/%s", l, routingName(spread))
			db, err := local.Open("", &local.Options{InMemory: true})
			if err != nil {
				t.Fatal(err)
			}
			r, err := runFleetLayout(ctx, db, "fleet", l, spread, c)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.readings != int64(c.devices*perDevice) {
				t.Errorf("%s: %d readings, want %d", name, r.readings, c.devices*perDevice)
			}
			// Polls from the first flush on: one per poll period.
			if want := int64((c.simulated-c.flush)/c.poll) + 1; r.polls != want {
				t.Errorf("%s: %d polls, want %d", name, r.polls, want)
			}
			if r.items.latest.items != int64(c.devices) || r.items.hourly.items != int64(c.devices) ||
				r.items.daily.items != int64(c.devices) || r.items.monthly.items != int64(c.devices) {
				t.Errorf("%s: items %+v, want one latest, hourly, daily and monthly item per device", name, r.items)
			}
			tot := r.total()
			if tot.WriteUnits < 0.001*float64(r.readings) || math.Abs(tot.WriteUnits-sumPhases(r, false)) > 1e-6 {
				t.Errorf("%s: write units %g (phases %g)", name, tot.WriteUnits, sumPhases(r, false))
			}
			// A latest item is under 4 KB: half a unit per device and poll.
			if got := r.phases[phaseLatest].ReadUnits; got != 0.5*float64(r.polls)*float64(c.devices) {
				t.Errorf("%s: latest polls consumed %g read units, want %g", name, got, 0.5*float64(r.polls)*float64(c.devices))
			}
			writeUnits[name] = tot.WriteUnits
			checkFleetReadings(t, name, db, l, c.devices, perDevice)
			db.Close()
		}
	}
	// Spread readings make a chunk per server, device and flush, where
	// affinity makes one per device and flush.
	dev, spr := writeUnits["chunks/"+routingName(false)], writeUnits["chunks/"+routingName(true)]
	if !(spr > 1.5*dev) {
		t.Errorf("chunks: %g write units spread, %g by device: want spread well above", spr, dev)
	}
}

func sumPhases(r fleetRun, reads bool) float64 {
	var s float64
	for _, p := range r.phases {
		if reads {
			s += p.ReadUnits
		} else {
			s += p.WriteUnits
		}
	}
	return s
}

// checkFleetReadings reads each device's readings through a new store on
// the table and checks that there are perDevice, one a second.
func checkFleetReadings(t *testing.T, name string, api *local.DB, l series.Layout, devices, perDevice int) {
	t.Helper()
	ctx := context.Background()
	st, err := series.Open(ctx, api, &series.Options{Table: "fleet", FlushInterval: -1, RollupInterval: -1, CompactInterval: -1},
		series.Schema{Name: fleetKind, Fields: fleetFields, Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k, err := st.Kind(fleetKind)
	if err != nil {
		t.Fatal(err)
	}
	start := fleetStart()
	for d := range devices {
		id := fmt.Sprintf("dev-%05d", d)
		p, err := k.Range(ctx, id, series.Query{From: start, To: start.Add(24 * time.Hour)})
		if err != nil {
			t.Fatalf("%s: %s: %v", name, id, err)
		}
		if len(p.Readings) != perDevice {
			t.Errorf("%s: %s has %d readings, want %d", name, id, len(p.Readings), perDevice)
			continue
		}
		for i, r := range p.Readings {
			if want := start.Add(time.Duration(i) * time.Second); !r.Time.Equal(want) {
				t.Errorf("%s: %s: reading %d at %v, want %v", name, id, i, r.Time, want)
				break
			}
		}
	}
}

// TestMeasuredWorkload_Scale prices a hand-made run: one write unit per
// reading and one 80-byte item per reading, 10 devices for an hour,
// scaled to 10,000 devices.
func TestMeasuredWorkload_Scale(t *testing.T) {
	const devices, full = 10, 10000.0
	readings := int64(devices * 3600)
	r := fleetRun{layout: series.ItemPerReading, devices: devices, readings: readings, sim: time.Hour, polls: 1}
	r.phases[phaseWrite] = table.Stats{Ops: map[string]table.OpStats{"BatchWriteItem": {Calls: 1, WriteUnits: float64(readings)}}, WriteUnits: float64(readings)}
	r.phases[phaseLatest] = table.Stats{Ops: map[string]table.OpStats{"BatchGetItem": {Calls: 1, ReadUnits: 36}}, ReadUnits: 36}
	r.items.raw = itemClass{items: readings, bytes: 80 * readings}
	r.items.latest = itemClass{items: devices, bytes: 120 * devices}
	p, err := priceFleet(r, full, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := p.measured
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %g, want %g", what, got, want)
		}
	}
	near("write units/s", m.WriteUnits, full)
	near("read units/s", m.ReadUnits, 36*full/devices/3600)
	near("on-demand writes", m.OnDemand.Writes, full*design.SecondsPerMonth*design.USEast1WriteRequestUnit)
	wantBytes := full*fleetRetention.Seconds()*(80+design.ItemOverhead) + full*(120+design.ItemOverhead)
	near("storage bytes", m.StorageBytes, wantBytes)
	near("storage $", m.OnDemand.Storage, wantBytes/design.BytesPerGB*design.USEast1StorageGBMonth)
	if p.model.OnDemand.Total <= 0 || p.model.WriteUnits < full {
		t.Errorf("model: %g write units/s, $%g: want at least one write unit per reading", p.model.WriteUnits, p.model.OnDemand.Total)
	}
	if _, err := priceFleet(fleetRun{}, full, 10*time.Second); err == nil {
		t.Error("an empty run was priced")
	}
}

func TestFleetCost_BadFlags(t *testing.T) {
	bad := map[string]func(*fleetCostConfig){
		"no devices":        func(c *fleetCostConfig) { c.devices = 0 },
		"poll not seconds":  func(c *fleetCostConfig) { c.poll = 1500 * time.Millisecond },
		"flush off poll":    func(c *fleetCostConfig) { c.flush = 95 * time.Second },
		"simulated partial": func(c *fleetCostConfig) { c.simulated = 7 * time.Minute },
		"full NaN":          func(c *fleetCostConfig) { c.fullDevices = math.NaN() },
	}
	for name, f := range bad {
		c := tinyFleet()
		f(&c)
		if err := checkFleetCost(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := checkFleetCost(tinyFleet()); err != nil {
		t.Errorf("tiny: %v", err)
	}
	if _, err := fleetLayouts("chunks,nope"); err == nil {
		t.Error("an unknown layout was accepted")
	}
	if _, err := fleetRoutings("device,random"); err == nil {
		t.Error("an unknown routing was accepted")
	}
	var stderr bytes.Buffer
	if err := run([]string{"-only", "fleet-cost", "-fleet-cost-devices", "0"}, &bytes.Buffer{}, &stderr); err == nil || !strings.Contains(err.Error(), "fleet-cost-devices") {
		t.Errorf("run with no devices: %v", err)
	}
}

// TestFleetCost_Tiny runs the part through run at a tiny size against
// DynamoDB Local (TIMETABLE_DYNAMODB_ENDPOINT) and checks the report.
func TestFleetCost_Tiny(t *testing.T) {
	endpoint := dynamotest.Require(t)
	var stdout, stderr bytes.Buffer
	out := t.TempDir() + "/BENCHMARKS.md"
	err := run([]string{"-only", "fleet-cost", "-out", out, "-dynamodb-local-endpoint", endpoint,
		"-fleet-cost-devices", "2", "-fleet-cost-simulated", "10m", "-fleet-cost-layouts", "chunks,item-per-reading", "-fleet-cost-routings", "spread"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## The bill at scale", "### The bill at 10,000 devices", "| chunks | reading (spread) |", "| item-per-reading | reading (spread) |", "-fleet-cost-routings spread"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(stdout.String(), "\n"); n != 6 {
		t.Errorf("%d figures, want 6:\n%s", n, stdout.String())
	}
}
