package local_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/local"
)

// The engine has the side operations the conformance cases call.
var _ conformance.SideAPI = (*local.DB)(nil)

func tableARN(t testing.TB, db *local.DB, name string) string {
	t.Helper()
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Table.TableArn)
}

func listTags(t testing.TB, db *local.DB, arn string) string {
	t.Helper()
	out, err := db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	s := ""
	for _, tg := range out.Tags {
		s += fmt.Sprintf("%s=%s;", aws.ToString(tg.Key), aws.ToString(tg.Value))
	}
	return s
}

// Tags are kept with the table's description: they survive a restart, and
// a table created again under the name of a deleted one has none.
func TestTags_SurviveRestartAndGoWithTable(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tagged", "", func(in *dynamodb.CreateTableInput) {
		in.Tags = []types.Tag{{Key: aws.String("b"), Value: aws.String("2")}}
	})
	arn := tableARN(t, db, "tagged")
	if _, err := db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("1")}}}); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dir)
	if got := listTags(t, db, arn); got != "a=1;b=2;" {
		t.Fatalf("tags after restart = %q, want a=1;b=2;", got)
	}
	// Another region and account name the same table.
	if got := listTags(t, db, "arn:aws:dynamodb:us-east-1:123456789012:table/tagged"); got != "a=1;b=2;" {
		t.Fatalf("tags by another ARN = %q", got)
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tagged")}); err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tagged", "")
	if got := listTags(t, db, arn); got != "" {
		t.Fatalf("tags of the new table = %q, want none", got)
	}
}

// The checks of absent members, which the SDK client makes before sending
// (so the conformance cases cannot), answer DynamoDB's words.
func TestTags_AbsentMembers(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tagged", "")
	arn := tableARN(t, db, "tagged")
	_, err := db.TagResource(ctx, &dynamodb.TagResourceInput{Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("1")}}})
	wantAPIError(t, err, "ValidationException", "Invalid TableArn")
	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("a")}}})
	wantAPIError(t, err, "ValidationException", "The Tag Value provided is invalid, Value: null")
	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Value: aws.String("a")}}})
	wantAPIError(t, err, "ValidationException", "The Tag Key provided is invalid, Key: null")
	_, err = db.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null")
	_, err = db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{})
	wantAPIError(t, err, "ValidationException", "Invalid TableArn")
	for _, bad := range []string{"", "tagged", "arn:aws:dynamodb:r:1:table/", "arn:aws:dynamodb:r:x:table/tagged", "arn:aws:s3:r:1:table/tagged", "arn:aws:dynamodb:r:1:index/tagged", "arn:aws:dynamodb::1:table/tagged"} {
		_, err = db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(bad)})
		wantAPIError(t, err, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input "+bad)
	}
	_, err = db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("tagged")})
	wantAPIError(t, err, "ValidationException", "Value null at 'pointInTimeRecoverySpecification' failed")
	_, err = db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("tagged"), PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{}})
	wantAPIError(t, err, "ValidationException", "Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed")
	_, err = db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{})
	wantAPIError(t, err, "ValidationException", "Value null at 'tableName'")
}
