package local_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

func withStream(view types.StreamViewType) func(*dynamodb.CreateTableInput) {
	return func(in *dynamodb.CreateTableInput) {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}
	}
}

// streamOf returns the ARN and first shard's id of the latest stream of a
// table.
func streamOf(t testing.TB, db *local.DB, table string) (arn, shard string) {
	t.Helper()
	arn, shards := shardsOf(t, db, table)
	return arn, aws.ToString(shards[0].ShardId)
}

// shardsOf returns the ARN and the shards of the latest stream of a table.
func shardsOf(t testing.TB, db *local.DB, table string) (string, []st.Shard) {
	t.Helper()
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(d.Table.LatestStreamArn)
	if arn == "" {
		t.Fatalf("table %s has no stream", table)
	}
	var shards []st.Shard
	var start *string
	for {
		sd, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start})
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, sd.StreamDescription.Shards...)
		if start = sd.StreamDescription.LastEvaluatedShardId; start == nil {
			break
		}
	}
	if len(shards) == 0 {
		t.Fatalf("stream %s has no shard", arn)
	}
	return arn, shards
}

func iterator(t testing.TB, db *local.DB, arn, shard string, typ st.ShardIteratorType, seq string) string {
	t.Helper()
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := db.GetShardIterator(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.ShardIterator)
}

// readAll reads the shards of a table's stream, oldest first, each from
// TRIM_HORIZON to its current end.
func readAll(t testing.TB, db *local.DB, table string) []st.Record {
	t.Helper()
	arn, shards := shardsOf(t, db, table)
	var all []st.Record
	for _, sh := range shards {
		all = append(all, readFrom(t, db, iterator(t, db, arn, aws.ToString(sh.ShardId), st.ShardIteratorTypeTrimHorizon, ""))...)
	}
	return all
}

func readFrom(t testing.TB, db *local.DB, it string) []st.Record {
	t.Helper()
	var all []st.Record
	for it != "" {
		out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(2)})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out.Records...)
		if len(out.Records) == 0 {
			break
		}
		it = aws.ToString(out.NextShardIterator)
	}
	return all
}

// summary renders records as "EVENT key new old" lines.
func summary(t testing.TB, recs []st.Record) string {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s %s new=%s old=%s\n", r.EventName, renderStream(t, r.Dynamodb.Keys),
			renderStream(t, r.Dynamodb.NewImage), renderStream(t, r.Dynamodb.OldImage))
	}
	return b.String()
}

