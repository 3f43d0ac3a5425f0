package local

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

func testStreamMeta() *streamMeta {
	created := time.Date(2026, 11, 28, 6, 19, 10, 94e6, time.UTC)
	sm := &streamMeta{ID: 3, Table: "tbl", Label: created.Format("2006-01-02T15:04:05.000"), View: "KEYS_ONLY", Hash: "pk", Created: created, Start: 7}
	return sm.withShards()
}

func TestIterator_RoundTrip(t *testing.T) {
	sm := testStreamMeta()
	now := time.UnixMilli(1_795_846_750_104)
	shard := sm.Shards[0].ID
	s := encodeIterator(sm, shard, 42, now)
	it, ok := parseIterator(s)
	if !ok || it.arn != sm.arn() || it.shard != shard || it.seq != 42 || !it.issued.Equal(now) {
		t.Fatalf("parseIterator(%q) = %+v, %v", s, it, ok)
	}
	for _, id := range []string{shard, sm.newShardID(sm.Created.Add(4*time.Hour), false)} {
		if len(id) != 37 || !validShardID(id) {
			t.Fatalf("shard id %q", id)
		}
	}
	// Every damage is refused.
	inner, _ := base64.StdEncoding.DecodeString(s[strings.Index(s, iteratorVersion)+len(iteratorVersion):])
	for _, bad := range []string{
		"", "|001|", s + "=", strings.Replace(s, "|001|", "|01|", 1), "a|b" + iteratorVersion + "eA==",
		sm.arn() + iteratorVersion + base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(inner), "|", "||", 1))),
		sm.arn() + iteratorVersion + base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(inner), "0000", "00x0", 1))),
		sm.arn() + iteratorVersion + base64.StdEncoding.EncodeToString(append(inner, '0')),
		sm.arn() + iteratorVersion + base64.StdEncoding.EncodeToString([]byte("shardId-00000001795846750104-e19eb4f2|999999999999999999999|000000000000000001795846750104")),
	} {
		if it, ok := parseIterator(bad); ok {
			t.Errorf("parseIterator(%q) = %+v, want refusal", bad, it)
		}
	}
}

func FuzzParseIterator(f *testing.F) {
	sm := testStreamMeta()
	f.Add(encodeIterator(sm, sm.Shards[0].ID, 1, time.UnixMilli(0)))
	f.Add(encodeIterator(sm, sm.Shards[0].ID, 1<<40, time.UnixMilli(1_795_846_750_104)))
	f.Add("arn:x|001|c2hhcmRJZC0wMDAwMDAwMTc5NTg0Njc1MDEwNC1lMTllYjRmMnwwMDAwMDAwMDAwMDAwMDAwMDAwMDF8MDAwMDAwMDAwMDAwMDAwMDAxNzk1ODQ2NzU4NTY2")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, s string) {
		it, ok := parseIterator(s)
		if !ok {
			return
		}
		// What parses re-encodes to itself.
		enc := it.arn + iteratorVersion + base64.StdEncoding.EncodeToString([]byte(
			fmt.Sprintf("%s|%s|%030d", it.shard, formatSeq(it.seq), it.issued.UnixMilli())))
		if enc != s {
			t.Fatalf("parseIterator(%q) re-encodes to %q", s, enc)
		}
	})
}

func TestRecord_RoundTrip(t *testing.T) {
	c := &streamChange{
		event: eventModify, ttl: true,
		keys: Item{"pk": &types.AttributeValueMemberS{Value: "a"}},
		new:  Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "2"}},
	}
	now := time.UnixMilli(1_700_000_000_123)
	v, err := appendRecord(nil, c, now)
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeRecord(9, v)
	if err != nil {
		t.Fatal(err)
	}
	if r.seq != 9 || r.event != eventModify || !r.ttl || r.ms != now.UnixMilli() || len(r.keys) != 1 || len(r.new) != 2 || r.old != nil {
		t.Fatalf("decoded %+v", r)
	}
	for i := range v {
		if _, err := decodeRecord(9, v[:i]); err == nil {
			t.Fatalf("truncated record of %d bytes decoded", i)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	v, _ := appendRecord(nil, &streamChange{event: eventInsert, keys: Item{"pk": &types.AttributeValueMemberS{Value: "a"}}}, time.UnixMilli(5))
	f.Add(v)
	f.Add([]byte{1, 6, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(1, b)
		if err != nil {
			return
		}
		if r.event < eventInsert || r.event > eventRemove || r.keys == nil {
			t.Fatalf("decoded %+v", r)
		}
	})
}

// A rollover between GetRecords' first look at the description and the
// opening of its iterator, with a record written to the child meanwhile:
// the closed shard's read ends at its last record, and the child's record
// is read once, from the child.
func TestGetRecords_RolloverWhileReading(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	db, err := Open("", &Options{InMemory: true, Now: clock, TTLInterval: -1, StreamShardLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("tbl"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}}); err != nil {
		t.Fatal(err)
	}
	put := func(pk string) {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: Item{"pk": &types.AttributeValueMemberS{Value: pk}}}); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	var s *stream
	for _, x := range db.streams.byID {
		s = x
	}
	first := s.m().Shards[0]
	it := encodeIterator(s.m(), first.ID, first.Start, now)
	testHookGetRecords = func() {
		testHookGetRecords = nil
		mu.Lock()
		now = now.Add(2 * time.Hour)
		mu.Unlock()
		if err := db.trimStream(s); err != nil {
			t.Error(err)
		}
		put("b")
	}
	t.Cleanup(func() { testHookGetRecords = nil })
	out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Records) != 1 || out.NextShardIterator != nil {
		t.Fatalf("closed shard: %d records, next %v; want a alone, and no next", len(out.Records), out.NextShardIterator)
	}
	sm := s.m()
	if len(sm.Shards) != 2 {
		t.Fatalf("%d shards after the rollover", len(sm.Shards))
	}
	child := sm.Shards[1]
	out, err = db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(encodeIterator(sm, child.ID, child.Start, clock()))})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Records) != 1 || out.Records[0].Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value != "b" {
		t.Fatalf("child shard: %+v", out.Records)
	}
}
