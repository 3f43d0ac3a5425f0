package backend_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/backend"
)

func TestOpen_Embedded(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	for _, u := range []string{"mem:", "file:" + dir} {
		db, err := backend.Open(ctx, u)
		if err != nil {
			t.Fatalf("Open(%q): %v", u, err)
		}
		if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Errorf("Open(%q).ListTables: %v", u, err)
		}
		if err := db.Close(); err != nil {
			t.Errorf("Open(%q).Close: %v", u, err)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("file: backend did not create its folder: %v", err)
	}
}

func TestOpen_Remote(t *testing.T) {
	db, err := backend.Open(context.Background(), "http://127.0.0.1:1")
	if err != nil {
		t.Fatalf("Open(http): %v", err)
	}
	defer db.Close()
	if _, ok := db.(timetable.API); !ok {
		t.Fatal("remote backend does not implement API")
	}
}

func TestOpen_BadURLs(t *testing.T) {
	for _, u := range []string{"", "nothing", "file:", "ftp://x", "http://", "dynamodb://"} {
		if db, err := backend.Open(context.Background(), u); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded, want an error", u)
		} else if !strings.HasPrefix(err.Error(), "backend: ") {
			t.Errorf("Open(%q) error %q lacks the package prefix", u, err)
		}
	}
}

// An SDKLogger given to OpenWith is the logger of the endpoint's client.
func TestOpenWith_SDKLogger(t *testing.T) {
	var l logging.Nop
	db, err := backend.OpenWith(context.Background(), "http://127.0.0.1:1", &backend.Options{SDKLogger: l})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, ok := db.(interface{ Options() dynamodb.Options })
	if !ok {
		t.Fatalf("%T is not an SDK client", db)
	}
	if got := c.Options().Logger; got != l {
		t.Errorf("the client's logger is %T, want the one given", got)
	}
	if db, err := backend.OpenWith(context.Background(), "mem:", &backend.Options{SDKLogger: l}); err != nil {
		t.Errorf("mem: with an SDK logger: %v", err)
	} else {
		db.Close()
	}
}
