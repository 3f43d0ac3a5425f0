package local_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/local"
)

// Environment of the child process of TestCrash_KillDuringWrites.
const (
	crashDirEnv   = "TIMETABLE_CRASH_CHILD_DIR"
	crashCycleEnv = "TIMETABLE_CRASH_CHILD_CYCLE"
	crashTable    = "crash"
	crashWriters  = 4
	crashCycles   = 20
)

// TestCrash_KillDuringWrites checks durability: a write acknowledged by the
// engine (with default options, after the WAL is synced) survives the
// process being killed. Each of 20 cycles runs this test binary again as a
// child that opens the same data directory, creates the table if it does
// not exist yet and puts items from several goroutines, printing the key of
// each put once PutItem has returned. The parent SIGKILLs the child after a
// random 100-400 ms, reopens the directory in process, and checks that every
// acknowledged item is there and intact. Every fifth cycle counts the delay
// from the child's start rather than from its first write, so some kills
// land while the engine is opening or recovering. At the end a Scan checks
// all acknowledged items of all cycles, and that every item present (even
// unacknowledged) is intact and each writer's overwritten "latest" item is
// no older than its last acknowledged version; and the table's stream holds
// a record for exactly the writes that are there, in shards rolled over
// while the child wrote (checkStream).
func TestCrash_KillDuringWrites(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir, os.Getenv(crashCycleEnv))
		return
	}
	if testing.Short() {
		t.Skip("crash test skipped in short mode")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed>>1))
	dir := t.TempDir()

	acked := map[string]bool{} // every acknowledged unique key
	latest := map[string]int{} // writer's "latest" key -> last acknowledged version
	for cycle := range crashCycles {
		fromStart := cycle%5 == 4
		delay := time.Duration(100+r.IntN(301)) * time.Millisecond
		res := runCrashChild(t, dir, cycle, delay, fromStart)
		for _, k := range res.keys {
			acked[k] = true
		}
		for k, v := range res.latest {
			latest[k] = max(latest[k], v)
		}
		checkAcked(t, dir, cycle, res)
		t.Logf("cycle %d: killed %v after %s, %d puts acknowledged, verified",
			cycle, delay, map[bool]string{true: "start", false: "first write"}[fromStart], len(res.keys)+len(res.latestOrder))
	}
	checkAll(t, dir, acked, latest)
}

// crashResult is what the parent read from one child.
type crashResult struct {
	keys        []string       // acknowledged unique keys, in order
	latest      map[string]int // "latest" key -> last acknowledged version
	latestOrder []string       // acknowledged "latest" writes, for counting
}

// runCrashChild starts the child for one cycle, kills it after delay
// (counted from its first acknowledged write, or from its start when
// fromStart is set) and returns what it acknowledged.
func runCrashChild(t *testing.T, dir string, cycle int, delay time.Duration, fromStart bool) crashResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash_KillDuringWrites$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashCycleEnv+"="+strconv.Itoa(cycle))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// An os.Pipe rather than cmd.StdoutPipe: Wait would close the latter
	// while lines are still unread.
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()

	res := crashResult{latest: map[string]int{}}
	firstAck := make(chan struct{})
	readDone := make(chan error, 1)
	go func() {
		br := bufio.NewReader(stdout)
		signalled := false
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				// A line without its newline was cut by the kill; it is
				// not an acknowledgement the parent can rely on.
				if err == io.EOF {
					err = nil
				}
				readDone <- err
				return
			}
			f := strings.Fields(line)
			switch {
			case len(f) == 2 && f[0] == "ack":
				res.keys = append(res.keys, f[1])
			case len(f) == 3 && f[0] == "latest":
				v, _ := strconv.Atoi(f[2])
				res.latest[f[1]] = v
				res.latestOrder = append(res.latestOrder, f[1])
			default:
				continue
			}
			if !signalled {
				signalled = true
				close(firstAck)
			}
		}
	}()

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	if !fromStart {
		select {
		case <-firstAck:
		case err := <-exited:
			t.Fatalf("cycle %d: child exited before writing: %v\n%s", cycle, err, stderr.String())
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("cycle %d: no acknowledged write within 30s\n%s", cycle, stderr.String())
		}
		started = time.Now()
	}
	select {
	case err := <-exited:
		t.Fatalf("cycle %d: child exited on its own: %v\n%s", cycle, err, stderr.String())
	case <-time.After(time.Until(started.Add(delay))):
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatalf("cycle %d: kill: %v", cycle, err)
	}
	<-exited
	if err := <-readDone; err != nil {
		t.Fatalf("cycle %d: reading child output: %v", cycle, err)
	}
	return res
}

