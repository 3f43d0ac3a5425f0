package local

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable"
)

// The benchmarks run on disk (b.TempDir) in both sync modes. Items look
// like time-series readings: pk SENSOR#n, sk an ISO timestamp, a value and
// two small attributes.

var benchModes = []struct {
	name   string
	noSync bool
}{{"sync", false}, {"nosync", true}}

func benchDB(b *testing.B, noSync bool) *DB {
	b.Helper()
	return benchDBWith(b, Options{NoSync: noSync})
}

// Engine options for all the benchmarks' databases, to compare settings:
// go test -bench . -args -memtable 16777216 -l0 12 -l0files 48.
var (
	benchMemTable = flag.Int64("memtable", 0, "Options.MemTableSize of the benchmarks' databases")
	benchL0       = flag.Int("l0", 0, "Options.L0CompactionThreshold of the benchmarks' databases")
	benchL0Files  = flag.Int("l0files", 0, "Options.L0CompactionFileThreshold of the benchmarks' databases")
)

// benchDBWith opens a database on disk with opts (without the TTL sweeper,
// with the engine options of the flags) and creates the table "bench" in
// it.
func benchDBWith(b *testing.B, opts Options) *DB {
	b.Helper()
	opts.TTLInterval = -1
	opts.MemTableSize, opts.L0CompactionThreshold, opts.L0CompactionFileThreshold = *benchMemTable, *benchL0, *benchL0Files
	db, err := Open(b.TempDir(), &opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err = db.CreateTable(context.Background(), pkSKTable("bench")); err != nil {
		b.Fatal(err)
	}
	return db
}

// pkSKTable is the creation of an on-demand table named name with keys
// pk and sk, strings.
func pkSKTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	}
}

var benchT0 = time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)

func benchItem(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":    &types.AttributeValueMemberS{Value: fmt.Sprintf("SENSOR#%d", i%100)},
		"sk":    &types.AttributeValueMemberS{Value: benchT0.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")},
		"value": &types.AttributeValueMemberN{Value: fmt.Sprintf("%d.25", i%1000)},
		"unit":  &types.AttributeValueMemberS{Value: "celsius"},
		"ok":    &types.AttributeValueMemberBOOL{Value: true},
	}
}

func BenchmarkPutItem(b *testing.B) {
	for _, mode := range benchModes {
		b.Run(mode.name, func(b *testing.B) { benchPutItem(b, benchDB(b, mode.noSync)) })
	}
}

// BenchmarkPutItem_InMemory is BenchmarkPutItem on a database in memory
// (timetable serve --in-memory), where nothing is durable: what a write
// costs there is the engine's work and Pebble's memtable.
func BenchmarkPutItem_InMemory(b *testing.B) {
	benchPutItem(b, benchDBWith(b, Options{InMemory: true}))
}

// benchPutItem puts benchItems into db, overwriting them in a ring.
func benchPutItem(b *testing.B, db *DB) {
	ctx := context.Background()
	const ring = 25 * 4096
	reqs := make([]*dynamodb.PutItemInput, ring)
	for i := range reqs {
		reqs[i] = &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: benchItem(i)}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := db.PutItem(ctx, reqs[i%ring]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func batchOf25(i int) map[string][]types.WriteRequest {
	reqs := make([]types.WriteRequest, 25)
	for j := range reqs {
		reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: benchItem(i*25 + j)}}
	}
	return map[string][]types.WriteRequest{"bench": reqs}
}

