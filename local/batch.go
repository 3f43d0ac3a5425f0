package local

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/value"
)

const (
	maxBatchGet      = 100
	maxBatchWrite    = 25
	maxBatchGetBytes = 16 << 20
)

// lockExisting locks those of the named tables that exist shared, in name
// order, and returns their descriptions (absent for the others) with the
// function that unlocks them.
func (db *DB) lockExisting(names []string) (map[string]*tableMeta, func()) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	ms := map[string]*tableMeta{}
	var locked []*table
	for _, name := range sorted {
		if _, ok := ms[name]; ok {
			continue
		}
		t, m, err := db.tableForWrite(name)
		if err != nil {
			ms[name] = nil
			continue
		}
		locked = append(locked, t)
		ms[name] = m
	}
	return ms, func() {
		for i := len(locked) - 1; i >= 0; i-- {
			locked[i].mu.RUnlock()
		}
	}
}

// lockTables locks the named tables shared, in name order, and returns
// their handles and descriptions with the function that unlocks them.
func (db *DB) lockTables(names []string) (map[string]*table, map[string]*tableMeta, func(), error) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	ts := map[string]*table{}
	ms := map[string]*tableMeta{}
	var locked []*table
	unlock := func() {
		for i := len(locked) - 1; i >= 0; i-- {
			locked[i].mu.RUnlock()
		}
	}
	for _, name := range sorted {
		if _, ok := ts[name]; ok {
			continue
		}
		t, m, err := db.tableForWrite(name)
		if err != nil {
			unlock()
			return nil, nil, nil, err
		}
		locked = append(locked, t)
		ts[name], ms[name] = t, m
	}
	return ts, ms, unlock, nil
}

// BatchGetItem reads up to 100 items from one or more tables. Absent items
// are left out of Responses. UnprocessedKeys holds the keys left when the
// response reaches 16 MB, as in DynamoDB; it is otherwise empty.
func (db *DB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return operation(db, "BatchGetItem", func() (*dynamodb.BatchGetItemOutput, error) {
		return db.batchGet(in)
	})
}

func (db *DB) batchGet(in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
	if len(in.RequestItems) == 0 {
		return nil, validationError("BatchGetItem must have some requests set")
	}
	total := 0
	names := sortedKeys(in.RequestItems)
	for _, name := range names {
		if err := checkTableName(aws.String(name)); err != nil {
			return nil, err
		}
		if len(in.RequestItems[name].Keys) == 0 {
			return nil, validationf("The list of keys in RequestItems for BatchGetItem is required: %s has empty list", name)
		}
		total += len(in.RequestItems[name].Keys)
	}
	if total > maxBatchGet {
		return nil, validationError("Too many items requested for the BatchGetItem call")
	}
	type req struct {
		name string
		m    *tableMeta
		proj projector
		ka   types.KeysAndAttributes
		keys []*primaryKey
	}
	// DynamoDB Local checks the tables' requests in phases: parameters
	// that do not need the table, then the keys of every existing table,
	// then that the tables exist, then the projections.
	reqs := make([]*req, len(names))
	for i, name := range names {
		r := &req{name: name, ka: in.RequestItems[name]}
		if err := readParams(r.ka.ProjectionExpression, r.ka.AttributesToGet, r.ka.ExpressionAttributeNames); err != nil {
			return nil, err
		}
		if t, err := db.table(name); err == nil {
			r.m = t.m()
		}
		reqs[i] = r
	}
	for _, r := range reqs {
		if r.m == nil {
			continue
		}
		seen := map[string]bool{}
		for _, key := range r.ka.Keys {
			k, err := r.m.keyFromMap(key)
			if err != nil {
				return nil, err
			}
			// DynamoDB Local compares these keys as written ("1" and
			// "1.0" are distinct).
			id := literalKey(r.m, key)
			if seen[id] {
				return nil, validationError("Provided list of item keys contains duplicates")
			}
			seen[id] = true
			r.keys = append(r.keys, k)
		}
	}
	for _, r := range reqs {
		if r.m == nil {
			_, err := db.table(r.name)
			return nil, err
		}
	}
	for _, r := range reqs {
		var err error
		if r.proj, err = readProjection(r.ka.ProjectionExpression, r.ka.AttributesToGet, r.ka.ExpressionAttributeNames, nil); err != nil {
			return nil, err
		}
		if err := r.m.checkNested(projNested(r.proj)); err != nil {
			return nil, err
		}
	}
	out := &dynamodb.BatchGetItemOutput{
		Responses:       map[string][]map[string]types.AttributeValue{},
		UnprocessedKeys: map[string]types.KeysAndAttributes{},
	}
	var us usageSet
	size := 0
	for _, r := range reqs {
		u := us.get(r.name)
		u.read = true
		out.Responses[r.name] = []map[string]types.AttributeValue{}
		consistent := aws.ToBool(r.ka.ConsistentRead)
		for i, k := range r.keys {
			if size >= maxBatchGetBytes {
				left := r.ka
				left.Keys = r.ka.Keys[i:]
				out.UnprocessedKeys[r.name] = left
				break
			}
			item, err := db.getRaw(k.key)
			if err != nil {
				return nil, err
			}
			if item == nil {
				continue
			}
			sz := itemSize(item)
			size += sz
			u.units += readUnits(sz, consistent)
			out.Responses[r.name] = append(out.Responses[r.name], r.proj.apply(item))
		}
	}
	out.ConsumedCapacity = consumedList(us.order, in.ReturnConsumedCapacity)
	return out, nil
}

