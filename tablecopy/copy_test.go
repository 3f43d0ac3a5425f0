package tablecopy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/table"
)

const items = 1500 // per table

// checkReport fails the test unless rep says both tables were copied whole
// and verified.
func checkReport(t *testing.T, rep *Report, names []string, created bool) {
	t.Helper()
	if len(rep.Tables) != len(names) {
		t.Fatalf("report of %d tables, want %d:\n%s", len(rep.Tables), len(names), rep)
	}
	for i, tr := range rep.Tables {
		if tr.Name != names[i] || tr.Created != created || !tr.Verified || tr.SourceItems != items || tr.DestinationItems != items {
			t.Errorf("report: %+v", tr)
		}
	}
	if rep.Tables[0].TTL != "exp" || rep.Tables[1].TTL != "" {
		t.Errorf("report: TTL %q, %q", rep.Tables[0].TTL, rep.Tables[1].TTL)
	}
}

func TestCopy_Engines(t *testing.T) {
	from, to := engine(t), engine(t)
	names := createTables(t, from, "t")
	fill(t, from, names, items, 1)
	var last Progress
	calls := 0
	rep, err := Copy(context.Background(), from, to, &Options{Segments: 3, Progress: func(p Progress) { last = p; calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, true)
	for _, tr := range rep.Tables {
		if tr.Copied != items || tr.Segments != 3 || tr.Resumed != 0 {
			t.Errorf("report: %+v", tr)
		}
	}
	if last.Copied != 2*items || last.Total != 2*items || calls < 2*items/table.MaxBatchWrite {
		t.Errorf("last progress %+v after %d calls", last, calls)
	}
	if s := rep.String(); !strings.Contains(s, names[0]+": created, 1500 items copied, TTL on exp, verified: 1500 items on both sides\n") {
		t.Errorf("report:\n%s", s)
	}
	sameSchema(t, to, names)
	sameItems(t, from, to, names, items)
	sameIndexItems(t, from, to, names)

	// Again: the tables are reused, the items put again.
	rep, err = Copy(context.Background(), from, to, &Options{Tables: names})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, false)
	if s := rep.String(); !strings.Contains(s, "reused existing table") {
		t.Errorf("report:\n%s", s)
	}
}

// counting counts the puts of BatchWriteItem calls.
type counting struct {
	timetable.API
	puts atomic.Int64
}

func (c *counting) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := c.API.BatchWriteItem(ctx, in, opts...)
	if err == nil {
		for _, ws := range in.RequestItems {
			c.puts.Add(int64(len(ws)))
		}
		for _, ws := range out.UnprocessedItems {
			c.puts.Add(-int64(len(ws)))
		}
	}
	return out, err
}

// resume copies names from from to to, interrupted by a cancelled context
// after two thirds of the items, then resumed with the state file: the
// second run must write exactly the items of the pages the state did not
// record, and end with equal tables.
func resume(t *testing.T, from, to timetable.API, names []string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	state := filepath.Join(t.TempDir(), "copy.json")
	o := &Options{Tables: names, Segments: 4, PageItems: 40, StateFile: state, Source: "a", Destination: "b",
		Progress: func(p Progress) {
			if p.Copied >= items+items/3 { // in the second table
				cancel()
			}
		}}
	_, err := Copy(ctx, from, to, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy: err = %v, want context.Canceled", err)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	st, err := decodeState(data)
	if err != nil {
		t.Fatal(err)
	}
	recorded, done := int64(0), 0
	for _, ts := range st.Tables {
		recorded += ts.copied()
		for _, s := range ts.Segments {
			if s.Done {
				done++
			}
		}
	}
	if recorded == 0 || recorded >= 2*items || done == 0 {
		t.Fatalf("state after the interruption records %d items, %d segments done:\n%s", recorded, done, data)
	}

	ctr := &counting{API: to}
	o.Progress = nil
	rep, err := Copy(context.Background(), from, ctr, o)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, true)
	if got, want := ctr.puts.Load(), 2*items-recorded; got != want {
		t.Errorf("resumed copy wrote %d items, want %d (%d recorded by the interrupted one)", got, want, recorded)
	}
	if rep.Tables[0].Resumed == 0 {
		t.Errorf("report: %+v", rep.Tables[0])
	}
	sameSchema(t, to, names)
	sameItems(t, from, to, names, items)

	// Finished: a third run writes nothing and verifies again.
	ctr.puts.Store(0)
	if _, err := Copy(context.Background(), from, ctr, o); err != nil || ctr.puts.Load() != 0 {
		t.Errorf("third run: %d puts, %v", ctr.puts.Load(), err)
	}
}

