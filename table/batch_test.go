package table

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/conformance"
)

// flaky wraps an API: batch calls are throttled (nothing applied) with
// probability throttle, and otherwise apply at most perCall random
// requests and return the others as unprocessed. With stuckAfter > 0,
// every batch call from that one on processes nothing.
type flaky struct {
	timetable.API
	mu         sync.Mutex
	r          *rand.Rand
	throttle   float64
	perCall    int
	stuckAfter int
	calls      int
}

func newFlaky(api timetable.API, seed uint64, throttle float64, perCall int) *flaky {
	return &flaky{API: api, r: rand.New(rand.NewPCG(seed, 1)), throttle: throttle, perCall: perCall}
}

var errThrottled = &types.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded.")}

// split decides the fate of a call of n requests: throttled, or the
// indexes to process.
func (f *flaky) split(n int) (bool, []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.stuckAfter > 0 && f.calls >= f.stuckAfter {
		return false, nil
	}
	if f.r.Float64() < f.throttle {
		return true, nil
	}
	idx := f.r.Perm(n)
	k := min(n, 1+f.r.IntN(max(f.perCall, 1)))
	keep := idx[:k]
	slices.Sort(keep)
	return false, keep
}

func (f *flaky) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opt ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	var name string
	var reqs []types.WriteRequest
	for n, r := range in.RequestItems {
		name, reqs = n, r
	}
	throttled, keep := f.split(len(reqs))
	if throttled {
		return nil, errThrottled
	}
	var do, rest []types.WriteRequest
	for i, r := range reqs {
		if slices.Contains(keep, i) {
			do = append(do, r)
		} else {
			rest = append(rest, r)
		}
	}
	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	if len(do) > 0 {
		o, err := f.API.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{name: do}, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		if err != nil {
			return nil, err
		}
		out.ConsumedCapacity = o.ConsumedCapacity
	}
	if len(rest) > 0 {
		out.UnprocessedItems[name] = rest
	}
	return out, nil
}

func (f *flaky) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opt ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	var name string
	var ka types.KeysAndAttributes
	for n, k := range in.RequestItems {
		name, ka = n, k
	}
	throttled, keep := f.split(len(ka.Keys))
	if throttled {
		return nil, errThrottled
	}
	var do, rest []map[string]types.AttributeValue
	for i, k := range ka.Keys {
		if slices.Contains(keep, i) {
			do = append(do, k)
		} else {
			rest = append(rest, k)
		}
	}
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}, UnprocessedKeys: map[string]types.KeysAndAttributes{}}
	if len(do) > 0 {
		sub := ka
		sub.Keys = do
		o, err := f.API.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{name: sub}, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		if err != nil {
			return nil, err
		}
		out.Responses, out.ConsumedCapacity = o.Responses, o.ConsumedCapacity
	}
	if len(rest) > 0 {
		sub := ka
		sub.Keys = rest
		out.UnprocessedKeys[name] = sub
	}
	return out, nil
}

func TestBatchWrite_Order(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		var ws []WriteRequest
		for i := range 60 {
			ws = append(ws, PutRequest(Item{"P": S("A"), "S": S(fmt.Sprintf("r%03d", i%40)), "v": N(fmt.Sprint(i))}))
		}
		ws = append(ws, DeleteRequest(K("A", "r000")), DeleteRequest(K("A", "r039")))
		if err := tbl.BatchWrite(ctx, ws); err != nil {
			t.Fatal(err)
		}
		got := collect(t, tbl.QueryAll(ctx, &Query{Hash: "A", Consistent: true}))
		if len(got) != 38 {
			t.Fatalf("%d items, want 38", len(got))
		}
		for _, it := range got {
			var i int
			fmt.Sscanf(str(it, "S"), "r%d", &i)
			want := i
			if i < 20 {
				want = i + 40 // the later write wins
			}
			if num(it, "v") != float64(want) {
				t.Fatalf("%s has v %s, want %d", str(it, "S"), str(it, "v"), want)
			}
		}
		if err := tbl.BatchDelete(ctx, []Key{K("A", "r001"), K("A", "r002")}); err != nil {
			t.Fatal(err)
		}
		if n, _ := tbl.Count(ctx, &Query{Hash: "A", Consistent: true}); n != 36 {
			t.Fatalf("after BatchDelete: %d items", n)
		}
		// A request without its key is refused before anything is written.
		err := tbl.BatchPut(ctx, []Item{{"P": S("B"), "S": S("1")}, {"P": S("B")}})
		var be *BatchError
		if !errors.As(err, &be) || len(be.Writes) != 2 {
			t.Fatalf("BatchPut with a keyless item: %v", err)
		}
		if n, _ := tbl.Count(ctx, &Query{Hash: "B", Consistent: true}); n != 0 {
			t.Fatalf("%d items written by a refused batch", n)
		}
	})
}