func renderStream(t testing.TB, m map[string]st.AttributeValue) string {
	t.Helper()
	if m == nil {
		return "-"
	}
	names := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(names))
	for i, k := range names {
		switch v := m[k].(type) {
		case *st.AttributeValueMemberS:
			parts[i] = fmt.Sprintf("%s: %q", k, v.Value)
		case *st.AttributeValueMemberN:
			parts[i] = fmt.Sprintf("%s: %s", k, v.Value)
		default:
			t.Fatalf("unexpected value %T", v)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func TestStreams_RecordsOnlyChanges(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeNewAndOldImages))
	put(t, db, "tbl", attrs("pk", s("a"), "v", s("x")))
	put(t, db, "tbl", attrs("pk", s("a"), "v", s("x"))) // no change: no record
	update := func(v string) {
		t.Helper()
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String("tbl"), Key: attrs("pk", s("a")), UpdateExpression: aws.String("SET v = :v"),
			ExpressionAttributeValues: attrs(":v", s(v)),
		}); err != nil {
			t.Fatal(err)
		}
	}
	update("x") // no change
	update("y")
	// A failed conditional write leaves no record.
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a"), "v", s("z")),
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("conditional put: %v", err)
	}
	for range 2 { // the second deletes nothing: no record
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a"))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {
		{PutRequest: &types.PutRequest{Item: attrs("pk", s("b"))}},
		{PutRequest: &types.PutRequest{Item: attrs("pk", s("c"))}},
	}}}); err != nil {
		t.Fatal(err)
	}
	// A canceled transaction writes no record; a committed one writes one
	// per changed item.
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: attrs("pk", s("d"))}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("tbl"), Key: attrs("pk", s("b")), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("transaction: %v", err)
	}
	if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: attrs("pk", s("d"))}},
		{Delete: &types.Delete{TableName: aws.String("tbl"), Key: attrs("pk", s("c"))}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("tbl"), Key: attrs("pk", s("b")), ConditionExpression: aws.String("attribute_exists(pk)")}},
	}}); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, db, "tbl")
	want := `INSERT {pk: "a"} new={pk: "a", v: "x"} old=-
MODIFY {pk: "a"} new={pk: "a", v: "y"} old={pk: "a", v: "x"}
REMOVE {pk: "a"} new=- old={pk: "a", v: "y"}
INSERT {pk: "b"} new={pk: "b"} old=-
INSERT {pk: "c"} new={pk: "c"} old=-
INSERT {pk: "d"} new={pk: "d"} old=-
REMOVE {pk: "c"} new=- old={pk: "c"}
`
	if got := summary(t, recs); got != want {
		t.Fatalf("records:\n%s\nwant:\n%s", got, want)
	}
	var prev string
	for _, r := range recs {
		seq := aws.ToString(r.Dynamodb.SequenceNumber)
		if len(seq) != 21 || seq <= prev {
			t.Fatalf("sequence number %q after %q", seq, prev)
		}
		prev = seq
		if aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.EventVersion) != "1.1" ||
			r.Dynamodb.StreamViewType != st.StreamViewTypeNewAndOldImages || r.UserIdentity != nil || r.Dynamodb.ApproximateCreationDateTime == nil {
			t.Fatalf("record %+v", r)
		}
	}
	// SizeBytes is the size of the keys and images: {pk: "a"} is 3 bytes,
	// {pk: "a", v: "x"} 5.
	if got := []int64{*recs[0].Dynamodb.SizeBytes, *recs[1].Dynamodb.SizeBytes, *recs[2].Dynamodb.SizeBytes}; got[0] != 8 || got[1] != 13 || got[2] != 8 {
		t.Fatalf("SizeBytes = %v, want [8 13 8]", got)
	}
}

func TestStreams_ViewTypes(t *testing.T) {
	for view, want := range map[types.StreamViewType]string{
		types.StreamViewTypeKeysOnly:        "INSERT {pk: \"a\"} new=- old=-\nMODIFY {pk: \"a\"} new=- old=-\nREMOVE {pk: \"a\"} new=- old=-\n",
		types.StreamViewTypeNewImage:        "INSERT {pk: \"a\"} new={n: 1, pk: \"a\"} old=-\nMODIFY {pk: \"a\"} new={n: 2, pk: \"a\"} old=-\nREMOVE {pk: \"a\"} new=- old=-\n",
		types.StreamViewTypeOldImage:        "INSERT {pk: \"a\"} new=- old=-\nMODIFY {pk: \"a\"} new=- old={n: 1, pk: \"a\"}\nREMOVE {pk: \"a\"} new=- old={n: 2, pk: \"a\"}\n",
		types.StreamViewTypeNewAndOldImages: "INSERT {pk: \"a\"} new={n: 1, pk: \"a\"} old=-\nMODIFY {pk: \"a\"} new={n: 2, pk: \"a\"} old={n: 1, pk: \"a\"}\nREMOVE {pk: \"a\"} new=- old={n: 2, pk: \"a\"}\n",
	} {
		t.Run(string(view), func(t *testing.T) {
			db := openMem(t, nil)
			createTable(t, db, "tbl", "", withStream(view))
			put(t, db, "tbl", attrs("pk", s("a"), "n", n("1")))
			put(t, db, "tbl", attrs("pk", s("a"), "n", n("2")))
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a"))}); err != nil {
				t.Fatal(err)
			}
			recs := readAll(t, db, "tbl")
			if got := summary(t, recs); got != want {
				t.Fatalf("records:\n%s\nwant:\n%s", got, want)
			}
			for _, r := range recs {
				if r.Dynamodb.StreamViewType != st.StreamViewType(view) {
					t.Fatalf("StreamViewType = %s", r.Dynamodb.StreamViewType)
				}
			}
		})
	}
}

