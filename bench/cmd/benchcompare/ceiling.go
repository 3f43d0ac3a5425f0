package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
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
// ratio, any server can show in this benchmark. It speaks HTTP with a
// minimal loop of its own rather than net/http, so that it costs less than
// any real server's HTTP, timetable serve's included.
const ceilingEnv = "BENCHCOMPARE_CEILING_ADDR_FILE"

const ceilingItem = `{"pk":{"S":"P#0001"},"sk":{"N":"7"},"n":{"N":"0"},"payload":{"S":"` +
	"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp" + `"}}`

// jsonHeader is the header field of every ceiling answer.
var jsonHeader = []byte("Content-Type: application/x-amz-json-1.0\r\n")

// answerFunc answers one request of serveRaw's loop: the status, the
// header fields but Content-Length (each line ending in CRLF), and the
// body.
type answerFunc func(op string, body []byte) (status int, header, answer []byte)

// ceiling answers the load generator's operations with fixed responses.
type ceiling struct {
	mu     sync.Mutex
	tables map[string]bool
	query  []byte
	get    []byte
}

func newCeiling() *ceiling {
	items := strings.TrimSuffix(strings.Repeat(ceilingItem+",", 20), ",")
	return &ceiling{
		tables: map[string]bool{},
		query:  []byte(`{"Count":20,"ScannedCount":20,"Items":[` + items + `]}`),
		get:    []byte(`{"Item":` + ceilingItem + `}`),
	}
}

// answer is an answerFunc.
func (c *ceiling) answer(op string, body []byte) (int, []byte, []byte) {
	status, answer := c.answerBody(op, body)
	return status, jsonHeader, answer
}

// answerBody returns the status and body of the answer to operation op.
func (c *ceiling) answerBody(op string, body []byte) (int, []byte) {
	switch op {
	case "PutItem":
		return http.StatusOK, []byte(`{}`)
	case "GetItem":
		return http.StatusOK, c.get
	case "Query":
		return http.StatusOK, c.query
	case "BatchWriteItem":
		return http.StatusOK, []byte(`{"UnprocessedItems":{}}`)
	case "ListTables":
		return http.StatusOK, []byte(`{"TableNames":[]}`)
	case "CreateTable", "DescribeTable", "DeleteTable":
		name := tableName(body)
		c.mu.Lock()
		exists := c.tables[name]
		switch op {
		case "CreateTable":
			c.tables[name] = true
		case "DeleteTable":
			delete(c.tables, name)
		}
		c.mu.Unlock()
		if !exists && op != "CreateTable" {
			return http.StatusBadRequest, []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`)
		}
		desc := fmt.Sprintf(`{"TableName":%q,"TableStatus":"ACTIVE"}`, name)
		if op == "DescribeTable" {
			return http.StatusOK, []byte(`{"Table":` + desc + `}`)
		}
		return http.StatusOK, []byte(`{"TableDescription":` + desc + `}`)
	}
	return http.StatusBadRequest, []byte(`{"__type":"com.amazon.coral.service#UnknownOperationException"}`)
}

// ceilingHandler returns the no-op server as an http.Handler (for tests;
// the benchmark's child serves it with serveRaw, which costs less).
func ceilingHandler() http.Handler {
	c := newCeiling()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		status, out := c.answerBody(strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."), body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		w.Write(out)
	})
}

// serveRaw answers the requests of one connection with a minimal HTTP/1.1
// loop: it reads the header (only Content-Length and X-Amz-Target matter),
// then the body, and writes the answer with one write. Anything it does not
// understand closes the connection: only the load generator talks to it.
func serveRaw(conn net.Conn, answer answerFunc) {
	defer conn.Close()
	br := bufio.NewReaderSize(conn, 16<<10)
	var body, out []byte
	for {
		op, length := "", -1
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(line) == 0 {
				break
			}
			name, value, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				continue // the request line
			}
			value = bytes.TrimSpace(value)
			switch {
			case bytes.EqualFold(name, []byte("Content-Length")):
				length, err = strconv.Atoi(string(value))
				if err != nil {
					return
				}
			case bytes.EqualFold(name, []byte("X-Amz-Target")):
				op = strings.TrimPrefix(string(value), "DynamoDB_20120810.")
			}
		}
		if length < 0 || length > 16<<20 {
			return
		}
		body = slices.Grow(body[:0], length)[:length]
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		status, header, answer := answer(op, body)
		out = fmt.Appendf(out[:0], "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
		out = append(out, header...)
		out = fmt.Appendf(out, "Content-Length: %d\r\n\r\n", len(answer))
		out = append(out, answer...)
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
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

// maybeCeilingChild serves the no-op server, or the replay server when
// replayEnv names a file of answers, and exits if this process is such a
// child; it returns otherwise. The child listens on a free port of
// 127.0.0.1, writes its host:port to the file named by ceilingEnv, and
// serves until SIGTERM or SIGINT.
func maybeCeilingChild() {
	addrFile := os.Getenv(ceilingEnv)
	if addrFile == "" {
		return
	}
	answer := newCeiling().answer
	if file := os.Getenv(replayEnv); file != "" {
		r, err := loadReplay(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "replay child:", err)
			os.Exit(1)
		}
		answer = r.answer
	}
	if err := serveChild(addrFile, answer); err != nil {
		fmt.Fprintln(os.Stderr, "ceiling child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveChild(addrFile string, answer answerFunc) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if err := os.WriteFile(addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go serveRaw(conn, answer)
	}
}

// startCeiling starts the ceiling child (this executable) and waits until
// it answers.
func startCeiling(ctx context.Context, logDir string) (*peers.Server, error) {
	return startChild(ctx, "no-op server", logDir)
}

// startChild starts this executable as a child server named name, with
// the extra environment env, and waits until it answers.
func startChild(ctx context.Context, name, logDir string, env ...string) (*peers.Server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addrFile, err := peers.AddrFile(logDir, "ceiling-addr-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), ceilingEnv+"="+addrFile), env...)
	return peers.StartProcess(ctx, name, cmd, addrFile, logDir)
}
