package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// GetItem reads one item. An absent item yields an output whose Item is nil.
// Reads are always strongly consistent; ConsistentRead only changes the
// capacity reported. Items whose TTL has passed are returned until the
// sweeper deletes them, as in DynamoDB.
func (db *DB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return tableRun(db, "GetItem", in.TableName, in, db.getItem)
}

func (db *DB) getItem(t *table, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	m := t.m()
	proj, err := m.readProjection(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames)
	if err != nil {
		return nil, err
	}
	k, err := m.keyFromMap(in.Key)
	if err != nil {
		return nil, err
	}
	item, err := db.getRaw(k.key)
	if err != nil {
		return nil, err
	}
	out := &dynamodb.GetItemOutput{}
	u := &usage{table: m.Name, read: true}
	size := 0
	if item != nil {
		size = itemSize(item)
		out.Item = proj.apply(item)
	}
	u.units = readUnits(size, aws.ToBool(in.ConsistentRead))
	out.ConsumedCapacity = u.consumed(in.ReturnConsumedCapacity)
	return out, nil
}
