package local

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"
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
	db, err := Open(b.TempDir(), &Options{NoSync: noSync, TTLInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	_, err = db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String("bench"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
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
		b.Run(mode.name, func(b *testing.B) {
			db := benchDB(b, mode.noSync)
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
		})
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
