package wire_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/front"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// loadRequest is one request of the load generator's mix.
type loadRequest struct {
	op   string
	body []byte
}

// loadRequests opens the embedded engine in memory with the load
// generator's table and items, and returns it with a cycle of requests of
// its mix.
func loadRequests(b *testing.B) (*local.DB, []loadRequest) {
	db := testenv.MemDB(b, &local.Options{TTLInterval: -1})
	ctx := context.Background()
	const table, parts, items = "bench_load", 64, 20
	testenv.CreateTable(b, db, table, types.ScalarAttributeTypeN)
	payload := strings.Repeat("p", 100)
	for p := range parts {
		for s := range items {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("P#%04d", p)}, "sk": &types.AttributeValueMemberN{Value: fmt.Sprint(s)},
				"n": &types.AttributeValueMemberN{Value: "0"}, "payload": &types.AttributeValueMemberS{Value: payload}}})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	var reqs []loadRequest
	for i := range 3 * 1024 {
		p, s := (i*7)%parts, (i*13)%items
		switch i % 3 {
		case 0:
			reqs = append(reqs, loadRequest{"PutItem", fmt.Appendf(nil, `{"TableName":%q,"Item":{"n":{"N":"%d"},"payload":{"S":"%s"},"pk":{"S":"P#%04d"},"sk":{"N":"%d"}}}`, table, i, payload, p, s)})
		case 1:
			reqs = append(reqs, loadRequest{"GetItem", fmt.Appendf(nil, `{"TableName":%q,"Key":{"pk":{"S":"P#%04d"},"sk":{"N":"%d"}}}`, table, p, s)})
		case 2:
			reqs = append(reqs, loadRequest{"Query", fmt.Appendf(nil, `{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"P#%04d"}},"Limit":20}`, table, p)})
		}
	}
	return db, reqs
}

// BenchmarkHandler_Load serves, without the network, the requests of the
// bench module's load generator (bench/workload.Load): PutItem overwriting
// one of 64x20 items with a 100-byte payload, GetItem of one, and Query of
// one partition (20 items), in turn, over the embedded engine in memory.
// It measures the server's cost per request apart from net/http's.
func BenchmarkHandler_Load(b *testing.B) {
	db, reqs := loadRequests(b)
	h := wire.New(db, nil)
	auth := "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"
	b.ReportAllocs()
	i := 0
	w := &bufWriter{h: http.Header{}}
	cpu0 := cpuTime()
	for b.Loop() {
		r := reqs[i%len(reqs)]
		hr, _ := http.NewRequest(http.MethodPost, "/", bytes.NewReader(r.body))
		hr.Header.Set("X-Amz-Target", "DynamoDB_20120810."+r.op)
		hr.Header.Set("Authorization", auth)
		clear(w.h)
		w.code, w.n = 0, 0
		h.ServeHTTP(w, hr)
		if w.code != http.StatusOK {
			b.Fatalf("%s: status %d", r.op, w.code)
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(i), "cpu-ns/op")
}

// BenchmarkHandler_Scan serves a Scan of 100 items (of
// BenchmarkHandler_Load's table) without the network, side by side:
// transcoded from the stored items to JSON (the engine's ItemJSONReader),
// and decoded into attribute values and encoded again (the same engine
// without it).
func BenchmarkHandler_Scan(b *testing.B) {
	db, _ := loadRequests(b)
	auth := "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"
	body := []byte(`{"TableName":"bench_load","Limit":100}`)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"transcoded", wire.New(db, nil)}, {"decoded", wire.New(plainAPI{db}, nil)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			w := &bufWriter{h: http.Header{}}
			for b.Loop() {
				hr, _ := http.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
				hr.Header.Set("X-Amz-Target", "DynamoDB_20120810.Scan")
				hr.Header.Set("Authorization", auth)
				clear(w.h)
				w.code, w.n = 0, 0
				c.h.ServeHTTP(w, hr)
				if w.code != http.StatusOK || w.n < 100*100 {
					b.Fatalf("status %d, %d bytes", w.code, w.n)
				}
			}
		})
	}
}

// BenchmarkServer_Load sends the requests of BenchmarkHandler_Load over
// TCP on 127.0.0.1, from 8 goroutines with a kept-alive connection each
// (hand-written requests, answers read with net/http's parser), to the
// Handler served by net/http alone and by timetable serve's listener
// (internal/front, whose fast path takes these requests), side by side.
// cpu-ns/op counts client and server, as they share the process.
func BenchmarkServer_Load(b *testing.B) {
	db, reqs := loadRequests(b)
	h := wire.New(db, nil)
	servers := []struct {
		name  string
		serve func(net.Listener) (stop func())
	}{
		{"net/http", func(ln net.Listener) func() {
			srv := &http.Server{Handler: h}
			go srv.Serve(ln)
			return func() { _ = srv.Close() }
		}},
		{"front", func(ln net.Listener) func() {
			srv := &front.Server{Handler: h, Fallback: &http.Server{Handler: h}}
			go srv.Serve(ln)
			return func() { _ = srv.Close() }
		}},
	}
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer s.serve(ln)()
			benchServer(b, ln.Addr().String(), reqs)
		})
	}
}

func benchServer(b *testing.B, addr string, reqs []loadRequest) {
	raw := make([][]byte, len(reqs))
	for i, r := range reqs {
		raw[i] = fmt.Appendf(nil, "POST / HTTP/1.1\r\nHost: %s\r\nX-Amz-Target: DynamoDB_20120810.%s\r\nAuthorization: AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s",
			addr, r.op, len(r.body), r.body)
	}
	var next atomic.Int64
	b.SetParallelism(4) // 8 goroutines on 2 CPUs
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		for pb.Next() {
			if _, err := c.Write(raw[next.Add(1)%int64(len(raw))]); err != nil {
				b.Error(err)
				return
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the CPU time (user and system) the process has used, in
// all its threads: on a machine shared with other work it measures a
// benchmark's cost better than elapsed time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type bufWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *bufWriter) Header() http.Header         { return w.h }
func (w *bufWriter) WriteHeader(code int)        { w.code = code }
func (w *bufWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
