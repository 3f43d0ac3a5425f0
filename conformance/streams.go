package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/timetable-db/timetable"
)

// DynamoDB Streams: the streams backend of a case, tables with a stream,
// reading a shard to its end, and records in a canonical form.

// streams returns the case's DynamoDB Streams backend, skipping the case
// when it has none.
func (h *H) streams() timetable.StreamsAPI {
	h.t.Helper()
	if h.Streams == nil {
		h.t.Skip("no DynamoDB Streams backend for this run")
	}
	return h.Streams
}

// streamSpec is a StreamSpecification that enables a stream of view type
// view.
func streamSpec(view types.StreamViewType) *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}
}

// StreamTable creates a table keyed by a string partition key "pk" with a
// stream of view type view, and returns its name and stream ARN. It skips
// the case when the run has no streams backend.
func (h *H) StreamTable(view types.StreamViewType) (table, arn string) {
	h.t.Helper()
	h.streams()
	table = h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), StreamSpecification: streamSpec(view)})
	return table, h.LatestStream(table)
}

// LatestStream returns the LatestStreamArn of a table, failing the case
// when it has none.
func (h *H) LatestStream(table string) string {
	h.t.Helper()
	arn := aws.ToString(h.Describe(table).LatestStreamArn)
	if arn == "" {
		h.t.Fatalf("table %s has no LatestStreamArn", table)
	}
	return arn
}

// DescribeStream describes a stream, failing the case on error.
func (h *H) DescribeStream(arn string) *st.StreamDescription {
	h.t.Helper()
	out, err := h.streams().DescribeStream(h.Ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		h.t.Fatalf("DescribeStream %s: %v", arn, err)
	}
	return out.StreamDescription
}

// Shard returns the id of the one shard of a stream.
func (h *H) Shard(arn string) string {
	h.t.Helper()
	d := h.DescribeStream(arn)
	if len(d.Shards) != 1 {
		h.t.Fatalf("stream %s has %d shards, want 1", arn, len(d.Shards))
	}
	return aws.ToString(d.Shards[0].ShardId)
}

// ShardIterator returns an iterator of type typ (with sequence number seq
// for the AT_ and AFTER_ types) on the one shard of a stream.
func (h *H) ShardIterator(arn string, typ st.ShardIteratorType, seq string) string {
	h.t.Helper()
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(h.Shard(arn)), ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := h.streams().GetShardIterator(h.Ctx, in)
	if err != nil {
		h.t.Fatalf("GetShardIterator %s: %v", typ, err)
	}
	return aws.ToString(out.ShardIterator)
}

// ReadShard reads records from iterator it, limit at a time (0: the
// default), until a page is empty or the shard ends. It returns the
// records and whether the shard ended (no NextShardIterator).
func (h *H) ReadShard(it string, limit int32) (recs []st.Record, ended bool) {
	h.t.Helper()
	for {
		in := &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)}
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		out, err := h.streams().GetRecords(h.Ctx, in)
		if err != nil {
			h.t.Fatalf("GetRecords: %v", err)
		}
		recs = append(recs, out.Records...)
		if out.NextShardIterator == nil {
			return recs, true
		}
		if len(out.Records) == 0 {
			return recs, false
		}
		it = *out.NextShardIterator
	}
}

// StreamRecords reads the stream of arn from TRIM_HORIZON to its end.
func (h *H) StreamRecords(arn string) []st.Record {
	h.t.Helper()
	recs, _ := h.ReadShard(h.ShardIterator(arn, st.ShardIteratorTypeTrimHorizon, ""), 0)
	return recs
}

// FormatRecords renders stream records canonically, one line each: event
// name, keys, new and old images and SizeBytes. Sequence numbers, event
// ids and times, which differ between backends by nature, are left out;
// their order is the records' order.
func FormatRecords(recs []st.Record) string {
	var b strings.Builder
	for _, r := range recs {
		d := r.Dynamodb
		if d == nil {
			fmt.Fprintf(&b, "%s <no dynamodb>\n", r.EventName)
			continue
		}
		fmt.Fprintf(&b, "%s keys=%s new=%s old=%s size=%d", r.EventName, streamItem(d.Keys), streamItem(d.NewImage), streamItem(d.OldImage), aws.ToInt64(d.SizeBytes))
		if r.UserIdentity != nil {
			fmt.Fprintf(&b, " by=%s/%s", aws.ToString(r.UserIdentity.Type), aws.ToString(r.UserIdentity.PrincipalId))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func streamItem(m map[string]st.AttributeValue) string {
	if m == nil {
		return "-"
	}
	it, err := attributevalue.FromDynamoDBStreamsMap(m)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return FormatItem(it)
}

// WantRecords fails the case unless the stream of arn holds, from
// TRIM_HORIZON, records that FormatRecords renders as want (lines joined).
func (h *H) WantRecords(arn string, want ...string) {
	h.t.Helper()
	recs := h.StreamRecords(arn)
	w := strings.Join(want, "\n")
	if w != "" {
		w += "\n"
	}
	if got := FormatRecords(recs); got != w {
		h.t.Fatalf("stream records:\n%s\nwant:\n%s", got, w)
	}
	h.wantRecordShape(recs)
}

// wantRecordShape checks what every record holds besides its change: the
// event's source and version, an id, a region, a 21-digit or longer
// sequence number increasing from record to record, a time and the view
// type.
func (h *H) wantRecordShape(recs []st.Record) {
	h.t.Helper()
	prev := ""
	for _, r := range recs {
		d := r.Dynamodb
		seq := aws.ToString(d.SequenceNumber)
		if aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.EventVersion) != "1.1" ||
			aws.ToString(r.EventID) == "" || aws.ToString(r.AwsRegion) == "" || d.ApproximateCreationDateTime == nil ||
			d.StreamViewType == "" || len(seq) < 21 || !digits(seq) || (prev != "" && len(seq) == len(prev) && seq <= prev) {
			h.t.Fatalf("record shape after sequence number %q: %+v %+v", prev, r, d)
		}
		prev = seq
	}
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
