package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/timetable-db/timetable/local"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader in different
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe_InProcess runs `timetable serve` on a free port with its data in
// a temporary folder, uses it with the SDK, stops it by cancelling its
// context, and checks that the data folder was closed cleanly with the
// item in it.
func TestServe_InProcess(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	addrFile := filepath.Join(dir, "addr")
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		cmd := &ServeCommand{Stdout: &stdout, Stderr: &stderr}
		done <- cmd.Run(ctx, []string{"--data", data, "--dynamodb-addr", "127.0.0.1:0", "--addr-file", addrFile, "--stream-shard-lifetime", "50ms"})
	}()

	addr, err := waitForAddr(addrFile, done, 30*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}

	// The first start prints an admin access key, without which the
	// DynamoDB endpoint refuses every request.
	keyID, secret := firstAccessKey(t, &stdout)
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://" + addr),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, secret, ""),
	})
	unsigned := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://" + addr),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	if _, err := unsigned.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err == nil || !strings.Contains(err.Error(), "UnrecognizedClientException") {
		t.Fatalf("ListTables with an unknown key: %v, want UnrecognizedClientException", err)
	}
	bg := context.Background()
	if _, err := client.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String("serve_test"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	}); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "42"}}
	if _, err := client.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("serve_test"), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	got, err := client.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("serve_test"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if n, ok := got.Item["n"].(*types.AttributeValueMemberN); !ok || n.Value != "42" {
		t.Fatalf("GetItem: %v", got.Item)
	}
	list, err := client.ListTables(bg, &dynamodb.ListTablesInput{})
	if err != nil || !slices.Equal(list.TableNames, []string{"analytics", "serve_test", "timetable"}) {
		t.Fatalf("ListTables: %v %v", list, err)
	}
	// DynamoDB Streams on the same endpoint.
	streams := dynamodbstreams.New(dynamodbstreams.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://" + addr),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, secret, ""),
	})
	ls, err := streams.ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String("serve_test")})
	if err != nil || len(ls.Streams) != 1 {
		t.Fatalf("ListStreams: %v %v", ls, err)
	}
	sd, err := streams.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: ls.Streams[0].StreamArn})
	if err != nil {
		t.Fatalf("DescribeStream: %v", err)
	}
	it, err := streams.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: ls.Streams[0].StreamArn,
		ShardId: sd.StreamDescription.Shards[0].ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatalf("GetShardIterator: %v", err)
	}
	recs, err := streams.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil || len(recs.Records) != 1 || recs.Records[0].EventName != streamstypes.OperationTypeInsert {
		t.Fatalf("GetRecords: %+v %v", recs, err)
	}
	if n, ok := recs.Records[0].Dynamodb.NewImage["n"].(*streamstypes.AttributeValueMemberN); !ok || n.Value != "42" {
		t.Fatalf("record's NewImage: %v", recs.Records[0].Dynamodb.NewImage)
	}
	// --stream-shard-lifetime 50ms: the shard holding a is rolled over,
	// and a child that names it its parent takes the next record.
	var shards []streamstypes.Shard
	for deadline := time.Now().Add(30 * time.Second); len(shards) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no rollover in 30 s: %d shards", len(shards))
		}
		sd, err := streams.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: ls.Streams[0].StreamArn})
		if err != nil {
			t.Fatalf("DescribeStream: %v", err)
		}
		shards = sd.StreamDescription.Shards
	}
	if aws.ToString(shards[1].ParentShardId) != aws.ToString(shards[0].ShardId) || shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("shards after the rollover: %+v %+v", shards[0], shards[1])
	}
	item["pk"] = &types.AttributeValueMemberS{Value: "b"}
	if _, err := client.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("serve_test"), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	it, err = streams.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: ls.Streams[0].StreamArn,
		ShardId: shards[1].ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatalf("GetShardIterator on the child: %v", err)
	}
	recs, err = streams.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil || len(recs.Records) != 1 || recs.Records[0].Dynamodb.Keys["pk"].(*streamstypes.AttributeValueMemberS).Value != "b" {
		t.Fatalf("GetRecords on the child: %+v %v", recs, err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30s of cancellation")
	}
	banner := stdout.String()
	for _, want := range []string{"http://" + addr, "aws dynamodb list-tables --endpoint-url http://" + addr, "AWS_ACCESS_KEY_ID", "BaseEndpoint"} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}
	if log := stderr.String(); !strings.Contains(log, "stopped") {
		t.Errorf("log lacks the clean stop:\n%s", log)
	}

	db, err := local.Open(data, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	again, err := db.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("serve_test"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	if err != nil || again.Item == nil {
		t.Fatalf("item after restart: %v %v", again, err)
	}
}

// firstAccessKey waits for the banner's access key and returns it.
func firstAccessKey(t *testing.T, stdout *syncBuffer) (id, secret string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for line := range strings.Lines(stdout.String()) {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "export AWS_ACCESS_KEY_ID="); ok {
				id, rest, _ = strings.Cut(rest, " ")
				if secret, ok = strings.CutPrefix(rest, "AWS_SECRET_ACCESS_KEY="); ok && id != "local" {
					return id, secret
				}
			}
		}
	}
	t.Fatalf("no access key in the banner:\n%s", stdout.String())
	return "", ""
}

