package tablecopy

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/table"
)

const items = 1500 // per table

// checkReport fails the test unless rep says both tables were copied whole
// and checked, and, for a copy that is not resumed, that every item read
// was found.
func checkReport(t *testing.T, rep *Report, names []string, created bool) {
	t.Helper()
	if len(rep.Tables) != len(names) {
		t.Fatalf("report of %d tables, want %d:\n%s", len(rep.Tables), len(names), rep)
	}
	for i, tr := range rep.Tables {
		if tr.Name != names[i] || tr.Created != created || !tr.Checked || tr.Err != nil || tr.Missing != 0 || tr.Expired != 0 ||
			tr.Found != tr.Read || tr.Resumed == 0 && tr.Read != items {
			t.Errorf("report: %+v", tr)
		}
	}
	if rep.Tables[0].TTL != "exp" || rep.Tables[1].TTL != "" {
		t.Errorf("report: TTL %q, %q", rep.Tables[0].TTL, rep.Tables[1].TTL)
	}
	if f := rep.Failed(); f != nil {
		t.Errorf("failed: %q", f)
	}
}

func TestCopy_Engines(t *testing.T) {
	from, to := engine(t), engine(t)
	names := createTables(t, from, "t")
	fill(t, from, names, items, 1)
	last := map[string]Progress{}
	calls, dones := 0, 0
	rep, err := Copy(context.Background(), from, to, &Options{Segments: 3, Progress: func(p Progress) {
		if last[p.Table].Done {
			t.Errorf("progress after the table was done: %+v", p)
		}
		last[p.Table] = p
		calls++
		if p.Done {
			dones++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, true)
	for _, tr := range rep.Tables {
		if tr.Copied != items || tr.Segments != 3 || tr.Resumed != 0 {
			t.Errorf("report: %+v", tr)
		}
	}
	for _, name := range names {
		if p := last[name]; p.Copied != items || p.Total != items || p.Resumed != 0 || !p.Done {
			t.Errorf("last progress of %s: %+v", name, p)
		}
	}
	if calls < 2*items/table.MaxBatchWrite || dones != 2 {
		t.Errorf("%d progress calls, %d of them done", calls, dones)
	}
	if s := rep.String(); !strings.Contains(s, names[0]+": created, 1500 items copied, TTL on exp, checked: 1500 of 1500 items read are in the destination\n") {
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
			if p.Table == names[1] && p.Copied >= items/3 {
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

	// Without Resume, the state file is not overwritten.
	if _, err := Copy(context.Background(), from, to, o); !errors.Is(err, ErrStateExists) {
		t.Fatalf("copy over a state file, without Resume: err = %v", err)
	}
	ctr := &counting{API: to}
	o.Progress, o.Resume = nil, true
	var resumed []Progress
	o.Progress = func(p Progress) { resumed = append(resumed, p) }
	rep, err := Copy(context.Background(), from, ctr, o)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, names, true)
	if got, want := ctr.puts.Load(), 2*items-recorded; got != want {
		t.Errorf("resumed copy wrote %d items, want %d (%d recorded by the interrupted one)", got, want, recorded)
	}
	if rep.Tables[0].Resumed == 0 || rep.Tables[0].Copied+rep.Tables[1].Copied != 2*items-recorded {
		t.Errorf("report: %+v", rep.Tables)
	}
	if p := resumed[0]; p.Table != names[0] || p.Resumed != st.Tables[names[0]].copied() || p.Copied != p.Resumed {
		t.Errorf("first progress of the resumed copy: %+v", p)
	}
	sameSchema(t, to, names)
	sameItems(t, from, to, names, items)

	// Finished: the state file is gone, there is nothing to resume.
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state file after the copy: %v", err)
	}
	if _, err := Copy(context.Background(), from, ctr, o); !errors.Is(err, ErrNoState) {
		t.Errorf("resuming a finished copy: %v", err)
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
	rep, err := Copy(context.Background(), from, to, nil)
	if err == nil || !strings.Contains(err.Error(), "exists with another key schema") || !strings.Contains(err.Error(), "HASH id N") {
		t.Fatalf("err = %v", err)
	}
	// The other table is copied all the same.
	if f := rep.Failed(); len(f) != 1 || f[0] != names[1] || !rep.Tables[0].Checked || rep.Tables[1].Checked {
		t.Errorf("failed %q, report:\n%s", f, rep)
	}
	if got := dump(t, to, names[0]); len(got) != 10 {
		t.Errorf("%d items copied to the table that fits, want 10", len(got))
	}
	if got := dump(t, to, names[1]); len(got) != 0 {
		t.Errorf("%d items copied to the table that does not fit", len(got))
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

// TestCopy_Verify is the positive control of the check: a destination
// that loses writes fails each table with a *MismatchError that counts the
// items missing, and a table that fails does not stop the next.
func TestCopy_Verify(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "v")
	fill(t, from, names, 100, 4)
	state := filepath.Join(t.TempDir(), "state.json")
	rep, err := Copy(context.Background(), from, dropping{engine(t)}, &Options{Segments: 1, StateFile: state})
	var me *MismatchError
	if !errors.As(err, &me) || me.Table != names[0] || me.Missing != 4 || me.Read != 100 || !strings.Contains(me.Key, "pk=\"p") {
		t.Fatalf("err = %v, want 4 of 100 items missing in %s", err, names[0])
	}
	if !strings.Contains(err.Error(), names[1]+": 4 of the 100 items") {
		t.Errorf("err = %v, want the second table's mismatch too", err)
	}
	if f := rep.Failed(); len(f) != 2 || rep.Tables[1].Missing != 4 || rep.Tables[1].Found != 96 {
		t.Errorf("failed %q, report: %+v", f, rep.Tables)
	}
	// The failed tables start again when resumed.
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := decodeState(data); err != nil || st.Tables[names[0]].copied() != 0 || st.Tables[names[0]].resumed() != 0 {
		t.Errorf("state of a failed table: %s, %v", data, err)
	}
}

// expiring drops the puts of items whose TTL attribute exp is at or before
// now, as a destination that deleted expired items at once would.
type expiring struct {
	timetable.API
	now int64
}

func (e expiring) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for name, ws := range in.RequestItems {
		var keep []types.WriteRequest
		for _, w := range ws {
			if w.PutRequest == nil || !expired(w.PutRequest.Item, "exp", e.now) {
				keep = append(keep, w)
			}
		}
		in.RequestItems[name] = keep
	}
	return e.API.BatchWriteItem(ctx, in, opts...)
}

// TestCopy_Expired copies items half of which have a TTL in the past (but
// the source has not deleted them) to a destination that deletes them at
// once: they are expired, not missing. With a clock before their TTL, the
// same destination fails the check (the positive control).
func TestCopy_Expired(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "e")
	fill(t, from, names, 200, 7)
	now := int64(4102444800 + 99) // exp is 4102444800 + i: items 0 to 99 have expired
	rep, err := Copy(context.Background(), from, expiring{engine(t), now}, &Options{Segments: 2, PageItems: 30,
		Now: func() time.Time { return time.Unix(now, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Tables[0]; tr.Read != 200 || tr.Expired != 100 || tr.Found != 100 || tr.Missing != 0 || !tr.Checked {
		t.Errorf("report: %+v", tr)
	}
	if tr := rep.Tables[1]; tr.Read != 200 || tr.Expired != 0 || tr.Found != 200 {
		t.Errorf("report of the table without TTL: %+v", tr)
	}
	if s := rep.String(); !strings.Contains(s, "checked: 100 of 200 items read are in the destination, 100 expired on the way") {
		t.Errorf("report:\n%s", s)
	}

	_, err = Copy(context.Background(), from, expiring{engine(t), now}, &Options{Tables: names[:1]})
	var me *MismatchError
	if !errors.As(err, &me) || me.Missing != 100 {
		t.Fatalf("err = %v, want 100 items missing", err)
	}
}

func TestExpired(t *testing.T) {
	item := func(v types.AttributeValue) table.Item { return table.Item{"exp": v} }
	for _, c := range []struct {
		item table.Item
		attr string
		want bool
	}{
		{item(&types.AttributeValueMemberN{Value: "100"}), "exp", true},
		{item(&types.AttributeValueMemberN{Value: "99.5"}), "exp", true},
		{item(&types.AttributeValueMemberN{Value: "100.5"}), "exp", false},
		{item(&types.AttributeValueMemberN{Value: "101"}), "exp", false},
		{item(&types.AttributeValueMemberN{Value: "1e2"}), "exp", true},
		{item(&types.AttributeValueMemberS{Value: "1"}), "exp", false},
		{item(&types.AttributeValueMemberN{Value: "1"}), "", false},
		{item(&types.AttributeValueMemberN{Value: "1"}), "other", false},
	} {
		if got := expired(c.item, c.attr, 100); got != c.want {
			t.Errorf("expired(%v, %q, 100) = %v", c.item, c.attr, got)
		}
	}
}

// writing puts extra items into the source at its first Scan call of
// each segment, in keys all over the table.
type writing struct {
	timetable.API
	t     testing.TB
	name  string
	extra atomic.Int64
	once  sync.Once
}

func (w *writing) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := w.API.Scan(ctx, in, opts...)
	if in.ExclusiveStartKey != nil {
		w.once.Do(func() {
			for i := range 50 {
				_, err := w.API.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(w.name), Item: map[string]types.AttributeValue{
					"id": &types.AttributeValueMemberN{Value: strconv.Itoa(1000000 + i*7919)}}})
				if err != nil {
					w.t.Error(err)
				}
				w.extra.Add(1)
			}
		})
	}
	return out, err
}

// TestCopy_WritesDuringCopy: items written to the source during the copy
// are copied or not, and the check does not fail for them.
func TestCopy_WritesDuringCopy(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "w")
	fill(t, from, names, 500, 8)
	to := engine(t)
	src := &writing{API: from, t: t, name: names[1]}
	rep, err := Copy(context.Background(), src, to, &Options{Segments: 3, PageItems: 40})
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tables[1]
	if src.extra.Load() != 50 || tr.Read < 500 || tr.Read > 550 || tr.Found != tr.Read {
		t.Errorf("%d items written during the copy; report %+v", src.extra.Load(), tr)
	}
	if n := len(dump(t, to, names[1])); int64(n) != tr.Read {
		t.Errorf("destination holds %d items, the copy read %d", n, tr.Read)
	}
}

// TestCopy_NextTables: a table missing from the source fails alone, the
// tables after it are copied.
func TestCopy_NextTables(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "n")
	fill(t, from, names, 30, 9)
	rep, err := Copy(context.Background(), from, engine(t), &Options{Tables: []string{names[0], "nope", names[1]}})
	if err == nil || !strings.Contains(err.Error(), "cannot describe source table nope") {
		t.Fatalf("err = %v", err)
	}
	if f := rep.Failed(); len(f) != 1 || f[0] != "nope" || !rep.Tables[0].Checked || !rep.Tables[2].Checked || rep.Tables[2].Read != 30 {
		t.Errorf("failed %q, report:\n%s", f, rep)
	}
	if s := rep.String(); !strings.Contains(s, "nope: FAILED: tablecopy: cannot describe source table nope") {
		t.Errorf("report:\n%s", s)
	}
}

func TestCopy_StateOfOtherSides(t *testing.T) {
	from := engine(t)
	names := createTables(t, from, "s")
	state := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(state, []byte(`{"version": 1, "source": "file:a", "destination": "mem:", "tables": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Copy(context.Background(), from, engine(t), &Options{Tables: names, StateFile: state, Resume: true, Source: "file:b", Destination: "mem:"})
	if err == nil || !strings.Contains(err.Error(), "is of a copy from file:a to mem:") {
		t.Fatalf("err = %v", err)
	}
	if err := os.WriteFile(state, []byte(`{"version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(context.Background(), from, engine(t), &Options{StateFile: state, Resume: true}); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("err = %v", err)
	}
}

func TestCopy_MissingSourceTable(t *testing.T) {
	if _, err := Copy(context.Background(), engine(t), engine(t), &Options{Resume: true}); !errors.Is(err, ErrNoState) {
		t.Errorf("resume without a state file: %v", err)
	}
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
