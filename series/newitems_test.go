package series

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// newItemsRecorder notes the partition key of each item BatchWriteItem
// puts, and whether the call was under timetable.WithNewItems.
type newItemsRecorder struct {
	timetable.API
	mu          sync.Mutex
	under, rest []string
}

func (r *newItemsRecorder) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	r.mu.Lock()
	for _, ws := range in.RequestItems {
		for _, w := range ws {
			if w.PutRequest == nil {
				continue
			}
			pk := w.PutRequest.Item[attrPK].(*types.AttributeValueMemberS).Value
			if timetable.NewItems(ctx) {
				r.under = append(r.under, pk)
			} else {
				r.rest = append(r.rest, pk)
			}
		}
	}
	r.mu.Unlock()
	return r.API.BatchWriteItem(ctx, in, opts...)
}

// TestApply_NewItems: a flush puts the items of the layouts whose keys
// hold sequence numbers (Chunks, ItemPerReading) under
// timetable.WithNewItems, and nothing else (markers, the directory and
// label index, DayPartitioned's day directory and readings).
func TestApply_NewItems(t *testing.T) {
	ctx := context.Background()
	for _, lay := range []Layout{Chunks, ItemPerReading, DayPartitioned} {
		t.Run(lay.String(), func(t *testing.T) {
			clk := newClock(t0.Add(3 * time.Hour))
			api := &newItemsRecorder{API: openEngine(t, clk)}
			st := openStore(t, api, testOptions(t, clk), Schema{Name: "DEV", Fields: []string{"v"}, Layout: lay})
			k := mustKind(t, st, "DEV")
			var rs []Reading
			for i := range 120 { // two hours
				rs = append(rs, Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{float64(i)}})
			}
			for _, id := range []string{"a", "b"} {
				if err := k.Write(ctx, id, rs...); err != nil {
					t.Fatal(err)
				}
				if err := st.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			raw := map[string]bool{k.rawPK("a", 0): true, k.rawPK("b", 0): true}
			api.mu.Lock()
			defer api.mu.Unlock()
			t.Logf("%d puts under WithNewItems, %d outside", len(api.under), len(api.rest))
			if len(api.rest) == 0 {
				t.Fatal("no put outside WithNewItems: the markers and the directory are missing")
			}
			if lay == DayPartitioned {
				if len(api.under) > 0 {
					t.Errorf("%d puts under WithNewItems, of %v", len(api.under), api.under[0])
				}
				return
			}
			if len(api.under) == 0 {
				t.Fatal("no put under WithNewItems")
			}
			for _, pk := range api.under {
				if !raw[pk] {
					t.Errorf("put of %s under WithNewItems", pk)
				}
			}
			for _, pk := range api.rest {
				if raw[pk] {
					t.Errorf("put of %s outside WithNewItems", pk)
				}
			}
		})
	}
}