// BenchmarkBatchWriteItem writes 25 items per operation; items/s is the
// figure to compare with BenchmarkRawPebble/batch.
func BenchmarkBatchWriteItem(b *testing.B) {
	for _, mode := range benchModes {
		b.Run(mode.name, func(b *testing.B) {
			db := benchDB(b, mode.noSync)
			ctx := context.Background()
			// Requests are built beforehand, as BenchmarkRawPebble's bytes are.
			const ring = 4096
			reqs := make([]*dynamodb.BatchWriteItemInput, ring)
			for i := range reqs {
				reqs[i] = &dynamodb.BatchWriteItemInput{RequestItems: batchOf25(i)}
			}
			b.ReportAllocs()
			i := 0
			start, cpu0 := time.Now(), cpuTime()
			for b.Loop() {
				if _, err := db.BatchWriteItem(ctx, reqs[i%ring]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportItems(b, i*25, start, cpu0)
		})
	}
}

// BenchmarkRawPebble writes the keys and values the engine writes for the
// same items straight to Pebble with the same sync mode: the physical limit.
// Each sub-benchmark has its own fresh database, opened with the engine's
// Pebble options, as BenchmarkPutItem and BenchmarkBatchWriteItem have.
func BenchmarkRawPebble(b *testing.B) {
	for _, mode := range benchModes {
		b.Run(mode.name, func(b *testing.B) {
			const n = 25 * 4096
			keys, vals := make([][]byte, n), make([][]byte, n)
			fresh := func(b *testing.B) *DB {
				db := benchDB(b, mode.noSync)
				if keys[0] != nil {
					return db
				}
				m := db.tables["bench"].m()
				for i := range n {
					item := benchItem(i)
					k, err := m.keyFromItem(item)
					if err != nil {
						b.Fatal(err)
					}
					keys[i] = k.key
					if vals[i], err = encodeItem(nil, item); err != nil {
						b.Fatal(err)
					}
				}
				return db
			}
			b.Run("single", func(b *testing.B) {
				db := fresh(b)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := db.pdb.Set(keys[i%n], vals[i%n], db.wo); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
			b.Run("batch", func(b *testing.B) {
				db := fresh(b)
				b.ReportAllocs()
				i := 0
				start, cpu0 := time.Now(), cpuTime()
				for b.Loop() {
					batch := db.pdb.NewBatch()
					for j := range 25 {
						k := (i*25 + j) % n
						if err := batch.Set(keys[k], vals[k], nil); err != nil {
							b.Fatal(err)
						}
					}
					if err := batch.Commit(db.wo); err != nil {
						b.Fatal(err)
					}
					batch.Close()
					i++
				}
				reportItems(b, i*25, start, cpu0)
			})
		})
	}
}

// cpuTime returns the CPU time (user and system) the process has used, in
// all its threads: with Pebble's flushes and compactions and the garbage
// collector, it is the work a benchmark costs, which a machine shared with
// other work measures better than elapsed time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportItems reports items/s and the process's CPU time per item since
// start and cpu0.
func reportItems(b *testing.B, items int, start time.Time, cpu0 time.Duration) {
	b.ReportMetric(float64(items)/time.Since(start).Seconds(), "items/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(items)/1e3, "cpu-µs/item")
}

func BenchmarkGetItem(b *testing.B) {
	db := benchDB(b, true)
	ctx := context.Background()
	for i := range 100 {
		if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: batchOf25(i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		it := benchItem(i % 2500)
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("bench"),
			Key: map[string]types.AttributeValue{"pk": it["pk"], "sk": it["sk"]}})
		if err != nil || out.Item == nil {
			b.Fatal(err, out)
		}
		i++
	}
}

// BenchmarkQuery reads 100 items of one partition per operation.
func BenchmarkQuery(b *testing.B) {
	db := benchDB(b, true)
	ctx := context.Background()
	for i := range 400 {
		if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: batchOf25(i)}); err != nil {
			b.Fatal(err)
		}
	}
	in := &dynamodb.QueryInput{TableName: aws.String("bench"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "SENSOR#7"}}}
	b.ReportAllocs()
	for b.Loop() {
		out, err := db.Query(ctx, in)
		if err != nil || out.Count != 100 {
			b.Fatal(err, out.Count)
		}
	}
}

var _ = pebble.Sync

// BenchmarkBatchWriteVsRaw alternates, in one loop, a BatchWriteItem of 25
// items on one database and a raw Pebble batch of the same keys and values
// on another, both fresh, with the same options and sync mode. On a machine
// shared with other work, alternating exposes both to the same
// disturbances, so the ratio (engine/raw items per second) is steadier
// than that of two separate benchmarks.
func BenchmarkBatchWriteVsRaw(b *testing.B) {
	for _, mode := range benchModes {
		b.Run(mode.name, func(b *testing.B) {
			db, raw := benchDB(b, mode.noSync), benchDB(b, mode.noSync)
			ctx := context.Background()
			const ring = 4096
			reqs := make([]*dynamodb.BatchWriteItemInput, ring)
			keys, vals := make([][]byte, ring*25), make([][]byte, ring*25)
			m := raw.tables["bench"].m()
			for i := range reqs {
				reqs[i] = &dynamodb.BatchWriteItemInput{RequestItems: batchOf25(i)}
				for j, wr := range reqs[i].RequestItems["bench"] {
					k, err := m.keyFromItem(wr.PutRequest.Item)
					if err != nil {
						b.Fatal(err)
					}
					keys[i*25+j] = k.key
					if vals[i*25+j], err = encodeItem(nil, wr.PutRequest.Item); err != nil {
						b.Fatal(err)
					}
				}
			}
			var engine, pebbleTime time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				if _, err := db.BatchWriteItem(ctx, reqs[i%ring]); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				batch := raw.pdb.NewBatch()
				for j := range 25 {
					k := (i%ring)*25 + j
					if err := batch.Set(keys[k], vals[k], nil); err != nil {
						b.Fatal(err)
					}
				}
				if err := batch.Commit(raw.wo); err != nil {
					b.Fatal(err)
				}
				batch.Close()
				engine += t1.Sub(t0)
				pebbleTime += time.Since(t1)
				i++
			}
			b.ReportMetric(float64(i*25)/engine.Seconds(), "engine-items/s")
			b.ReportMetric(float64(i*25)/pebbleTime.Seconds(), "raw-items/s")
			b.ReportMetric(pebbleTime.Seconds()/engine.Seconds(), "ratio")
		})
	}
}

