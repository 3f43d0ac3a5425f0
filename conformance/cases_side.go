package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Side APIs: tags, DescribeLimits and continuous backups. DynamoDB Local
// 3.3.0 has DescribeLimits only; it answers the tagging operations
// UnknownOperationException "Tagging is not currently supported in DynamoDB
// Local." and the backup operations "An unknown operation was requested.".
// Cases of those check that answer on DynamoDB Local and then skip; on
// every other backend they check Amazon DynamoDB's behaviour
// (docs/compat.md).

// SideAPI is the method set of the side operations: aws-sdk-go-v2's client
// has it, and so does the embedded engine.
type SideAPI interface {
	TagResource(ctx context.Context, in *dynamodb.TagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error)
	UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error)
	ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
	DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error)
	DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error)
	UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error)
}

var (
	_ SideAPI   = (*dynamodb.Client)(nil)
	_ absentAPI = (*dynamodb.Client)(nil)
)

// side returns the backend's side operations, failing the case when it
// has none.
func (h *H) side() SideAPI {
	h.t.Helper()
	s, ok := h.API.(SideAPI)
	if !ok {
		h.t.Fatalf("backend %T lacks the side operations (conformance.SideAPI)", h.API)
	}
	return s
}

// ddbLocalARN starts the ARN of every table of DynamoDB Local.
const ddbLocalARN = "arn:aws:dynamodb:ddblocal:"

// skipOnLocal skips the case when the backend is DynamoDB Local (its
// tables' ARNs say so) and err is its answer to an operation it lacks,
// with message msg. On other backends it does nothing.
func (h *H) skipOnLocal(arn string, err error, msg string) {
	h.t.Helper()
	if !strings.HasPrefix(arn, ddbLocalARN) {
		return
	}
	h.WantError(err, "UnknownOperationException", msg)
	h.t.Skipf("DynamoDB Local lacks the operation: %s", msg)
}

const (
	msgLocalNoTagging = "Tagging is not currently supported in DynamoDB Local."
	msgLocalUnknownOp = "An unknown operation was requested."
)

// tagTable creates a hash table with the given tags and returns its name
// and ARN.
func (h *H) tagTable(tags ...types.Tag) (string, string) {
	h.t.Helper()
	name := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), Tags: tags})
	return name, aws.ToString(h.Describe(name).TableArn)
}

