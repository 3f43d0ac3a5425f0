package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/timetable-db/timetable/bench/workload"
	"github.com/timetable-db/timetable/local"
)

// batchRing is how many distinct batches the batch benchmark cycles
// through (a longer run overwrites the same items again, on both sides).
const batchRing = 2048

// batchVsRaw measures BatchWriteItem of n items against raw Pebble batches
// of the very keys and values the engine stores for those items.
//
//   - Same bytes: the items are first written through a scratch engine
//     database, whose data key space (the table's items, nothing else: the
//     table has no index and no TTL) is read back as the raw side's keys
//     and values. They are written in a shuffled order, as the engine's
//     hashed partition keys scatter its writes.
//   - Same setting: each side has a fresh folder; raw Pebble is opened with
//     the engine's Pebble settings (bloom filters, 64 MB cache) and commits
//     with pebble.Sync, as the engine does by default. The requests are
//     built beforehand on both sides.
//   - Same moment: the measured loop alternates one engine batch and one
//     raw batch, so both see the same disturbances from the rest of the
//     machine (the latency of an fsync on a shared disk varies several-fold
//     within seconds, which made two benchmarks run one after the other
//     disagree by up to 4x).
func batchVsRaw(ctx context.Context, e *env, n int) (engine, raw inResult, err error) {
	dir, err := os.MkdirTemp(e.work, "batch-")
	if err != nil {
		return inResult{}, inResult{}, err
	}
	defer os.RemoveAll(dir)
	const table = "bench_batch"
	reqs := make([]*dynamodb.BatchWriteItemInput, batchRing)
	for i := range reqs {
		wr := make([]types.WriteRequest, n)
		for j := range wr {
			s := i*n + j
			wr[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: inItem(s%inPartitions, s, s)}}
		}
		reqs[i] = &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: wr}}
	}
	e.logf("in process: the engine's bytes for %d batches of %d", batchRing, n)
	pairs, err := engineBytes(ctx, filepath.Join(dir, "scratch"), table, reqs)
	if err != nil {
		return inResult{}, inResult{}, err
	}
	if len(pairs) != batchRing*n {
		return inResult{}, inResult{}, fmt.Errorf("scratch engine stored %d items, want %d", len(pairs), batchRing*n)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })

	db, err := openBenchTable(ctx, filepath.Join(dir, "engine"), table)
	if err != nil {
		return inResult{}, inResult{}, err
	}
	defer db.Close()
	pdb, err := openEngineLike(filepath.Join(dir, "raw"), false)
	if err != nil {
		return inResult{}, inResult{}, err
	}
	defer pdb.Close()

	rawBatch := func(i int) error {
		b := pdb.NewBatch()
		defer b.Close()
		for _, kv := range pairs[(i%batchRing)*n:][:n] {
			if err := b.Set(kv[0], kv[1], nil); err != nil {
				return err
			}
		}
		return b.Commit(pebble.Sync)
	}
	engineBatch := func(i int) error {
		_, err := db.BatchWriteItem(ctx, reqs[i%batchRing])
		return err
	}

	e.logf("in process: BatchWriteItem of %d and raw Pebble batches of the same bytes, alternating", n)
	var tEngine, tRaw time.Duration
	var ops int
	var ferr error
	testing.Benchmark(func(b *testing.B) {
		tEngine, tRaw, ops = 0, 0, 0
		for b.Loop() {
			t0 := time.Now()
			if err := engineBatch(ops); err != nil && ferr == nil {
				ferr = err
			}
			t1 := time.Now()
			if err := rawBatch(ops); err != nil && ferr == nil {
				ferr = err
			}
			tEngine += t1.Sub(t0)
			tRaw += time.Since(t1)
			ops++
		}
	})
	if ferr != nil {
		return inResult{}, inResult{}, ferr
	}
	// Allocations, measured apart (a few more batches of each side).
	ea, eb := allocsPerRun(engineBatch, ops)
	ra, rb := allocsPerRun(rawBatch, ops)
	engine = inResult{name: fmt.Sprintf("BatchWriteItem of %d", n), perOp: n, allocs: ea, bytes: eb}
	raw = inResult{name: fmt.Sprintf("raw Pebble, batch of %d (same bytes)", n), perOp: n, allocs: ra, bytes: rb}
	engine.nsPerOp = float64(tEngine.Nanoseconds()) / float64(ops)
	raw.nsPerOp = float64(tRaw.Nanoseconds()) / float64(ops)
	engine.opsPerSec, raw.opsPerSec = 1e9/engine.nsPerOp, 1e9/raw.nsPerOp
	return engine, raw, nil
}

// allocsPerRun returns the heap allocations and bytes of one call of f,
// averaged over 50 calls numbered from first.
func allocsPerRun(f func(int) error, first int) (allocs, bytes int64) {
	const runs = 50
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := range runs {
		_ = f(first + i)
	}
	runtime.ReadMemStats(&m1)
	return int64(m1.Mallocs-m0.Mallocs) / runs, int64(m1.TotalAlloc-m0.TotalAlloc) / runs
}

// openBenchTable opens a fresh engine database in dir (synced writes, the
// default) with the in-process benchmarks' table.
func openBenchTable(ctx context.Context, dir, table string) (*local.DB, error) {
	db, err := local.Open(dir, nil)
	if err != nil {
		return nil, err
	}
	_, err = db.CreateTable(ctx, workload.LoadTableInput(table))
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// engineBytes writes reqs through a fresh engine database in dir, closes
// it, and returns the keys and values of its data key space (0x02, see
// docs/format/engine.md) in key order.
func engineBytes(ctx context.Context, dir, table string, reqs []*dynamodb.BatchWriteItemInput) ([][2][]byte, error) {
	db, err := openBenchTable(ctx, dir, table)
	if err != nil {
		return nil, err
	}
	for _, r := range reqs {
		if _, err := db.BatchWriteItem(ctx, r); err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	pdb, err := openEngineLike(dir, true)
	if err != nil {
		return nil, err
	}
	defer pdb.Close()
	it, err := pdb.NewIter(&pebble.IterOptions{LowerBound: []byte{0x02}, UpperBound: []byte{0x03}})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var pairs [][2][]byte
	for ok := it.First(); ok; ok = it.Next() {
		pairs = append(pairs, [2][]byte{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
	}
	return pairs, it.Error()
}

// openEngineLike opens a Pebble database in dir with the options the
// embedded engine opens its own with (local/db.go: a 64 MB block cache,
// bloom filters of 10 bits per key on every level), without its logger.
func openEngineLike(dir string, readOnly bool) (*pebble.DB, error) {
	cache := pebble.NewCache(64 << 20)
	defer cache.Unref()
	opts := &pebble.Options{Logger: quietLogger{}, Cache: cache, ReadOnly: readOnly}
	opts.EnsureDefaults()
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		opts.Levels[i].FilterType = pebble.TableFilter
	}
	return pebble.Open(dir, opts)
}
