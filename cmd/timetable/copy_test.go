package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
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

func runCopy(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"copy"}, args...), &out, &errb); code != 0 {
		t.Fatalf("timetable copy %q: exit %d\n%s", args, code, errb.String())
	}
	return out.String(), errb.String()
}

func TestCopy_DataFolders(t *testing.T) {
	src := copySource(t, "events")
	dst := t.TempDir()
	state := filepath.Join(t.TempDir(), "state.json")
	out, errs := runCopy(t, "--from", "file:"+src, "--to", "file:"+dst, "--segments", "3", "--state", state)
	if !strings.HasPrefix(out, fmt.Sprintf("copied %d items of 1 tables from file:%s to file:%s in ", copyItems, src, dst)) ||
		!strings.HasSuffix(out, "; item counts verified\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("stdout: %q", out)
	}
	if errs != "" {
		t.Errorf("stderr is not a terminal, yet: %q", errs)
	}
	// Run again: the state says it is done, nothing is copied.
	if out, _ = runCopy(t, "--from", "file:"+src, "--to", "file:"+dst, "--state", state); !strings.HasPrefix(out, "copied 0 items of 1 tables") {
		t.Errorf("second run: %q", out)
	}
	copySame(t, openDir(t, src), openDir(t, dst), "events")
}

func TestCopy_ProgressBar(t *testing.T) {
	src := copySource(t, "events")
	var out, errb bytes.Buffer
	c := &CopyCommand{Stdout: &out, Stderr: &errb, Terminal: func(io.Writer) bool { return true }}
	if err := c.Run(context.Background(), []string{"--from", "file:" + src, "--to", "file:" + t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"100%", fmt.Sprintf("%d/%d", copyItems, copyItems), "items/s", "events: created, 600 items copied, TTL on exp, verified"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestCopy_DynamoDBLocal copies a data folder to DynamoDB Local and back
// to another data folder with the command.
func TestCopy_DynamoDBLocal(t *testing.T) {
	endpoint := dynamotest.Require(t)
	// The backend takes credentials from the environment: a key of our
	// own keeps this test's tables apart in DynamoDB Local.
	t.Setenv("AWS_ACCESS_KEY_ID", "cmdcopy")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	ddb := dynamotest.NewClient(endpoint, dynamotest.AccessKey("cmdcopy"))
	name := dynamotest.TableName(t, "cmd")
	t.Cleanup(func() { ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })

	src := copySource(t, name)
	runCopy(t, "--from", "file:"+src, "--to", endpoint, "--tables", name)
	back := t.TempDir()
	runCopy(t, "--from", endpoint, "--to", "file:"+back, "--tables", name, "--segments", "2")
	a := openDir(t, src)
	copySame(t, a, ddb, name)
	copySame(t, a, openDir(t, back), name)
}

func TestCopy_BadArgs(t *testing.T) {
	for _, args := range [][]string{{}, {"--from", "mem:"}, {"--from", "mem:", "--to", "mem:"},
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