// The TTL benchmarks model the series store's flushes: batches of 25 chunk
// items, keyed by a hash of the series and a time, into a table with a TTL
// attribute, so every write reads the item it replaces. The table first
// holds ttlBenchSeries*ttlBenchChunks items, spread over the key space
// and over several levels of the LSM.
const (
	ttlBenchSeries = 1000
	ttlBenchChunks = 300
)

// ttlBenchItem returns chunk c of series s.
func ttlBenchItem(s, c int) map[string]types.AttributeValue {
	h := uint64(s+1) * 0x9e3779b97f4a7c15
	data := make([]byte, 160)
	x := h ^ uint64(c)*0xbf58476d1ce4e5b9
	for i := range data {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		data[i] = byte(x)
	}
	t := benchT0.Add(time.Duration(c) * time.Hour)
	return map[string]types.AttributeValue{
		"pk":  &types.AttributeValueMemberS{Value: fmt.Sprintf("S#%016x", h)},
		"sk":  &types.AttributeValueMemberS{Value: "c#" + t.Format("2006-01-02T15:04:05.000Z")},
		"d":   &types.AttributeValueMemberB{Value: data},
		"ttl": &types.AttributeValueMemberN{Value: fmt.Sprint(t.Add(30 * 24 * time.Hour).Unix())},
	}
}

// ttlBatch returns batch i of a flush round of chunk c: series i*25 to
// i*25+24.
func ttlBatch(i, c int) *dynamodb.BatchWriteItemInput {
	reqs := make([]types.WriteRequest, 25)
	for j := range reqs {
		reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: ttlBenchItem((i*25+j)%ttlBenchSeries, c)}}
	}
	return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"bench": reqs}}
}

