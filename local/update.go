package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// UpdateItem edits an item's attributes, creating the item if it does not
// exist, subject to its condition.
func (db *DB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return operation(db, "UpdateItem", func() (*dynamodb.UpdateItemOutput, error) {
		return db.updateItem(in, db.writeOptions(ctx))
	})
}

func (db *DB) updateItem(in *dynamodb.UpdateItemInput, wo *pebble.WriteOptions) (*dynamodb.UpdateItemOutput, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t, m, err := db.tableForWrite(*in.TableName)
	if err != nil {
		return nil, err
	}
	defer t.mu.RUnlock()
	w, err := db.prepareUpdate(m, in.Key, in.UpdateExpression, in.AttributeUpdates, in.ConditionExpression, in.Expected,
		in.ConditionalOperator, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues,
		in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	unlock := db.locks.lock(w.key.lockKey())
	defer unlock()
	u := &usage{table: m.Name}
	old, err := db.commitOne(m, w, u, wo)
	if err != nil {
		return nil, err
	}
	out := &dynamodb.UpdateItemOutput{ConsumedCapacity: u.consumed(in.ReturnConsumedCapacity)}
	out.Attributes = returnedAttributes(in.ReturnValues, w.exprs.update, old, w.item)
	return out, nil
}

func (db *DB) prepareUpdate(m *tableMeta, key Item, update *string, attrUpdates map[string]types.AttributeValueUpdate,
	cond *string, expected map[string]types.ExpectedAttributeValue, cop types.ConditionalOperator,
	names map[string]string, values Item, rv types.ReturnValue,
	onFail types.ReturnValuesOnConditionCheckFailure) (*itemWrite, error) {
	if err := checkReturnValues(rv, types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllNew,
		types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(onFail); err != nil {
		return nil, err
	}
	if err := writeParams(cond, expected, cop, update, attrUpdates, names, values, true); err != nil {
		return nil, err
	}
	k, err := m.keyFromMap(key)
	if err != nil {
		return nil, err
	}
	w, err := compileWrite(cond, expected, cop, update, attrUpdates, names, values, true)
	if err != nil {
		return nil, err
	}
	// Updates of key attributes are rejected when the update is applied,
	// after the condition, as DynamoDB Local does.
	return &itemWrite{key: k, exprs: w, onFail: onFail, keyAttrs: k.keyMap(m)}, nil
}

// returnedAttributes computes UpdateItem's Attributes for ReturnValues.
// UPDATED_OLD and UPDATED_NEW return, whole, the top-level attributes under
// which a path the update names exists in the old or new item, as DynamoDB
// Local does.
func returnedAttributes(rv types.ReturnValue, u *expr.Update, old, nu Item) Item {
	switch rv {
	case types.ReturnValueAllOld:
		if old == nil {
			return nil
		}
		return old
	case types.ReturnValueAllNew:
		return nu
	case types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew:
		src := old
		if rv == types.ReturnValueUpdatedNew {
			src = nu
		}
		if u == nil || src == nil {
			return nil
		}
		names := u.UpdatedIn(src)
		if len(names) == 0 {
			return nil
		}
		r := make(Item, len(names))
		for _, name := range names {
			r[name] = src[name]
		}
		return r
	}
	return nil
}
