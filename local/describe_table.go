package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// DescribeTable returns the description of a table. ItemCount,
// TableSizeBytes and the index counterparts are exact: they are computed by
// reading the table (DynamoDB refreshes them about every six hours).
func (db *DB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return tableRun(db, "DescribeTable", in.TableName, in, db.describeTable)
}

func (db *DB) describeTable(t *table, in *dynamodb.DescribeTableInput) (*dynamodb.DescribeTableOutput, error) {
	m := t.m()
	st, err := db.stats(m)
	if err != nil {
		return nil, err
	}
	return &dynamodb.DescribeTableOutput{Table: db.describe(m, st)}, nil
}
