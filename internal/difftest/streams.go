package difftest

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Streams
//
// When both targets have a Streams endpoint (Target.Streams), every
// generated table is created with a stream, of a view type chosen by the
// seed (streamView), and after the final checks each table's stream is read
// on both from TRIM_HORIZON to its end and compared canonically: sequence
// numbers, event ids and times differ by nature and are left out, and so is
// the order of records of different items (DynamoDB orders the records of
// one item as its changes, and says nothing of the order across items, as
// within a batch). What is compared, per item key, is the list of its
// records in order: event name, keys, new and old images (numbers as the
// rest of the run compares them) and SizeBytes.

var streamViews = [...]types.StreamViewType{
	types.StreamViewTypeNewAndOldImages, types.StreamViewTypeKeysOnly,
	types.StreamViewTypeNewImage, types.StreamViewTypeOldImage,
}

// streamView returns the view type of the stream of table i under seed. It
// takes nothing from the generator's random source, so enabling streams
// changes no generated operation.
func streamView(seed uint64, i int) types.StreamViewType {
	return streamViews[(seed+uint64(i))%uint64(len(streamViews))]
}

// streamsOn reports whether the run compares streams.
func (r *runner) streamsOn() bool { return r.a.Streams != nil && r.b.Streams != nil }

// withStream returns in with the stream of table i enabled, when the run
// compares streams.
func (r *runner) withStream(in *dynamodb.CreateTableInput, i int) *dynamodb.CreateTableInput {
	if r.streamsOn() {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: streamView(r.cfg.Seed, i)}
	}
	return in
}

// compareStreams compares the streams of every table on both targets.
func (r *runner) compareStreams(ctx context.Context, s *Schema, index int) error {
	if !r.streamsOn() {
		return nil
	}
	for i, t := range s.Tables {
		var answers [2]any
		for k, tg := range []Target{r.a, r.b} {
			recs, n, err := readStream(ctx, tg, t.Name)
			r.requests[k] += n
			if err != nil {
				return fmt.Errorf("difftest: %s: cannot read the stream of %s: %w", tg.Name, t.Name, err)
			}
			answers[k] = canonRecords(&canonizer{prefix: tg.Prefix, unordered: true, numbers: r.cfg.NumbersByValue}, recs, tg.DynamoDBLocal)
		}
		switch {
		case r.a.DynamoDBLocal:
			answers[0] = alignEmptyMaps(answers[0], answers[1])
		case r.b.DynamoDBLocal:
			answers[1] = alignEmptyMaps(answers[1], answers[0])
		}
		view := streamView(r.cfg.Seed, i)
		r.check(index+i, "Streams", func() string { return fmt.Sprintf(`{"TableName":%q,"StreamViewType":%q}`, t.Name, view) }, answers)
		if r.done() {
			break
		}
	}
	return nil
}

// readStream reads the latest stream of the table named (logically) table
// on tg from TRIM_HORIZON to its end, and returns its records with the
// number of requests sent.
func readStream(ctx context.Context, tg Target, table string) ([]st.Record, int, error) {
	d, err := tg.API.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tg.Prefix + table)})
	if err != nil {
		return nil, 1, err
	}
	arn := d.Table.LatestStreamArn
	if arn == nil {
		return nil, 1, fmt.Errorf("table %s has no stream", table)
	}
	sd, err := tg.Streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
	if err != nil {
		return nil, 2, err
	}
	n := 2
	var recs []st.Record
	for _, sh := range sd.StreamDescription.Shards {
		it, err := tg.Streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: sh.ShardId,
			ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
		n++
		if err != nil {
			return nil, n, err
		}
		for next := it.ShardIterator; next != nil && n < maxPages; {
			out, err := tg.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next})
			n++
			if err != nil {
				return nil, n, err
			}
			recs = append(recs, out.Records...)
			if len(out.Records) == 0 {
				break
			}
			next = out.NextShardIterator
		}
	}
	return recs, n, nil
}

// canonRecords returns the canonical form of a stream's records: per item
// key (its canonical JSON), the item's records in order. local marks
// DynamoDB Local's records (see streamItem).
func canonRecords(c *canonizer, recs []st.Record, local bool) any {
	byKey := map[string][]any{}
	for _, r := range recs {
		d := r.Dynamodb
		if d == nil {
			byKey["<no dynamodb>"] = append(byKey["<no dynamodb>"], string(r.EventName))
			continue
		}
		keys := c.of(streamItem(d.Keys, local))
		rec := map[string]any{"eventName": string(r.EventName), "Keys": keys, "SizeBytes": aws.ToInt64(d.SizeBytes),
			"StreamViewType": string(d.StreamViewType)}
		if d.NewImage != nil {
			rec["NewImage"] = c.of(streamItem(d.NewImage, local))
		}
		if d.OldImage != nil {
			rec["OldImage"] = c.of(streamItem(d.OldImage, local))
		}
		if r.UserIdentity != nil {
			rec["userIdentity"] = aws.ToString(r.UserIdentity.Type) + "/" + aws.ToString(r.UserIdentity.PrincipalId)
		}
		k := toJSON(keys)
		byKey[k] = append(byKey[k], rec)
	}
	keys := slices.Sorted(maps.Keys(byKey))
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, map[string]any{"key": k, "records": byKey[k]})
	}
	return out
}

// alignEmptyMaps returns local, DynamoDB Local's canonical records, with
// the value at every place where other's records hold an empty map ({"M":
// {}}) replaced by that empty map: docs/compat.md, row "Empty map in a
// stream image", FINDINGS.md F-S1. DynamoDB Local writes an empty map in a
// stream image as {}, which the SDK decodes as no value or as another
// value of the same answer, so what it stands for cannot be read back;
// SizeBytes, which counts it, is still compared. Records are paired by
// item key and position.
func alignEmptyMaps(local, other any) any {
	if o, ok := other.(map[string]any); ok && len(o) == 1 {
		if m, ok := o["M"].(map[string]any); ok && len(m) == 0 {
			return other
		}
	}
	switch o := other.(type) {
	case map[string]any:
		l, ok := local.(map[string]any)
		if !ok {
			return local
		}
		for k, ov := range o {
			if lv, ok := l[k]; ok {
				l[k] = alignEmptyMaps(lv, ov)
			}
		}
		return l
	case []any:
		l, ok := local.([]any)
		if !ok {
			return local
		}
		for i := range min(len(l), len(o)) {
			l[i] = alignEmptyMaps(l[i], o[i])
		}
		return l
	}
	return local
}

// streamItem converts a stream image to DynamoDB attribute values.
//
// DynamoDB Local writes an empty map ({"M": {}}) in a stream image as {},
// which the SDK may decode as no value (see alignEmptyMaps). With local
// set, such a value is read as an empty map; otherwise it is a string
// attribute that says so, which no target's answer can match.
func streamItem(m map[string]st.AttributeValue, local bool) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	it := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		it[k] = streamValue(v, local)
	}
	return it
}

func streamValue(v st.AttributeValue, local bool) types.AttributeValue {
	switch v := v.(type) {
	case *st.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: streamItem(v.Value, local)}
	case *st.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = streamValue(e, local)
		}
		return &types.AttributeValueMemberL{Value: l}
	case nil, *st.UnknownUnionMember:
	default:
		if av, err := attributevalue.FromDynamoDBStreams(v); err == nil {
			return av
		}
	}
	if local {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	}
	return &types.AttributeValueMemberS{Value: fmt.Sprintf("<a stream value of no type: %T>", v)}
}