func tags(kv ...string) []types.Tag {
	var ts []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		ts = append(ts, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return ts
}

// wantTags fails the case unless the table arn has exactly the tags kv
// (key, value, ...), in any order.
func (h *H) wantTags(arn string, kv ...string) {
	h.t.Helper()
	out, err := h.side().ListTagsOfResource(h.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	h.Must(err)
	got := map[string]string{}
	for _, t := range out.Tags {
		got[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		want[kv[i]] = kv[i+1]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(out.Tags) != len(want) {
		h.t.Fatalf("tags = %v, want %v", got, want)
	}
}

func (h *H) tagErr(arn string, ts []types.Tag) error {
	_, err := h.side().TagResource(h.Ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: ts})
	return err
}

func (h *H) untagErr(arn string, keys ...string) error {
	_, err := h.side().UntagResource(h.Ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: append([]string{}, keys...)})
	return err
}

func init() {
	register(
		Case{"Tags/CreateTagUntagList", func(t *testing.T, h *H) {
			_, arn := h.tagTable(tags("team", "blue", "env", "dev")...)
			_, err := h.side().ListTagsOfResource(h.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			h.skipOnLocal(arn, err, msgLocalNoTagging)
			h.Must(err)
			h.wantTags(arn, "team", "blue", "env", "dev")
			// TagResource adds new keys and overwrites existing ones.
			h.Must(h.tagErr(arn, tags("env", "prod", "cost center", "a+b-c=d.e_f:g/h@i", "ключ", "")))
			h.wantTags(arn, "team", "blue", "env", "prod", "cost center", "a+b-c=d.e_f:g/h@i", "ключ", "")
			// Removing keys the table does not have is no error.
			h.Must(h.untagErr(arn, "team", "nosuch", "ключ"))
			h.wantTags(arn, "env", "prod", "cost center", "a+b-c=d.e_f:g/h@i")
			h.Must(h.untagErr(arn, "env", "cost center", "a+b-c=d.e_f:g/h@i"))
			h.wantTags(arn)
		}},
		Case{"Tags/Validation", func(t *testing.T, h *H) {
			name, arn := h.tagTable(tags("keep", "me")...)
			h.skipOnLocal(arn, h.tagErr(arn, tags("a", "b")), msgLocalNoTagging)
			h.WantError(h.tagErr(arn, []types.Tag{}), "ValidationException", "Atleast one Tag needs to be provided as Input.")
			h.WantError(h.tagErr(arn+"/index/gsi", tags("a", "b")), "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input "+arn+"/index/gsi")
			h.WantError(h.tagErr(arn, tags("a%", "b")), "ValidationException", "The Tag Key provided is invalid, Key: a%")
			h.WantError(h.tagErr(arn, tags(strings.Repeat("k", 129), "b")), "ValidationException", "The Tag Key provided is invalid, Key: "+strings.Repeat("k", 129))
			h.WantError(h.tagErr(arn, tags("", "b")), "ValidationException", "The Tag Key provided is invalid, Key: ")
			h.WantError(h.tagErr(arn, tags("a", "b,c")), "ValidationException", "The Tag Value provided is invalid, Value: b,c")
			h.WantError(h.tagErr(arn, tags("a", strings.Repeat("v", 257))), "ValidationException", "The Tag Value provided is invalid, Value: "+strings.Repeat("v", 257))
			h.WantError(h.tagErr(arn, tags("ok", "1", "aws:zzz", "2")), "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:zzz")
			h.WantError(h.tagErr(arn, tags("dup", "1", "dup", "2")), "ValidationException", "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup")
			gone := strings.TrimSuffix(arn, name) + name + "_gone"
			h.WantError(h.tagErr(gone, tags("a", "b")), "ResourceNotFoundException", "Requested resource not found: ResourcArn: "+gone+" not found")
			h.WantError(h.untagErr(arn), "ValidationException", "Atleast one Tag Key needs to be provided as Input.")
			h.WantError(h.untagErr(arn, ""), "ValidationException", "The Tag Key provided is invalid, Key: ")
			many := make([]string, 51)
			for i := range many {
				many[i] = fmt.Sprint("k", i)
			}
			h.WantError(h.untagErr(arn, many...), "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn")
			// A refused request changes nothing (the first one, which
			// asked whether the backend has tags, added a=b).
			h.wantTags(arn, "keep", "me", "a", "b")
		}},
		Case{"Tags/FiftyPerTable", func(t *testing.T, h *H) {
			_, arn := h.tagTable()
			h.skipOnLocal(arn, h.tagErr(arn, tags("a", "b")), msgLocalNoTagging)
			kv := func(from, to int) []types.Tag {
				var ts []types.Tag
				for i := from; i < to; i++ {
					ts = append(ts, types.Tag{Key: aws.String(fmt.Sprint(i)), Value: aws.String(fmt.Sprint(i))})
				}
				return ts
			}
			h.Must(h.untagErr(arn, "a"))
			h.Must(h.tagErr(arn, kv(0, 30)))
			h.Must(h.tagErr(arn, kv(20, 50))) // 50 in all: 20-29 are overwritten
			h.WantError(h.tagErr(arn, kv(50, 51)), "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn")
			out, err := h.side().ListTagsOfResource(h.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			h.Must(err)
			if len(out.Tags) != 50 {
				t.Fatalf("%d tags, want 50", len(out.Tags))
			}
		}},
		Case{"Tags/DeletedWithTable", func(t *testing.T, h *H) {
			name, arn := h.tagTable(tags("old", "1")...)
			_, err := h.side().ListTagsOfResource(h.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			h.skipOnLocal(arn, err, msgLocalNoTagging)
			_, err = h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			h.Must(err)
			h.WantError(h.tagErr(arn, tags("a", "b")), "ResourceNotFoundException", "Requested resource not found: ResourcArn: "+arn+" not found")
			_, err = h.side().ListTagsOfResource(h.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			h.WantError(err, "ResourceNotFoundException", "")
			h.CreateTable(&dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			h.wantTags(arn)
		}},
		Case{"Tags/CreateTableRefusesBadTags", func(t *testing.T, h *H) {
			_, arn := h.tagTable()
			_, err := h.side().ListTagsOfResource(h.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			// DynamoDB Local ignores CreateTable's Tags, even invalid ones.
			h.skipOnLocal(arn, err, msgLocalNoTagging)
			name := h.TableName()
			err = h.createErr(&dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), Tags: tags("a", "b", "aws:x", "c")})
			h.WantError(err, "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x")
			_, err = h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			h.WantError(err, "ResourceNotFoundException", "")
		}},
		Case{"DescribeLimits/Defaults", func(t *testing.T, h *H) {
			out, err := h.side().DescribeLimits(h.Ctx, &dynamodb.DescribeLimitsInput{})
			h.Must(err)
			got := []int64{aws.ToInt64(out.AccountMaxReadCapacityUnits), aws.ToInt64(out.AccountMaxWriteCapacityUnits), aws.ToInt64(out.TableMaxReadCapacityUnits), aws.ToInt64(out.TableMaxWriteCapacityUnits)}
			if fmt.Sprint(got) != "[80000 80000 40000 40000]" {
				t.Fatalf("limits (account read, write, table read, write) = %v, want [80000 80000 40000 40000]", got)
			}
		}},
		Case{"ContinuousBackups/NoneOffered", func(t *testing.T, h *H) {
			name, arn := h.tagTable()
			s := h.side()
			out, err := s.DescribeContinuousBackups(h.Ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
			h.skipOnLocal(arn, err, msgLocalUnknownOp)
			h.Must(err)
			wantNoBackups(t, out.ContinuousBackupsDescription)
			out, err = s.DescribeContinuousBackups(h.Ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(arn)})
			h.Must(err)
			wantNoBackups(t, out.ContinuousBackupsDescription)
			_, err = s.DescribeContinuousBackups(h.Ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name + "_gone")})
			h.WantError(err, "TableNotFoundException", "Table not found: "+name+"_gone")

			enable := func(on bool, days *int32) error {
				_, err := s.UpdateContinuousBackups(h.Ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
					PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(on), RecoveryPeriodInDays: days}})
				return err
			}
			h.WantError(enable(true, nil), "ContinuousBackupsUnavailableException", "~Backups are not enabled for the table: "+name)
			h.WantError(enable(true, aws.Int32(36)), "ValidationException", "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")
			up, err := s.UpdateContinuousBackups(h.Ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
				PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
			h.Must(err)
			wantNoBackups(t, up.ContinuousBackupsDescription)
		}},
	)
}

func wantNoBackups(t *testing.T, d *types.ContinuousBackupsDescription) {
	t.Helper()
	if d == nil || d.ContinuousBackupsStatus != types.ContinuousBackupsStatusDisabled ||
		d.PointInTimeRecoveryDescription == nil || d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Fatalf("continuous backups %+v, want DISABLED with point in time recovery DISABLED", d)
	}
}

// absentAPI is the method set of the read-only operations about features
// the engine does not have (backups, exports, imports, global tables,
// Contributor Insights, Kinesis destinations, replica auto scaling).
type absentAPI interface {
	ListBackups(ctx context.Context, in *dynamodb.ListBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListBackupsOutput, error)
	ListExports(ctx context.Context, in *dynamodb.ListExportsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListExportsOutput, error)
	ListImports(ctx context.Context, in *dynamodb.ListImportsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListImportsOutput, error)
	ListGlobalTables(ctx context.Context, in *dynamodb.ListGlobalTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListGlobalTablesOutput, error)
	ListContributorInsights(ctx context.Context, in *dynamodb.ListContributorInsightsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListContributorInsightsOutput, error)
	DescribeContributorInsights(ctx context.Context, in *dynamodb.DescribeContributorInsightsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContributorInsightsOutput, error)
	DescribeKinesisStreamingDestination(ctx context.Context, in *dynamodb.DescribeKinesisStreamingDestinationInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeKinesisStreamingDestinationOutput, error)
	DescribeTableReplicaAutoScaling(ctx context.Context, in *dynamodb.DescribeTableReplicaAutoScalingInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableReplicaAutoScalingOutput, error)
}

func init() {
	register(Case{"SideAPIs/AbsentFeaturesAreEmpty", func(t *testing.T, h *H) {
		a, ok := h.API.(absentAPI)
		if !ok {
			t.Fatalf("backend %T lacks the read-only side operations", h.API)
		}
		tbl := h.HashTableByG()
		arn := aws.ToString(h.Describe(tbl).TableArn)
		backups, err := a.ListBackups(h.Ctx, &dynamodb.ListBackupsInput{TableName: aws.String(tbl)})
		h.skipOnLocal(arn, err, msgLocalUnknownOp)
		h.Must(err)
		exports, err := a.ListExports(h.Ctx, &dynamodb.ListExportsInput{TableArn: aws.String(arn)})
		h.Must(err)
		imports, err := a.ListImports(h.Ctx, &dynamodb.ListImportsInput{TableArn: aws.String(arn)})
		h.Must(err)
		globals, err := a.ListGlobalTables(h.Ctx, &dynamodb.ListGlobalTablesInput{})
		h.Must(err)
		insights, err := a.ListContributorInsights(h.Ctx, &dynamodb.ListContributorInsightsInput{TableName: aws.String(tbl)})
		h.Must(err)
		if n := len(backups.BackupSummaries) + len(exports.ExportSummaries) + len(imports.ImportSummaryList) + len(globals.GlobalTables) + len(insights.ContributorInsightsSummaries); n != 0 {
			t.Fatalf("%d backups, exports, imports, global tables or insights, want none", n)
		}
		_, err = a.ListBackups(h.Ctx, &dynamodb.ListBackupsInput{Limit: aws.Int32(0)})
		h.WantError(err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")

		for _, ix := range []*string{nil, aws.String("by_g")} {
			ci, err := a.DescribeContributorInsights(h.Ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(tbl), IndexName: ix})
			h.Must(err)
			if ci.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || aws.ToString(ci.TableName) != tbl || aws.ToString(ci.IndexName) != aws.ToString(ix) {
				t.Fatalf("contributor insights %s %v: %s", tbl, aws.ToString(ix), ci.ContributorInsightsStatus)
			}
		}
		_, err = a.DescribeContributorInsights(h.Ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(tbl), IndexName: aws.String("nope")})
		h.WantError(err, "ResourceNotFoundException", "")
		_, err = a.DescribeContributorInsights(h.Ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(tbl + "_gone")})
		h.WantError(err, "ResourceNotFoundException", "")

		kin, err := a.DescribeKinesisStreamingDestination(h.Ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(tbl)})
		h.Must(err)
		if aws.ToString(kin.TableName) != tbl || len(kin.KinesisDataStreamDestinations) != 0 {
			t.Fatalf("kinesis destinations of %s: %v", aws.ToString(kin.TableName), kin.KinesisDataStreamDestinations)
		}
		as, err := a.DescribeTableReplicaAutoScaling(h.Ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String(tbl)})
		h.Must(err)
		if d := as.TableAutoScalingDescription; d == nil || aws.ToString(d.TableName) != tbl || d.TableStatus != types.TableStatusActive || len(d.Replicas) != 0 {
			t.Fatalf("replica auto scaling %+v", d)
		}
	}})
}
