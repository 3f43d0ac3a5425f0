package front_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/front"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// start serves h on 127.0.0.1 through a front.Server whose fallback is a
// net/http server of h, after edit (if not nil) set its options; it
// returns the address and the server, shut down at the end of the test.
func start(t testing.TB, h http.Handler, edit func(*front.Server)) (string, *front.Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &front.Server{Handler: h, Fallback: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	if edit != nil {
		edit(s)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, front.ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
	})
	return ln.Addr().String(), s
}

func engine(t testing.TB) *local.DB {
	t.Helper()
	db := testenv.MemDB(t, nil)
	return db
}

// sdkClient is a client for endpoint that retries only a connection closed
// under it (dynamotest.RetryClosedConnection).
func sdkClient(endpoint string) *dynamodb.Client {
	return dynamotest.NewClient(endpoint, dynamotest.AccessKey("front"), dynamotest.RetryClosedConnection)
}

// TestConformance_Front runs the conformance cases through aws-sdk-go-v2
// against the wire handler behind the fast path, as timetable serve
// serves it.
func TestConformance_Front(t *testing.T) {
	db := engine(t)
	addr, _ := start(t, wire.New(db, nil), nil)
	conformance.RunWithStreams(t, sdkClient("http://"+addr), dynamotest.NewStreamsClient("http://"+addr, "front"))
}

// viaNetHTTP reports on each answer, in the X-Served-By field, whether
// net/http (which puts its server in the request's context) or the fast
// path served the request.
func viaNetHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		by := "fast"
		if _, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok {
			by = "net/http"
		}
		w.Header().Set("X-Served-By", by)
		next.ServeHTTP(w, r)
	})
}

// dynamoRequest returns a DynamoDB request as the SDKs send it.
func dynamoRequest(op, body string) string {
	return "POST / HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-amz-json-1.0\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n" +
		"X-Amz-Target: DynamoDB_20120810." + op + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// exchange writes raw on a new connection to addr and reads n answers.
func exchange(t *testing.T, addr string, raw string, n int) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return readAnswers(t, bufio.NewReader(c), n)
}

