package local

import (
	"context"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ListTables lists table names in ascending order, at most Limit (1 to 100,
// default 100) of them after ExclusiveStartTableName. LastEvaluatedTableName
// is set when the page is full, as DynamoDB does.
func (db *DB) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return run(ctx, db, "ListTables", in, db.listTables)
}

func (db *DB) listTables(_ context.Context, in *dynamodb.ListTablesInput) (*dynamodb.ListTablesOutput, error) {
	limit := 100
	if in.Limit != nil {
		switch l := int(*in.Limit); {
		case l < 1:
			return nil, validationError("Limit must be greater than or equal to 1")
		case l > 100:
			return nil, validationError("Limit in ListTables must be <= 100")
		default:
			limit = l
		}
	}
	start := ""
	if in.ExclusiveStartTableName != nil {
		start = *in.ExclusiveStartTableName
		if !validName(start) {
			return nil, validationError(msgTableName)
		}
	}
	db.catMu.RLock()
	names := make([]string, 0, len(db.tables))
	for n := range db.tables {
		if n > start {
			names = append(names, n)
		}
	}
	db.catMu.RUnlock()
	sort.Strings(names)
	out := &dynamodb.ListTablesOutput{TableNames: names}
	if len(names) >= limit {
		out.TableNames = names[:limit]
		out.LastEvaluatedTableName = aws.String(names[limit-1])
	}
	return out, nil
}
