package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
)

func TestMain(m *testing.M) {
	maybeIngestChild() // the ingest child processes are this test binary
	os.Exit(m.Run())
}

// TestSeries_Tiny runs the series part at a tiny size, with the ingest
// children, and checks that every figure is there and sane. The units
// check needs a DynamoDB Local: TIMETABLE_DYNAMODB_ENDPOINT.
func TestSeries_Tiny(t *testing.T) {
	endpoint := dynamotest.Require(t)
	var stdout, stderr bytes.Buffer
	out := t.TempDir() + "/BENCHMARKS.md"
	err := run([]string{"-only", "series", "-out", out, "-dynamodb-local-endpoint", endpoint,
		"-series-ids", "20", "-series-readings", "300", "-series-batch", "60", "-series-workers", "4",
		"-series-layout-ids", "3", "-series-points", "7200", "-series-runs", "2",
		"-series-latest-ids", "50", "-series-latest-calls", "500", "-series-check-points", "180"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var names []string
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var f struct {
			Name  string   `json:"name"`
			Ours  float64  `json:"ours"`
			Peer  *float64 `json:"peer"`
			Unit  string   `json:"unit"`
			Ratio *float64 `json:"ratio"`
		}
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		if f.Name == "" || f.Unit == "" || math.IsNaN(f.Ours) || math.IsInf(f.Ours, 0) || f.Ours < 0 {
			t.Errorf("bad figure %+v", f)
		}
		names = append(names, f.Name)
	}
	for _, want := range []string{"kill -9 safe, as Prometheus' Commit", "once the log is fsynced", "series ingest, peak RSS", "bytes on disk per reading after compaction",
		"(1-minute readings of 3 fields), chunks", "write units per reading at 1 Hz, chunks", "read units, 7200 readings of one series at 1 Hz, chunks",
		"series Latest, in process, 50 series: p99", "read of 7200 readings of 1 Hz readings", "embedded engine vs DynamoDB Local"} {
		found := false
		for _, n := range names {
			found = found || strings.Contains(n, want)
		}
		if !found {
			t.Errorf("no figure %q in %q", want, names)
		}
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Time series", "### Ingest", "### Layouts: bytes per reading", "### Latest", "### Consumed capacity checked against DynamoDB Local", "-only series"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if bytes.Contains(md, []byte("| **no** |")) {
		t.Errorf("the embedded engine's units differ from DynamoDB Local's:\n%s", md)
	}
}

// TestIngest_SameSamples checks that both systems are fed the same
// readings and hold all of them after the ingest, in process.
func TestIngest_Systems(t *testing.T) {
	for _, sys := range []string{"timetable", "prometheus"} {
		cfg := ingestConfig{System: sys, Dir: t.TempDir(), IDs: 5, Readings: 150, Batch: 60, Workers: 2,
			Start: time.Now().UTC().Truncate(24 * time.Hour).Add(-7 * 24 * time.Hour).UnixMilli()}
		res, err := ingest(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", sys, err)
		}
		if res.Readings != 750 || res.DataReadings != 750 || res.Samples != 2250 || res.DataBytes <= 0 || res.Seconds <= 0 {
			t.Errorf("%s: %+v", sys, res)
		}
	}
}

func TestWalk_TwoDecimals(t *testing.T) {
	a, b := newWalk(3, 3), newWalk(3, 3)
	va, vb := make([]float64, 3), make([]float64, 3)
	for range 1000 {
		a.step(va)
		b.step(vb)
		for f := range va {
			if va[f] != vb[f] {
				t.Fatal("same seed, different readings")
			}
			if c := va[f] * 100; math.Abs(c-math.Round(c)) > 1e-6 {
				t.Fatalf("%v has more than two decimals", va[f])
			}
		}
	}
}

func TestItemSize(t *testing.T) {
	it := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "SENSOR#1"},      // 2 + 8
		"n":  &types.AttributeValueMemberN{Value: "123.45"},        // 1 + 4
		"b":  &types.AttributeValueMemberB{Value: []byte{1, 2, 3}}, // 1 + 3
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{ // 1 + 3 + 2 + 1 + 1 (zero is 1 byte on DynamoDB Local; docs/format/codec.md)
			&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberN{Value: "0"}}},
	}
	if got := local.ItemSize(it); got != 27 {
		t.Errorf("local.ItemSize = %d, want 27", got)
	}
}
