package local

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Continuous backups. The engine keeps no backups: no on-demand backups
// (CreateBackup), no point-in-time recovery. DescribeContinuousBackups says
// so (ContinuousBackupsStatus and PointInTimeRecoveryStatus DISABLED, where
// Amazon DynamoDB reports continuous backups ENABLED on every table), and
// UpdateContinuousBackups refuses to enable point-in-time recovery with
// ContinuousBackupsUnavailableException, DynamoDB's answer for a table
// whose backups are not enabled. Disabling it, which it is, succeeds.
// DynamoDB Local 3.3.0 answers both operations UnknownOperationException.

// DescribeContinuousBackups describes the backups of a table: none.
// TableName may be the table's name or its ARN; a table that does not exist
// is a TableNotFoundException, as DynamoDB answers.
func (db *DB) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return operation(db, "DescribeContinuousBackups", func() (*dynamodb.DescribeContinuousBackupsOutput, error) {
		if _, err := db.backupTable(in.TableName); err != nil {
			return nil, err
		}
		return &dynamodb.DescribeContinuousBackupsOutput{ContinuousBackupsDescription: noBackups()}, nil
	})
}

// UpdateContinuousBackups enables or disables point-in-time recovery. The
// engine has none: enabling it is a ContinuousBackupsUnavailableException,
// disabling it answers the (disabled) description.
func (db *DB) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return operation(db, "UpdateContinuousBackups", func() (*dynamodb.UpdateContinuousBackupsOutput, error) {
		spec := in.PointInTimeRecoverySpecification
		switch {
		case spec == nil:
			return nil, validationError("1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null")
		case spec.PointInTimeRecoveryEnabled == nil:
			return nil, validationError("1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
		case spec.RecoveryPeriodInDays != nil && *spec.RecoveryPeriodInDays < 1:
			return nil, validationf("1 validation error detected: Value '%d' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value greater than or equal to 1", *spec.RecoveryPeriodInDays)
		case spec.RecoveryPeriodInDays != nil && *spec.RecoveryPeriodInDays > 35:
			return nil, validationf("1 validation error detected: Value '%d' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35", *spec.RecoveryPeriodInDays)
		}
		name, err := db.backupTable(in.TableName)
		if err != nil {
			return nil, err
		}
		if *spec.PointInTimeRecoveryEnabled {
			return nil, &types.ContinuousBackupsUnavailableException{Message: aws.String(
				"Backups are not enabled for the table: " + name + ". The timetable engine keeps no backups, so point in time recovery cannot be enabled")}
		}
		return &dynamodb.UpdateContinuousBackupsOutput{ContinuousBackupsDescription: noBackups()}, nil
	})
}

// backupTable returns the name of the table that TableName names (by name
// or ARN) when it exists, and otherwise the error DynamoDB's backup
// operations give.
func (db *DB) backupTable(name *string) (string, error) {
	if name == nil {
		return "", validationError("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}
	n := *name
	if strings.HasPrefix(n, "arn:") {
		var err error
		if n, err = tableOfARN(n); err != nil {
			return "", err
		}
	} else if !validName(n) {
		return "", validationError(msgTableName)
	}
	if _, err := db.table(n); err != nil {
		return "", &types.TableNotFoundException{Message: aws.String("Table not found: " + n)}
	}
	return n, nil
}

func noBackups() *types.ContinuousBackupsDescription {
	return &types.ContinuousBackupsDescription{
		ContinuousBackupsStatus: types.ContinuousBackupsStatusDisabled,
		PointInTimeRecoveryDescription: &types.PointInTimeRecoveryDescription{
			PointInTimeRecoveryStatus: types.PointInTimeRecoveryStatusDisabled,
		},
	}
}
