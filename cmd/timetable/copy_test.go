package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/tablecopy"
)

const copyItems = 600

// copySource makes a data folder holding a table name with a global index,
// TTL on exp and copyItems items of mixed types, and returns its folder.
func copySource(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"},
			{AttributeName: aws.String("sk"), AttributeType: "N"}, {AttributeName: aws.String("g"), AttributeType: "S"}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for i := range copyItems {
		item := map[string]types.AttributeValue{
			"pk":  &types.AttributeValueMemberS{Value: fmt.Sprint("device-", i%7)},
			"sk":  &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
			"g":   &types.AttributeValueMemberS{Value: fmt.Sprint("g", i%5)},
			"exp": &types.AttributeValueMemberN{Value: "4102444800"},
			"b":   &types.AttributeValueMemberB{Value: []byte{byte(i), 0, 255}},
			"ns":  &types.AttributeValueMemberNS{Value: []string{strconv.Itoa(i)}},
			"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: i%2 == 0}, &types.AttributeValueMemberNULL{Value: true}}},
			}},
		}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyScan returns the items of a table, sorted by their rendering.
func copyScan(t *testing.T, api timetable.API, name string) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(name)}
	for {
		out, err := api.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Slice(items, func(i, j int) bool { return fmt.Sprint(items[i]["sk"]) < fmt.Sprint(items[j]["sk"]) })
	return items
}

// copySame fails the test unless the data folders a and b hold the same
// items in table name, and b has the TTL setting and index.
func copySame(t *testing.T, a, b timetable.API, name string) {
	t.Helper()
	x, y := copyScan(t, a, name), copyScan(t, b, name)
	if len(x) != copyItems || !reflect.DeepEqual(x, y) {
		t.Fatalf("table %s: %d items, then %d, or they differ", name, len(x), len(y))
	}
	ttl, err := b.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "exp" {
		t.Errorf("TTL: %+v, %v", ttl, err)
	}
	d, err := b.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil || len(d.Table.GlobalSecondaryIndexes) != 1 {
		t.Errorf("indexes: %v", err)
	}
}