func TestStreams_Iterators(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	arn, shard := streamOf(t, db, "tbl")
	latest := iterator(t, db, arn, shard, st.ShardIteratorTypeLatest, "")
	for i := range 5 {
		put(t, db, "tbl", attrs("pk", s(fmt.Sprint(i))))
	}
	all := readAll(t, db, "tbl")
	if len(all) != 5 {
		t.Fatalf("records = %d", len(all))
	}
	// LATEST taken before the writes reads them all.
	if got := readFrom(t, db, latest); len(got) != 5 {
		t.Fatalf("from LATEST: %d records", len(got))
	}
	seq2 := aws.ToString(all[2].Dynamodb.SequenceNumber)
	at := readFrom(t, db, iterator(t, db, arn, shard, st.ShardIteratorTypeAtSequenceNumber, seq2))
	after := readFrom(t, db, iterator(t, db, arn, shard, st.ShardIteratorTypeAfterSequenceNumber, seq2))
	if len(at) != 3 || len(after) != 2 || aws.ToString(at[0].Dynamodb.SequenceNumber) != seq2 {
		t.Fatalf("AT: %d records, AFTER: %d", len(at), len(after))
	}
	// LATEST now reads nothing, and an empty answer still carries an
	// iterator on an open shard.
	out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iterator(t, db, arn, shard, st.ShardIteratorTypeLatest, ""))})
	if err != nil || len(out.Records) != 0 || out.NextShardIterator == nil {
		t.Fatalf("from LATEST after the writes: %v, %v", out, err)
	}
	// AT_TIMESTAMP at the first record's time reads them all.
	ts, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: st.ShardIteratorTypeAtTimestamp, Timestamp: all[0].Dynamodb.ApproximateCreationDateTime})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFrom(t, db, aws.ToString(ts.ShardIterator)); len(got) != 5 {
		t.Fatalf("from AT_TIMESTAMP: %d records", len(got))
	}
}

// apiCode returns the error code of err, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func TestStreams_Errors(t *testing.T) {
	clk := testenv.NewClock(time.Unix(1_700_000_000, 0))
	db := openMem(t, &local.Options{Now: clk.Now, TTLInterval: -1})
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	arn, shard := streamOf(t, db, "tbl")
	it := iterator(t, db, arn, shard, st.ShardIteratorTypeTrimHorizon, "")
	get := func(it string) error {
		_, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
		return err
	}
	for _, bad := range []string{"", "garbage", arn + "|001|Zm9v", it + "x", strings.Replace(it, "|001|", "|002|", 1)} {
		if err := get(bad); apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), "Invalid ShardIterator") {
			t.Errorf("GetRecords(%q) = %v", bad, err)
		}
	}
	if err := get(strings.Replace(it, "tbl/stream", "tbx/stream", 1)); apiCode(err) != "ResourceNotFoundException" {
		t.Errorf("iterator of another stream: %v", err)
	}
	clk.Advance(16 * time.Minute)
	var exp *st.ExpiredIteratorException
	if err := get(it); !errors.As(err, &exp) {
		t.Errorf("expired iterator: %v", err)
	}
	_, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "x")})
	var rnf *st.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("DescribeStream of an unknown ARN: %v", err)
	}
	var oe *smithy.OperationError
	if !errors.As(err, &oe) || oe.Service() != "DynamoDB Streams" || oe.Operation() != "DescribeStream" {
		t.Errorf("error not wrapped as the streams client's: %v", err)
	}
	_, err = db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard + "0"), ShardIteratorType: st.ShardIteratorTypeLatest})
	if !errors.As(err, &rnf) {
		t.Errorf("GetShardIterator of an unknown shard: %v", err)
	}
	// After the largest sequence number there is nothing (no wrap to 0).
	put(t, db, "tbl", attrs("pk", s("a")))
	clk.Advance(-16 * time.Minute)
	if recs := readFrom(t, db, iterator(t, db, arn, shard, st.ShardIteratorTypeAfterSequenceNumber, "018446744073709551615")); len(recs) != 0 {
		t.Errorf("after the largest sequence number: %d records", len(recs))
	}
	_, err = db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String("018446744073709551616")})
	if apiCode(err) != "ValidationException" {
		t.Errorf("a sequence number past uint64: %v", err)
	}
}

