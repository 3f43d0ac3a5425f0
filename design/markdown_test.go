package design

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update to accept it); output:\n%s", path, got)
	}
}

func render(t *testing.T, f func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMarkdown_Sensors(t *testing.T) {
	d := sensors()
	d.Table.Indexes = append(d.Table.Indexes, Index{
		Name: "byName", Local: true, SortKey: Key{Name: "name"}, Description: "Sensors by name | a pipe in a cell.",
		Projection: Projection{Type: ProjectInclude, NonKeyAttributes: []string{"name"}},
	})
	d.Entity("Sensor").Keys["name"] = "{name}"
	d.Entity("Sensor").Example = map[string]string{"id": "7", "name": "boiler"}
	d.AccessPatterns = append(d.AccessPatterns, AccessPattern{Name: "Everything", Op: Scan, Returns: []string{"Sensor"}, Filter: "none"})
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	golden(t, "sensors.md", render(t, func(b *bytes.Buffer) error { return d.Markdown(b) }))
}

// devices is reference 004's device store: 10,000 readings a second of
// about 200 bytes, kept 30 days, the latest reading of a device read often
// and a fleet's latest readings in one BatchGetItem.
func devices() Workload {
	return Workload{
		Name:   "device readings (reference 004)",
		Writes: []Write{{Name: "reading", PerSecond: 10000, ItemBytes: 200}},
		Reads: []Read{
			{Pattern: "latest reading", PerSecond: 500, Items: 1, ItemBytes: 200},
			{Pattern: "fleet's latest", Op: BatchGetItem, PerSecond: 2, Items: 100, ItemBytes: 200, Consistency: Strong},
			{Pattern: "one day of a device", PerSecond: 1, Items: 86400 / 60, ItemBytes: 200},
		},
		Storage:       []Tier{{Name: "raw", ItemsPerSecond: 10000, ItemBytes: 200, Retention: 30 * 24 * time.Hour}},
		PeakToAverage: 1.5,
	}
}

// analyticsLoad is the web-analytics table at 1,000,000 page views a day
// (reference 001's largest row, which it prices at about $500 a month).
func analyticsLoad() Workload {
	const views = 1e6 / 86400.0
	return Workload{
		Name: "web analytics, 1,000,000 page views a day",
		Writes: []Write{
			{Name: "page view", PerSecond: views, ItemBytes: 450, GSIs: 1},
			// The session grows by a view: the update is billed on the larger
			// size, and rewrites the GSI2 copy.
			{Name: "session update", PerSecond: views, ItemBytes: 350, GSIs: 1},
			{Name: "realtime minute", PerSecond: views, ItemBytes: 1500},
			{Name: "hourly stats", PerSecond: 1.0 / 3600, ItemBytes: 6000, GSIs: 1},
		},
		Reads: []Read{
			{Pattern: "Site by id", Op: GetItem, PerSecond: 1, ItemBytes: 300},
			{Pattern: "Session by id", Op: GetItem, PerSecond: views, ItemBytes: 350},
			{Pattern: "Page views in a time range", PerSecond: 1.0 / 3600, Items: 41667, ItemBytes: 450},
			{Pattern: "Stats of a period range", PerSecond: 0.05, Items: 31, ItemBytes: 6000},
			{Pattern: "Realtime visitors", PerSecond: 0.5, Items: 5, ItemBytes: 1500},
		},
		Storage: []Tier{
			{Name: "page views", ItemsPerSecond: views, ItemBytes: 450, Retention: 30 * 24 * time.Hour, GSIs: 1},
			{Name: "sessions", ItemsPerSecond: views / 3, ItemBytes: 350, Retention: 30 * 24 * time.Hour, GSIs: 1},
			{Name: "hourly stats", ItemsPerSecond: 1.0 / 3600, ItemBytes: 6000, Retention: 90 * 24 * time.Hour, GSIs: 1},
			{Name: "daily stats", ItemsPerSecond: 1.0 / 86400, ItemBytes: 8000, Retention: 730 * 24 * time.Hour, GSIs: 1},
			{Name: "monthly stats", ItemsPerSecond: 1.0 / (30 * 86400), ItemBytes: 10000, GSIs: 1},
			{Name: "site and goals", Items: 6, ItemBytes: 300},
		},
	}
}

func TestEstimate_Markdown(t *testing.T) {
	for name, w := range map[string]Workload{
		"estimate_devices.md":   devices(),
		"estimate_analytics.md": analyticsLoad(),
		"estimate_measured.md": {
			Name: "a measured run",
			Measured: &Usage{Duration: 90 * time.Second, Ops: map[string]Units{
				"BatchWriteItem": {Write: 1800}, "Query": {Read: 45.5}, "GetItem": {Read: 3},
			}},
			Storage: []Tier{{Name: "chunks", ItemsPerSecond: 0.25, ItemBytes: 3000, Retention: 30 * 24 * time.Hour}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			e, err := w.Estimate()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, render(t, func(b *bytes.Buffer) error { return e.Markdown(b) }))
		})
	}
}

func TestCell(t *testing.T) {
	if got := cell("a|b\nc"); got != `a\|b c` {
		t.Errorf("cell = %q", got)
	}
	if got := code("x|y"); got != "`x\\|y`" {
		t.Errorf("code = %q", got)
	}
}

// An empty design renders without failing.
func TestMarkdown_Empty(t *testing.T) {
	var d Design
	var b strings.Builder
	for _, f := range []func() error{func() error { return d.Markdown(&b) }, func() error { return d.Matrix(&b) }, func() error { return d.Chart(&b) }} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
}
