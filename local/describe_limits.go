package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Provisioned-capacity quotas DescribeLimits reports: Amazon DynamoDB's
// default quotas per Region, which DynamoDB Local reports too. The engine
// records provisioned throughput but never throttles, so they bound
// nothing here.
const (
	accountMaxCapacityUnits = 80000
	tableMaxCapacityUnits   = 40000
)

// DescribeLimits reports the provisioned-capacity quotas of the account
// and of one table, as DynamoDB Local does: DynamoDB's defaults.
func (db *DB) DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error) {
	return operation(db, "DescribeLimits", func() (*dynamodb.DescribeLimitsOutput, error) {
		return &dynamodb.DescribeLimitsOutput{
			AccountMaxReadCapacityUnits:  aws.Int64(accountMaxCapacityUnits),
			AccountMaxWriteCapacityUnits: aws.Int64(accountMaxCapacityUnits),
			TableMaxReadCapacityUnits:    aws.Int64(tableMaxCapacityUnits),
			TableMaxWriteCapacityUnits:   aws.Int64(tableMaxCapacityUnits),
		}, nil
	})
}