// crashChild is the child's body: it writes until it is killed.
func crashChild(dir, cycle string) {
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "crash child: "+format+"\n", args...)
		os.Exit(3)
	}
	// The stream's shard rolls over every few tens of milliseconds (at
	// the sweeper's passes), so that kills land before, during and after
	// rollovers.
	db, err := local.Open(dir, &local.Options{StreamShardLifetime: 30 * time.Millisecond, TTLInterval: 10 * time.Millisecond})
	if err != nil {
		fail("open: %v", err)
	}
	ctx := context.Background()
	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(crashTable)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(crashTable),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
			StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
		})
		if err != nil {
			fail("create table: %v", err)
		}
	case err != nil:
		fail("describe table: %v", err)
	}

	var outMu sync.Mutex
	say := func(line string) {
		outMu.Lock()
		defer outMu.Unlock()
		if _, err := os.Stdout.WriteString(line); err != nil {
			os.Exit(4)
		}
	}
	var wg sync.WaitGroup
	for g := range crashWriters {
		wg.Go(func() {
			latestKey := fmt.Sprintf("latest-c%s-g%d", cycle, g)
			for seq := 0; ; seq++ {
				key := fmt.Sprintf("c%s-g%d-%d", cycle, g, seq)
				if seq%4 == 3 {
					// Overwrite this writer's "latest" item with version seq.
					_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
						TableName: aws.String(crashTable), Item: crashItem(latestKey, seq),
					})
					if err != nil {
						fail("put %s: %v", latestKey, err)
					}
					say(fmt.Sprintf("latest %s %d\n", latestKey, seq))
					continue
				}
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
					TableName: aws.String(crashTable), Item: crashItem(key, seq),
				})
				if err != nil {
					fail("put %s: %v", key, err)
				}
				say("ack " + key + "\n")
			}
		})
	}
	wg.Wait()
}

// crashItem is the item the child writes under key pk at version seq; its
// content is a function of both, so the parent can tell an intact item.
func crashItem(pk string, seq int) map[string]types.AttributeValue {
	sum := sha256.Sum256([]byte(pk + "/" + strconv.Itoa(seq)))
	size := 50 + int(sum[0])*8 // 50 to 2090 bytes of payload
	return map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: pk},
		"seq":     &types.AttributeValueMemberN{Value: strconv.Itoa(seq)},
		"sum":     &types.AttributeValueMemberB{Value: sum[:]},
		"payload": &types.AttributeValueMemberS{Value: strings.Repeat(fmt.Sprintf("%x", sum[:4]), size/8+1)[:size]},
		"meta": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"ok":   &types.AttributeValueMemberBOOL{Value: true},
			"tags": &types.AttributeValueMemberSS{Value: []string{"crash", pk}},
			"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberN{Value: "-" + strconv.Itoa(seq) + ".5"},
				&types.AttributeValueMemberNULL{Value: true},
			}},
		}},
	}
}

// checkItem reports how got differs from the item written under its key,
// or "" when it is intact.
func checkItem(got map[string]types.AttributeValue) string {
	pk, ok := got["pk"].(*types.AttributeValueMemberS)
	seqAV, ok2 := got["seq"].(*types.AttributeValueMemberN)
	if !ok || !ok2 {
		return fmt.Sprintf("no pk or seq in %s", conformance.FormatItem(got))
	}
	seq, err := strconv.Atoi(seqAV.Value)
	if err != nil {
		return "bad seq " + seqAV.Value
	}
	want := conformance.FormatItem(crashItem(pk.Value, seq))
	if have := conformance.FormatItem(got); have != want {
		return fmt.Sprintf("item %s differs:\n got %.300s\nwant %.300s", pk.Value, have, want)
	}
	return ""
}

// checkAcked reopens dir and checks the acknowledged writes of one cycle.
func checkAcked(t *testing.T, dir string, cycle int, res crashResult) {
	t.Helper()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatalf("cycle %d: reopen after kill: %v", cycle, err)
	}
	defer db.Close()
	ctx := context.Background()
	// intact reads the acknowledged item at key and fails the test unless
	// it is there and intact.
	intact := func(key string) map[string]types.AttributeValue {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName:      aws.String(crashTable),
			Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}},
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			t.Fatalf("cycle %d: GetItem %s: %v", cycle, key, err)
		}
		if out.Item == nil {
			t.Fatalf("cycle %d: acknowledged item %s is missing", cycle, key)
		}
		if msg := checkItem(out.Item); msg != "" {
			t.Fatalf("cycle %d: %s", cycle, msg)
		}
		return out.Item
	}
	for _, key := range res.keys {
		intact(key)
	}
	for key, v := range res.latest {
		item := intact(key)
		if seq, _ := strconv.Atoi(item["seq"].(*types.AttributeValueMemberN).Value); seq < v {
			t.Fatalf("cycle %d: %s has version %d, older than acknowledged version %d", cycle, key, seq, v)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatalf("cycle %d: close: %v", cycle, err)
	}
}

