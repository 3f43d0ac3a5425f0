package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// The ceiling server is a DynamoDB endpoint that does no work: it answers
// the load generator's operations with fixed, valid responses (a Query
// returns 20 items, a GetItem one). It runs in a child process of its own
// (this executable, flagged by ceilingEnv), as the real servers do, so that
// the load generator against it measures what the client and HTTP on this
// machine cost by themselves: the highest throughput, and so the highest
// ratio, any server can show in this benchmark.
const ceilingEnv = "BENCHCOMPARE_CEILING_ADDR_FILE"

const ceilingItem = `{"pk":{"S":"P#0001"},"sk":{"N":"7"},"n":{"N":"0"},"payload":{"S":"` +
	"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp" + `"}}`

// ceilingHandler returns the no-op server's handler.
func ceilingHandler() http.Handler {
	var (
		mu     sync.Mutex
		tables = map[string]bool{}
	)
	items := strings.TrimSuffix(strings.Repeat(ceilingItem+",", 20), ",")
	query := []byte(`{"Count":20,"ScannedCount":20,"Items":[` + items + `]}`)
	get := []byte(`{"Item":` + ceilingItem + `}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		var out []byte
		switch op {
		case "PutItem":
			out = []byte(`{}`)
		case "GetItem":
			out = get
		case "Query":
			out = query
		case "BatchWriteItem":
			out = []byte(`{"UnprocessedItems":{}}`)
		case "ListTables":
			out = []byte(`{"TableNames":[]}`)
		case "CreateTable", "DescribeTable", "DeleteTable":
			name := tableName(body)
			mu.Lock()
			exists := tables[name]
			switch op {
			case "CreateTable":
				tables[name] = true
			case "DeleteTable":
				delete(tables, name)
			}
			mu.Unlock()
			if !exists && op != "CreateTable" {
				w.WriteHeader(http.StatusBadRequest)
				out = []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`)
				break
			}
			desc := fmt.Sprintf(`{"TableName":%q,"TableStatus":"ACTIVE"}`, name)
			if op == "DescribeTable" {
				out = []byte(`{"Table":` + desc + `}`)
			} else {
				out = []byte(`{"TableDescription":` + desc + `}`)
			}
		default:
			w.WriteHeader(http.StatusBadRequest)
			out = []byte(`{"__type":"com.amazon.coral.service#UnknownOperationException"}`)
		}
		w.Write(out)
	})
}

// tableName finds "TableName":"..." in a request body.
func tableName(body []byte) string {
	_, rest, ok := strings.Cut(string(body), `"TableName":"`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	return name
}

// maybeCeilingChild serves the no-op server and exits if this process is
// the ceiling child; it returns otherwise. The child listens on a free
// port of 127.0.0.1, writes its host:port to the file named by ceilingEnv,
// and serves until SIGTERM or SIGINT.
func maybeCeilingChild() {
	addrFile := os.Getenv(ceilingEnv)
	if addrFile == "" {
		return
	}
	if err := serveCeiling(addrFile); err != nil {
		fmt.Fprintln(os.Stderr, "ceiling child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveCeiling(addrFile string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if err := os.WriteFile(addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
		return err
	}
	srv := &http.Server{Handler: ceilingHandler()}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// startCeiling starts the ceiling child (this executable) and waits until
// it answers.
func startCeiling(ctx context.Context, logDir string) (*peers.Server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(logDir, "ceiling-addr-")
	if err != nil {
		return nil, err
	}
	f.Close()
	os.Remove(f.Name())
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ceilingEnv+"="+f.Name())
	return peers.StartProcess(ctx, "no-op server", cmd, f.Name(), logDir)
}