// TestBatchWrite_Retry: unprocessed items and throttling are retried until
// every item lands.
func TestBatchWrite_Retry(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		f := newFlaky(b.api, 1, 0.3, 6)
		tbl := newTable(t, f, pkSk, nil)
		var items []Item
		for i := range 130 {
			items = append(items, Item{"P": S("A"), "S": S(fmt.Sprintf("r%03d", i)), "v": N(fmt.Sprint(i))})
		}
		if err := tbl.BatchPut(ctx, items); err != nil {
			t.Fatal(err)
		}
		got := collect(t, tbl.QueryAll(ctx, &Query{Hash: "A", Consistent: true}))
		if !slices.Equal(sks(got, "S"), rs(0, 130, 1)) {
			t.Fatalf("%d items landed", len(got))
		}
		st := tbl.Stats().Ops["BatchWriteItem"]
		if st.Retries == 0 || st.Errors == 0 || st.WriteUnits != 130 {
			t.Fatalf("stats %+v: want retries, throttling errors and 130 write units", st)
		}
	})
}

// checkGivenBack fails the test unless the items of hash "A" in tbl and
// the writes be gives back make the n puts of r000 on exactly once, some
// given back, in input order. It returns the number that landed.
func checkGivenBack(t *testing.T, tbl *Table, be *BatchError, n int) int {
	t.Helper()
	landed := sks(collect(t, tbl.QueryAll(ctxT(t), &Query{Hash: "A", Consistent: true})), "S")
	var back []string
	for _, w := range be.Writes {
		back = append(back, str(w.Put.(Item), "S"))
	}
	all := append(slices.Clone(landed), back...)
	slices.Sort(all)
	if !slices.Equal(all, rs(0, n, 1)) || len(back) == 0 {
		t.Fatalf("landed %d + given back %d do not make the %d writes exactly once:\nlanded %v\nback %v", len(landed), len(back), n, landed, back)
	}
	if !slices.IsSorted(back) {
		t.Fatalf("given back out of input order: %v", back)
	}
	return len(landed)
}

// TestBatchWrite_GivesBack: when retries run out, every write not applied
// comes back in the error, and exactly those.
func TestBatchWrite_GivesBack(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		f := newFlaky(b.api, 2, 0.2, 5)
		f.stuckAfter = 6
		tbl := newTable(t, f, pkSk, &Options{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, RetryTimeout: 200 * time.Millisecond})
		var ws []WriteRequest
		for i := range 80 {
			ws = append(ws, PutRequest(Item{"P": S("A"), "S": S(fmt.Sprintf("r%03d", i))}))
		}
		err := tbl.BatchWrite(ctx, ws)
		var be *BatchError
		if !errors.As(err, &be) || !errors.Is(err, ErrRetriesExhausted) {
			t.Fatalf("BatchWrite = %v, want a BatchError with ErrRetriesExhausted", err)
		}
		if landed := checkGivenBack(t, tbl, be, 80); landed == 0 {
			t.Fatal("nothing landed")
		}
		// Cancelling the context gives everything back too.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err = tbl.BatchWrite(cctx, ws[:3])
		if !errors.As(err, &be) || len(be.Writes) == 0 {
			t.Fatalf("cancelled BatchWrite = %v", err)
		}
	})
}

func TestBatchGet(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		f := newFlaky(b.api, 3, 0.25, 40)
		tbl := newTable(t, f, pkSk, nil)
		fill(t, tbl, "A", 150, nil)
		var ks []Key
		for i := range 260 {
			ks = append(ks, K("A", fmt.Sprintf("r%03d", (i*7)%200))) // repeats, and 50 absent
		}
		got, err := tbl.BatchGet(ctx, ks, &BatchGetOptions{Consistent: true, Projection: []string{"n"}})
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range got {
			j := (i * 7) % 200
			switch {
			case j >= 150 && it != nil:
				t.Fatalf("key %d (r%03d) absent but got %v", i, j, it)
			case j < 150 && (len(it) != 1 || num(it, "n") != float64(j)):
				t.Fatalf("key %d (r%03d): got %s", i, j, conformance.FormatItem(it))
			}
		}
		if st := tbl.Stats().Ops["BatchGetItem"]; st.Retries == 0 || st.ReadUnits == 0 {
			t.Fatalf("stats %+v", st)
		}

		// Stuck: what was not read comes back, with the results read.
		f.mu.Lock()
		f.calls, f.stuckAfter = 0, 3
		f.mu.Unlock()
		short, _ := New(f, tbl.Schema(), &Options{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, RetryTimeout: 100 * time.Millisecond})
		got, err = short.BatchGet(ctx, ks, nil)
		var be *BatchError
		if !errors.As(err, &be) || len(be.Keys) == 0 {
			t.Fatalf("stuck BatchGet = %v", err)
		}
		unread := map[string]bool{}
		for _, k := range be.Keys {
			unread[k.Range.(string)] = true
		}
		for i, k := range ks {
			r := k.Range.(string)
			var j int
			fmt.Sscanf(r, "r%d", &j)
			if got[i] != nil && unread[r] {
				t.Fatalf("%s both read and given back", r)
			}
			if got[i] == nil && j < 150 && !unread[r] {
				t.Fatalf("%s neither read nor given back", r)
			}
		}
	})
}

