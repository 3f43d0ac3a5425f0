package table

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxTxItems is DynamoDB's limit of actions per transaction.
const maxTxItems = 100

// Tx is a write transaction on one table: up to 100 puts, updates, deletes
// and condition checks, applied all or none by Commit. Build it with
// Table.Tx and chained calls; a building error (such as a value that
// cannot be marshalled) is kept and returned by Commit. A Tx is not safe
// for concurrent use.
type Tx struct {
	t     *Table
	items []types.TransactWriteItem
	err   error
}

// Tx returns an empty write transaction.
func (t *Table) Tx() *Tx { return &Tx{t: t} }

func (tx *Tx) fail(err error) *Tx {
	if tx.err == nil {
		tx.err = err
	}
	return tx
}

// Put adds a put of item (an Item or a value for MarshalMap), under
// condition c (the zero Cond for none).
func (tx *Tx) Put(item any, c Cond) *Tx {
	it, err := Marshal(item)
	if err != nil {
		return tx.fail(err)
	}
	x, err := buildCond(c)
	if err != nil {
		return tx.fail(err)
	}
	tx.items = append(tx.items, types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(tx.t.schema.Name), Item: it, ConditionExpression: x.cond,
		ExpressionAttributeNames: x.names, ExpressionAttributeValues: x.values,
	}})
	return tx
}

// Update adds an update of the item with key k, under condition c. Min
// and Max cannot be part of a transaction (they need retries of their
// own); Commit fails if u holds one.
func (tx *Tx) Update(k Key, u *Update, c Cond) *Tx {
	if u == nil {
		u = &Update{}
	}
	if u.err != nil {
		return tx.fail(u.err)
	}
	if u.hasMinMax() {
		return tx.fail(errors.New("table: Min and Max cannot be part of a transaction"))
	}
	key, err := tx.t.keyItem(k)
	if err != nil {
		return tx.fail(err)
	}
	ub, _ := u.builder(nil)
	if ub == nil {
		return tx.fail(errors.New("table: a transaction's update needs at least one operation"))
	}
	x, err := exprs{cond: c, update: ub}.build()
	if err != nil {
		return tx.fail(fmt.Errorf("table: cannot build update expression: %w", err))
	}
	tx.items = append(tx.items, types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(tx.t.schema.Name), Key: key, UpdateExpression: x.update,
		ConditionExpression: x.cond, ExpressionAttributeNames: x.names, ExpressionAttributeValues: x.values,
	}})
	return tx
}

// Delete adds a delete of the item with key k, under condition c.
func (tx *Tx) Delete(k Key, c Cond) *Tx {
	return tx.onKey(k, c, func(name *string, key map[string]types.AttributeValue, x built) types.TransactWriteItem {
		return types.TransactWriteItem{Delete: &types.Delete{TableName: name, Key: key,
			ConditionExpression: x.cond, ExpressionAttributeNames: x.names, ExpressionAttributeValues: x.values}}
	})
}

// Check adds a condition c on the item with key k, which the transaction
// does not write. c must be set.
func (tx *Tx) Check(k Key, c Cond) *Tx {
	if c.IsZero() {
		return tx.fail(errors.New("table: a transaction's check needs a condition"))
	}
	return tx.onKey(k, c, func(name *string, key map[string]types.AttributeValue, x built) types.TransactWriteItem {
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: name, Key: key,
			ConditionExpression: x.cond, ExpressionAttributeNames: x.names, ExpressionAttributeValues: x.values}}
	})
}

// onKey adds the action that item makes of the table's name, the key item
// of k and the built condition c.
func (tx *Tx) onKey(k Key, c Cond, item func(name *string, key map[string]types.AttributeValue, x built) types.TransactWriteItem) *Tx {
	key, err := tx.t.keyItem(k)
	if err != nil {
		return tx.fail(err)
	}
	x, err := buildCond(c)
	if err != nil {
		return tx.fail(err)
	}
	tx.items = append(tx.items, item(aws.String(tx.t.schema.Name), key, x))
	return tx
}

// buildCond builds the condition c alone (none for the zero Cond).
func buildCond(c Cond) (built, error) {
	x, err := exprs{cond: c}.build()
	if err != nil {
		return built{}, fmt.Errorf("table: cannot build condition: %w", err)
	}
	return x, nil
}

// Len returns the number of actions in tx.
func (tx *Tx) Len() int { return len(tx.items) }

// Commit applies the transaction: all its actions or none. It is sent with
// a client request token, so the retries on throttling, conflicts with
// other transactions and 5xx errors are idempotent (for 10 minutes on
// DynamoDB). A failed condition returns an error for which
// IsConditionFailed is true; CancellationReasons tells which action.
// Committing an empty Tx does nothing.
func (tx *Tx) Commit(ctx context.Context) error {
	if tx.err != nil {
		return tx.err
	}
	if len(tx.items) == 0 {
		return nil
	}
	if len(tx.items) > maxTxItems {
		return fmt.Errorf("table: a transaction holds at most %d actions, not %d", maxTxItems, len(tx.items))
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	in := &dynamodb.TransactWriteItemsInput{
		TransactItems:          tx.items,
		ClientRequestToken:     aws.String(hex.EncodeToString(tok[:])),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	out, err := send(ctx, tx.t, "TransactWriteItems", tx.t.api.TransactWriteItems, in)
	if err != nil {
		return err
	}
	tx.t.stats.consumedList("TransactWriteItems", out.ConsumedCapacity)
	return nil
}

// TxGet reads the items with keys ks in one transaction (a consistent
// snapshot, up to 100 keys) and returns them aligned with ks, nil where
// there is no item.
func (t *Table) TxGet(ctx context.Context, ks []Key, o *GetOptions) ([]Item, error) {
	if len(ks) > maxTxItems {
		return nil, fmt.Errorf("table: a transaction reads at most %d items, not %d", maxTxItems, len(ks))
	}
	if len(ks) == 0 {
		return nil, nil
	}
	var opts GetOptions
	if o != nil {
		opts = *o
	}
	x, err := exprs{projection: opts.Projection}.build()
	if err != nil {
		return nil, fmt.Errorf("table: cannot build projection: %w", err)
	}
	items := make([]types.TransactGetItem, len(ks))
	for i, k := range ks {
		key, err := t.keyItem(k)
		if err != nil {
			return nil, err
		}
		items[i] = types.TransactGetItem{Get: &types.Get{
			TableName: aws.String(t.schema.Name), Key: key,
			ProjectionExpression: x.projection, ExpressionAttributeNames: x.names,
		}}
	}
	in := &dynamodb.TransactGetItemsInput{TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	out, err := send(ctx, t, "TransactGetItems", t.api.TransactGetItems, in)
	if err != nil {
		return nil, err
	}
	t.stats.consumedList("TransactGetItems", out.ConsumedCapacity)
	res := make([]Item, len(ks))
	for i := range min(len(res), len(out.Responses)) {
		res[i] = nilIfEmpty(out.Responses[i].Item)
	}
	return res, nil
}
