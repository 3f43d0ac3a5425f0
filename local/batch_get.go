package local

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

// Limits of BatchGetItem: keys per call, and bytes per response (the keys
// left over are returned as UnprocessedKeys).
const (
	maxBatchGet      = 100
	maxBatchGetBytes = 16 << 20
)

// BatchGetItem reads up to 100 items from one or more tables. Absent items
// are left out of Responses. UnprocessedKeys holds the keys left when the
// response reaches 16 MB, as in DynamoDB; it is otherwise empty.
func (db *DB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return run(ctx, db, "BatchGetItem", in, db.batchGet)
}

func (db *DB) batchGet(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
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
		// BatchGetItem words a repeated name in AttributesToGet apart
		// from the other reads (DynamoDB Local's words).
		for i, n := range r.ka.AttributesToGet {
			if slices.Contains(r.ka.AttributesToGet[:i], n) {
				return nil, validationf("One or more parameter values were invalid: Duplicate value in attribute name: %s", n)
			}
		}
		var err error
		if r.proj, err = r.m.readProjection(r.ka.ProjectionExpression, r.ka.AttributesToGet, r.ka.ExpressionAttributeNames); err != nil {
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
