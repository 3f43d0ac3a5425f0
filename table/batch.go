package table

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's limits per batch call.
const (
	maxBatchGet = 100
	// MaxBatchWrite is the most writes of one BatchWriteItem call.
	// BatchWrite cuts any number of writes into calls of up to this many,
	// so callers pass whole lists.
	MaxBatchWrite = 25
)

// BatchGetOptions are the options of BatchGet. The zero value is valid.
type BatchGetOptions struct {
	// Consistent asks for strongly consistent reads.
	Consistent bool
	// Projection lists the document paths to return; empty returns all.
	Projection []string
}

// BatchGet reads the items with keys ks, 100 keys per BatchGetItem call,
// and returns them aligned with ks: the i-th result is the item of ks[i],
// nil if there is none. Repeated keys are read once. Keys DynamoDB leaves
// unprocessed are asked again with exponential backoff and jitter until
// Options.RetryTimeout or the context ends; those still unread then (and
// those of later calls) come back in a *BatchError, with the results read
// so far. Nothing is dropped silently.
func (t *Table) BatchGet(ctx context.Context, ks []Key, o *BatchGetOptions) ([]Item, error) {
	var opts BatchGetOptions
	if o != nil {
		opts = *o
	}
	results := make([]Item, len(ks))
	names, _ := t.keyNames("")
	// Unique keys in input order, and the inputs that asked for each.
	type want struct {
		key Item
		at  []int
	}
	var uniq []*want
	byID := map[string]*want{}
	for i, k := range ks {
		key, err := t.keyItem(k)
		if err != nil {
			return results, &BatchError{Op: "BatchGetItem", Keys: ks, Err: err}
		}
		id := keyID(key, names)
		if w := byID[id]; w != nil {
			w.at = append(w.at, i)
			continue
		}
		w := &want{key: key, at: []int{i}}
		byID[id] = w
		uniq = append(uniq, w)
	}
	x, err := exprs{projection: opts.Projection, keyNames: names}.build()
	if err != nil {
		return results, &BatchError{Op: "BatchGetItem", Keys: ks, Err: err}
	}
	strip := stripper(opts.Projection, names)
	// fail returns the error for the keys of pending (in the call that
	// starts at from) and of the later calls.
	fail := func(pending map[string]*want, from int, err error) error {
		var left []Key
		for j, w := range uniq[from:] {
			if j >= maxBatchGet || pending[keyID(w.key, names)] != nil {
				for _, i := range w.at {
					left = append(left, ks[i])
				}
			}
		}
		return &BatchError{Op: "BatchGetItem", Keys: left, Err: err}
	}
	for from := 0; from < len(uniq); from += maxBatchGet {
		chunk := uniq[from:min(from+maxBatchGet, len(uniq))]
		pending := map[string]*want{}
		keys := make([]map[string]types.AttributeValue, len(chunk))
		for i, w := range chunk {
			keys[i] = w.key
			pending[keyID(w.key, names)] = w
		}
		b := t.newBackoff()
		for len(keys) > 0 {
			in := &dynamodb.BatchGetItemInput{
				RequestItems: map[string]types.KeysAndAttributes{t.schema.Name: {
					Keys:                     keys,
					ConsistentRead:           &opts.Consistent,
					ProjectionExpression:     x.projection,
					ExpressionAttributeNames: x.names,
				}},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			}
			out, err := t.api.BatchGetItem(ctx, in)
			t.called("BatchGetItem", err)
			if err == nil {
				t.stats.consumedList("BatchGetItem", out.ConsumedCapacity)
				for _, it := range out.Responses[t.schema.Name] {
					id := keyID(it, names)
					w := pending[id]
					if w == nil {
						continue
					}
					delete(pending, id)
					if strip != nil {
						strip(it)
					}
					for n, i := range w.at {
						if n == 0 {
							results[i] = it
						} else {
							results[i] = cloneItem(it)
						}
					}
				}
				keys = out.UnprocessedKeys[t.schema.Name].Keys
				if len(keys) == 0 {
					// Whatever is still pending was not found.
					break
				}
				// Only the unprocessed keys stay pending.
				still := map[string]*want{}
				for _, k := range keys {
					id := keyID(k, names)
					if w := pending[id]; w != nil {
						still[id] = w
					}
				}
				pending = still
			} else if !retryable(err) {
				return results, fail(pending, from, err)
			}
			ok, werr := b.wait(ctx)
			if werr != nil {
				return results, fail(pending, from, werr)
			}
			if !ok {
				return results, fail(pending, from, errLast(err))
			}
			t.stats.retry("BatchGetItem")
		}
	}
	return results, nil
}