// BatchWriteItem puts and deletes up to 25 items in one or more tables. The
// writes are validated first (one invalid request fails the whole call) and
// then committed together in one atomic batch, so UnprocessedItems is always
// empty.
func (db *DB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return operation(db, "BatchWriteItem", func() (*dynamodb.BatchWriteItemOutput, error) {
		return db.batchWrite(in, db.writeOptions(ctx))
	})
}

// tableWrite is one write of a batch or transaction.
type tableWrite struct {
	m       *tableMeta
	w       *itemWrite
	old     Item
	new     Item
	readOld bool
}

func (db *DB) batchWrite(in *dynamodb.BatchWriteItemInput, wo *pebble.WriteOptions) (*dynamodb.BatchWriteItemOutput, error) {
	if len(in.RequestItems) == 0 {
		return nil, validationError("BatchWriteItem cannot have a null or no requests set")
	}
	names := sortedKeys(in.RequestItems)
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
			case wr.PutRequest != nil:
				w, err = db.preparePut(m, wr.PutRequest.Item, nil, nil, "", nil, nil, "", "")
			default:
				w, err = db.prepareDelete(m, wr.DeleteRequest.Key, nil, nil, "", nil, nil, "", "")
			}
			if err != nil {
				return nil, err
			}
			w.blind = noReturn("", in.ReturnConsumedCapacity)
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

// commitMany performs several writes atomically: it locks their items,
// reads the current items, applies the writes (checking conditions) and
// commits one batch. Tables must be locked by the caller. If applying any
// write fails, nothing is written and the errors of all writes are returned
// (nil for those that succeeded) with errCanceled.
func (db *DB) commitMany(writes []*tableWrite, us *usageSet, wo *pebble.WriteOptions) ([]error, error) {
	keys := make([][]byte, len(writes))
	for i, tw := range writes {
		keys[i] = tw.w.key.key
	}
	unlock := db.locks.lockAll(keys)
	defer unlock()
	if err := db.readOld(writes); err != nil {
		return nil, err
	}
	var errs []error
	for i, tw := range writes {
		nu, err := tw.m.apply(tw.w, tw.old)
		if err != nil {
			if errs == nil {
				errs = make([]error, len(writes))
			}
			errs[i] = err
			continue
		}
		tw.new = nu
	}
	if errs != nil {
		return errs, errCanceled
	}
	return nil, db.commitWrites(writes, us, wo)
}

// readOld sets the readOld and old fields of writes: the items that the
// writes which need them replace, read through one itemReader in key order.
// The writes' items must be locked.
func (db *DB) readOld(writes []*tableWrite) (err error) {
	var need []*tableWrite
	for _, tw := range writes {
		tw.old = nil
		if tw.readOld = tw.m.needsOld(tw.w); tw.readOld {
			need = append(need, tw)
		}
	}
	if len(need) == 0 {
		return nil
	}
	slices.SortFunc(need, func(a, b *tableWrite) int { return bytes.Compare(a.w.key.key, b.w.key.key) })
	r := itemReader{db: db}
	defer func() {
		if cerr := r.close(); err == nil {
			err = cerr
		}
	}()
	for _, tw := range need {
		if tw.old, err = r.get(tw.w.key.key); err != nil {
			return err
		}
	}
	return nil
}

// commitWrites commits writes whose new items are computed (tw.old and
// tw.new set, items locked by the caller) in one batch, adding their
// capacity to us.
func (db *DB) commitWrites(writes []*tableWrite, us *usageSet, wo *pebble.WriteOptions) error {
	b := db.pdb.NewBatch()
	defer b.Close()
	for _, tw := range writes {
		u := us.get(tw.m.Name)
		switch {
		case tw.w.check:
			u.units += readUnits(itemSizeOrZero(tw.old), true)
			continue
		case tw.w.del && tw.old == nil && tw.readOld:
			u.units += writeUnits(0)
			continue
		}
		if err := db.stage(b, tw.m, tw.w.key, tw.old, tw.new, newSizeOf(tw.w, tw.new), u); err != nil {
			return err
		}
	}
	if b.Empty() {
		return nil
	}
	if err := b.Commit(wo); err != nil {
		return fmt.Errorf("local: cannot commit: %w", err)
	}
	return nil
}

func itemSizeOrZero(it Item) int {
	if it == nil {
		return 0
	}
	return itemSize(it)
}

// literalKey identifies a key by its values as written.
func literalKey(m *tableMeta, key Item) string {
	var b []byte
	for _, a := range []string{m.Hash, m.Range} {
		if a == "" {
			continue
		}
		v := key[a]
		b = append(b, value.TypeOf(v).String()...)
		b = append(b, 0)
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			b = append(b, x.Value...)
		case *types.AttributeValueMemberN:
			b = append(b, x.Value...)
		case *types.AttributeValueMemberB:
			b = append(b, x.Value...)
		}
		b = append(b, 0)
	}
	return string(b)
}
