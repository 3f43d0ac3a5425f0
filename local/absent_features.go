package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Read-only operations about features the engine does not have: backups,
// exports, imports, global tables, Contributor Insights, Kinesis streaming
// destinations and replica auto scaling. Tools (consoles, infrastructure
// tools that read a table's whole state) call them on every table; each
// answers what is true here, that there is none, in DynamoDB's shape. The
// operations that would create or enable such a feature are not served
// (UnknownOperationException, as from DynamoDB Local, which serves none of
// these). docs/compat.md lists them.

// ListBackups lists the table's backups, or the account's: there are none.
// A TableName, when given, must be a valid table name.
func (db *DB) ListBackups(ctx context.Context, in *dynamodb.ListBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListBackupsOutput, error) {
	return operation(db, "ListBackups", func() (*dynamodb.ListBackupsOutput, error) {
		if in.TableName != nil && !validName(*in.TableName) {
			return nil, validationError(msgTableName)
		}
		if err := checkListLimit("limit", in.Limit, 1, 100); err != nil {
			return nil, err
		}
		return &dynamodb.ListBackupsOutput{BackupSummaries: []types.BackupSummary{}}, nil
	})
}

// ListExports lists exports to S3: there are none.
func (db *DB) ListExports(ctx context.Context, in *dynamodb.ListExportsInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListExportsOutput, error) {
	return operation(db, "ListExports", func() (*dynamodb.ListExportsOutput, error) {
		if err := checkListLimit("maxResults", in.MaxResults, 1, 25); err != nil {
			return nil, err
		}
		return &dynamodb.ListExportsOutput{ExportSummaries: []types.ExportSummary{}}, nil
	})
}

// ListImports lists imports from S3: there are none.
func (db *DB) ListImports(ctx context.Context, in *dynamodb.ListImportsInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListImportsOutput, error) {
	return operation(db, "ListImports", func() (*dynamodb.ListImportsOutput, error) {
		if err := checkListLimit("pageSize", in.PageSize, 1, 25); err != nil {
			return nil, err
		}
		return &dynamodb.ListImportsOutput{ImportSummaryList: []types.ImportSummary{}}, nil
	})
}

// ListGlobalTables lists global tables (of the 2017 version): there are
// none.
func (db *DB) ListGlobalTables(ctx context.Context, in *dynamodb.ListGlobalTablesInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListGlobalTablesOutput, error) {
	return operation(db, "ListGlobalTables", func() (*dynamodb.ListGlobalTablesOutput, error) {
		if err := checkListLimit("limit", in.Limit, 1, 100); err != nil {
			return nil, err
		}
		return &dynamodb.ListGlobalTablesOutput{GlobalTables: []types.GlobalTable{}}, nil
	})
}

// ListContributorInsights lists the tables and indexes with Contributor
// Insights: there are none. A TableName, when given, must name a table.
func (db *DB) ListContributorInsights(ctx context.Context, in *dynamodb.ListContributorInsightsInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListContributorInsightsOutput, error) {
	return operation(db, "ListContributorInsights", func() (*dynamodb.ListContributorInsightsOutput, error) {
		if in.TableName != nil {
			if _, err := db.namedTable(in.TableName); err != nil {
				return nil, err
			}
		}
		if in.MaxResults < 0 || in.MaxResults > 100 {
			return nil, validationf("1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100", in.MaxResults)
		}
		return &dynamodb.ListContributorInsightsOutput{ContributorInsightsSummaries: []types.ContributorInsightsSummary{}}, nil
	})
}

// DescribeContributorInsights describes Contributor Insights of a table or
// of one of its indexes: DISABLED. A missing table or index is a
// ResourceNotFoundException.
func (db *DB) DescribeContributorInsights(ctx context.Context, in *dynamodb.DescribeContributorInsightsInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeContributorInsightsOutput, error) {
	return tableOperation(db, "DescribeContributorInsights", in.TableName, func(t *table) (*dynamodb.DescribeContributorInsightsOutput, error) {
		if in.IndexName != nil && t.m().index(*in.IndexName) == nil {
			return nil, notFound("Requested resource not found")
		}
		return &dynamodb.DescribeContributorInsightsOutput{
			TableName:                 in.TableName,
			IndexName:                 in.IndexName,
			ContributorInsightsStatus: types.ContributorInsightsStatusDisabled,
		}, nil
	})
}

// DescribeKinesisStreamingDestination lists the table's Kinesis data stream
// destinations: none.
func (db *DB) DescribeKinesisStreamingDestination(ctx context.Context, in *dynamodb.DescribeKinesisStreamingDestinationInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeKinesisStreamingDestinationOutput, error) {
	return tableOperation(db, "DescribeKinesisStreamingDestination", in.TableName, func(t *table) (*dynamodb.DescribeKinesisStreamingDestinationOutput, error) {
		return &dynamodb.DescribeKinesisStreamingDestinationOutput{
			TableName:                     aws.String(t.m().Name),
			KinesisDataStreamDestinations: []types.KinesisDataStreamDestination{},
		}, nil
	})
}

// DescribeTableReplicaAutoScaling describes the auto scaling of a global
// table's replicas: the table is no global table and has no replicas.
func (db *DB) DescribeTableReplicaAutoScaling(ctx context.Context, in *dynamodb.DescribeTableReplicaAutoScalingInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableReplicaAutoScalingOutput, error) {
	return tableOperation(db, "DescribeTableReplicaAutoScaling", in.TableName, func(t *table) (*dynamodb.DescribeTableReplicaAutoScalingOutput, error) {
		return &dynamodb.DescribeTableReplicaAutoScalingOutput{TableAutoScalingDescription: &types.TableAutoScalingDescription{
			TableName:   aws.String(t.m().Name),
			TableStatus: types.TableStatusActive,
			Replicas:    []types.ReplicaAutoScalingDescription{},
		}}, nil
	})
}

// checkListLimit checks an optional page size against its bounds, with
// DynamoDB's words for the member named member.
func checkListLimit(member string, v *int32, lo, hi int32) error {
	switch {
	case v == nil:
		return nil
	case *v < lo:
		return validationf("1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value greater than or equal to %d", *v, member, lo)
	case *v > hi:
		return validationf("1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value less than or equal to %d", *v, member, hi)
	}
	return nil
}