func TestStreams_DisableReenableDelete(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	arn1, shard1 := streamOf(t, db, "tbl")
	put(t, db, "tbl", attrs("pk", s("a")))
	it := iterator(t, db, arn1, shard1, st.ShardIteratorTypeTrimHorizon, "")
	setStream := func(spec *types.StreamSpecification) error {
		_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), StreamSpecification: spec})
		return err
	}
	if err := setStream(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}); apiCode(err) != "ValidationException" {
		t.Fatalf("enable twice: %v", err)
	}
	if err := setStream(&types.StreamSpecification{StreamEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	put(t, db, "tbl", attrs("pk", s("b"))) // not recorded
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil || d.Table.StreamSpecification != nil || aws.ToString(d.Table.LatestStreamArn) != arn1 {
		t.Fatalf("described after disabling: %+v %v", d.Table.StreamSpecification, err)
	}
	sd, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn1)})
	if err != nil || sd.StreamDescription.StreamStatus != st.StreamStatusDisabled || sd.StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("disabled stream: %+v %v", sd, err)
	}
	// The closed shard reads to its end, then has no next iterator.
	out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
	if err != nil || len(out.Records) != 1 || out.NextShardIterator != nil {
		t.Fatalf("closed shard: %+v %v", out, err)
	}
	if err := setStream(&types.StreamSpecification{StreamEnabled: aws.Bool(false)}); apiCode(err) != "ValidationException" {
		t.Fatalf("disable twice: %v", err)
	}
	if err := setStream(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}); err != nil {
		t.Fatal(err)
	}
	arn2, _ := streamOf(t, db, "tbl")
	if arn2 == arn1 {
		t.Fatal("re-enabled stream has the old ARN")
	}
	put(t, db, "tbl", attrs("pk", s("c")))
	if got := summary(t, readAll(t, db, "tbl")); got != "INSERT {pk: \"c\"} new={pk: \"c\"} old=-\n" {
		t.Fatalf("new stream: %s", got)
	}
	ls, err := db.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("tbl")})
	if err != nil || len(ls.Streams) != 2 || aws.ToString(ls.Streams[0].StreamArn) != arn2 || aws.ToString(ls.Streams[1].StreamArn) != arn1 {
		t.Fatalf("ListStreams: %+v %v", ls, err)
	}
	ls, err = db.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("tbl"), Limit: aws.Int32(1)})
	if err != nil || len(ls.Streams) != 1 || aws.ToString(ls.LastEvaluatedStreamArn) != arn1 {
		t.Fatalf("ListStreams page: %+v %v", ls, err)
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")}); err != nil {
		t.Fatal(err)
	}
	sd, err = db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn2)})
	if err != nil || sd.StreamDescription.StreamStatus != st.StreamStatusDisabled {
		t.Fatalf("stream of a deleted table: %+v %v", sd, err)
	}
}

func TestStreams_Retention(t *testing.T) {
	clk := testenv.NewClock(time.Unix(1_700_000_000, 0))
	db := openMem(t, &local.Options{Now: clk.Now, TTLInterval: -1})
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	createTable(t, db, "off", "", withStream(types.StreamViewTypeKeysOnly))
	arn, shard := streamOf(t, db, "tbl")
	offARN, _ := streamOf(t, db, "off")
	put(t, db, "tbl", attrs("pk", s("old")))
	old := readAll(t, db, "tbl")
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("off"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(23 * time.Hour)
	put(t, db, "tbl", attrs("pk", s("new")))
	if got := len(readAll(t, db, "tbl")); got != 2 {
		t.Fatalf("after 23 h: %d records", got)
	}
	clk.Advance(2 * time.Hour)
	if got := summary(t, readAll(t, db, "tbl")); got != "INSERT {pk: \"new\"} new=- old=-\n" {
		t.Fatalf("after 25 h: %s", got)
	}
	_, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: old[0].Dynamodb.SequenceNumber})
	var tde *st.TrimmedDataAccessException
	if !errors.As(err, &tde) {
		t.Fatalf("iterator at a trimmed record: %v", err)
	}
	// A stream disabled 24 hours ago is gone.
	_, err = db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(offARN)})
	var rnf *st.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Fatalf("stream disabled 25 h ago: %v", err)
	}
}

