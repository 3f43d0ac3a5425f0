package local_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	timetable "github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

// diskFullFS is the operating system's file system, whose writes (file
// creations, writes and syncs) fail with ENOSPC while full is set.
func diskFullFS(full *atomic.Bool) vfs.FS {
	return errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !full.Load() {
			return nil
		}
		switch op.Kind {
		case errorfs.OpCreate, errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync,
			errorfs.OpFileSyncData, errorfs.OpFileSyncTo, errorfs.OpFileFlush, errorfs.OpFilePreallocate:
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
}

// copyDir copies the files of dir into a new folder: what a new process
// finds on disk.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		src, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
	return to
}

// TestDB_DiskFull_RefusesWrites: when Pebble's log cannot be written (a
// full disk), the writes in flight and every later one fail with an error
// that is a DynamoDB ServiceUnavailable and matches timetable.ErrDiskFull,
// without a panic or a hang, even once space is back (the engine needs a
// restart); reads go on; Close returns the failure at once; and a new
// process finds every write acknowledged before the failure and writes
// again.
func TestDB_DiskFull_RefusesWrites(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	db, err := local.Open(dir, &local.Options{FS: diskFullFS(&full), TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "")
	const acked = 50
	for i := range acked {
		put(t, db, "tbl", attrs("pk", s(fmt.Sprint("k", i)), "v", n("1")))
	}
	if err := db.Writable(); err != nil {
		t.Fatalf("Writable before the disk is full = %v", err)
	}

	full.Store(true)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
					Item: attrs("pk", s(fmt.Sprint("new", i)))})
			} else {
				_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"),
					Key: attrs("pk", s(fmt.Sprint("k", i))), UpdateExpression: aws.String("ADD v :one"),
					ExpressionAttributeValues: attrs(":one", n("1"))})
			}
			checkDiskFull(t, "a write with the disk full", err)
		})
	}
	wg.Wait()
	checkDiskFull(t, "Writable", db.Writable())
	if got := get(t, db, "tbl", attrs("pk", s("k3"))); got == nil {
		t.Fatal("GetItem after the failure: item missing")
	}

	full.Store(false)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("later"))})
	checkDiskFull(t, "PutItem once space is back, before a restart", err)
	if err := db.Sync(ctx); !errors.Is(err, timetable.ErrStorageFailed) {
		t.Fatalf("Sync after the failure = %v, want ErrStorageFailed", err)
	}
	checkDiskFull(t, "Close", db.Close())

	db2 := reopenAcked(t, dir, acked)
	put(t, db2, "tbl", attrs("pk", s("after restart")))
}

// reopenAcked opens a copy of the store in dir, as a new process would
// after a failure, and fails the test unless items k0 to k(acked-1) of
// table "tbl" are all there. The copy is closed when the test ends.
func reopenAcked(t *testing.T, dir string, acked int) *local.DB {
	t.Helper()
	db, err := local.Open(copyDir(t, dir), &local.Options{TTLInterval: -1})
	if err != nil {
		t.Fatalf("Open after the failure: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	for i := range acked {
		if get(t, db, "tbl", attrs("pk", s(fmt.Sprint("k", i)))) == nil {
			t.Fatalf("acknowledged item k%d of %d lost", i, acked)
		}
	}
	return db
}

func checkDiskFull(t *testing.T, what string, err error) {
	t.Helper()
	var ae smithy.APIError
	switch {
	case !errors.Is(err, timetable.ErrDiskFull) || !timetable.IsDiskFull(err):
		t.Errorf("%s = %v, want ErrDiskFull", what, err)
	case !errors.As(err, &ae) || ae.ErrorCode() != "ServiceUnavailable":
		t.Errorf("%s = %v (%T), want a ServiceUnavailable API error", what, err, err)
	}
}

// TestDB_DiskFull_SpaceGuard: while the disk has less than MinFreeBytes
// available, writes are refused before they reach Pebble, with an error
// matching ErrDiskFull but not ErrStorageFailed, and Writable says so;
// once space is back, writes resume without a restart.
func TestDB_DiskFull_SpaceGuard(t *testing.T) {
	var avail atomic.Uint64
	avail.Store(1 << 40)
	db, err := local.Open(t.TempDir(), &local.Options{FS: testenv.LowSpaceFS{FS: vfs.Default, Avail: &avail}, MinFreeBytes: 64 << 20, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("before")))

	avail.Store(1 << 20)
	waitWritable(t, db, false)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("refused"))})
	checkDiskFull(t, "PutItem with 1 MiB available", err)
	if errors.Is(err, timetable.ErrStorageFailed) {
		t.Fatalf("PutItem with 1 MiB available = %v: not a failure of the storage", err)
	}
	if got := get(t, db, "tbl", attrs("pk", s("before"))); got == nil {
		t.Fatal("GetItem with the disk full: item missing")
	}
	// A start on a full disk creates its tables if missing: one that exists
	// is told so, as when there is room.
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	if !errors.As(err, new(*types.ResourceInUseException)) {
		t.Fatalf("CreateTable of an existing table with the disk full = %v, want ResourceInUseException", err)
	}

	avail.Store(1 << 40)
	waitWritable(t, db, true)
	put(t, db, "tbl", attrs("pk", s("after")))
	if err := db.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
}

