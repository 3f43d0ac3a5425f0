package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The item shape of the in-process benchmarks: partition "P#0001", numeric
// sort key, a number and a payload of inPayload bytes.
const (
	inPayload    = 100
	inPartitions = 100
	inQueryItems = 100
	inBatch      = 25
)

func inItem(p, s, n int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: fmt.Sprintf("P#%04d", p)},
		"sk":      &types.AttributeValueMemberN{Value: fmt.Sprint(s)},
		"n":       &types.AttributeValueMemberN{Value: fmt.Sprint(n)},
		"payload": &types.AttributeValueMemberS{Value: strings.Repeat("x", inPayload)},
	}
}

type inResult struct {
	name      string
	perOp     int     // items per operation
	opsPerSec float64 // operations per second
	nsPerOp   float64
	allocs    int64
	bytes     int64
}

func (r inResult) itemsPerSec() float64 { return r.opsPerSec * float64(r.perOp) }

func benchResult(name string, perOp int, br testing.BenchmarkResult) inResult {
	ns := float64(br.T.Nanoseconds()) / float64(br.N)
	return inResult{name: name, perOp: perOp, opsPerSec: 1e9 / ns, nsPerOp: ns,
		allocs: br.AllocsPerOp(), bytes: br.AllocedBytesPerOp()}
}

// runInProcess benchmarks the embedded engine on disk with its default,
// synced writes, and raw Pebble with the same number of bytes per item.
func runInProcess(ctx context.Context, e *env) ([]Figure, section, error) {
	testing.Init()
	if err := flag.Set("test.benchtime", e.cfg.benchtime.String()); err != nil {
		return nil, section{}, err
	}
	dir, err := os.MkdirTemp(e.work, "inprocess-")
	if err != nil {
		return nil, section{}, err
	}
	defer os.RemoveAll(dir)
	const table = "bench_inprocess"
	db, err := openBenchTable(ctx, dir, table)
	if err != nil {
		return nil, section{}, err
	}
	defer db.Close()
	// Fill the partitions that GetItem and Query read.
	for p := range inPartitions {
		for s := 0; s < inQueryItems; s += inBatch {
			reqs := make([]types.WriteRequest, inBatch)
			for i := range reqs {
				reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: inItem(p, s+i, 0)}}
			}
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			if err != nil {
				return nil, section{}, err
			}
			if len(out.UnprocessedItems) > 0 {
				return nil, section{}, fmt.Errorf("unprocessed items while filling")
			}
		}
	}

	var failed atomic.Value
	fail := func(err error) {
		if err != nil {
			failed.CompareAndSwap(nil, err)
		}
	}
	var results []inResult
	bench := func(name string, perOp int, f func(b *testing.B)) {
		e.logf("in process: %s", name)
		results = append(results, benchResult(name, perOp, testing.Benchmark(f)))
	}
	var seq atomic.Int64 // fresh sort keys for writes, above the filled ones

	bench("PutItem", 1, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := int(seq.Add(1))
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: inItem(inPartitions+n%inPartitions, n, n)})
			fail(err)
		}
	})
	bench("PutItem, 8 goroutines", 1, func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(max(1, 8/runtimeProcs()))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := int(seq.Add(1))
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: inItem(inPartitions+n%inPartitions, n, n)})
				fail(err)
			}
		})
	})
	bench("GetItem", 1, func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("P#%04d", i%inPartitions)},
				"sk": &types.AttributeValueMemberN{Value: fmt.Sprint(i % inQueryItems)},
			}})
			fail(err)
			if err == nil && out.Item == nil {
				fail(fmt.Errorf("get item: no item"))
			}
		}
	})
	bench(fmt.Sprintf("Query of %d items", inQueryItems), inQueryItems, func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			out, err := db.Query(ctx, &dynamodb.QueryInput{
				TableName:              aws.String(table),
				KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":p": &types.AttributeValueMemberS{Value: fmt.Sprintf("P#%04d", i%inPartitions)},
				},
			})
			fail(err)
			if err == nil && len(out.Items) != inQueryItems {
				fail(fmt.Errorf("query: %d items, want %d", len(out.Items), inQueryItems))
			}
		}
	})
	if err, _ := failed.Load().(error); err != nil {
		return nil, section{}, err
	}

	batch, raw, err := batchVsRaw(ctx, e, inBatch)
	if err != nil {
		return nil, section{}, err
	}
	results = append(results[:2], append([]inResult{batch}, results[2:]...)...)
	results = append(results, raw)
	figs := []Figure{{
		Name:     fmt.Sprintf("in process, BatchWriteItem of %d (synced) vs raw Pebble batches of the same bytes", inBatch),
		Ours:     round(batch.itemsPerSec(), 0),
		Peer:     ptr(round(raw.itemsPerSec(), 0)),
		Unit:     "items/s",
		Ratio:    ptr(round(batch.itemsPerSec()/raw.itemsPerSec(), 2)),
		peerName: "raw Pebble",
		target:   ">= 0.5",
	}}
	for _, r := range results[:len(results)-1] {
		if r.perOp == inBatch {
			continue
		}
		figs = append(figs, Figure{
			Name: "in process, " + r.name,
			Ours: round(r.opsPerSec, 0),
			Unit: "ops/s",
		})
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "The embedded engine (`local.Open(dir, nil)`: on disk, every write acknowledged after the WAL is synced, concurrent writers share syncs), called directly. Items: a string partition key, a numeric sort key, a number and a %d-byte payload. GetItem and Query read %d partitions of %d items. BatchWriteItem and raw Pebble: batches of %d items; raw Pebble writes the very keys and values the engine stores for the same items (read back from a scratch engine database), with the engine's Pebble settings and `pebble.Sync`; each side has a fresh folder, its requests built beforehand, and the measured loop alternates one engine batch and one raw batch, so that both meet the same disturbances from the rest of the machine.\n\n",
		inPayload, inPartitions, inQueryItems, inBatch)
	sb.WriteString("| operation | ops/s | items/s | time/op | allocs/op | bytes/op |\n|---|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Fprintf(&sb, "| %s | %.0f | %.0f | %s | %d | %d |\n", r.name, r.opsPerSec, r.itemsPerSec(), fmtNs(r.nsPerOp), r.allocs, r.bytes)
	}
	return figs, section{title: "In process", body: sb.String()}, nil
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.0f ns", ns)
	}
}

// quietLogger drops Pebble's informational messages.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}