func TestStreams_TTLDeletionIdentity(t *testing.T) {
	clk := testenv.NewClock(time.Unix(1_700_000_000, 0))
	db := openMem(t, &local.Options{Now: clk.Now, TTLInterval: -1})
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeOldImage))
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	put(t, db, "tbl", attrs("pk", s("a"), "exp", n(fmt.Sprint(clk.Now().Unix()-1))))
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("b"))}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.SweepExpired(); err != nil || n != 1 {
		t.Fatalf("SweepExpired = %d, %v", n, err)
	}
	recs := readAll(t, db, "tbl")
	if len(recs) != 2 || recs[0].UserIdentity != nil {
		t.Fatalf("records: %+v", recs)
	}
	id := recs[1].UserIdentity
	if recs[1].EventName != st.OperationTypeRemove || id == nil || aws.ToString(id.Type) != "Service" || aws.ToString(id.PrincipalId) != "dynamodb.amazonaws.com" {
		t.Fatalf("TTL deletion record: %+v", recs[1])
	}
}

func TestStreams_Reopen(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeNewImage))
	put(t, db, "tbl", attrs("pk", s("a")))
	arn, _ := streamOf(t, db, "tbl")
	db = reopen(t, db, dir)
	put(t, db, "tbl", attrs("pk", s("b")))
	if arn2, _ := streamOf(t, db, "tbl"); arn2 != arn {
		t.Fatalf("ARN %s after reopening, was %s", arn2, arn)
	}
	recs := readAll(t, db, "tbl")
	if got := summary(t, recs); got != "INSERT {pk: \"a\"} new={pk: \"a\"} old=-\nINSERT {pk: \"b\"} new={pk: \"b\"} old=-\n" {
		t.Fatalf("records after reopening: %s", got)
	}
	if *recs[0].Dynamodb.SequenceNumber >= *recs[1].Dynamodb.SequenceNumber {
		t.Fatal("sequence numbers do not increase across a reopen")
	}
}

func TestStreams_StreamSpecificationErrors(t *testing.T) {
	db := openMem(t, nil)
	for _, c := range []struct {
		spec types.StreamSpecification
		msg  string
	}{
		{types.StreamSpecification{StreamEnabled: aws.Bool(true)}, "Stream ViewType must not be null or empty when enabling streams"},
		{types.StreamSpecification{StreamEnabled: aws.Bool(false), StreamViewType: types.StreamViewTypeKeysOnly}, "StreamEnabled was false but a StreamViewType was present"},
		{types.StreamSpecification{StreamViewType: types.StreamViewTypeKeysOnly}, "Stream StreamEnabled was null"},
		{types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: "X"}, "Member must satisfy enum value set"},
	} {
		spec := c.spec
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String("tbl"), BillingMode: types.BillingModePayPerRequest, StreamSpecification: &spec,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		})
		if apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v", c.spec, err)
		}
	}
}

// TestStreams_ConcurrentWriters: writers on several goroutines, each
// updating its own items in turn; the stream holds one record per write, in
// increasing sequence numbers, and each item's records in the order of its
// writes.
func TestStreams_ConcurrentWriters(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true})
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeNewImage))
	const writers, writes = 4, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range writes {
				key := fmt.Sprintf("g%d-%d", g, i%5)
				if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
					Item: attrs("pk", s(key), "v", n(fmt.Sprint(i)))}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	arn, shard := streamOf(t, db, "tbl")
	it := iterator(t, db, arn, shard, st.ShardIteratorTypeTrimHorizon, "")
	var recs []st.Record
	for {
		out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Records) == 0 {
			break
		}
		recs = append(recs, out.Records...)
		it = aws.ToString(out.NextShardIterator)
	}
	if len(recs) != writers*writes {
		t.Fatalf("%d records, want %d", len(recs), writers*writes)
	}
	prev, last := "", map[string]int{}
	for _, r := range recs {
		seq := aws.ToString(r.Dynamodb.SequenceNumber)
		if seq <= prev {
			t.Fatalf("sequence number %s after %s", seq, prev)
		}
		prev = seq
		key := r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value
		v, _ := strconv.Atoi(r.Dynamodb.NewImage["v"].(*st.AttributeValueMemberN).Value)
		if old, ok := last[key]; ok && v <= old {
			t.Fatalf("record of %s at version %d after version %d", key, v, old)
		}
		last[key] = v
	}
}