// waitWritable waits until db.Writable says writable or not (the free
// space is measured a few times a second).
func waitWritable(t *testing.T, db *local.DB, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := db.Writable()
		if (err == nil) == want {
			if !want {
				checkDiskFull(t, "Writable", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Writable = %v after 10 s, want writable %v", err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDB_DiskFull_DeferredSync: writes acknowledged unsynced (under
// timetable.WithDeferredSync, as the series store flushes) and then a Sync
// that cannot write the log: Sync returns the disk-full error, without a
// panic, and the engine refuses writes from then on.
func TestDB_DiskFull_DeferredSync(t *testing.T) {
	var full atomic.Bool
	db, err := local.Open(t.TempDir(), &local.Options{FS: diskFullFS(&full), TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "")
	full.Store(true)
	dctx := timetable.WithDeferredSync(ctx)
	for i := range 10 {
		_, err := db.PutItem(dctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s(fmt.Sprint("k", i)))})
		if err != nil {
			checkDiskFull(t, "a deferred-sync write with the disk full", err)
		}
	}
	checkDiskFull(t, "Sync with the disk full", db.Sync(ctx))
	checkDiskFull(t, "Writable after a failed Sync", db.Writable())
	checkDiskFull(t, "Close", db.Close())
}

// TestDB_DiskFull_BackgroundFatal: a flush whose manifest write fails
// (ENOSPC) is fatal to Pebble on a goroutine of its own: the process goes
// on (that goroutine is parked), writes are refused with the disk-full
// error, reads go on, Close returns, and a new process finds every
// acknowledged write.
func TestDB_DiskFull_BackgroundFatal(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && strings.Contains(op.Path, "MANIFEST") && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
	db, err := local.Open(dir, &local.Options{FS: fs, MemTableSize: 64 << 10, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "")
	full.Store(true)
	pad := strings.Repeat("x", 1000)
	acked := 0
	for i := 0; i < 2000 && db.Writable() == nil; i++ {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s(fmt.Sprint("k", i)), "pad", s(pad))})
		if err != nil {
			checkDiskFull(t, "PutItem once a flush failed", err)
			break
		}
		acked++
	}
	waitWritable(t, db, false)
	if !errors.Is(db.Writable(), timetable.ErrStorageFailed) {
		t.Fatalf("Writable = %v, want ErrStorageFailed", db.Writable())
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("refused"))})
	checkDiskFull(t, "PutItem after the failure", err)
	if acked > 0 && get(t, db, "tbl", attrs("pk", s("k0"))) == nil {
		t.Fatal("GetItem after the failure: k0 missing")
	}
	checkDiskFull(t, "Close", db.Close())

	reopenAcked(t, dir, acked)
	t.Logf("%d writes acknowledged before the flush failed", acked)
}
