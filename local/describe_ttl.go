package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DescribeTimeToLive reports whether TTL is enabled on a table and on which
// attribute.
func (db *DB) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return tableRun(db, "DescribeTimeToLive", in.TableName, in, db.describeTTL)
}

func (db *DB) describeTTL(t *table, in *dynamodb.DescribeTimeToLiveInput) (*dynamodb.DescribeTimeToLiveOutput, error) {
	m := t.m()
	d := &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}
	if m.TTLAttr != "" {
		d.TimeToLiveStatus = types.TimeToLiveStatusEnabled
		d.AttributeName = aws.String(m.TTLAttr)
	}
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}
