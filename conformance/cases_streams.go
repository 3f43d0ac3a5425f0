package conformance

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// DynamoDB Streams: StreamSpecification on CreateTable and UpdateTable,
// ListStreams, DescribeStream, GetShardIterator and GetRecords, the
// records of each kind of write and view type, and their errors.

var (
	streamARN = regexp.MustCompile(`^arn:aws:dynamodb:[a-z0-9-]+:\d{12}:table/([A-Za-z0-9_.-]+)/stream/(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})$`)
	shardID   = regexp.MustCompile(`^shardId-\d{20}-[0-9a-f]{8}$`)
)

// Records of the table "pk" = "a" through a put, an update and a delete,
// as each view type shows them.
const (
	recInsertA = `INSERT keys={"pk"=S:"a"} new={"pk"=S:"a","v"=S:"x"} old=- size=8`
	recModifyA = `MODIFY keys={"pk"=S:"a"} new={"pk"=S:"a","v"=S:"y"} old={"pk"=S:"a","v"=S:"x"} size=13`
	recRemoveA = `REMOVE keys={"pk"=S:"a"} new=- old={"pk"=S:"a","v"=S:"y"} size=8`
)

// putUpdateDelete writes "pk" = "a" with v = "x", updates v to "y" and
// deletes the item, with writes between them that change nothing.
func putUpdateDelete(h *H, table string) {
	h.t.Helper()
	h.Put(table, Item{"pk": S("a"), "v": S("x")})
	h.Put(table, Item{"pk": S("a"), "v": S("x")}) // the same item: no record
	for _, v := range []string{"x", "y"} {        // the first changes nothing
		_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S(v)}})
		h.Must(err)
	}
	_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "v": S("z")},
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	h.WantError(err, "ConditionalCheckFailedException", "")
	for range 2 { // the second deletes nothing: no record
		_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}})
		h.Must(err)
	}
}

// viewCase checks the records of putUpdateDelete under one view type.
func viewCase(view types.StreamViewType, want ...string) Case {
	return Case{"Streams/Records/View" + strings.ReplaceAll(string(view), "_", ""), func(t *testing.T, h *H) {
		table, arn := h.StreamTable(view)
		putUpdateDelete(h, table)
		h.WantRecords(arn, want...)
		for _, r := range h.StreamRecords(arn) {
			if r.Dynamodb.StreamViewType != st.StreamViewType(view) {
				t.Fatalf("record StreamViewType = %s, want %s", r.Dynamodb.StreamViewType, view)
			}
		}
	}}
}

// updateStream sets the stream of a table and returns UpdateTable's error.
func updateStream(h *H, table string, spec *types.StreamSpecification) error {
	_, err := h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: spec})
	return err
}

// streamSpecError is a CreateTable and UpdateTable case: spec is refused
// with a ValidationException with message msg.
func streamSpecError(name string, spec types.StreamSpecification, msg string) Case {
	return Case{"Streams/StreamSpecification/" + name, func(t *testing.T, h *H) {
		s := spec
		h.WantError(h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), StreamSpecification: &s}),
			"ValidationException", msg)
		table := h.HashTable()
		h.WantError(updateStream(h, table, &s), "ValidationException", msg)
	}}
}