func TestCopy_Resume(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "r")
	fill(t, from, names, items, 2)
	resume(t, from, engine(t), names)
}

func TestCopy_KeyMismatch(t *testing.T) {
	from, to := engine(t), engine(t)
	names := createTables(t, from, "k")
	fill(t, from, names, 10, 3)
	_, err := to.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(names[1]),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Copy(context.Background(), from, to, nil)
	if err == nil || !strings.Contains(err.Error(), "exists with another key schema") || !strings.Contains(err.Error(), "HASH id N") {
		t.Fatalf("err = %v", err)
	}
	// The first table was created, but no item copied.
	if got := dump(t, to, names[0]); len(got) != 0 {
		t.Errorf("%d items copied despite the mismatch", len(got))
	}
}

// dropping loses the first put of every BatchWriteItem call, reporting
// success.
type dropping struct{ timetable.API }

func (d dropping) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for name, ws := range in.RequestItems {
		in.RequestItems[name] = ws[1:]
	}
	return d.API.BatchWriteItem(ctx, in, opts...)
}

// TestCopy_Verify is the positive control of the verification: a
// destination that loses writes, or that holds an item the source lacks,
// is a *MismatchError with both counts.
func TestCopy_Verify(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "v")
	fill(t, from, names, 100, 4)
	rep, err := Copy(context.Background(), from, dropping{engine(t)}, &Options{Segments: 1})
	var me *MismatchError
	if !errors.As(err, &me) || me.Table != names[0] || me.SourceItems != 100 || me.DestinationItems != 96 {
		t.Fatalf("err = %v, want a mismatch of 100 and 96 items in %s", err, names[0])
	}
	if len(rep.Tables) != 2 || rep.Tables[0].Verified || rep.Tables[0].DestinationItems != 96 {
		t.Errorf("report: %+v", rep.Tables)
	}

	to := engine(t)
	createTables(t, to, "v")
	if _, err := to.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(names[1]),
		Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberN{Value: "123456789"}}}); err != nil {
		t.Fatal(err)
	}
	_, err = Copy(context.Background(), from, to, nil)
	if !errors.As(err, &me) || me.Table != names[1] || me.SourceItems != 100 || me.DestinationItems != 101 {
		t.Fatalf("err = %v, want a mismatch of 100 and 101 items in %s", err, names[1])
	}
}

