package local

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/timetable-db/timetable"
)

// logSyncFS counts the syncs of Pebble's write-ahead log files.
type logSyncFS struct {
	vfs.FS
	syncs atomic.Int64
}

func (fs *logSyncFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return &logSyncFile{File: f, fs: fs}, nil
}

func (fs *logSyncFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, c)
	return fs.wrap(name, f, err)
}

func (fs *logSyncFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, c)
	return fs.wrap(newname, f, err)
}

type logSyncFile struct {
	vfs.File
	fs *logSyncFS
}

func (f *logSyncFile) Sync() error     { f.fs.syncs.Add(1); return f.File.Sync() }
func (f *logSyncFile) SyncData() error { f.fs.syncs.Add(1); return f.File.SyncData() }
func (f *logSyncFile) SyncTo(n int64) (bool, error) {
	f.fs.syncs.Add(1)
	return f.File.SyncTo(n)
}

// TestDeferredSync: writes under timetable.WithDeferredSync are acknowledged and
// visible without syncing the log; Sync syncs it once; other writes of a
// synced DB sync it each.
func TestDeferredSync(t *testing.T) {
	ctx := context.Background()
	fs := &logSyncFS{FS: vfs.NewMem()}
	db, err := Open("db", &Options{FS: fs, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	item := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	}
	deferred := timetable.WithDeferredSync(ctx)
	before := fs.syncs.Load()
	if _, err := db.PutItem(deferred, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: item("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BatchWriteItem(deferred, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"tbl": {{PutRequest: &types.PutRequest{Item: item("b")}}, {PutRequest: &types.PutRequest{Item: item("c")}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateItem(deferred, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: item("d"),
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteItem(deferred, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: item("c")}); err != nil {
		t.Fatal(err)
	}
	if n := fs.syncs.Load() - before; n != 0 {
		t.Fatalf("deferred writes synced the log %d times", n)
	}
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 3 {
		t.Fatalf("scan: %d items, want 3 (a, b, d)", len(out.Items))
	}
	if err := db.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := fs.syncs.Load() - before; n != 1 {
		t.Fatalf("Sync synced the log %d times, want 1", n)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: item("e")}); err != nil {
		t.Fatal(err)
	}
	if n := fs.syncs.Load() - before; n != 2 {
		t.Fatalf("a write without timetable.WithDeferredSync: %d syncs in all, want 2", n)
	}
	db.Close()
	if err := db.Sync(ctx); err != ErrClosed {
		t.Fatalf("Sync after Close: %v, want ErrClosed", err)
	}
}
