package table

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetOptions are the options of Get. The zero value is valid.
type GetOptions struct {
	// Consistent asks for a strongly consistent read (twice the read units
	// on DynamoDB). Default: eventually consistent.
	Consistent bool
	// Projection lists the document paths to return; empty means all
	// attributes.
	Projection []string
}

// Get returns the item with key k, or ErrNotFound if there is none.
func (t *Table) Get(ctx context.Context, k Key, o *GetOptions) (Item, error) {
	var opts GetOptions
	if o != nil {
		opts = *o
	}
	key, err := t.keyItem(k)
	if err != nil {
		return nil, err
	}
	x, err := exprs{projection: opts.Projection}.build()
	if err != nil {
		return nil, fmt.Errorf("table: cannot build projection: %w", err)
	}
	return t.get(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(t.schema.Name),
		Key:                      key,
		ConsistentRead:           aws.Bool(opts.Consistent),
		ProjectionExpression:     x.projection,
		ExpressionAttributeNames: x.names,
		ReturnConsumedCapacity:   types.ReturnConsumedCapacityTotal,
	})
}

// GetInto is Get followed by Unmarshal into out.
func (t *Table) GetInto(ctx context.Context, k Key, out any, o *GetOptions) error {
	it, err := t.Get(ctx, k, o)
	if err != nil {
		return err
	}
	return Unmarshal(it, out)
}

// getItem reads a whole item by its key attributes.
func (t *Table) getItem(ctx context.Context, key Item, consistent bool) (Item, error) {
	return t.get(ctx, &dynamodb.GetItemInput{
		TableName:              aws.String(t.schema.Name),
		Key:                    key,
		ConsistentRead:         aws.Bool(consistent),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
}

func (t *Table) get(ctx context.Context, in *dynamodb.GetItemInput) (Item, error) {
	out, err := send(ctx, t, "GetItem", t.api.GetItem, in)
	if err != nil {
		return nil, err
	}
	t.stats.consumed("GetItem", out.ConsumedCapacity)
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// PutOptions are the options of Put. The zero value is valid.
type PutOptions struct {
	// If is a condition the existing item (or its absence) must meet; the
	// zero Cond means none. Attr(hashKey).NotExists() makes Put a create.
	If Cond
}

// Put writes item, an Item or a value for attributevalue.MarshalMap,
// replacing any item with the same key, and returns the item it replaced
// (nil if none). With a failed o.If nothing is written and the error
// satisfies IsConditionFailed.
func (t *Table) Put(ctx context.Context, item any, o *PutOptions) (Item, error) {
	var opts PutOptions
	if o != nil {
		opts = *o
	}
	it, err := Marshal(item)
	if err != nil {
		return nil, err
	}
	x, err := buildCond(opts.If)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.PutItemInput{
		TableName:                 aws.String(t.schema.Name),
		Item:                      it,
		ConditionExpression:       x.cond,
		ExpressionAttributeNames:  x.names,
		ExpressionAttributeValues: x.values,
		ReturnValues:              types.ReturnValueAllOld,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	out, err := send(ctx, t, "PutItem", t.api.PutItem, in)
	if err != nil {
		return nil, err
	}
	t.stats.consumed("PutItem", out.ConsumedCapacity)
	return nilIfEmpty(out.Attributes), nil
}

// DeleteOptions are the options of Delete. The zero value is valid.
type DeleteOptions struct {
	// If is a condition the item must meet; the zero Cond means none.
	If Cond
}

// Delete removes the item with key k and returns it, or nil if there was
// none (deleting an absent item is not an error). With a failed o.If
// nothing is deleted and the error satisfies IsConditionFailed.
func (t *Table) Delete(ctx context.Context, k Key, o *DeleteOptions) (Item, error) {
	var opts DeleteOptions
	if o != nil {
		opts = *o
	}
	key, err := t.keyItem(k)
	if err != nil {
		return nil, err
	}
	x, err := buildCond(opts.If)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.DeleteItemInput{
		TableName:                 aws.String(t.schema.Name),
		Key:                       key,
		ConditionExpression:       x.cond,
		ExpressionAttributeNames:  x.names,
		ExpressionAttributeValues: x.values,
		ReturnValues:              types.ReturnValueAllOld,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	out, err := send(ctx, t, "DeleteItem", t.api.DeleteItem, in)
	if err != nil {
		return nil, err
	}
	t.stats.consumed("DeleteItem", out.ConsumedCapacity)
	return nilIfEmpty(out.Attributes), nil
}

func nilIfEmpty(it Item) Item {
	if len(it) == 0 {
		return nil
	}
	return it
}
