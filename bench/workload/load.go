package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// LoadConfig describes a load run. Zero fields take the defaults shown.
type LoadConfig struct {
	Table        string        // table to create, load and delete; must not exist
	Workers      int           // concurrent callers; default 8
	Duration     time.Duration // measured time; default 20s
	Warmup       time.Duration // unmeasured time before it; default Duration/10, at most 2s
	MaxOps       int64         // upper bound on measured operations; default 10,000,000
	Partitions   int           // partition keys; default 64
	QueryItems   int           // items per partition, and so per Query; default 20
	PayloadBytes int           // size of the payload attribute; default 100

	// ServerCPU, if set, returns the CPU time the server has used so far;
	// Load reads it when the measured time starts and ends, and reports
	// the difference in LoadResult.ServerCPU.
	ServerCPU func() (time.Duration, error)
}

// WithDefaults returns c with its zero fields set to their defaults.
func (c LoadConfig) WithDefaults() LoadConfig {
	if c.Workers <= 0 {
		c.Workers = 8
	}
	if c.Duration <= 0 {
		c.Duration = 20 * time.Second
	}
	if c.Warmup <= 0 {
		c.Warmup = min(c.Duration/10, 2*time.Second)
	}
	if c.MaxOps <= 0 {
		c.MaxOps = 10_000_000
	}
	if c.Partitions <= 0 {
		c.Partitions = 64
	}
	if c.QueryItems <= 0 {
		c.QueryItems = 20
	}
	if c.PayloadBytes <= 0 {
		c.PayloadBytes = 100
	}
	return c
}

// The operations of the load mix, in equal shares.
const (
	OpPut = iota
	OpGet
	OpQuery
	numOps
)

// OpNames names the operations of the mix, indexed by OpPut, OpGet, OpQuery.
var OpNames = [numOps]string{"PutItem", "GetItem", "Query"}

// OpStats summarises one operation of a load run.
type OpStats struct {
	Count    int64
	P50, P99 time.Duration
}

// LoadResult is the outcome of a load run.
type LoadResult struct {
	Ops     int64         // operations completed without error in the measured time
	Errors  int64         // failed operations and wrong answers in the measured time
	Elapsed time.Duration // measured time
	PerOp   [numOps]OpStats
	// FirstError is the first error seen, measured or not, for the report.
	FirstError error
	// ServerCPU is the CPU time the server used in the measured time, when
	// LoadConfig.ServerCPU is set (else 0).
	ServerCPU time.Duration
	// ClientCPU is the CPU time this process (the load generator: its
	// client, its HTTP, its garbage collection) used in the measured time,
	// or 0 when it could not be read. It counts the whole process, so it is
	// the client's only when nothing else runs in it.
	ClientCPU time.Duration
}

// ClientCPUPerOp is the load generator's CPU time per measured operation,
// or 0.
func (r LoadResult) ClientCPUPerOp() time.Duration {
	if r.Ops == 0 {
		return 0
	}
	return r.ClientCPU / time.Duration(r.Ops)
}

// processCPU returns the user and system CPU time this process has used.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// ServerCPUPerOp is the server's CPU time per measured operation, or 0.
func (r LoadResult) ServerCPUPerOp() time.Duration {
	if r.Ops == 0 {
		return 0
	}
	return r.ServerCPU / time.Duration(r.Ops)
}

// OpsPerSec is the throughput of the measured phase.
func (r LoadResult) OpsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// Load creates cfg.Table, fills it with Partitions x QueryItems items, and
// runs Workers goroutines that each loop over PutItem (overwriting a random
// existing item, so the data set stays the same size), GetItem of a random
// item, and Query of a random partition (QueryItems items) for Warmup and
// then Duration, or until MaxOps operations were measured. Every answer is
// checked. The table is deleted at the end.
func Load(ctx context.Context, c Client, cfg LoadConfig) (LoadResult, error) {
	cfg = cfg.WithDefaults()
	if err := loadSetup(ctx, c, cfg); err != nil {
		return LoadResult{}, err
	}
	res := loadRun(ctx, c, cfg)
	if err := deleteTable(ctx, c, cfg.Table); err != nil {
		return res, err
	}
	return res, nil
}

func loadPK(p int) string { return fmt.Sprintf("P#%04d", p) }

// LoadTableInput is the creation of the table Load writes to, named
// table: on demand, a string partition key pk and a number sort key sk,
// no index. Other benchmarks that write such items use it too.
func LoadTableInput(table string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	}
}