// ttlBenchDB opens a database with opts (NoSync, no sweeper) whose table
// "bench" has a TTL attribute and holds the benchmark's items.
func ttlBenchDB(b *testing.B, opts Options) *DB {
	b.Helper()
	opts.NoSync = true
	db := benchDBWith(b, opts)
	ctx := context.Background()
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("bench"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}}); err != nil {
		b.Fatal(err)
	}
	for c := range ttlBenchChunks {
		for i := range ttlBenchSeries / 25 {
			if _, err := db.BatchWriteItem(ctx, ttlBatch(i, c)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.pdb.Flush(); err != nil {
		b.Fatal(err)
	}
	return db
}

// reportLSM reports the number of L0 sublevels and of tables in all. Call
// it after b.Loop, which forgets the metrics reported before.
func reportLSM(b *testing.B, db *DB) {
	m := db.pdb.Metrics()
	tables := int64(0)
	for _, l := range m.Levels {
		tables += l.TablesCount
	}
	b.ReportMetric(float64(m.Levels[0].Sublevels), "L0-sublevels")
	b.ReportMetric(float64(tables), "tables")
}

// BenchmarkBatchWriteTTL writes batches of 25 brand-new chunk items (as a
// flush does: one chunk of each series in turn), also under
// timetable.WithNewItems (as the series store puts them: no read of the
// old items), or of 25 existing ones (overwritten in a scattered order)
// into the table of ttlBenchDB.
func BenchmarkBatchWriteTTL(b *testing.B) {
	for _, c := range []struct {
		name               string
		existing, newItems bool
	}{{"new", false, false}, {"new-WithNewItems", false, true}, {"existing", true, false}} {
		existing := c.existing
		b.Run(c.name, func(b *testing.B) {
			db := ttlBenchDB(b, Options{})
			ctx := context.Background()
			if c.newItems {
				ctx = timetable.WithNewItems(ctx)
			}
			const rounds = ttlBenchSeries / 25
			// A round's requests are built outside the timer when needed.
			reqs := make([]*dynamodb.BatchWriteItemInput, rounds)
			b.ReportAllocs()
			i := 0
			start, cpu0 := time.Now(), cpuTime()
			for b.Loop() {
				if i%rounds == 0 {
					b.StopTimer()
					for j := range reqs {
						c := ttlBenchChunks + i/rounds
						if existing {
							c = ((i + j) * 7919) % ttlBenchChunks
						}
						reqs[j] = ttlBatch(j, c)
					}
					b.StartTimer()
				}
				if _, err := db.BatchWriteItem(ctx, reqs[i%rounds]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportItems(b, i*25, start, cpu0)
			reportLSM(b, db)
		})
	}
}

// BenchmarkReadOld reads the old items of batches of 25 writes from the
// table of ttlBenchDB in key order, alternately with one DB.Get each and
// through one itemReader (as commitMany does), so that both see the same
// LSM while compactions run (the first read of a batch in turns); it reports the microseconds per batch of each
// and their ratio. The keys are new, existing (written once, in the
// tables), or overwritten (1,280 items, each written 40 times, the newest
// versions in the memtable).
func BenchmarkReadOld(b *testing.B) {
	const rounds = ttlBenchSeries / 25
	for _, keys := range []string{"new", "existing", "overwritten"} {
		b.Run(keys, func(b *testing.B) {
			db := ttlBenchDB(b, Options{})
			m := db.tables["bench"].m()
			if keys == "overwritten" {
				for r := range 40 {
					for i := range 1280 / 25 {
						if _, err := db.BatchWriteItem(context.Background(), ttlBatch(i, ttlBenchChunks)); err != nil {
							b.Fatal(err)
						}
					}
					if r%8 == 7 {
						if err := db.pdb.Flush(); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			batches := make([][][]byte, 64*rounds)
			for i := range batches {
				var in *dynamodb.BatchWriteItemInput
				switch keys {
				case "new":
					in = ttlBatch(i%rounds, ttlBenchChunks+i/rounds)
				case "existing":
					in = ttlBatch(i%rounds, (i*7919)%ttlBenchChunks)
				default:
					in = ttlBatch(i%(1280/25), ttlBenchChunks)
				}
				for _, wr := range in.RequestItems["bench"] {
					k, err := m.keyFromItem(wr.PutRequest.Item)
					if err != nil {
						b.Fatal(err)
					}
					batches[i] = append(batches[i], k.key)
				}
				slices.SortFunc(batches[i], bytes.Compare)
			}
			readGet := func(keys [][]byte) time.Duration {
				t0 := time.Now()
				for _, k := range keys {
					if _, err := db.getRaw(k); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(t0)
			}
			readReader := func(keys [][]byte) time.Duration {
				t0 := time.Now()
				r := itemReader{db: db}
				for _, k := range keys {
					if _, err := r.get(k); err != nil {
						b.Fatal(err)
					}
				}
				if err := r.close(); err != nil {
					b.Fatal(err)
				}
				return time.Since(t0)
			}
			// Each batch is read both ways, the first read in turns, since
			// the second finds the first's blocks in the cache.
			var get, reader time.Duration
			i := 0
			for b.Loop() {
				keys := batches[i%len(batches)]
				if i%2 == 0 {
					get += readGet(keys)
					reader += readReader(keys)
				} else {
					reader += readReader(keys)
					get += readGet(keys)
				}
				i++
			}
			b.ReportMetric(float64(get.Microseconds())/float64(i), "get-µs/batch")
			b.ReportMetric(float64(reader.Microseconds())/float64(i), "reader-µs/batch")
			b.ReportMetric(reader.Seconds()/get.Seconds(), "ratio")
			reportLSM(b, db)
		})
	}
}

// BenchmarkOverwriteMix runs the mix of the wire load benchmark in process,
// on one goroutine: PutItem (overwrites one of 1,280 items, a 100-byte
// payload), GetItem, and Query (one partition, 20 items) in turns, on
// random keys. The items accumulate versions in the memtable, which reads
// skip, so the figures depend on how many operations ran: compare runs of
// the same -benchtime (the wire benchmark puts about 70,000 times, 210000x).
// It reports the mean microseconds of each operation.
func BenchmarkOverwriteMix(b *testing.B) {
	const partitions, perPartition = 64, 20
	db := benchDB(b, true)
	ctx := context.Background()
	pk := func(p int) types.AttributeValue {
		return &types.AttributeValueMemberS{Value: fmt.Sprintf("load#%03d", p)}
	}
	sk := func(s int) types.AttributeValue { return &types.AttributeValueMemberS{Value: fmt.Sprintf("%02d", s)} }
	payload := &types.AttributeValueMemberS{Value: strings.Repeat("q", 100)}
	for p := range partitions {
		for s := range perPartition {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]types.AttributeValue{
				"pk": pk(p), "sk": sk(s), "n": &types.AttributeValueMemberN{Value: "0"}, "payload": payload}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var spent [3]time.Duration
	var count [3]int
	i := 0
	for b.Loop() {
		p, s := rng.IntN(partitions), rng.IntN(perPartition)
		t0 := time.Now()
		var err error
		switch i % 3 {
		case 0:
			_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]types.AttributeValue{
				"pk": pk(p), "sk": sk(s), "n": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}, "payload": payload}})
		case 1:
			var out *dynamodb.GetItemOutput
			out, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("bench"),
				Key: map[string]types.AttributeValue{"pk": pk(p), "sk": sk(s)}})
			if err == nil && out.Item == nil {
				err = fmt.Errorf("no item %d/%d", p, s)
			}
		case 2:
			var out *dynamodb.QueryOutput
			out, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("bench"), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": pk(p)}, Limit: aws.Int32(perPartition)})
			if err == nil && out.Count != perPartition {
				err = fmt.Errorf("query %d: %d items", p, out.Count)
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		spent[i%3] += time.Since(t0)
		count[i%3]++
		i++
	}
	for j, name := range []string{"put-µs", "get-µs", "query-µs"} {
		if count[j] > 0 {
			b.ReportMetric(float64(spent[j].Microseconds())/float64(count[j]), name)
		}
	}
	reportLSM(b, db)
}

// BenchmarkQuery_Overwritten queries 20 items of a partition in memory
// after every item of 64 partitions was overwritten 50 times, the steady
// state of the wire benchmark's load: Pebble keeps each overwritten version
// in its memtable until a flush, and a Query steps over them.
func BenchmarkQuery_Overwritten(b *testing.B) {
	db := benchDBWith(b, Options{InMemory: true})
	ctx := context.Background()
	payload := &types.AttributeValueMemberS{Value: strings.Repeat("x", 100)}
	for v := range 50 {
		for p := range 64 {
			for s := range 20 {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("P#%04d", p)},
					"sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("S#%04d", s)},
					"v":  &types.AttributeValueMemberN{Value: strconv.Itoa(v)}, "payload": payload}})
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	in := &dynamodb.QueryInput{TableName: aws.String("bench"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P#0007"}}}
	b.ReportAllocs()
	for b.Loop() {
		out, err := db.Query(ctx, in)
		if err != nil || out.Count != 20 {
			b.Fatal(err, out.Count)
		}
	}
}

// BenchmarkDescribeTable describes a table of 100,000 items: ItemCount and
// TableSizeBytes are exact, so each call reads every item.
func BenchmarkDescribeTable(b *testing.B) {
	db := benchDBWith(b, Options{InMemory: true})
	ctx := context.Background()
	for i := range 4000 {
		if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: batchOf25(i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("bench")})
		if err != nil || aws.ToInt64(out.Table.ItemCount) != 100000 {
			b.Fatal(err, out)
		}
	}
}
