package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"
)

// DeleteItem deletes an item, subject to its condition. Deleting an absent
// item succeeds (unless a condition fails).
func (db *DB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return operation(db, "DeleteItem", func() (*dynamodb.DeleteItemOutput, error) {
		return db.deleteItem(in, db.writeOptions(ctx))
	})
}

func (db *DB) deleteItem(in *dynamodb.DeleteItemInput, wo *pebble.WriteOptions) (*dynamodb.DeleteItemOutput, error) {
	old, consumed, err := db.writeOne(in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, wo, func(m *tableMeta) (*itemWrite, error) {
		return db.prepareDelete(m, in.Key, in.ConditionExpression, in.Expected, in.ConditionalOperator,
			in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure)
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.DeleteItemOutput{Attributes: old, ConsumedCapacity: consumed}, nil
}

func (db *DB) prepareDelete(m *tableMeta, key Item, cond *string, expected map[string]types.ExpectedAttributeValue,
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
	k, err := m.keyFromMap(key)
	if err != nil {
		return nil, err
	}
	w, err := compileWrite(cond, expected, cop, nil, nil, names, values, false)
	if err != nil {
		return nil, err
	}
	return &itemWrite{key: k, del: true, exprs: w, onFail: onFail}, nil
}
