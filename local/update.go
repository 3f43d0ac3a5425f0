package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UpdateItem edits an item's attributes, creating the item if it does not
// exist, subject to its condition.
func (db *DB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return run(ctx, db, "UpdateItem", in, db.updateItem)
}

func (db *DB) updateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	attrs, consumed, err := db.writeOne(ctx, in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, func(m *tableMeta) (*itemWrite, error) {
		return db.prepareUpdate(m, in.Key, &writeRequest{cond: in.ConditionExpression, expected: in.Expected, op: in.ConditionalOperator,
			update: in.UpdateExpression, attrUpdates: in.AttributeUpdates, names: in.ExpressionAttributeNames,
			values: in.ExpressionAttributeValues, rv: in.ReturnValues, onFail: in.ReturnValuesOnConditionCheckFailure, isUpdate: true})
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.UpdateItemOutput{Attributes: attrs, ConsumedCapacity: consumed}, nil
}

// prepareUpdate validates an update of the item at key on the table m.
func (db *DB) prepareUpdate(m *tableMeta, key Item, r *writeRequest) (*itemWrite, error) {
	k, w, err := r.prepareKeyed(m, key, types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllNew,
		types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew)
	if err != nil {
		return nil, err
	}
	// Updates of key attributes are rejected when the update is applied,
	// after the condition, as DynamoDB Local does.
	return &itemWrite{key: k, exprs: w, onFail: r.onFail, keyAttrs: k.keyMap(m)}, nil
}
