package local_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

// keysOf renders the partition keys of records, in order.
func keysOf(recs []st.Record) string {
	var ks []string
	for _, r := range recs {
		ks = append(ks, r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value)
	}
	return strings.Join(ks, " ")
}

// renderShards renders shards as "id parent start-end" lines.
func renderShards(shards []st.Shard) string {
	var b strings.Builder
	for _, sh := range shards {
		r := sh.SequenceNumberRange
		fmt.Fprintf(&b, "%s %s %s-%s\n", aws.ToString(sh.ShardId), aws.ToString(sh.ParentShardId),
			aws.ToString(r.StartingSequenceNumber), aws.ToString(r.EndingSequenceNumber))
	}
	return b.String()
}

// A shard is rolled over once it is older than StreamShardLifetime and
// holds a record: it closes at its last record, a child that names it its
// parent takes the records after, a reader of the closed shard gets no
// NextShardIterator past its end, and closed shards leave the list once
// their records are trimmed; all of it survives a restart.
func TestStreams_ShardRollover(t *testing.T) {
	clk := testenv.NewClock(time.Unix(1_700_000_000, 0))
	opts := &local.Options{Now: clk.Now, TTLInterval: -1, StreamShardLifetime: time.Hour}
	dir := t.TempDir()
	db, err := local.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	advance := clk.Advance
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	put(t, db, "tbl", attrs("pk", s("a")))
	advance(30 * time.Minute)
	put(t, db, "tbl", attrs("pk", s("b")))
	if _, shards := shardsOf(t, db, "tbl"); len(shards) != 1 || shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
		t.Fatalf("after 30 minutes: %+v", shards)
	}
	advance(20 * time.Minute)
	arn, first := streamOf(t, db, "tbl")
	beforeRoll := iterator(t, db, arn, first, st.ShardIteratorTypeLatest, "")
	put(t, db, "tbl", attrs("pk", s("c")))
	advance(11 * time.Minute)

	// The rollover happens at the next read; c, written before it, is the
	// first shard's last record.
	arn, shards := shardsOf(t, db, "tbl")
	if len(shards) != 2 {
		t.Fatalf("after 61 minutes: %d shards, want 2", len(shards))
	}
	recs := readFrom(t, db, iterator(t, db, arn, first, st.ShardIteratorTypeTrimHorizon, ""))
	if keysOf(recs) != "a b c" {
		t.Fatalf("first shard holds %q", keysOf(recs))
	}
	r0, r1 := shards[0].SequenceNumberRange, shards[1].SequenceNumberRange
	if aws.ToString(r0.EndingSequenceNumber) != aws.ToString(recs[2].Dynamodb.SequenceNumber) ||
		aws.ToString(shards[1].ParentShardId) != first || r1.EndingSequenceNumber != nil ||
		aws.ToString(r1.StartingSequenceNumber) <= aws.ToString(r0.EndingSequenceNumber) || aws.ToString(shards[1].ShardId) <= first {
		t.Fatalf("shards after the rollover: %+v %+v / %+v %+v", shards[0], r0, shards[1], r1)
	}
	child := aws.ToString(shards[1].ShardId)

	// An iterator taken before the rollover reads to the closed shard's
	// end, then has no next.
	out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(beforeRoll)})
	if err != nil {
		t.Fatal(err)
	}
	if keysOf(out.Records) != "c" || out.NextShardIterator != nil {
		t.Fatalf("iterator from before the rollover: %q, next %v, %v", keysOf(out.Records), out.NextShardIterator, err)
	}
	// LATEST on a closed shard reads nothing and ends.
	out, err = db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iterator(t, db, arn, first, st.ShardIteratorTypeLatest, ""))})
	if err != nil || len(out.Records) != 0 || out.NextShardIterator != nil {
		t.Fatalf("LATEST of the closed shard: %d records, next %v, %v", len(out.Records), out.NextShardIterator, err)
	}
	// AT_TIMESTAMP stays in its shard.
	at, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(first),
		ShardIteratorType: st.ShardIteratorTypeAtTimestamp, Timestamp: aws.Time(clk.Now().Add(-time.Minute))})
	if err != nil {
		t.Fatal(err)
	}
	if out, err = db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: at.ShardIterator}); err != nil || len(out.Records) != 0 || out.NextShardIterator != nil {
		t.Fatalf("AT_TIMESTAMP past the closed shard's records: %q, next %v, %v", keysOf(out.Records), out.NextShardIterator, err)
	}

	put(t, db, "tbl", attrs("pk", s("d")))
	onChild := iterator(t, db, arn, child, st.ShardIteratorTypeTrimHorizon, "")
	out, err = db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(onChild)})
	if err != nil || keysOf(out.Records) != "d" || out.NextShardIterator == nil {
		t.Fatalf("child shard: %q, next %v, %v", keysOf(out.Records), out.NextShardIterator, err)
	}

	// An empty open shard is not rolled over.
	advance(2 * time.Hour)
	if _, shards = shardsOf(t, db, "tbl"); len(shards) != 3 {
		t.Fatalf("after the child's hour: %d shards, want 3", len(shards))
	}
	advance(2 * time.Hour)
	if _, shards = shardsOf(t, db, "tbl"); len(shards) != 3 {
		t.Fatalf("an empty shard was rolled over: %d shards", len(shards))
	}
	if got := keysOf(readAll(t, db, "tbl")); got != "a b c d" {
		t.Fatalf("all shards: %q", got)
	}

	// Paging through the list.
	var paged []string
	var start *string
	for {
		d, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), Limit: aws.Int32(2), ExclusiveStartShardId: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range d.StreamDescription.Shards {
			paged = append(paged, aws.ToString(sh.ShardId))
		}
		if start = d.StreamDescription.LastEvaluatedShardId; start == nil {
			break
		}
	}
	var ids []string
	for _, sh := range shards {
		ids = append(ids, aws.ToString(sh.ShardId))
	}
	if !slices.Equal(paged, ids) {
		t.Fatalf("paged list %v, want %v", paged, ids)
	}

	db = reopenWith(t, db, dir, opts)
	if _, again := shardsOf(t, db, "tbl"); renderShards(again) != renderShards(shards) {
		t.Fatalf("after a restart:\n%s\nwant\n%s", renderShards(again), renderShards(shards))
	}
	put(t, db, "tbl", attrs("pk", s("e")))
	if got := keysOf(readAll(t, db, "tbl")); got != "a b c d e" {
		t.Fatalf("after a restart: %q", got)
	}

	// Past the retention, the first shard's records are trimmed and it has
	// been closed for a day: it leaves the list; its child, whose record d
	// is trimmed too but which closed less than a day ago, stays and still
	// names it.
	advance(21 * time.Hour)
	_, shards = shardsOf(t, db, "tbl")
	if aws.ToString(shards[0].ShardId) != child || aws.ToString(shards[0].ParentShardId) != first {
		t.Fatalf("after 26 hours, the list begins with %+v", shards[0])
	}
	if got := keysOf(readAll(t, db, "tbl")); got != "e" {
		t.Fatalf("after 26 hours: %q", got)
	}
	if _, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(first),
		ShardIteratorType: st.ShardIteratorTypeTrimHorizon}); !errorsAs(err, new(*st.ResourceNotFoundException)) {
		t.Fatalf("iterator on a shard gone from the list: %v", err)
	}

	// A negative lifetime never rolls over.
	never := openMem(t, &local.Options{Now: clk.Now, TTLInterval: -1, StreamShardLifetime: -1})
	createTable(t, never, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	put(t, never, "tbl", attrs("pk", s("a")))
	advance(10 * time.Hour)
	if _, shards := shardsOf(t, never, "tbl"); len(shards) != 1 {
		t.Fatalf("StreamShardLifetime -1: %d shards", len(shards))
	}
}