// checkAll scans the table after the last cycle: every acknowledged item of
// every cycle is present, every item present (acknowledged or not) is
// intact, and each "latest" item is at least at its acknowledged version.
func checkAll(t *testing.T, dir string, acked map[string]bool, latest map[string]int) {
	t.Helper()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatalf("final reopen: %v", err)
	}
	defer db.Close()
	seen := map[string]int{}
	in := &dynamodb.ScanInput{TableName: aws.String(crashTable), ConsistentRead: aws.Bool(true)}
	for {
		out, err := db.Scan(context.Background(), in)
		if err != nil {
			t.Fatalf("final scan: %v", err)
		}
		for _, item := range out.Items {
			if msg := checkItem(item); msg != "" {
				t.Fatalf("final scan: %s", msg)
			}
			seq, _ := strconv.Atoi(item["seq"].(*types.AttributeValueMemberN).Value)
			seen[item["pk"].(*types.AttributeValueMemberS).Value] = seq
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	for key := range acked {
		if _, ok := seen[key]; !ok {
			t.Fatalf("final scan: acknowledged item %s is missing", key)
		}
	}
	for key, v := range latest {
		if seq, ok := seen[key]; !ok || seq < v {
			t.Fatalf("final scan: %s at version %d (present %v), acknowledged %d", key, seq, ok, v)
		}
	}
	t.Logf("final scan: %d items; all %d acknowledged items and %d latest items intact", len(seen), len(acked), len(latest))
	checkStream(t, db, seen)
}

// checkStream reads the crash table's stream and checks that its records
// and the items are the same writes: each record's image is intact, each
// item present has a record whose image is the item's version, and each
// record's key is an item present. As every write is a put that changes its
// item, a record for a lost write, or a write without its record, fails.
// The shards, read oldest first, must each name the one before as parent,
// and hold records within their sequence ranges, in increasing order.
func checkStream(t *testing.T, db *local.DB, items map[string]int) {
	t.Helper()
	ctx := context.Background()
	arnString, shards := shardsOf(t, db, crashTable)
	arn := aws.String(arnString)
	last := map[string]int{} // key -> version of its last record
	n, prevSeq := 0, ""
	for i, sh := range shards {
		if i > 0 && aws.ToString(sh.ParentShardId) != aws.ToString(shards[i-1].ShardId) {
			t.Fatalf("shard %d (%s) names %s its parent, not %s", i, aws.ToString(sh.ShardId), aws.ToString(sh.ParentShardId), aws.ToString(shards[i-1].ShardId))
		}
		lo, hi := aws.ToString(sh.SequenceNumberRange.StartingSequenceNumber), sh.SequenceNumberRange.EndingSequenceNumber
		it, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn,
			ShardId: sh.ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		for next := it.ShardIterator; next != nil; {
			out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range out.Records {
				rs := aws.ToString(r.Dynamodb.SequenceNumber)
				if rs <= prevSeq || rs < lo || (hi != nil && rs > *hi) {
					t.Fatalf("record %s in shard %d [%s, %s] after record %s", rs, i, lo, aws.ToString(hi), prevSeq)
				}
				prevSeq = rs
				img, err := attributevalue.FromDynamoDBStreamsMap(r.Dynamodb.NewImage)
				if err != nil {
					t.Fatal(err)
				}
				if msg := checkItem(img); msg != "" {
					t.Fatalf("stream record %s: %s", rs, msg)
				}
				seq, _ := strconv.Atoi(img["seq"].(*types.AttributeValueMemberN).Value)
				last[img["pk"].(*types.AttributeValueMemberS).Value] = seq
				n++
			}
			if len(out.Records) == 0 && hi == nil {
				break // the open shard, read to its end
			}
			next = out.NextShardIterator
		}
	}
	for key, v := range items {
		if rv, ok := last[key]; !ok || rv != v {
			t.Fatalf("item %s at version %d: its last stream record is at version %d (present %v)", key, v, rv, ok)
		}
	}
	for key := range last {
		if _, ok := items[key]; !ok {
			t.Fatalf("stream record of %s, which is not in the table", key)
		}
	}
	t.Logf("stream: %d records in %d shards, one for each write of the %d items", n, len(shards), len(items))
}