func TestCopy_StateOfOtherSides(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "s")
	state := filepath.Join(t.TempDir(), "state.json")
	if _, err := Copy(context.Background(), from, engine(t), &Options{Tables: names, StateFile: state, Source: "file:a", Destination: "mem:"}); err != nil {
		t.Fatal(err)
	}
	_, err := Copy(context.Background(), from, engine(t), &Options{Tables: names, StateFile: state, Source: "file:b", Destination: "mem:"})
	if err == nil || !strings.Contains(err.Error(), "is of a copy from file:a to mem:") {
		t.Fatalf("err = %v", err)
	}
	if err := os.WriteFile(state, []byte(`{"version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(context.Background(), from, engine(t), &Options{StateFile: state}); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("err = %v", err)
	}
}

func TestCopy_MissingSourceTable(t *testing.T) {
	_, err := Copy(context.Background(), engine(t), engine(t), &Options{Tables: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), "cannot describe source table nope") {
		t.Fatalf("err = %v", err)
	}
}

// TestCopy_DynamoDBLocal copies from a data folder to DynamoDB Local and
// back to another data folder, then an interrupted copy to DynamoDB Local
// resumed with its state file.
func TestCopy_DynamoDBLocal(t *testing.T) {
	ddb := dynamotest.Client(t)
	ctx := context.Background()
	dropAll := func(names []string) {
		t.Cleanup(func() {
			for _, n := range names {
				ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(n)})
			}
		})
	}

	from := engine(t)
	names := createTables(t, from, dynamotest.TableName(t, "tc"))
	dropAll(names)
	fill(t, from, names, items, 5)
	rep, err := Copy(ctx, from, ddb, &Options{Tables: names, PageItems: 200})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, true)
	sameSchema(t, ddb, names)
	sameItems(t, from, ddb, names, items)
	sameIndexItems(t, from, ddb, names)

	back := engine(t)
	if rep, err = Copy(ctx, ddb, back, &Options{Tables: names, Segments: 2}); err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, true)
	sameSchema(t, back, names)
	sameItems(t, ddb, back, names, items)
	sameItems(t, from, back, names, items)

	from = engine(t)
	names = createTables(t, from, dynamotest.TableName(t, "tc"))
	dropAll(names)
	fill(t, from, names, items, 6)
	resume(t, from, ddb, names)
}

func FuzzDecodeState(f *testing.F) {
	f.Add([]byte(`{"version":1,"source":"file:x","destination":"mem:","tables":{"t":{"created":true,"segments":[{"done":true,"items":3},{"cursor":"abc","items":2},{"items":0}]}}}`))
	f.Add([]byte(`{"version":1,"tables":{}}`))
	f.Add([]byte(`{"version":1,"tables":{"t":{"segments":[]}}}`))
	f.Add([]byte(`{"version":1,"tables":{"t":{"segments":[{"done":true,"cursor":"x"}]}}}`))
	f.Add([]byte(`{"version":1,"tables":{"t":null}}`))
	f.Add([]byte(`{"version":1} {}`))
	f.Add([]byte(`{"version":1,"extra":1}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeState(data)
		if err != nil {
			return
		}
		st.path = filepath.Join(t.TempDir(), "s.json")
		if err := st.save(); err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(st.path)
		if err != nil {
			t.Fatal(err)
		}
		st2, err := decodeState(again)
		if err != nil {
			t.Fatalf("a saved state does not decode: %v\n%s", err, again)
		}
		if len(st2.Tables) != len(st.Tables) || st2.Source != st.Source || st2.Destination != st.Destination {
			t.Fatalf("round trip changed the state:\n%s", again)
		}
		for name, ts := range st.Tables {
			if ts.copied() != st2.Tables[name].copied() || ts.resumed() != st2.Tables[name].resumed() {
				t.Fatalf("round trip changed table %q:\n%s", name, again)
			}
		}
	})
}

// mangling changes attribute s of every item it puts.
type mangling struct{ timetable.API }

func (m mangling) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for _, ws := range in.RequestItems {
		for _, w := range ws {
			w.PutRequest.Item["s"] = &types.AttributeValueMemberS{Value: "mangled"}
		}
	}
	return m.API.BatchWriteItem(ctx, in, opts...)
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

// TestSameItems_Control is the positive control of the item comparison
// the tests rely on: a copy that changes a value passes the counts but not
// sameItems.
func TestSameItems_Control(t *testing.T) {
	from, to := engine(t), engine(t)
	names := createTables(t, from, "c")
	fill(t, from, names, 50, 7)
	if _, err := Copy(context.Background(), from, mangling{to}, nil); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	sameItems(r, from, to, names, 50)
	if !r.failed {
		t.Fatal("sameItems found no difference in mangled copies")
	}
}