func TestServe_BadFlags(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--bogus"}, &out, &out); code != 2 {
		t.Errorf("--bogus: exit %d", code)
	}
	out.Reset()
	if code := run(context.Background(), []string{"serve", "extra"}, &out, &out); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
	out.Reset()
	// The in-flight budget must hold two DynamoDB requests of the largest.
	if code := run(context.Background(), []string{"serve", "--max-inflight-bytes", "1000000"}, &out, &out); code != 2 || !strings.Contains(out.String(), "--max-inflight-bytes") {
		t.Errorf("--max-inflight-bytes 1000000: exit %d: %s", code, out.String())
	}
}

func TestServe_ListenError(t *testing.T) {
	var out bytes.Buffer
	code := run(context.Background(), []string{"serve", "--in-memory", "--dynamodb-addr", "256.0.0.1:1"}, &out, &out)
	if code != 1 || !strings.Contains(out.String(), "cannot listen") {
		t.Errorf("exit %d: %s", code, out.String())
	}
}

func TestRun_Usage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 0, "Commands:"},
		{[]string{"help"}, 0, "serve"},
		{[]string{"--help"}, 0, "serve"},
		{[]string{"help", "serve"}, 0, "-dynamodb-addr"},
		{[]string{"serve", "-h"}, 0, "-no-sync"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, 2, `unknown command "frobnicate"`},
	} {
		var out bytes.Buffer
		code := run(context.Background(), c.args, &out, &out)
		if code != c.code || !strings.Contains(out.String(), c.want) {
			t.Errorf("%q: exit %d, output:\n%s", c.args, code, out.String())
		}
	}
}

// TestServe_SlowHeaders: a client that sends its headers slower than the
// header timeout has its connection closed, and the server goes on.
func TestServe_SlowHeaders(t *testing.T) {
	addr := serveInProcess(t, &ServeCommand{ReadHeaderTimeout: 200 * time.Millisecond}, "--in-memory", "--no-auth", "--addr", "127.0.0.1:0")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	// No end of headers: the server must close the connection, well before
	// this deadline (which only keeps a broken server from hanging the test).
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection of a client that never ended its headers stayed open (read %q)", b)
	}
	if strings.Contains(string(b), "200 OK") {
		t.Fatalf("a request without the end of its headers was answered: %q", b)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the slow client: %v %v", resp, err)
	}
	resp.Body.Close()
}

// startServeInProcess runs serve in this process with args and the
// ShutdownTimeout given, and returns its base URL, its log, and a stop
// function that cancels it and returns what Run returned.
func startServeInProcess(t *testing.T, timeout time.Duration, args ...string) (string, *syncBuffer, func() error) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	stderr := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		cmd := &ServeCommand{Stdout: io.Discard, Stderr: stderr, ShutdownTimeout: timeout}
		done <- cmd.Run(ctx, append([]string{"--addr-file", addrFile, "--dynamodb-addr", "127.0.0.1:0"}, args...))
	}()
	stop := func() error { cancel(); return <-done }
	addr, err := waitForAddr(addrFile, done, 30*time.Second)
	if err != nil {
		stop()
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return "http://" + addr, stderr, stop
}

// mustPost posts body to url as text; on an error or a status other
// than 2xx it stops the server (stop) and fails the test.
func mustPost(t *testing.T, stop func() error, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "text/plain", strings.NewReader(body))
	if err != nil {
		stop()
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		stop()
		t.Fatalf("POST %s: %s: %s", url, resp.Status, msg)
	}
}

// TestServe_ShutdownBoundsTheFlush stops serve with many series buffered
// and a shutdown timeout too short for their flush: it exits at the
// deadline (a flush of 100,000 new series used to hold SIGTERM for
// minutes), says the rest stays in the write-ahead log, and the next
// start has every reading.
func TestServe_ShutdownBoundsTheFlush(t *testing.T) {
	const n = 5000
	data := filepath.Join(t.TempDir(), "data")
	base, stderr, stop := startServeInProcess(t, time.Nanosecond, "--data", data, "--no-auth")
	post := func(url, body string) { t.Helper(); mustPost(t, stop, url, body) }
	post(base+"/api/v1/kinds", `{"name":"DEV","fields":["v"],"layout":"chunks"}`)
	var lines strings.Builder
	at := time.Now().Add(-time.Minute).Unix()
	for i := range n {
		fmt.Fprintf(&lines, "DEV,series=d%d v=%d %d\n", i, i, at)
	}
	post(base+"/write?precision=s", lines.String())
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stay in the write-ahead log for the next start") {
		t.Fatalf("serve did not stop its flush at the deadline:\n%s", stderr.String())
	}

	base, stderr, stop = startServeInProcess(t, 0, "--data", data, "--no-auth")
	defer stop()
	post(base+"/write?precision=s&sync=true", "")
	for _, i := range []int{0, n / 2, n - 1} {
		resp, err := http.Get(fmt.Sprintf("%s/api/v1/kinds/DEV/series/d%d/latest", base, i))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), fmt.Sprintf(`"v":%d`, i)) {
			t.Fatalf("latest of d%d after the restart: %s: %s\n%s", i, resp.Status, body, stderr.String())
		}
	}
}

