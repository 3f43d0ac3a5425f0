package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PutItem creates or replaces an item, subject to its condition.
func (db *DB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return run(ctx, db, "PutItem", in, db.putItem)
}

func (db *DB) putItem(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
	attrs, consumed, err := db.writeOne(ctx, in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, func(m *tableMeta) (*itemWrite, error) {
		if in.Item == nil {
			return nil, validationError("Item to put in PutItem cannot be null")
		}
		return db.preparePut(m, in.Item, &writeRequest{cond: in.ConditionExpression, expected: in.Expected, op: in.ConditionalOperator,
			names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, rv: in.ReturnValues, onFail: in.ReturnValuesOnConditionCheckFailure})
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.PutItemOutput{Attributes: attrs, ConsumedCapacity: consumed}, nil
}

// preparePut validates a put of item on the table m.
func (db *DB) preparePut(m *tableMeta, item Item, r *writeRequest) (*itemWrite, error) {
	if err := r.check(types.ReturnValueNone, types.ReturnValueAllOld); err != nil {
		return nil, err
	}
	item, err := normalizeItem(item)
	if err != nil {
		return nil, err
	}
	k, err := m.keyFromItem(item)
	if err != nil {
		return nil, err
	}
	// Store the key values in canonical form.
	if item[m.Hash] != k.hash || (m.Range != "" && item[m.Range] != k.rng) {
		item = copyItem(item)
		item[m.Hash] = k.hash
		if m.Range != "" {
			item[m.Range] = k.rng
		}
	}
	if err := m.checkIndexKeys(item); err != nil {
		return nil, err
	}
	if err := m.checkIndexKeySums(item); err != nil {
		return nil, err
	}
	size := itemSize(item)
	if size > maxItemSize {
		return nil, validationError(msgItemSize)
	}
	w, err := r.compile()
	if err != nil {
		return nil, err
	}
	return &itemWrite{key: k, item: item, exprs: w, onFail: r.onFail, size: size}, nil
}