func loadSetup(ctx context.Context, c Client, cfg LoadConfig) error {
	_, err := c.CreateTable(ctx, LoadTableInput(cfg.Table))
	if err != nil {
		return fmt.Errorf("cannot create table %s: %w", cfg.Table, err)
	}
	if err := waitActive(ctx, c, cfg.Table); err != nil {
		return err
	}
	payload := strings.Repeat("p", cfg.PayloadBytes)
	items := make([]map[string]types.AttributeValue, 0, cfg.Partitions*cfg.QueryItems)
	for p := range cfg.Partitions {
		for s := range cfg.QueryItems {
			items = append(items, map[string]types.AttributeValue{
				"pk": str(loadPK(p)), "sk": num(s), "n": num(0), "payload": str(payload),
			})
		}
	}
	return batchPut(ctx, c, cfg.Table, items)
}

func loadRun(ctx context.Context, c Client, cfg LoadConfig) LoadResult {
	var (
		measured atomic.Int64
		mu       sync.Mutex
		res      LoadResult
		lat      [numOps][]time.Duration
		wg       sync.WaitGroup
	)
	start := time.Now()
	measureAt := start.Add(cfg.Warmup)
	stopAt := measureAt.Add(cfg.Duration)
	payload := strings.Repeat("q", cfg.PayloadBytes)

	// Read the server's and this process's CPU time when the measured time
	// starts and ends.
	cpuDone := make(chan struct{})
	var cpu, clientCPU time.Duration
	var cpuErr error
	go func() {
		defer close(cpuDone)
		serverCPU := cfg.ServerCPU
		if serverCPU == nil {
			serverCPU = func() (time.Duration, error) { return 0, nil }
		}
		time.Sleep(time.Until(measureAt))
		c0, err0 := serverCPU()
		m0, merr0 := processCPU()
		time.Sleep(time.Until(stopAt))
		c1, err1 := serverCPU()
		m1, merr1 := processCPU()
		cpu, cpuErr = c1-c0, errors.Join(err0, err1)
		if merr0 == nil && merr1 == nil {
			clientCPU = m1 - m0
		}
	}()

	for w := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			var mine [numOps][]time.Duration
			var errs int64
			var firstErr error
			for n := w; ; n++ {
				t0 := time.Now()
				if t0.After(stopAt) || ctx.Err() != nil {
					break
				}
				m := !t0.Before(measureAt)
				if m && measured.Add(1) > cfg.MaxOps {
					break
				}
				op := n % numOps
				pk := loadPK(rng.IntN(cfg.Partitions))
				sk := rng.IntN(cfg.QueryItems)
				var err error
				switch op {
				case OpPut:
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
						TableName: aws.String(cfg.Table),
						Item: map[string]types.AttributeValue{
							"pk": str(pk), "sk": num(sk), "n": num(n), "payload": str(payload),
						},
					})
				case OpGet:
					var out *dynamodb.GetItemOutput
					out, err = c.GetItem(ctx, &dynamodb.GetItemInput{
						TableName: aws.String(cfg.Table),
						Key:       map[string]types.AttributeValue{"pk": str(pk), "sk": num(sk)},
					})
					if err == nil && out.Item == nil {
						err = fmt.Errorf("get item %s/%d: no item", pk, sk)
					}
				case OpQuery:
					var out *dynamodb.QueryOutput
					out, err = c.Query(ctx, &dynamodb.QueryInput{
						TableName:                 aws.String(cfg.Table),
						KeyConditionExpression:    aws.String("pk = :p"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":p": str(pk)},
						Limit:                     aws.Int32(int32(cfg.QueryItems)),
					})
					if err == nil && len(out.Items) != cfg.QueryItems {
						err = fmt.Errorf("query %s: %d items, want %d", pk, len(out.Items), cfg.QueryItems)
					}
				}
				d := time.Since(t0)
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					if m {
						errs++
					}
					continue
				}
				if m && t0.Add(d).Before(stopAt) {
					mine[op] = append(mine[op], d)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			res.Errors += errs
			if res.FirstError == nil {
				res.FirstError = firstErr
			}
			for op := range numOps {
				lat[op] = append(lat[op], mine[op]...)
			}
		}()
	}
	wg.Wait()
	if time.Now().Before(stopAt) {
		// MaxOps ended the run early: the CPU reading would span idle time.
		cfg.ServerCPU = nil
	} else {
		<-cpuDone
		res.ServerCPU, res.ClientCPU = cpu, clientCPU
		if cpuErr != nil && res.FirstError == nil {
			res.FirstError = cpuErr
		}
	}
	end := time.Now()
	if end.After(stopAt) {
		end = stopAt
	}
	res.Elapsed = end.Sub(measureAt)
	for op := range numOps {
		l := lat[op]
		slices.Sort(l)
		res.Ops += int64(len(l))
		res.PerOp[op] = OpStats{Count: int64(len(l)), P50: percentile(l, 0.50), P99: percentile(l, 0.99)}
	}
	return res
}

// percentile returns the q-quantile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