// errLast is the error of a batch whose retry deadline passed.
func errLast(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRetriesExhausted, err)
	}
	return ErrRetriesExhausted
}

func cloneItem(it Item) Item {
	c := make(Item, len(it))
	for k, v := range it {
		c[k] = v
	}
	return c
}

// WriteRequest is one write of a BatchWrite: a put if Put is set (an Item
// or a value for attributevalue.MarshalMap), else a delete of the item
// with key Delete.
type WriteRequest struct {
	Put    any
	Delete Key
}

// PutRequest returns the WriteRequest that puts item.
func PutRequest(item any) WriteRequest { return WriteRequest{Put: item} }

// DeleteRequest returns the WriteRequest that deletes the item with key k.
func DeleteRequest(k Key) WriteRequest { return WriteRequest{Delete: k} }

// BatchWriteOptions are the options of BatchWriteWith. A nil
// *BatchWriteOptions and the zero value are valid.
type BatchWriteOptions struct {
	// Concurrency is the most BatchWriteItem calls made at once. 0 or 1
	// makes them one after another, in order, as BatchWrite does. With
	// more, the writes are cut into runs of MaxBatchWrite, each applied as
	// BatchWrite applies its writes, on up to Concurrency goroutines and
	// in any order, so that the calls share the backend's syncs (or
	// DynamoDB's latency): two writes of one key must then be the same
	// write. A failed run stops the runs not started.
	Concurrency int
	// Applied, if set, is called with the number of writes of each call
	// once they are all applied (its unprocessed writes retried). With a
	// Concurrency above 1 it may be called from several goroutines at
	// once.
	Applied func(n int)
}

// BatchWrite applies ws, any number of writes, with BatchWriteItem calls
// of up to MaxBatchWrite writes, in order: a call holds no two writes of one key (a later write of a key
// goes to a later call), and each call's unprocessed writes are retried,
// with exponential backoff and jitter, before the next call starts, so
// the last write of a key wins. Writes are not atomic and have no
// conditions (use a transaction for that).
//
// When the retry deadline (Options.RetryTimeout), the context's end or a
// failed call stops it, BatchWrite returns a *BatchError holding every
// write not applied, in input order; the others were applied. Nothing is
// dropped silently.
func (t *Table) BatchWrite(ctx context.Context, ws []WriteRequest) error {
	return t.batchWrite(ctx, ws, nil)
}