func readAnswers(t *testing.T, br *bufio.Reader, n int) []*http.Response {
	t.Helper()
	var out []*http.Response
	for i := range n {
		resp, err := http.ReadResponse(br, nil)
		for err == nil && resp.StatusCode < 200 { // 100 Continue comes before the answer
			resp, err = http.ReadResponse(br, nil)
		}
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("answer %d body: %v", i, err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		out = append(out, resp)
	}
	return out
}

func bodyOf(r *http.Response) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

// TestFront_WhoServes checks which requests take the fast path, and that
// a connection, once handed to net/http, stays there.
func TestFront_WhoServes(t *testing.T) {
	addr, s := start(t, viaNetHTTP(wire.New(engine(t), nil)), nil)
	list := dynamoRequest("ListTables", "{}")
	health := "GET / HTTP/1.1\r\nHost: h\r\n\r\n"
	cases := []struct {
		name string
		raw  string
		want []string // X-Served-By of each answer
	}{
		{"one DynamoDB request", list, []string{"fast"}},
		{"pipelined", list + list + list, []string{"fast", "fast", "fast"}},
		{"health check", health, []string{"net/http"}},
		{"handed over midway and kept", list + health + list, []string{"fast", "net/http", "net/http"}},
		{"chunked body", "POST / HTTP/1.1\r\nHost: h\r\nAuthorization: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n" +
			"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", []string{"net/http"}},
		{"expect continue", strings.Replace(list, "\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n", 1), []string{"net/http"}},
		{"long head", strings.Replace(list, "\r\n\r\n", "\r\nX-Long: "+strings.Repeat("a", 5000)+"\r\n\r\n", 1), []string{"net/http"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.Stats()
			answers := exchange(t, addr, c.raw, len(c.want))
			fast, handedOff := uint64(0), uint64(0)
			for _, w := range c.want {
				switch {
				case w == "fast":
					fast++
				case handedOff == 0:
					handedOff = 1 // a connection is handed over once
				}
			}
			after := s.Stats()
			if got := (front.Stats{FastRequests: after.FastRequests - before.FastRequests, HandedOff: after.HandedOff - before.HandedOff}); got != (front.Stats{FastRequests: fast, HandedOff: handedOff}) {
				t.Errorf("Stats moved by %+v, want %d fast requests and %d connections handed over", got, fast, handedOff)
			}
			for i, a := range answers {
				if got := a.Header.Get("X-Served-By"); got != c.want[i] {
					t.Errorf("answer %d served by %q, want %q", i, got, c.want[i])
				}
				if a.StatusCode != http.StatusOK {
					t.Errorf("answer %d: %s %s", i, a.Status, bodyOf(a))
				}
			}
		})
	}
}

// TestFront_SameAnswersAsNetHTTP sends the same requests to the handler
// behind the fast path and behind net/http alone, and compares status,
// fields and body.
func TestFront_SameAnswersAsNetHTTP(t *testing.T) {
	db := engine(t)
	h := wire.New(db, &wire.Options{MaxBodyBytes: 1 << 20})
	addr, _ := start(t, h, nil)
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	plainAddr := strings.TrimPrefix(plain.URL, "http://")

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(`{"Limit":5}`))
	_ = zw.Close()
	create := `{"TableName":"same","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`
	requests := map[string]string{
		"list tables":     dynamoRequest("ListTables", "{}"),
		"describe absent": dynamoRequest("DescribeTable", `{"TableName":"absent"}`),
		"create invalid":  dynamoRequest("CreateTable", strings.Replace(create, `"HASH"`, `"NOPE"`, 1)),
		"bad json":        dynamoRequest("ListTables", `{"Limit":`),
		"unknown op":      dynamoRequest("Nope", "{}"),
		"no auth":         strings.Replace(dynamoRequest("ListTables", "{}"), "Authorization", "X-Not-Auth", 1),
		"gzip body": strings.Replace(dynamoRequest("ListTables", gz.String()), "\r\n\r\n",
			"\r\nContent-Encoding: gzip\r\n\r\n", 1),
		"corrupt gzip": strings.Replace(dynamoRequest("ListTables", "not gzip"), "\r\n\r\n",
			"\r\nContent-Encoding: gzip\r\n\r\n", 1),
		"too large": strings.Replace(dynamoRequest("ListTables", "{}"), "Content-Length: 2",
			"Content-Length: 2000000", 1),
		"empty body": dynamoRequest("ListTables", ""),
		"get":        "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
		"preflight": "OPTIONS / HTTP/1.1\r\nHost: h\r\nOrigin: http://a\r\nAccess-Control-Request-Method: POST\r\n" +
			"Access-Control-Request-Headers: x-amz-target\r\n\r\n",
		"garbage": "POST / HTTP/1.1\r\nHost: h\r\nBad Field: 1\r\n\r\n",
	}
	// Fields that differ from one answer to the next.
	varying := []string{"Date", "X-Amzn-Requestid"}
	for name, raw := range requests {
		t.Run(name, func(t *testing.T) {
			want := exchange(t, plainAddr, raw, 1)[0]
			got := exchange(t, addr, raw, 1)[0]
			if got.StatusCode != want.StatusCode || bodyOf(got) != bodyOf(want) {
				t.Errorf("fast path: %d %s\nnet/http: %d %s", got.StatusCode, bodyOf(got), want.StatusCode, bodyOf(want))
			}
			for _, k := range varying {
				if (got.Header.Get(k) == "") != (want.Header.Get(k) == "") {
					t.Errorf("field %s: fast path %q, net/http %q", k, got.Header.Get(k), want.Header.Get(k))
				}
				got.Header.Del(k)
				want.Header.Del(k)
			}
			if fmt.Sprint(got.Header) != fmt.Sprint(want.Header) {
				t.Errorf("fields:\nfast path %v\nnet/http  %v", got.Header, want.Header)
			}
		})
	}
	if _, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("created"),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
}

// TestFront_Timeouts checks that a head, a body or an idle connection that
// takes too long loses its connection.
func TestFront_Timeouts(t *testing.T) {
	h := wire.New(engine(t), &wire.Options{BodyTimeout: 200 * time.Millisecond})
	addr, _ := start(t, h, func(s *front.Server) {
		s.HeaderTimeout = 200 * time.Millisecond
		s.IdleTimeout = 200 * time.Millisecond
	})
	// closed fails unless the server closes c (with or without answers
	// first) well within the test's own deadline.
	closed := func(t *testing.T, c net.Conn, answers int) {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(c)
		readAnswers(t, br, answers)
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("after %d answers: %v, want the connection closed", answers, err)
		}
	}
	dial := func(t *testing.T, raw string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Run("silent connection", func(t *testing.T) { closed(t, dial(t, ""), 0) })
	t.Run("unfinished head", func(t *testing.T) { closed(t, dial(t, "POST / HTTP/1.1\r\nHost: h\r\n"), 0) })
	t.Run("idle after an answer", func(t *testing.T) { closed(t, dial(t, dynamoRequest("ListTables", "{}")), 1) })
	t.Run("unfinished second head", func(t *testing.T) {
		// The idle timeout is long here: only the head timeout, set
		// once a head has begun, can end the connection in time.
		addr, _ := start(t, h, func(s *front.Server) {
			s.HeaderTimeout = 200 * time.Millisecond
			s.IdleTimeout = time.Hour
		})
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if _, err := io.WriteString(c, dynamoRequest("ListTables", "{}")+"POST / HTTP/1.1\r\nHost: h\r\n"); err != nil {
			t.Fatal(err)
		}
		closed(t, c, 1)
	})
	t.Run("unfinished body", func(t *testing.T) {
		raw := dynamoRequest("ListTables", "{}")
		raw = strings.Replace(raw, "Content-Length: 2", "Content-Length: 20", 1)
		c := dial(t, raw)
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(c)
		a := readAnswers(t, br, 1)[0]
		if a.StatusCode != http.StatusBadRequest || !strings.Contains(bodyOf(a), "SerializationException") {
			t.Errorf("answer %s %s", a.Status, bodyOf(a))
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("%v, want the connection closed", err)
		}
	})
}

