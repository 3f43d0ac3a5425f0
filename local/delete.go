package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteItem deletes an item, subject to its condition. Deleting an absent
// item succeeds (unless a condition fails).
func (db *DB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return run(ctx, db, "DeleteItem", in, db.deleteItem)
}

func (db *DB) deleteItem(ctx context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
	attrs, consumed, err := db.writeOne(ctx, in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, func(m *tableMeta) (*itemWrite, error) {
		return db.prepareDelete(m, in.Key, &writeRequest{cond: in.ConditionExpression, expected: in.Expected, op: in.ConditionalOperator,
			names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, rv: in.ReturnValues, onFail: in.ReturnValuesOnConditionCheckFailure})
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.DeleteItemOutput{Attributes: attrs, ConsumedCapacity: consumed}, nil
}

// prepareDelete validates a delete of the item at key on the table m.
func (db *DB) prepareDelete(m *tableMeta, key Item, r *writeRequest) (*itemWrite, error) {
	k, w, err := r.prepareKeyed(m, key, types.ReturnValueNone, types.ReturnValueAllOld)
	if err != nil {
		return nil, err
	}
	return &itemWrite{key: k, del: true, exprs: w, onFail: r.onFail}, nil
}