// BatchWriteWith is BatchWrite with options: its calls at once, and a
// callback after each call. On failure it returns a *BatchError holding
// every write not applied, in input order, and the first failure's cause.
func (t *Table) BatchWriteWith(ctx context.Context, ws []WriteRequest, o *BatchWriteOptions) error {
	var opts BatchWriteOptions
	if o != nil {
		opts = *o
	}
	runs := (len(ws) + MaxBatchWrite - 1) / MaxBatchWrite
	if opts.Concurrency <= 1 || runs <= 1 {
		return t.batchWrite(ctx, ws, opts.Applied)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		mu    sync.Mutex
		first error
		left  = make([][]WriteRequest, runs) // of each run, if it failed
	)
	for range min(runs, opts.Concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r := int(next.Add(1) - 1)
				if r >= runs {
					return
				}
				run := ws[r*MaxBatchWrite : min(len(ws), (r+1)*MaxBatchWrite)]
				// An ended ctx (or a failed run) stops the runs not started.
				err := ctx.Err()
				if err == nil {
					err = t.batchWrite(ctx, run, opts.Applied)
				}
				if err == nil {
					continue
				}
				left[r] = run
				var be *BatchError
				if errors.As(err, &be) {
					left[r], err = be.Writes, be.Err
				}
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first == nil {
		return nil
	}
	return &BatchError{Op: "BatchWriteItem", Writes: slices.Concat(left...), Err: first}
}

// batchWrite is BatchWrite, calling applied (if set) after each call.
func (t *Table) batchWrite(ctx context.Context, ws []WriteRequest, applied func(n int)) error {
	names, _ := t.keyNames("")
	reqs := make([]types.WriteRequest, len(ws))
	ids := make([]string, len(ws))
	for i, w := range ws {
		if w.Put != nil {
			it, err := Marshal(w.Put)
			if err != nil {
				return &BatchError{Op: "BatchWriteItem", Writes: ws, Err: err}
			}
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
			ids[i] = keyID(it, names)
		} else {
			key, err := t.keyItem(w.Delete)
			if err != nil {
				return &BatchError{Op: "BatchWriteItem", Writes: ws, Err: err}
			}
			reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
			ids[i] = keyID(key, names)
		}
		if ids[i] == "" {
			return &BatchError{Op: "BatchWriteItem", Writes: ws,
				Err: fmt.Errorf("table: write %d lacks a key attribute of %s, or one is not a string, number or binary", i, t.schema.Name)}
		}
	}
	for from := 0; from < len(ws); {
		// The next call: up to MaxBatchWrite writes with distinct keys,
		// in order.
		seen := map[string]int{} // id -> index in ws
		end := from
		for end < len(ws) && end-from < MaxBatchWrite {
			if _, dup := seen[ids[end]]; dup {
				break
			}
			seen[ids[end]] = end
			end++
		}
		chunk := reqs[from:end]
		pending := seen
		b := t.newBackoff()
		for len(chunk) > 0 {
			out, err := t.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems:           map[string][]types.WriteRequest{t.schema.Name: chunk},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			t.called("BatchWriteItem", err)
			if err == nil {
				t.stats.consumedList("BatchWriteItem", out.ConsumedCapacity)
				chunk = out.UnprocessedItems[t.schema.Name]
				if len(chunk) == 0 {
					break
				}
				still := map[string]int{}
				for _, r := range chunk {
					id := writeID(r, names)
					if i, ok := pending[id]; ok {
						still[id] = i
					}
				}
				pending = still
			} else if !retryable(err) {
				return t.writeFailure(ws, pending, end, err)
			}
			ok, werr := b.wait(ctx)
			if werr != nil {
				return t.writeFailure(ws, pending, end, werr)
			}
			if !ok {
				return t.writeFailure(ws, pending, end, errLast(err))
			}
			t.stats.retry("BatchWriteItem")
		}
		if applied != nil {
			applied(end - from)
		}
		from = end
	}
	return nil
}

// writeFailure returns the BatchError for the writes of pending (indexes
// into ws) and all writes from end on.
func (t *Table) writeFailure(ws []WriteRequest, pending map[string]int, end int, err error) error {
	left := make([]bool, len(ws))
	for _, i := range pending {
		left[i] = true
	}
	var out []WriteRequest
	for i, w := range ws {
		if left[i] || i >= end {
			out = append(out, w)
		}
	}
	return &BatchError{Op: "BatchWriteItem", Writes: out, Err: err}
}

// keyID returns a string that identifies the key of item, which holds
// every attribute of names (the same names for every key compared): the
// type and length-prefixed value of each. It returns "" if item lacks one
// or one is not a string, number or binary. It is cheaper than a cursor,
// which batches do not need.
func keyID(item Item, names []string) string {
	var buf [128]byte
	b := buf[:0]
	for _, n := range names {
		switch x := item[n].(type) {
		case *types.AttributeValueMemberS:
			b = appendKeyPart(b, 'S', x.Value)
		case *types.AttributeValueMemberN:
			b = appendKeyPart(b, 'N', x.Value)
		case *types.AttributeValueMemberB:
			b = appendKeyPart(b, 'B', x.Value)
		default:
			return ""
		}
	}
	return string(b)
}

func appendKeyPart[T string | []byte](b []byte, typ byte, v T) []byte {
	b = append(b, typ)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func writeID(r types.WriteRequest, names []string) string {
	switch {
	case r.PutRequest != nil:
		return keyID(r.PutRequest.Item, names)
	case r.DeleteRequest != nil:
		return keyID(r.DeleteRequest.Key, names)
	}
	return ""
}

// BatchPut puts items with BatchWrite.
func (t *Table) BatchPut(ctx context.Context, items []Item) error {
	ws := make([]WriteRequest, len(items))
	for i, it := range items {
		ws[i] = PutRequest(it)
	}
	return t.BatchWrite(ctx, ws)
}

// BatchDelete deletes the items with keys ks with BatchWrite.
func (t *Table) BatchDelete(ctx context.Context, ks []Key) error {
	ws := make([]WriteRequest, len(ks))
	for i, k := range ks {
		ws[i] = DeleteRequest(k)
	}
	return t.BatchWrite(ctx, ws)
}
