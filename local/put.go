package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"
)

// PutItem creates or replaces an item, subject to its condition.
func (db *DB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return operation(db, "PutItem", func() (*dynamodb.PutItemOutput, error) {
		return db.putItem(in, db.writeOptions(ctx))
	})
}

func (db *DB) putItem(in *dynamodb.PutItemInput, wo *pebble.WriteOptions) (*dynamodb.PutItemOutput, error) {
	old, consumed, err := db.writeOne(in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, wo, func(m *tableMeta) (*itemWrite, error) {
		return db.preparePut(m, in.Item, in.ConditionExpression, in.Expected, in.ConditionalOperator,
			in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure)
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.PutItemOutput{Attributes: old, ConsumedCapacity: consumed}, nil
}

func (db *DB) preparePut(m *tableMeta, item Item, cond *string, expected map[string]types.ExpectedAttributeValue,
	cop types.ConditionalOperator, names map[string]string, values Item, rv types.ReturnValue,
	onFail types.ReturnValuesOnConditionCheckFailure) (*itemWrite, error) {
	if err := checkReturnValues(rv, types.ReturnValueNone, types.ReturnValueAllOld); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(onFail); err != nil {
		return nil, err
	}
	if err := writeParams(cond, expected, cop, nil, nil, names, values, false); err != nil {
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
	size := itemSize(item)
	if size > maxItemSize {
		return nil, validationError(msgItemSize)
	}
	w, err := compileWrite(cond, expected, cop, nil, nil, names, values, false)
	if err != nil {
		return nil, err
	}
	return &itemWrite{key: k, item: item, exprs: w, onFail: onFail, size: size}, nil
}
