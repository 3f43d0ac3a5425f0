package local

import (
	"bytes"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// maxBatchWrite is the most puts and deletes a BatchWriteItem call may
// hold: DynamoDB's rule, which the engine enforces on its side. Clients
// cut their writes into calls with table.MaxBatchWrite; the engine keeps
// its own constant, as it imports nothing above the root package.
const maxBatchWrite = 25

// BatchWriteItem puts and deletes up to 25 items in one or more tables. The
// writes are validated first (one invalid request fails the whole call) and
// then committed together in one atomic batch, so UnprocessedItems is always
// empty. Under timetable.WithNewItems, the puts into a table without index
// or stream do not read the items they replace.
func (db *DB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return run(ctx, db, "BatchWriteItem", in, db.batchWrite)
}

func (db *DB) batchWrite(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	wo := db.writeOptions(ctx)
	if len(in.RequestItems) == 0 {
		return nil, validationError("BatchWriteItem cannot have a null or no requests set")
	}
	names := sortedKeys(in.RequestItems)
	absent := timetable.NewItems(ctx)
	total := 0
	for _, name := range names {
		if err := checkTableName(aws.String(name)); err != nil {
			return nil, err
		}
		if len(in.RequestItems[name]) == 0 {
			return nil, validationf("The batch write request list for a table cannot be null or empty: %s", name)
		}
		total += len(in.RequestItems[name])
	}
	if total > maxBatchWrite {
		return nil, validationError("Too many items requested for the BatchWriteItem call")
	}
	_, ms, unlock, err := db.lockTables(names)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// One allocation for all the writes; duplicates are found by comparing
	// with the writes before (at most 25), which costs less than a set.
	tws := make([]tableWrite, 0, total)
	writes := make([]*tableWrite, 0, total)
	for _, name := range names {
		m := ms[name]
		for _, wr := range in.RequestItems[name] {
			var w *itemWrite
			switch {
			case (wr.PutRequest == nil) == (wr.DeleteRequest == nil):
				return nil, validationError("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			case wr.PutRequest != nil && wr.PutRequest.Item == nil:
				err = validationError("The supplied Item contains a null AttributeValue")
			case wr.PutRequest != nil:
				w, err = db.preparePut(m, wr.PutRequest.Item, &writeRequest{})
			default:
				w, err = db.prepareDelete(m, wr.DeleteRequest.Key, &writeRequest{})
			}
			if err != nil {
				return nil, err
			}
			w.blind = noReturn("", in.ReturnConsumedCapacity)
			w.absent = absent && wr.PutRequest != nil
			for _, p := range writes {
				if bytes.Equal(p.w.key.key, w.key.key) {
					return nil, validationError("Provided list of item keys contains duplicates")
				}
			}
			tws = append(tws, tableWrite{m: m, w: w})
			writes = append(writes, &tws[len(tws)-1])
		}
	}
	var us usageSet
	if errs, err := db.commitMany(writes, &us, wo); err != nil {
		for _, e := range errs {
			if e != nil {
				return nil, unwrapWriteErr(e)
			}
		}
		return nil, err
	}
	return &dynamodb.BatchWriteItemOutput{
		UnprocessedItems: map[string][]types.WriteRequest{},
		ConsumedCapacity: consumedList(us.order, in.ReturnConsumedCapacity),
	}, nil
}