// TestFront_Shutdown checks that Shutdown closes idle connections, lets a
// request in progress finish and be answered, and only then returns.
func TestFront_Shutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.Slow" {
			close(entered)
			<-release
		}
		_, _ = io.WriteString(w, "done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &front.Server{Handler: h, Fallback: &http.Server{Handler: h}}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	addr := ln.Addr().String()

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	readAnswersOn := func(c net.Conn, raw string) *bufio.Reader {
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		return bufio.NewReader(c)
	}
	idleReader := readAnswersOn(idle, dynamoRequest("Fast", "{}"))
	readAnswers(t, idleReader, 1)

	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyReader := readAnswersOn(busy, dynamoRequest("Slow", "{}"))
	<-entered

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	_ = idle.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := idleReader.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: %v, want it closed", err)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while a request was in progress", err)
	default:
	}
	close(release)
	_ = busy.SetReadDeadline(time.Now().Add(20 * time.Second))
	if a := readAnswers(t, busyReader, 1)[0]; bodyOf(a) != "done" || !a.Close {
		t.Errorf("answer in progress: %q, Connection: close %v", bodyOf(a), a.Close)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, front.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}

// TestFront_HandlerPanic checks that a panic in the handler closes its
// connection without an answer and leaves the server serving.
func TestFront_HandlerPanic(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.Panic" {
			panic("planted")
		}
		_, _ = io.WriteString(w, "ok")
	})
	addr, _ := start(t, h, nil)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = io.WriteString(c, dynamoRequest("Panic", "{}"))
	if _, err := bufio.NewReader(c).ReadByte(); err != io.EOF {
		t.Errorf("%v, want the connection closed", err)
	}
	if a := exchange(t, addr, dynamoRequest("Fine", "{}"), 1)[0]; bodyOf(a) != "ok" {
		t.Errorf("next connection: %q", bodyOf(a))
	}
}

// TestFront_ConcurrentClients runs writers and readers on the fast path at
// once (for the race detector) and checks every item read back.
func TestFront_ConcurrentClients(t *testing.T) {
	db := engine(t)
	addr, _ := start(t, wire.New(db, nil), nil)
	ctx := context.Background()
	client := sdkClient("http://" + addr)
	if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("many"),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				pk := fmt.Sprintf("w%d-%d", w, i)
				v := strings.Repeat("v", i*97) // some bodies above one read
				if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("many"), Item: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: v + "."}}}); err != nil {
					errs <- err
					return
				}
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("many"), ConsistentRead: aws.Bool(true),
					Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
				if err != nil {
					errs <- err
					return
				}
				if got, _ := out.Item["v"].(*types.AttributeValueMemberS); got == nil || got.Value != v+"." {
					errs <- fmt.Errorf("%s: read %v", pk, out.Item["v"])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// pipeListener is a listener whose connections are the server ends of
// net.Pipe pairs made by dial.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

// FuzzConn sends arbitrary bytes on a connection, then a good request on
// a new one: the server must neither panic nor stop answering.
func FuzzConn(f *testing.F) {
	f.Add([]byte(dynamoRequest("Echo", "{}")))
	f.Add([]byte(dynamoRequest("Echo", "{}") + "GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
	f.Add([]byte(strings.Replace(dynamoRequest("Echo", "{}"), "Content-Length: 2", "Content-Length: 9", 1)))
	f.Add([]byte("POST / HTTP/1.1\r\nHost: h\r\nX-Amz-Target: T\r\nContent-Length: 1\r\n\r\nxPOST / HTTP/1.1\r\n"))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Len", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	})
	ln := newPipeListener()
	s := &front.Server{Handler: h, Fallback: &http.Server{Handler: h, ReadHeaderTimeout: time.Second},
		HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond, ReadTimeout: time.Second}
	go func() { _ = s.Serve(ln) }()
	f.Cleanup(func() { _ = s.Close() })
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := ln.dial()
		_ = c.SetDeadline(time.Now().Add(20 * time.Millisecond))
		go func() { _, _ = c.Write(raw) }()
		_, _ = io.Copy(io.Discard, c) // the answers, if any, until the deadline
		_ = c.Close()

		good := ln.dial()
		defer good.Close()
		_ = good.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(good, dynamoRequest("Echo", `{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(good), nil)
		if err != nil {
			t.Fatalf("after %q: %v", raw, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != `{"a":1}` {
			t.Fatalf("after %q: answer %q", raw, body)
		}
	})
}