func openDir(t *testing.T, dir string) *local.DB {
	t.Helper()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// copyEnv keeps the default state files of the test's copies in a
// temporary cache folder.
func copyEnv(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
}

// runCopyCode runs `timetable copy args` and returns its exit code and
// output.
func runCopyCode(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"copy"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func runCopy(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, out, errs := runCopyCode(context.Background(), args...)
	if code != 0 {
		t.Fatalf("timetable copy %q: exit %d\n%s%s", args, code, out, errs)
	}
	return out, errs
}

func TestCopy_DataFolders(t *testing.T) {
	copyEnv(t)
	src := copySource(t, "events")
	dst := t.TempDir()
	state := filepath.Join(t.TempDir(), "state.json")
	out, errs := runCopy(t, "--from", "file:"+src, "--to", "file:"+dst, "--segments", "3", "--state", state)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || lines[0] != "events: created, 600 items copied, TTL on exp, checked: 600 of 600 items read are in the destination" ||
		!strings.HasPrefix(lines[1], fmt.Sprintf("copied %d items of 1 tables from file:%s to file:%s in ", copyItems, src, dst)) ||
		!strings.HasSuffix(lines[1], "; every page checked") {
		t.Errorf("stdout: %q", out)
	}
	if !strings.HasPrefix(errs, "events: copying about 600 items\n") || !strings.HasSuffix(errs, " items/s)\n") || strings.ContainsAny(errs, "\r\x1b") {
		t.Errorf("stderr is not a terminal, yet: %q", errs)
	}
	// The state file is gone: nothing to resume; a new copy puts every item again.
	if code, _, errs := runCopyCode(context.Background(), "--from", "file:"+src, "--to", "file:"+dst, "--state", state, "--resume"); code != 1 ||
		!strings.Contains(errs, "there is no copy from file:"+src+" to file:"+dst+" to resume (no state file "+state+")") {
		t.Errorf("resume of a finished copy: exit %d, %s", code, errs)
	}
	if out, _ = runCopy(t, "--from", "file:"+src, "--to", "file:"+dst); !strings.Contains(out, "events: reused existing table, 600 items copied") {
		t.Errorf("second run: %q", out)
	}
	copySame(t, openDir(t, src), openDir(t, dst), "events")
}

func TestCopy_ProgressBar(t *testing.T) {
	copyEnv(t)
	src := copySource(t, "events")
	var out, errb bytes.Buffer
	c := &CopyCommand{Stdout: &out, Stderr: &errb, Terminal: func(io.Writer) bool { return true }}
	if err := c.Run(context.Background(), []string{"--from", "file:" + src, "--to", "file:" + t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	want := "\revents: [==============================] 100% 600/600 items, "
	if !strings.HasPrefix(errb.String(), "\revents: [") || !strings.Contains(errb.String(), want) || !strings.HasSuffix(errb.String(), "\x1b[K\n") ||
		!strings.Contains(errb.String(), " items/s, done in ") {
		t.Errorf("stderr lacks %q:\n%q", want, errb.String())
	}
	if !strings.Contains(out.String(), "events: created, 600 items copied, TTL on exp, checked: 600 of 600") {
		t.Errorf("stdout: %s", out.String())
	}
}

// TestCopy_ProgressLines checks the plain progress lines against a clock
// that moves a second at each call.
func TestCopy_ProgressLines(t *testing.T) {
	copyEnv(t)
	src := copySource(t, "events")
	var out, errb bytes.Buffer
	clock := time.Unix(0, 0)
	c := &CopyCommand{Stdout: &out, Stderr: &errb, Every: 5 * time.Second,
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	if err := c.Run(context.Background(), []string{"--from", "file:" + src, "--to", "file:" + t.TempDir(), "--segments", "1"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	// 600 items: 24 writes of 25 items, a line every 5 calls (5 s).
	if len(lines) < 5 || lines[0] != "events: copying about 600 items" ||
		lines[1] != "events:  21% 125/600 items, 25 items/s, ETA 19s" ||
		!strings.HasPrefix(lines[len(lines)-1], "events: 600 items in ") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}

// TestCopy_FailedTable: a table that cannot be copied does not stop the
// next; the exit status is 1 and the message names it.
func TestCopy_FailedTable(t *testing.T) {
	copyEnv(t)
	src := copySource(t, "aaa")
	addTable(t, src, "bbb")
	dst := t.TempDir()
	addTable(t, dst, "aaa") // another key schema than the source's
	code, out, errs := runCopyCode(context.Background(), "--from", "file:"+src, "--to", "file:"+dst)
	if code != 1 || !strings.Contains(errs, "timetable copy: 1 of 2 tables failed: aaa; progress is in ") ||
		!strings.Contains(out, "aaa: FAILED: tablecopy: destination table aaa exists with another key schema") ||
		!strings.Contains(out, "bbb: created, 0 items copied, checked: 0 of 0 items read are in the destination") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// Without --resume, the state of the failed copy is not overwritten.
	code, _, errs = runCopyCode(context.Background(), "--from", "file:"+src, "--to", "file:"+dst)
	if code != 1 || !strings.Contains(errs, "add --resume to continue it, or --restart to start again") {
		t.Errorf("exit %d: %s", code, errs)
	}
	code, out, _ = runCopyCode(context.Background(), "--from", "file:"+src, "--to", "file:"+dst, "--resume", "--tables", "bbb")
	if code != 0 || !strings.Contains(out, "copied 0 items of 1 tables") {
		t.Errorf("resume of the table that worked: exit %d, %s", code, out)
	}
}

// addTable creates an empty table name keyed by a number id in the data
// folder dir.
func addTable(t *testing.T, dir, name string) {
	t.Helper()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: "N"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cancelling is a writer of progress lines that cancels a context at the
// first line that counts an item copied, so that the copy is cut off
// mid-way however slow the machine is.
type cancelling struct {
	cancel context.CancelFunc
	bytes.Buffer
}

// copiedSome matches a progress line's count of items copied, if not 0.
var copiedSome = regexp.MustCompile(`[1-9][0-9]*/[0-9]+ items`)

func (c *cancelling) Write(p []byte) (int, error) {
	if copiedSome.Match(p) {
		c.cancel()
	}
	return c.Buffer.Write(p)
}

// TestCopy_InterruptResume interrupts a copy mid-way (as Ctrl-C does) and
// resumes it with --resume, in its default state file.
func TestCopy_InterruptResume(t *testing.T) {
	copyEnv(t)
	src := copySource(t, "events")
	dst := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	errb := &cancelling{cancel: cancel}
	c := &CopyCommand{Stdout: &out, Stderr: errb, Every: time.Nanosecond}
	err := c.Run(ctx, []string{"--from", "file:" + src, "--to", "file:" + dst, "--segments", "2", "--page-items", "50"})
	if err == nil || !strings.Contains(err.Error(), "interrupted; progress is in ") || !strings.Contains(err.Error(), "run the same command with --resume") {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(out.String(), "events: interrupted (") || !strings.Contains(errb.String(), " items/s, stopped after ") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	out2, _ := runCopy(t, "--from", "file:"+src, "--to", "file:"+dst, "--resume")
	var n int
	if _, err := fmt.Sscanf(out2, "events: created, %d items copied (resumed", &n); err != nil || n >= copyItems || n == 0 {
		t.Errorf("resumed copy: %v\n%s", err, out2)
	}
	copySame(t, openDir(t, src), openDir(t, dst), "events")
}

// TestCopy_DemoFolder copies the data folder of `timetable demo` (a few
// days of a small site) to another.
func TestCopy_DemoFolder(t *testing.T) {
	copyEnv(t)
	src, dst := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"demo", "--data", src, "--days", "3", "--visits-per-day", "30"}, &out, &errb); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errb.String())
	}
	outs, _ := runCopy(t, "--from", "file:"+src, "--to", "file:"+dst)
	if !strings.Contains(outs, "analytics: created, ") || !strings.Contains(outs, "TTL on ttl, checked: ") {
		t.Errorf("stdout: %s", outs)
	}
	a, b := openDir(t, src), openDir(t, dst)
	x, y := copyScan(t, a, "analytics"), copyScan(t, b, "analytics")
	if len(x) < 100 || len(x) != len(y) {
		t.Errorf("%d items in the demo folder, %d in the copy", len(x), len(y))
	}
}

// TestCopy_DynamoDBLocal copies a data folder to DynamoDB Local and back
// to another data folder with the command.
func TestCopy_DynamoDBLocal(t *testing.T) {
	endpoint, ddb, name := copyToDynamoDB(t, "cmdcopy", "cmd")

	src := copySource(t, name)
	runCopy(t, "--from", "file:"+src, "--to", endpoint, "--tables", name)
	back := t.TempDir()
	runCopy(t, "--from", endpoint, "--to", "file:"+back, "--tables", name, "--segments", "2")
	a := openDir(t, src)
	copySame(t, a, ddb, name)
	copySame(t, a, openDir(t, back), name)
}

func TestCopy_BadArgs(t *testing.T) {
	copyEnv(t)
	for _, args := range [][]string{{}, {"--from", "mem:"}, {"--from", "mem:", "--to", "mem:"},
		{"--from", "mem:", "--to", "file:x", "--resume", "--restart"},
		{"--from", "mem:", "--to", "file:x", "--segments", "0"}, {"--from", "mem:", "--to", "file:x", "extra"}, {"--nope"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), append([]string{"copy"}, args...), &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"copy", "--from", "nope", "--to", "mem:"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "backend: cannot open") {
		t.Errorf("bad URL: exit %d, %s", code, errb.String())
	}
	if code := run(context.Background(), []string{"help", "copy"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Example:") {
		t.Errorf("help: exit %d, %s", code, out.String())
	}
}

// TestCopy_SDKWarnings: the SDK's warnings during a table's copy become
// one line when the table is done.
func TestCopy_SDKWarnings(t *testing.T) {
	var errb bytes.Buffer
	p := &copyProgress{w: &errb, every: time.Hour, now: time.Now, warnings: &sdkWarnings{}}
	p.update(tablecopy.Progress{Table: "events", Total: 10})
	for range 3 {
		p.warnings.Logf(logging.Warn, "failed to close HTTP response body:\n%s", "use of closed network connection")
	}
	p.update(tablecopy.Progress{Table: "events", Copied: 10, Total: 10, Done: true})
	lines := strings.Split(errb.String(), "\n")
	if len(lines) != 4 || lines[2] != "events: 3 warnings of the AWS SDK, the copy went on; the last: failed to close HTTP response body: use of closed network connection" {
		t.Errorf("stderr:\n%s", errb.String())
	}
	p.update(tablecopy.Progress{Table: "next", Total: 10})
	p.update(tablecopy.Progress{Table: "next", Done: true})
	if strings.Count(errb.String(), "warnings") != 1 {
		t.Errorf("warnings counted twice:\n%s", errb.String())
	}
}

// TestCopy_BarWidth: on a narrow terminal the bar shrinks so that the
// line does not wrap, and is left out where it would be under 5
// characters.
func TestCopy_BarWidth(t *testing.T) {
	start := time.Unix(100, 0)
	pr := tablecopy.Progress{Table: "analytics", Copied: 50000, Total: 150000}
	for _, c := range []struct {
		cols    int
		bar     string
		longest int
	}{
		{0, "[==========                    ]", 200},
		{200, "[==========                    ]", 199},
		{80, "[====", 79},
		{50, "", 79},
	} {
		p := &copyProgress{terminal: true, cols: c.cols, start: start}
		line := p.line(pr, start.Add(10*time.Second))
		if !strings.HasPrefix(line, "analytics: "+c.bar) || len(line) > c.longest || !strings.HasSuffix(line, "33% 50,000/150,000 items, 5,000 items/s, ETA 20s") {
			t.Errorf("%d columns: %q (%d characters)", c.cols, line, len(line))
		}
	}
}

// TestCopy_DemoToDynamoDBLocalAndBack: a demo folder's web analytics
// copied to DynamoDB Local and back, and the CLI reading each copy with
// --backend (or --data) gives the figures it gives on the folder.
func TestCopy_DemoToDynamoDBLocalAndBack(t *testing.T) {
	endpoint, _, table := copyToDynamoDB(t, "cmddemo", "demo")

	src, back := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"demo", "--data", src, "--table", table, "--days", "3", "--visits-per-day", "40"}, &out, &errb); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errb.String())
	}
	runCopy(t, "--from", "file:"+src, "--to", endpoint, "--tables", table)
	runCopy(t, "--from", endpoint, "--to", "file:"+back, "--tables", table)

	stats := func(where ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		args := append([]string{"stats", "--site", "demo", "--analytics-table", table, "--range", "7d", "--dimension", "event:page"}, where...)
		if code := run(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("stats %q: exit %d: %s", where, code, errb.String())
		}
		return out.String()
	}
	want := stats("--data", src)
	if !strings.Contains(want, "/") {
		t.Fatalf("the demo's stats name no page:\n%s", want)
	}
	if got := stats("--backend", endpoint); got != want {
		t.Errorf("stats on DynamoDB Local:\n%s\nwant, as on the folder:\n%s", got, want)
	}
	if got := stats("--backend", "file:"+back); got != want {
		t.Errorf("stats on the copy back:\n%s\nwant, as on the folder:\n%s", got, want)
	}
}

// copyToDynamoDB prepares a copy test on DynamoDB Local (or skips it): the
// backend takes credentials from the environment, and the access key
// given keeps the test's tables apart there. It returns the endpoint, a
// client with that key, and a table name dropped when the test ends.
func copyToDynamoDB(t *testing.T, key, prefix string) (endpoint string, ddb *dynamodb.Client, table string) {
	t.Helper()
	endpoint = dynamotest.Require(t)
	copyEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	ddb = dynamotest.NewClient(endpoint, dynamotest.AccessKey(key))
	table = dynamotest.TableName(t, prefix)
	t.Cleanup(func() {
		ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	return endpoint, ddb, table
}