// A consumer that follows each closed shard to its child, while writers
// write and shards roll over between its reads, sees every record once, in
// sequence order.
func TestStreams_RolloverUnderWriters(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true, StreamShardLifetime: time.Millisecond, TTLInterval: time.Millisecond})
	createTable(t, db, "tbl", "", withStream(types.StreamViewTypeKeysOnly))
	const writers, writes = 4, 750
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range writes {
				if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
					Item: attrs("pk", s(fmt.Sprintf("g%d-%04d", g, i)))}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer wg.Wait()
	arn, shard := streamOf(t, db, "tbl")
	it := iterator(t, db, arn, shard, st.ShardIteratorTypeTrimHorizon, "")
	seen := map[string]bool{}
	prev, shardsRead := "", 1
	for deadline := time.Now().Add(time.Minute); len(seen) < writers*writes; {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of %d records in a minute", len(seen), writers*writes)
		}
		out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(7)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Records {
			k, seq := keysOf([]st.Record{r}), aws.ToString(r.Dynamodb.SequenceNumber)
			if seen[k] || seq <= prev {
				t.Fatalf("record %s (%s) after %s: read twice or out of order", k, seq, prev)
			}
			seen[k], prev = true, seq
		}
		if out.NextShardIterator != nil {
			it = aws.ToString(out.NextShardIterator)
			continue
		}
		// The shard is closed and read: go on with its child, listed after
		// it.
		d, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: aws.String(shard), Limit: aws.Int32(3)})
		if err != nil {
			t.Fatal(err)
		}
		shards := d.StreamDescription.Shards
		i := slices.IndexFunc(shards, func(sh st.Shard) bool { return aws.ToString(sh.ParentShardId) == shard })
		if i < 0 {
			t.Fatalf("closed shard %s has no child in\n%s", shard, renderShards(shards))
		}
		shard = aws.ToString(shards[i].ShardId)
		it = iterator(t, db, arn, shard, st.ShardIteratorTypeTrimHorizon, "")
		shardsRead++
	}
	if shardsRead < 3 {
		t.Fatalf("only %d shards read: the rollover was not exercised", shardsRead)
	}
	t.Logf("%d records over %d shards", len(seen), shardsRead)
}
