package series

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// stingyAPI leaves every other key of each BatchGetItem call unprocessed,
// as DynamoDB does under load.
type stingyAPI struct {
	timetable.API
	calls    atomic.Int64
	deferred atomic.Int64
	never    bool // leave them unprocessed forever
}

func (s *stingyAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	s.calls.Add(1)
	keep := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	unproc := map[string]types.KeysAndAttributes{}
	for name, ka := range in.RequestItems {
		k, u := ka, ka
		k.Keys, u.Keys = nil, nil
		for i, key := range ka.Keys {
			if i%2 == 1 || s.never {
				u.Keys = append(u.Keys, key)
			} else {
				k.Keys = append(k.Keys, key)
			}
		}
		if len(k.Keys) > 0 {
			keep.RequestItems[name] = k
		}
		if len(u.Keys) > 0 {
			unproc[name] = u
			s.deferred.Add(int64(len(u.Keys)))
		}
	}
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
	if len(keep.RequestItems) > 0 {
		o, err := s.API.BatchGetItem(ctx, keep, opts...)
		if err != nil {
			return nil, err
		}
		out = o
	}
	out.UnprocessedKeys = unproc
	return out, nil
}

func TestLatestMany_Fleet(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api := &stingyAPI{API: b.OpenOn(t, clk)}
		st, k := openKind(t, api, testOptions(t, clk), Schema{Name: "DEVICE", Fields: []string{"battery"}, NoRollups: true})
		const n = 500
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("dev-%03d", i)
			// Two readings each, the newer first: Latest keeps the newer.
			if err := k.Write(ctx, ids[i],
				Reading{Time: t0.Add(time.Duration(i+10) * time.Second), Values: []float64{float64(i)}},
				Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{-1}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// A late reading does not replace a newer latest one.
		if err := k.WriteSync(ctx, ids[0], Reading{Time: t0, Values: []float64{-2}}); err != nil {
			t.Fatal(err)
		}
		got, err := k.LatestMany(ctx, append(ids, "dev-none"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d latest readings, want %d", len(got), n)
		}
		for i, id := range ids {
			r := got[id]
			if r.Values[0] != float64(i) || !r.Time.Equal(t0.Add(time.Duration(i+10)*time.Second)) {
				t.Fatalf("%s: latest %v", id, r)
			}
		}
		if api.deferred.Load() == 0 {
			t.Error("no key was left unprocessed: the test does not test retries")
		}
		t.Logf("%d BatchGetItem calls, %d keys deferred and retried", api.calls.Load(), api.deferred.Load())

		// Keys that stay unprocessed come back in an error, never dropped.
		api.never = true
		st2, err := Open(ctx, api, &Options{Table: st.Table().Name(), Now: clk.Now, FlushInterval: -1, RollupInterval: -1,
			TableOptions: &table.Options{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, RetryTimeout: 50 * time.Millisecond}},
			Schema{Name: "DEVICE", Fields: []string{"battery"}, NoRollups: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		_, err = mustKind(t, st2, "DEVICE").LatestMany(ctx, ids[:10])
		var be *table.BatchError
		if !errors.As(err, &be) || len(be.Keys) != 10 {
			t.Fatalf("LatestMany with keys never processed: %v", err)
		}
	})
}