// failing wraps an API and makes PutItem fail with errs in turn, then
// pass.
type failing struct {
	timetable.API
	mu    sync.Mutex
	errs  []error
	calls int
}

func (f *failing) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opt ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	f.mu.Lock()
	f.calls++
	var err error
	if len(f.errs) > 0 {
		err, f.errs = f.errs[0], f.errs[1:]
	}
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return f.API.PutItem(ctx, in, opt...)
}

func TestRetry_ThrottlingAnd5xx(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		f := &failing{API: b.api}
		tbl := newTable(t, f, pkSk, nil)
		http500 := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 503}}, Err: errors.New("unavailable")}
		f.errs = []error{errThrottled, &types.InternalServerError{Message: aws.String("x")}, http500, &types.RequestLimitExceeded{}}
		if _, err := tbl.Put(ctx, Item{"P": S("a"), "S": S("b")}, nil); err != nil {
			t.Fatal(err)
		}
		if st := tbl.Stats().Ops["PutItem"]; st.Calls != 5 || st.Retries != 4 || st.Errors != 4 || st.WriteUnits != 1 {
			t.Fatalf("stats %+v", st)
		}
		// Not retried: a validation error, a failed condition.
		f.errs = []error{errors.New("ValidationException")}
		f.calls = 0
		if _, err := tbl.Put(ctx, Item{"P": S("a"), "S": S("b")}, nil); err == nil || f.calls != 1 {
			t.Fatalf("non-retryable error: %v after %d calls", err, f.calls)
		}
		// Retries stop at MaxAttempts.
		few, _ := New(f, tbl.Schema(), &Options{MaxAttempts: 3, BaseDelay: time.Millisecond})
		f.errs = []error{errThrottled, errThrottled, errThrottled, errThrottled}
		f.calls = 0
		if _, err := few.Put(ctx, Item{"P": S("a"), "S": S("b")}, nil); !IsThrottled(err) || f.calls != 3 {
			t.Fatalf("after MaxAttempts: %v after %d calls", err, f.calls)
		}
	})
}

// TestBatchWriteWith_Concurrency: with several calls at once, every write
// lands, Applied hears of each exactly once, and when retries run out
// every write not applied comes back, in input order.
func TestBatchWriteWith_Concurrency(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		tbl := newTable(t, newFlaky(b.api, 3, 0.3, 6), pkSk, nil)
		var ws []WriteRequest
		for i := range 130 {
			ws = append(ws, PutRequest(Item{"P": S("A"), "S": S(fmt.Sprintf("r%03d", i))}))
		}
		var applied atomic.Int64
		o := &BatchWriteOptions{Concurrency: 4, Applied: func(n int) {
			if n < 1 || n > MaxBatchWrite {
				t.Errorf("Applied(%d)", n)
			}
			applied.Add(int64(n))
		}}
		if err := tbl.BatchWriteWith(ctx, ws, o); err != nil {
			t.Fatal(err)
		}
		got := collect(t, tbl.QueryAll(ctx, &Query{Hash: "A", Consistent: true}))
		if !slices.Equal(sks(got, "S"), rs(0, 130, 1)) || applied.Load() != 130 {
			t.Fatalf("%d items landed, %d applied", len(got), applied.Load())
		}

		f := newFlaky(b.api, 4, 0.2, 5)
		f.stuckAfter = 6
		tbl = newTable(t, f, pkSk, &Options{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, RetryTimeout: 200 * time.Millisecond})
		err := tbl.BatchWriteWith(ctx, ws, &BatchWriteOptions{Concurrency: 4})
		var be *BatchError
		if !errors.As(err, &be) || !errors.Is(err, ErrRetriesExhausted) {
			t.Fatalf("BatchWriteWith = %v, want a BatchError with ErrRetriesExhausted", err)
		}
		checkGivenBack(t, tbl, be, 130)
	})
}
