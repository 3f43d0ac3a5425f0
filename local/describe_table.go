package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// DescribeTable returns the description of a table. ItemCount,
// TableSizeBytes and the index counterparts are exact: they are computed by
// reading the table (DynamoDB refreshes them about every six hours).
func (db *DB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return operation(db, "DescribeTable", func() (*dynamodb.DescribeTableOutput, error) {
		return db.describeTable(in)
	})
}

func (db *DB) describeTable(in *dynamodb.DescribeTableInput) (*dynamodb.DescribeTableOutput, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t, err := db.table(*in.TableName)
	if err != nil {
		return nil, err
	}
	m := t.m()
	st, err := db.stats(m)
	if err != nil {
		return nil, err
	}
	return &dynamodb.DescribeTableOutput{Table: db.describe(m, st)}, nil
}