func init() {
	register(
		Case{"Streams/CreateTable/Enabled", func(t *testing.T, h *H) {
			table, arn := h.StreamTable(types.StreamViewTypeNewAndOldImages)
			d := h.Describe(table)
			if s := d.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || s.StreamViewType != types.StreamViewTypeNewAndOldImages {
				t.Fatalf("StreamSpecification = %+v", s)
			}
			m := streamARN.FindStringSubmatch(arn)
			if m == nil || m[1] != table || m[2] != aws.ToString(d.LatestStreamLabel) {
				t.Fatalf("LatestStreamArn %q, LatestStreamLabel %q", arn, aws.ToString(d.LatestStreamLabel))
			}
			if !strings.HasPrefix(arn, aws.ToString(d.TableArn)+"/stream/") {
				t.Fatalf("LatestStreamArn %q is not under TableArn %q", arn, aws.ToString(d.TableArn))
			}
		}},
		Case{"Streams/CreateTable/Disabled", func(t *testing.T, h *H) {
			h.streams()
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
			d := h.Describe(table)
			if d.StreamSpecification != nil || d.LatestStreamArn != nil || d.LatestStreamLabel != nil {
				t.Fatalf("table without a stream: %+v %v %v", d.StreamSpecification, d.LatestStreamArn, d.LatestStreamLabel)
			}
			out, err := h.streams().ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
			h.Must(err)
			if len(out.Streams) != 0 {
				t.Fatalf("ListStreams = %+v", out.Streams)
			}
		}},
		streamSpecError("NoViewType", types.StreamSpecification{StreamEnabled: aws.Bool(true)},
			"Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams."),
		streamSpecError("ViewTypeWhenDisabled", types.StreamSpecification{StreamEnabled: aws.Bool(false), StreamViewType: types.StreamViewTypeKeysOnly},
			"Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present."),
		Case{"Streams/UpdateTable/EnableDisableReenable", func(t *testing.T, h *H) {
			h.streams()
			table := h.HashTable()
			h.WantError(updateStream(h, table, &types.StreamSpecification{StreamEnabled: aws.Bool(false)}), "ValidationException", "Table has no stream to disable")
			h.Must(updateStream(h, table, streamSpec(types.StreamViewTypeKeysOnly)))
			arn1 := h.LatestStream(table)
			h.WantError(updateStream(h, table, streamSpec(types.StreamViewTypeNewImage)), "ValidationException", "Table already has an enabled stream")
			h.Put(table, Item{"pk": S("a")})
			h.Must(updateStream(h, table, &types.StreamSpecification{StreamEnabled: aws.Bool(false)}))
			h.Put(table, Item{"pk": S("b")}) // not recorded
			d := h.Describe(table)
			if d.StreamSpecification != nil || aws.ToString(d.LatestStreamArn) != arn1 {
				t.Fatalf("after disabling: StreamSpecification %+v, LatestStreamArn %q (was %q)", d.StreamSpecification, aws.ToString(d.LatestStreamArn), arn1)
			}
			sd := h.DescribeStream(arn1)
			if sd.StreamStatus != st.StreamStatusDisabled || sd.StreamViewType != st.StreamViewTypeKeysOnly || len(sd.Shards) != 1 ||
				sd.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
				t.Fatalf("disabled stream: %+v", sd)
			}
			// The closed shard reads to its end, then has no iterator.
			recs, ended := h.ReadShard(h.ShardIterator(arn1, st.ShardIteratorTypeTrimHorizon, ""), 0)
			if got := FormatRecords(recs); got != `INSERT keys={"pk"=S:"a"} new=- old=- size=3`+"\n" || !ended {
				t.Fatalf("closed shard: ended %v, records\n%s", ended, got)
			}
			if end := aws.ToString(sd.Shards[0].SequenceNumberRange.EndingSequenceNumber); end != aws.ToString(recs[0].Dynamodb.SequenceNumber) {
				t.Fatalf("EndingSequenceNumber %s, last record %s", end, aws.ToString(recs[0].Dynamodb.SequenceNumber))
			}
			h.Must(updateStream(h, table, streamSpec(types.StreamViewTypeNewImage)))
			arn2 := h.LatestStream(table)
			if arn2 == arn1 {
				t.Fatalf("re-enabled stream kept ARN %s", arn1)
			}
			h.Put(table, Item{"pk": S("c")})
			h.WantRecords(arn2, `INSERT keys={"pk"=S:"c"} new={"pk"=S:"c"} old=- size=6`)
			out, err := h.streams().ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
			h.Must(err)
			if len(out.Streams) != 2 || aws.ToString(out.Streams[0].StreamArn) != arn2 || aws.ToString(out.Streams[1].StreamArn) != arn1 {
				t.Fatalf("ListStreams = %+v", out.Streams)
			}
			for _, s := range out.Streams {
				if aws.ToString(s.TableName) != table || !strings.HasSuffix(aws.ToString(s.StreamArn), "/stream/"+aws.ToString(s.StreamLabel)) {
					t.Fatalf("listed stream %+v", s)
				}
			}
		}},
		Case{"Streams/DescribeStream", func(t *testing.T, h *H) {
			h.streams()
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "sk", "N"), KeySchema: keySchema("pk", "sk"),
				StreamSpecification: streamSpec(types.StreamViewTypeOldImage)})
			arn := h.LatestStream(table)
			d := h.DescribeStream(arn)
			if aws.ToString(d.StreamArn) != arn || d.StreamStatus != st.StreamStatusEnabled || d.StreamViewType != st.StreamViewTypeOldImage ||
				aws.ToString(d.TableName) != table || !strings.HasSuffix(arn, "/stream/"+aws.ToString(d.StreamLabel)) || d.CreationRequestDateTime == nil {
				t.Fatalf("description: %+v", d)
			}
			if len(d.KeySchema) != 2 || aws.ToString(d.KeySchema[0].AttributeName) != "pk" || d.KeySchema[0].KeyType != st.KeyTypeHash ||
				aws.ToString(d.KeySchema[1].AttributeName) != "sk" || d.KeySchema[1].KeyType != st.KeyTypeRange {
				t.Fatalf("KeySchema: %+v", d.KeySchema)
			}
			if len(d.Shards) != 1 || !shardID.MatchString(aws.ToString(d.Shards[0].ShardId)) || d.Shards[0].SequenceNumberRange == nil ||
				len(aws.ToString(d.Shards[0].SequenceNumberRange.StartingSequenceNumber)) != 21 || d.Shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
				t.Fatalf("shards: %+v", d.Shards)
			}
			if d.LastEvaluatedShardId != nil {
				t.Fatalf("LastEvaluatedShardId = %q", *d.LastEvaluatedShardId)
			}
			out, err := h.streams().DescribeStream(h.Ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: d.Shards[0].ShardId})
			h.Must(err)
			if len(out.StreamDescription.Shards) != 0 {
				t.Fatalf("shards after the last: %+v", out.StreamDescription.Shards)
			}
		}},
		Case{"Streams/DescribeStream/Errors", func(t *testing.T, h *H) {
			_, arn := h.StreamTable(types.StreamViewTypeKeysOnly)
			s := h.streams()
			m := streamARN.FindStringSubmatch(arn)
			unknown := strings.TrimSuffix(arn, m[2]) + "2000-01-01T00:00:00.000"
			_, err := s.DescribeStream(h.Ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(unknown)})
			h.WantError(err, "ResourceNotFoundException", "Requested resource not found: Stream: "+unknown+" not found")
			_, err = s.DescribeStream(h.Ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), Limit: aws.Int32(0)})
			h.WantError(err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
			_, err = s.DescribeStream(h.Ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), Limit: aws.Int32(101)})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Limit cannot be greater than the maximum: 100")
			_, err = s.DescribeStream(h.Ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: aws.String("zz")})
			h.WantError(err, "ValidationException", "1 validation error detected: Value 'zz' at 'exclusiveStartShardId' failed to satisfy constraint: Member must have length greater than or equal to 28")
		}},
		Case{"Streams/ListStreams", func(t *testing.T, h *H) {
			s := h.streams()
			table := h.HashTable()
			for _, on := range []bool{true, false, true} {
				spec := &types.StreamSpecification{StreamEnabled: aws.Bool(on)}
				if on {
					spec.StreamViewType = types.StreamViewTypeKeysOnly
				}
				h.Must(updateStream(h, table, spec))
			}
			newest := h.LatestStream(table)
			// Pages run from the oldest stream to the newest (a page lists
			// its own newest first).
			out, err := s.ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table), Limit: aws.Int32(1)})
			h.Must(err)
			if len(out.Streams) != 1 || aws.ToString(out.Streams[0].StreamArn) == newest || aws.ToString(out.LastEvaluatedStreamArn) != aws.ToString(out.Streams[0].StreamArn) {
				t.Fatalf("first page: %+v, LastEvaluatedStreamArn %v", out.Streams, aws.ToString(out.LastEvaluatedStreamArn))
			}
			out, err = s.ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table), ExclusiveStartStreamArn: out.LastEvaluatedStreamArn})
			h.Must(err)
			if len(out.Streams) != 1 || aws.ToString(out.Streams[0].StreamArn) != newest || out.LastEvaluatedStreamArn != nil {
				t.Fatalf("second page: %+v, LastEvaluatedStreamArn %v", out.Streams, aws.ToString(out.LastEvaluatedStreamArn))
			}
			out, err = s.ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(h.TableName())})
			h.Must(err)
			if len(out.Streams) != 0 {
				t.Fatalf("streams of an absent table: %+v", out.Streams)
			}
			_, err = s.ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(0)})
			h.WantError(err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
			_, err = s.ListStreams(h.Ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(101)})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Limit cannot be greater than the maximum allowed size: 100")
		}},
		Case{"Streams/GetShardIterator/Types", func(t *testing.T, h *H) {
			table, arn := h.StreamTable(types.StreamViewTypeKeysOnly)
			for _, k := range []string{"a", "b", "c", "d"} {
				h.Put(table, Item{"pk": S(k)})
			}
			all := h.StreamRecords(arn)
			if len(all) != 4 {
				t.Fatalf("records: %d, want 4", len(all))
			}
			second := aws.ToString(all[1].Dynamodb.SequenceNumber)
			at, _ := h.ReadShard(h.ShardIterator(arn, st.ShardIteratorTypeAtSequenceNumber, second), 0)
			after, _ := h.ReadShard(h.ShardIterator(arn, st.ShardIteratorTypeAfterSequenceNumber, second), 0)
			paged, _ := h.ReadShard(h.ShardIterator(arn, st.ShardIteratorTypeTrimHorizon, ""), 1)
			// (A LATEST iterator taken before the writes is left out: while
			// other tables' streams are written, DynamoDB Local answers
			// TrimmedDataAccessException to it when its position went to
			// another stream's record.)
			if FormatRecords(at) != FormatRecords(all[1:]) || FormatRecords(after) != FormatRecords(all[2:]) || FormatRecords(paged) != FormatRecords(all) {
				t.Fatalf("AT the second: %d records, AFTER it: %d, one by one: %d", len(at), len(after), len(paged))
			}
			// LATEST after the writes reads nothing, and the open shard
			// still gives an iterator.
			out, err := h.streams().GetRecords(h.Ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(h.ShardIterator(arn, st.ShardIteratorTypeLatest, ""))})
			h.Must(err)
			if len(out.Records) != 0 || out.NextShardIterator == nil {
				t.Fatalf("from LATEST: %d records, NextShardIterator %v", len(out.Records), out.NextShardIterator)
			}
		}},
		Case{"Streams/GetShardIterator/Errors", func(t *testing.T, h *H) {
			_, arn := h.StreamTable(types.StreamViewTypeKeysOnly)
			s := h.streams()
			shard := h.Shard(arn)
			get := func(typ st.ShardIteratorType, shard string, seq *string) error {
				_, err := s.GetShardIterator(h.Ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: typ, SequenceNumber: seq})
				return err
			}
			other := shard[:len(shard)-1] + map[bool]string{true: "0", false: "1"}[strings.HasSuffix(shard, "1")]
			h.WantError(get(st.ShardIteratorTypeTrimHorizon, other, nil), "ResourceNotFoundException", "Shard does not exist")
			h.WantError(get(st.ShardIteratorTypeAtSequenceNumber, shard, nil), "ValidationException", "One or more parameter values were invalid: Invalid SequenceNumber")
			h.WantError(get(st.ShardIteratorTypeLatest, shard, aws.String("000000000000000000001")), "ValidationException",
				"One or more parameter values were invalid: SequenceNumber should not be passed for this iterator type")
			h.WantError(get(st.ShardIteratorTypeAfterSequenceNumber, shard, aws.String("99")), "ValidationException",
				"1 validation error detected: Value '99' at 'sequenceNumber' failed to satisfy constraint: Member must have length greater than or equal to 21")
			unknown := strings.TrimSuffix(arn, streamARN.FindStringSubmatch(arn)[2]) + "2000-01-01T00:00:00.000"
			_, err := s.GetShardIterator(h.Ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(unknown), ShardId: aws.String(shard), ShardIteratorType: st.ShardIteratorTypeLatest})
			h.WantError(err, "ResourceNotFoundException", "Stream does not exist")
		}},
		Case{"Streams/GetRecords/Errors", func(t *testing.T, h *H) {
			_, arn := h.StreamTable(types.StreamViewTypeKeysOnly)
			s := h.streams()
			it := h.ShardIterator(arn, st.ShardIteratorTypeTrimHorizon, "")
			for _, bad := range []string{"garbage", arn + "|001|Zm9v"} {
				_, err := s.GetRecords(h.Ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(bad)})
				h.WantError(err, "ValidationException", "Invalid ShardIterator")
			}
			_, err := s.GetRecords(h.Ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(0)})
			h.WantError(err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
			_, err = s.GetRecords(h.Ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(1001)})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Limit should be less than or equal to 1000")
		}},
		viewCase(types.StreamViewTypeNewAndOldImages, recInsertA, recModifyA, recRemoveA),
		viewCase(types.StreamViewTypeKeysOnly,
			`INSERT keys={"pk"=S:"a"} new=- old=- size=3`,
			`MODIFY keys={"pk"=S:"a"} new=- old=- size=3`,
			`REMOVE keys={"pk"=S:"a"} new=- old=- size=3`),
		viewCase(types.StreamViewTypeNewImage,
			`INSERT keys={"pk"=S:"a"} new={"pk"=S:"a","v"=S:"x"} old=- size=8`,
			`MODIFY keys={"pk"=S:"a"} new={"pk"=S:"a","v"=S:"y"} old=- size=8`,
			`REMOVE keys={"pk"=S:"a"} new=- old=- size=3`),
		viewCase(types.StreamViewTypeOldImage,
			`INSERT keys={"pk"=S:"a"} new=- old=- size=3`,
			`MODIFY keys={"pk"=S:"a"} new=- old={"pk"=S:"a","v"=S:"x"} size=8`,
			`REMOVE keys={"pk"=S:"a"} new=- old={"pk"=S:"a","v"=S:"y"} size=8`),
		Case{"Streams/Records/RangeKeyAndTypes", func(t *testing.T, h *H) {
			h.streams()
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "sk", "N"), KeySchema: keySchema("pk", "sk"),
				StreamSpecification: streamSpec(types.StreamViewTypeNewImage)})
			arn := h.LatestStream(table)
			h.Put(table, Item{"pk": S("a"), "sk": N("1"), "m": &types.AttributeValueMemberM{Value: Item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1.5"), &types.AttributeValueMemberBOOL{Value: true}}}}},
				"ss": &types.AttributeValueMemberSS{Value: []string{"y", "x"}}, "b": &types.AttributeValueMemberB{Value: []byte{1, 2}}, "z": &types.AttributeValueMemberNULL{Value: true}})
			h.WantRecords(arn, `INSERT keys={"pk"=S:"a","sk"=N:1} new={"b"=B:0102,"m"=M:{"l"=L:[N:1.5,BOOL:true]},"pk"=S:"a","sk"=N:1,"ss"=SS:["x" "y"],"z"=NULL:true} old=- size=38`)
		}},
		Case{"Streams/Records/BatchWriteItem", func(t *testing.T, h *H) {
			table, arn := h.StreamTable(types.StreamViewTypeNewAndOldImages)
			h.Put(table, Item{"pk": S("a"), "v": S("x")})
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
				putRequest(Item{"pk": S("b")}), deleteRequest(Item{"pk": S("a")}), deleteRequest(Item{"pk": S("absent")}),
			}}})
			h.Must(err)
			recs := h.StreamRecords(arn)
			// The order of a batch's records is not specified: compare
			// them as a set.
			got := strings.Split(strings.TrimSuffix(FormatRecords(recs[1:]), "\n"), "\n")
			want := []string{`INSERT keys={"pk"=S:"b"} new={"pk"=S:"b"} old=- size=6`, `REMOVE keys={"pk"=S:"a"} new=- old={"pk"=S:"a","v"=S:"x"} size=8`}
			if len(recs) != 3 || !sameSet(got, want) {
				t.Fatalf("records:\n%s", FormatRecords(recs))
			}
		}},
		Case{"Streams/Records/TransactWriteItems", func(t *testing.T, h *H) {
			table, arn := h.StreamTable(types.StreamViewTypeNewAndOldImages)
			h.Put(table, Item{"pk": S("a"), "v": S("x")})
			// A canceled transaction writes no record.
			_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: Item{"pk": S("b")}}},
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: Item{"pk": S("a")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			}})
			h.WantError(err, "TransactionCanceledException", "")
			_, err = h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: Item{"pk": S("b")}}},
				{Update: &types.Update{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S("y")}}},
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: Item{"pk": S("c")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			}})
			h.Must(err)
			recs := h.StreamRecords(arn)
			got := strings.Split(strings.TrimSuffix(FormatRecords(recs[1:]), "\n"), "\n")
			want := []string{`INSERT keys={"pk"=S:"b"} new={"pk"=S:"b"} old=- size=6`, recModifyA}
			if len(recs) != 3 || FormatRecords(recs[:1]) != recInsertA+"\n" || !sameSet(got, want) {
				t.Fatalf("records:\n%s", FormatRecords(recs))
			}
		}},
		Case{"Streams/Records/UpdateItemCreatesAndReturnValues", func(t *testing.T, h *H) {
			table, arn := h.StreamTable(types.StreamViewTypeNewAndOldImages)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S("x")}, ReturnValues: types.ReturnValueAllNew})
			h.Must(err)
			_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "v": S("y")}, ReturnValues: types.ReturnValueAllOld})
			h.Must(err)
			h.WantRecords(arn, recInsertA, recModifyA)
		}},
		Case{"Streams/DeleteTable", func(t *testing.T, h *H) {
			table, arn := h.StreamTable(types.StreamViewTypeKeysOnly)
			h.Put(table, Item{"pk": S("a")})
			_, err := h.API.DeleteTable(h.Ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			h.Must(err)
			d := h.DescribeStream(arn)
			if d.StreamStatus != st.StreamStatusDisabled || aws.ToString(d.TableName) != table {
				t.Fatalf("stream of a deleted table: %+v", d)
			}
			recs, ended := h.ReadShard(h.ShardIterator(arn, st.ShardIteratorTypeTrimHorizon, ""), 0)
			if FormatRecords(recs) != `INSERT keys={"pk"=S:"a"} new=- old=- size=3`+"\n" || !ended {
				t.Fatalf("records of a deleted table's stream (ended %v):\n%s", ended, FormatRecords(recs))
			}
		}},
	)
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s] == 0 {
			return false
		}
		seen[s]--
	}
	return true
}
