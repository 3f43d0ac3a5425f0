package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/wire"
)

// diskEnv is a server over an engine on disk whose file system fails as a
// full disk does: fs wraps the operating system's.
func newDiskEnv(t *testing.T, fs vfs.FS) *env {
	t.Helper()
	db, err := local.Open(t.TempDir(), &local.Options{FS: fs, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	st := openSeries(t, db)
	a := openAnalytics(t, db, analytics.Site{ID: "shop", Domains: []string{"shop.example"}})
	e := &env{t: t, db: db, store: st, analytics: a}
	cfg := server.Config{Store: st, Analytics: a, DynamoDB: wire.New(db, nil), Writable: db.Writable}
	e.serve(cfg)
	return e
}

// checkRefused checks that every face refuses a write for lack of space:
// the series API and InfluxDB's write with 507 and the given words in the
// message, /api/event likewise, the DynamoDB endpoint with a 503
// ServiceUnavailable whose message says so, and /readyz with 503.
func checkRefused(t *testing.T, e *env, words string) {
	t.Helper()
	check := func(what string, a answer) {
		t.Helper()
		a.must(t, http.StatusInsufficientStorage)
		if code := a.errorCode(t); code != "insufficient_storage" || !strings.Contains(string(a.body), words) {
			t.Fatalf("%s: %s, want insufficient_storage saying %q", what, a.body, words)
		}
	}
	check("series write", e.postJSON("/api/v1/kinds/SENSOR/readings", map[string]any{"readings": []map[string]any{
		{"series": "s1", "time": time.Now().UnixMilli(), "values": map[string]any{"temperature": 22.5}}}}))
	check("InfluxDB write", e.post("/write?db=x", "text/plain", "SENSOR,series=s1 temperature=3\n"))
	check("analytics hit", e.hit(`{"n":"pageview","u":"https://shop.example/","d":"shop.example"}`))
	a := e.dynamo("PutItem", `{"TableName":"timetable","Item":{"pk":{"S":"x"},"sk":{"S":"y"}}}`)
	var de struct {
		Type    string `json:"__type"`
		Message string
	}
	if err := json.Unmarshal(a.body, &de); err != nil || a.status != http.StatusServiceUnavailable ||
		!strings.HasSuffix(de.Type, "#ServiceUnavailable") || !strings.Contains(de.Message, "no space left") {
		t.Fatalf("DynamoDB PutItem: %d %s, want 503 ServiceUnavailable saying no space left", a.status, a.body)
	}
	r := e.get("/readyz").must(t, http.StatusServiceUnavailable)
	if !strings.Contains(string(r.body), "no space left") {
		t.Fatalf("/readyz: %s, want the reason", r.body)
	}
}

// TestServer_DiskFull_Recovers: while the data folder's disk has too
// little space, every face refuses writes (507, or DynamoDB's 503
// ServiceUnavailable) with the reason and /readyz fails; once space is
// back, without a restart, /readyz passes and writes are taken again.
func TestServer_DiskFull_Recovers(t *testing.T) {
	var avail atomic.Uint64
	avail.Store(1 << 40)
	e := newDiskEnv(t, testenv.LowSpaceFS{FS: vfs.Default, Avail: &avail})
	e.defineSensor()
	e.get("/readyz").must(t, 200)

	avail.Store(1 << 20)
	waitReady(t, e, false)
	checkRefused(t, e, "writes are refused until space is freed")

	avail.Store(1 << 40)
	waitReady(t, e, true)
	e.post("/write?db=x", "text/plain", "SENSOR,series=s1 temperature=3\n").must(t, http.StatusNoContent)
	e.hit(`{"n":"pageview","u":"https://shop.example/","d":"shop.example"}`).must(t, http.StatusAccepted)
	e.dynamo("PutItem", `{"TableName":"timetable","Item":{"pk":{"S":"x"},"sk":{"S":"y"}}}`).must(t, 200)
	if err := e.store.Flush(context.Background()); err != nil {
		t.Fatalf("Flush once space is back: %v", err)
	}
}

// TestServer_DiskFull_EngineFailed: when Pebble's log cannot be written
// (ENOSPC), a DynamoDB write is answered 503 ServiceUnavailable with the
// reason, not a panic's 500, and the server neither hangs nor takes
// writes: every face refuses them and /readyz fails, also once space is
// back (the engine needs a restart, and says so).
func TestServer_DiskFull_EngineFailed(t *testing.T) {
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite && op.Kind != errorfs.OpFileClose {
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
	e := newDiskEnv(t, fs)
	e.defineSensor()
	e.dynamo("PutItem", `{"TableName":"timetable","Item":{"pk":{"S":"a"},"sk":{"S":"b"}}}`).must(t, 200)

	full.Store(true)
	for i := range 4 {
		a := e.dynamo("UpdateItem", fmt.Sprintf(`{"TableName":"timetable","Key":{"pk":{"S":"a"},"sk":{"S":"b"}},"UpdateExpression":"ADD n :one","ExpressionAttributeValues":{":one":{"N":"%d"}}}`, i+1))
		if a.status != http.StatusServiceUnavailable || !strings.Contains(string(a.body), "no space left") {
			t.Fatalf("UpdateItem %d with the disk full: %d %s, want 503 ServiceUnavailable", i, a.status, a.body)
		}
	}
	checkRefused(t, e, "restart the server")
	full.Store(false)
	checkRefused(t, e, "restart the server")
	e.dynamo("GetItem", `{"TableName":"timetable","Key":{"pk":{"S":"a"},"sk":{"S":"b"}}}`).must(t, 200)
}

// waitReady waits until /readyz answers 200 (ready) or 503; the engine
// measures free space a few times a second.
func waitReady(t *testing.T, e *env, ready bool) {
	t.Helper()
	want := http.StatusServiceUnavailable
	if ready {
		want = http.StatusOK
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		a := e.get("/readyz")
		if a.status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz = %d %s after 10 s, want %d", a.status, a.body, want)
		}
	}
}