// TestServe_CleanStopLeavesNoLogs writes through serve until its series
// log and the engine's logs hold megabytes, stops it (as SIGTERM does),
// and finds the folder holding no log's bytes: the flushed series log is
// dropped, the memtables flushed and their logs deleted. The readings
// are there after a restart.
func TestServe_CleanStopLeavesNoLogs(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, stderr, stop := startServeInProcess(t, 0, "--data", data, "--no-auth")
	post := func(url, body string) { t.Helper(); mustPost(t, stop, url, body) }
	const series, minutes = 500, 60
	at := time.Now().Add(-2 * time.Hour).Truncate(time.Minute).Unix()
	for m := range minutes {
		var lines strings.Builder
		for i := range series {
			fmt.Fprintf(&lines, "DEV,series=d%d,room=r%d v=%d %d\n", i, i%7, m, at+int64(60*m))
		}
		post(base+"/write?precision=s", lines.String())
	}
	logBytes := func() (walBytes, pebbleLogs int64) {
		t.Helper()
		err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(path, ".wal"):
				walBytes += fi.Size()
			case strings.HasSuffix(path, ".log"):
				pebbleLogs += fi.Size()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return walBytes, pebbleLogs
	}
	if w, _ := logBytes(); w < series*minutes*10 {
		stop()
		t.Fatalf("the series log holds %d bytes before the stop: the test writes too little", w)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	if w, p := logBytes(); w > 1<<10 || p > 4<<10 {
		t.Fatalf("after a clean stop the series log holds %d bytes and the engine's logs %d, want at most 1 KiB and 4 KiB", w, p)
	}

	base, stderr, stop = startServeInProcess(t, 0, "--data", data, "--no-auth")
	defer stop()
	resp, err := http.Get(base + "/api/v1/kinds/DEV/series/d7/latest")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), fmt.Sprintf(`"v":%d`, minutes-1)) {
		t.Fatalf("latest of d7 after the restart: %s: %s\n%s", resp.Status, body, stderr.String())
	}
}

// TestServe_CleanStopLeavesCompactFolder writes a closed day of one-minute
// readings of three fields (a random walk with two decimals) through
// serve and stops it: the clean stop merges each series' day into one
// chunk item, deletes the chunks it merged and gives their space back,
// so the folder holds a few bytes per reading (its chunks take about 2,
// the rollups and each series' items the rest), not the flushes' chunks.
// The readings are all there after a restart.
func TestServe_CleanStopLeavesCompactFolder(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	// The stop's compaction is bounded by the shutdown timeout: one that
	// a loaded machine does not reach. No rollup pass: the rollups of the
	// day (some 1.5 bytes a reading) would be in the folder or not
	// depending on whether the minute's pass fell within the ingest, on a
	// slow machine, or not.
	base, stderr, stop := startServeInProcess(t, 5*time.Minute, "--data", data, "--no-auth", "--rollup-interval", "-1s")
	post := func(url, body string) { t.Helper(); mustPost(t, stop, url, body) }
	const series, minutes = 100, 24 * 60
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -2).Unix()
	post(base+"/api/v1/kinds", `{"name":"SENSOR","fields":["f1","f2","f3"],"layout":"chunks"}`)
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([][3]int, series)
	for m := range minutes {
		var lines strings.Builder
		for i := range series {
			for f := range 3 {
				vals[i][f] += rng.IntN(21) - 10
			}
			fmt.Fprintf(&lines, "SENSOR,series=s%d f1=%.2f,f2=%.2f,f3=%.2f %d\n", i,
				20+float64(vals[i][0])/100, 30+float64(vals[i][1])/100, 40+float64(vals[i][2])/100, day+int64(60*m))
		}
		post(base+"/write?precision=s", lines.String())
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	var size int64
	var files []string
	err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			size += fi.Size()
			files = append(files, fmt.Sprintf("%s %d", path[len(data):], fi.Size()))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	perReading := float64(size) / (series * minutes)
	t.Logf("%d bytes, %.2f bytes/reading", size, perReading)
	// 2.6 bytes/reading; 16.6 without the stop's compaction.
	if perReading > 3 {
		t.Fatalf("after a clean stop the folder holds %.2f bytes/reading (%d bytes), want at most 3; its files:\n%s", perReading, size, strings.Join(files, "\n"))
	}

	base, stderr, stop = startServeInProcess(t, 0, "--data", data, "--no-auth")
	defer stop()
	from, to := day*1000, (day+24*3600)*1000
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/kinds/SENSOR/series/s7/readings?from=%d&to=%d&limit=%d", base, from, to, minutes))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Readings []json.RawMessage `json:"readings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("readings of s7 after the restart: %s, %v\n%s", resp.Status, err, stderr.String())
	}
	if len(got.Readings) != minutes {
		t.Fatalf("%d readings of s7 after the restart, want %d", len(got.Readings), minutes)
	}
}
