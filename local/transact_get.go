package local

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TransactGetItems reads up to 100 items, from one or more tables, as of
// one instant: no transaction's writes are seen in part.
func (db *DB) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return run(ctx, db, "TransactGetItems", in, db.transactGet)
}

func (db *DB) transactGet(_ context.Context, in *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if len(in.TransactItems) == 0 {
		return nil, validationError("Value null at 'transactItems' failed to satisfy constraint: Member must not be null")
	}
	if len(in.TransactItems) > maxTransactItems {
		return nil, validationError("Member must have length less than or equal to 100")
	}
	type req struct {
		m    *tableMeta
		k    *primaryKey
		proj projector
	}
	reqs := make([]req, len(in.TransactItems))
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		g := ti.Get
		if g == nil {
			return nil, validationError("Value null at 'transactItems' failed to satisfy constraint: Member must not be null")
		}
		t, err := db.namedTable(g.TableName)
		if err != nil {
			return nil, err
		}
		m := t.m()
		proj, err := m.readProjection(g.ProjectionExpression, nil, g.ExpressionAttributeNames)
		if err != nil {
			return nil, err
		}
		k, err := m.keyFromMap(g.Key)
		if err != nil {
			// DynamoDB Local reports invalid keys here as a canceled
			// transaction whose message is the validation error's.
			var ae interface{ ErrorMessage() string }
			if errors.As(err, &ae) && (ae.ErrorMessage() == msgKeyType || ae.ErrorMessage() == msgKeyCount) {
				return nil, &types.TransactionCanceledException{Message: aws.String(ae.ErrorMessage())}
			}
			return nil, err
		}
		if seen[string(k.key)] {
			return nil, validationError("Transaction request cannot include multiple operations on one item")
		}
		seen[string(k.key)] = true
		reqs[i] = req{m: m, k: k, proj: proj}
	}
	snap := db.pdb.NewSnapshot()
	defer snap.Close()
	out := &dynamodb.TransactGetItemsOutput{Responses: make([]types.ItemResponse, len(reqs))}
	var us usageSet
	for i, r := range reqs {
		item, err := readItem(snap, r.k.key)
		if err != nil {
			return nil, err
		}
		u := us.get(r.m.Name)
		u.read = true
		u.units += 2 * readUnits(itemSizeOrZero(item), true)
		if item != nil {
			out.Responses[i].Item = r.proj.apply(item)
		}
	}
	out.ConsumedCapacity = consumedList(us.order, in.ReturnConsumedCapacity)
	return out, nil
}
