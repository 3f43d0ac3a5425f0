package local_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

func TestOpen_BadOptions(t *testing.T) {
	for _, c := range []struct {
		opts  local.Options
		field string
	}{
		{local.Options{MemTableSize: -1}, "MemTableSize"},
		{local.Options{MemTableSize: 64<<10 - 1}, "MemTableSize"},
		{local.Options{MemTableSize: 4 << 30}, "MemTableSize"},
		{local.Options{L0CompactionThreshold: -1}, "L0CompactionThreshold"},
		{local.Options{L0CompactionThreshold: 1001}, "L0CompactionThreshold"},
		{local.Options{L0CompactionFileThreshold: -1}, "L0CompactionFileThreshold"},
	} {
		c.opts.InMemory = true
		db, err := local.Open("", &c.opts)
		if err == nil {
			db.Close()
			t.Errorf("%+v: Open succeeded", c.opts)
			continue
		}
		if !strings.Contains(err.Error(), "Options."+c.field+" is ") {
			t.Errorf("%+v: error %q does not name the field", c.opts, err)
		}
	}
}

// TestOpen_SmallMemTable writes items of every size up to the largest,
// alone and in batches, through the least memtable and L0 thresholds,
// which flush and compact all the time, and reads them back.
func TestOpen_SmallMemTable(t *testing.T) {
	db := openMem(t, &local.Options{MemTableSize: 64 << 10, L0CompactionThreshold: 1, L0CompactionFileThreshold: 1})
	createTable(t, db, "tbl", "N")
	size := func(i int) int { return i * 997 % (400<<10 - 100) }
	item := func(i int) map[string]dtypes.AttributeValue {
		return attrs("pk", s(fmt.Sprint(i%7)), "sk", n(fmt.Sprint(i)), "x", s(strings.Repeat("x", size(i))))
	}
	const items = 300
	for i := 0; i < items; i += 2 {
		put(t, db, "tbl", item(i))
	}
	for i := 1; i < items; i += 50 {
		var reqs []dtypes.WriteRequest
		for j := i; j < i+50 && j < items; j += 2 {
			reqs = append(reqs, dtypes.WriteRequest{PutRequest: &dtypes.PutRequest{Item: item(j)}})
		}
		if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]dtypes.WriteRequest{"tbl": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range items {
		it := get(t, db, "tbl", attrs("pk", s(fmt.Sprint(i%7)), "sk", n(fmt.Sprint(i))))
		if it == nil || len(it["x"].(*dtypes.AttributeValueMemberS).Value) != size(i) {
			t.Fatalf("item %d: got %d bytes, want %d", i, len(it["x"].(*dtypes.AttributeValueMemberS).Value), size(i))
		}
	}
	// A query reads them back too, page after page (1 MB each).
	count := int32(0)
	in := &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]dtypes.AttributeValue{":p": s("3")}, Select: dtypes.SelectCount}
	for {
		out, err := db.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		count += out.Count
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if count != 43 {
		t.Fatalf("Query counted %d items, want 43", count)
	}
}

func TestClose_ThenOperation(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = db.ListTables(ctx, &dynamodb.ListTablesInput{})
	if !errorsIs(err, local.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestOpenHeldFolder(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = local.Open(dir, nil)
	if !errors.Is(err, local.ErrInUse) || !strings.Contains(err.Error(), "another timetable process") {
		t.Fatalf("second Open: %v, want ErrInUse saying another process holds the folder", err)
	}
}

// TestOpenFolderHeldByAnotherProcess runs this test binary again as a child
// that holds the folder, and opens it here.
func TestOpenFolderHeldByAnotherProcess(t *testing.T) {
	if dir := os.Getenv("TIMETABLE_TEST_HOLD"); dir != "" {
		db, err := local.Open(dir, nil)
		if err != nil {
			fmt.Println("child:", err)
			os.Exit(1)
		}
		fmt.Println("holding")
		_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes stdin
		_ = db.Close()
		os.Exit(0)
	}
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestOpenFolderHeldByAnotherProcess$")
	child.Env = append(os.Environ(), "TIMETABLE_TEST_HOLD="+dir)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = child.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "holding\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	_, err = local.Open(dir, nil)
	if !errors.Is(err, local.ErrInUse) || !strings.Contains(err.Error(), "another timetable process") {
		t.Fatalf("Open of a folder another process holds: %v, want ErrInUse", err)
	}
}

// folderBytes returns the bytes of the files in dir whose names end with
// suffix, and how many there are.
func folderBytes(t *testing.T, dir, suffix string) (int64, int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	files := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
		files++
	}
	return size, files
}

// TestClose_LeavesNoLogs writes through many memtables of 64 KiB, so that
// many write-ahead log files are made and made obsolete, then closes the
// DB: its folder keeps no log's bytes (the memtables were flushed, the old
// logs deleted rather than kept for reuse), and the items read back after
// Open.
func TestClose_LeavesNoLogs(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, &local.Options{MemTableSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "N")
	const items = 400
	big := strings.Repeat("x", 4000)
	for i := range items {
		put(t, db, "tbl", attrs("pk", s("p"), "sk", n(fmt.Sprint(i)), "x", s(big)))
	}
	if size, files := folderBytes(t, dir, ".log"); files == 0 || size == 0 {
		t.Fatalf("%d log files of %d bytes while open: the test writes no log", files, size)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// What is left: the empty log of the memtable the flush made, and
	// its header.
	if size, files := folderBytes(t, dir, ".log"); size > 1<<10 || files > 1 {
		t.Fatalf("%d log files of %d bytes after Close, want at most one, of at most 1 KiB", files, size)
	}
	db, err = local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, i := range []int{0, items / 2, items - 1} {
		if it := get(t, db, "tbl", attrs("pk", s("p"), "sk", n(fmt.Sprint(i)))); it == nil {
			t.Fatalf("item %d lost", i)
		}
	}
}

// TestCompact_GivesBackDeletedSpace deletes most items of a folder whose
// tables hold them: Compact rewrites the tables without them, and the
// folder's tables shrink to what is left, which reads back.
func TestCompact_GivesBackDeletedSpace(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, &local.Options{MemTableSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	createTable(t, db, "tbl", "N")
	const items = 400
	big := strings.Repeat("x", 4000)
	key := func(i int) map[string]dtypes.AttributeValue { return attrs("pk", s("p"), "sk", n(fmt.Sprint(i))) }
	for i := range items {
		put(t, db, "tbl", attrs("pk", s("p"), "sk", n(fmt.Sprint(i)), "x", s(big)))
	}
	if err := db.Compact(ctx); err != nil { // every item in the tables
		t.Fatal(err)
	}
	full, _ := folderBytes(t, dir, ".sst")
	for i := range items - 10 {
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: key(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	// The files the compaction made obsolete are deleted in the
	// background, by Close at the latest.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := folderBytes(t, dir, ".sst"); left > full/10 {
		t.Fatalf("tables of %d bytes after deleting 390 items of 400 and compacting, had %d", left, full)
	}
	if db, err = local.Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	if get(t, db, "tbl", key(items-1)) == nil || get(t, db, "tbl", key(0)) != nil {
		t.Fatal("the items left are not those not deleted")
	}
}
