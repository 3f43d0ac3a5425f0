package wire_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/wire"
)

// rawRequest is a DynamoDB request with a body sent as given.
func rawRequest(target string, body []byte, header ...string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
	req.Header.Set("Authorization", testAuth)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// gzipped returns b compressed as gzip.
func gzipped(b []byte) []byte {
	return compressed(b, func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
}

// deflated returns b compressed as zlib (HTTP's deflate).
func deflated(b []byte) []byte {
	return compressed(b, func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) })
}

// compressed returns b written and closed through the writer that
// newWriter puts in front of a buffer.
func compressed(b []byte, newWriter func(io.Writer) io.WriteCloser) []byte {
	var buf bytes.Buffer
	zw := newWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// TestHandler_CompressedRequests checks request bodies sent with
// Content-Encoding gzip or deflate: read inflated, a corrupt or unknown
// one refused with a SerializationException, an inflated size past the
// limit refused as too large.
func TestHandler_CompressedRequests(t *testing.T) {
	st := &stub{}
	st.set(&dynamodb.ListTablesOutput{TableNames: []string{"a"}}, nil)
	h := wire.New(st, &wire.Options{MaxBodyBytes: 1 << 16})
	in := []byte(`{"Limit":7}`)
	for _, c := range []struct {
		name, enc string
		body      []byte
		status    int
		want      string
	}{
		{"gzip", "gzip", gzipped(in), 200, `"TableNames":["a"]`},
		{"x-gzip", "x-gzip", gzipped(in), 200, `"TableNames":["a"]`},
		{"deflate", "deflate", deflated(in), 200, `"TableNames":["a"]`},
		{"identity", "identity", in, 200, `"TableNames":["a"]`},
		{"corrupt gzip", "gzip", []byte("not gzip at all"), 400, "SerializationException"},
		{"truncated gzip", "gzip", gzipped(in)[:12], 400, "SerializationException"},
		{"corrupt deflate", "deflate", []byte("xx"), 400, "SerializationException"},
		{"unknown encoding", "br", in, 400, "SerializationException"},
		{"bomb", "gzip", gzipped(append(append([]byte(`{"ExclusiveStartTableName":"`), bytes.Repeat([]byte("a"), 1<<20)...), `"}`...)), 413, "RequestEntityTooLargeException"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, rawRequest("ListTables", c.body, "Content-Encoding", c.enc))
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.want) {
				t.Fatalf("status %d %s; want %d with %s", w.Code, w.Body, c.status, c.want)
			}
			if c.status == 200 {
				if got := st.input().(*dynamodb.ListTablesInput); aws.ToInt32(got.Limit) != 7 {
					t.Errorf("the operation got %+v", got)
				}
			}
		})
	}
}

// TestHandler_CompressedAnswers checks that a large answer is gzipped for
// a client that accepts it, with x-amz-crc32 over the bytes sent, and
// sent plain otherwise.
func TestHandler_CompressedAnswers(t *testing.T) {
	st := &stub{}
	names := make([]string, 200)
	for i := range names {
		names[i] = "table_" + strconv.Itoa(i)
	}
	st.set(&dynamodb.ListTablesOutput{TableNames: names}, nil)
	h := wire.New(st, nil)
	for _, c := range []struct {
		accept string
		gzip   bool
	}{{"gzip", true}, {"gzip, deflate, br", true}, {"br;q=1, gzip;q=0.5", true}, {"gzip;q=0", false}, {"", false}, {"identity", false}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, rawRequest("ListTables", []byte(`{}`), "Accept-Encoding", c.accept))
		raw := w.Body.Bytes()
		if got := w.Header().Get("X-Amz-Crc32"); got != strconv.FormatUint(uint64(crc32.ChecksumIEEE(raw)), 10) {
			t.Errorf("Accept-Encoding %q: x-amz-crc32 %s is not the checksum of the bytes sent", c.accept, got)
		}
		if (w.Header().Get("Content-Encoding") == "gzip") != c.gzip {
			t.Fatalf("Accept-Encoding %q: Content-Encoding %q", c.accept, w.Header().Get("Content-Encoding"))
		}
		plain := raw
		if c.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if plain, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			if len(raw) >= len(plain) {
				t.Errorf("gzipped answer of %d bytes for %d", len(raw), len(plain))
			}
		}
		if !strings.Contains(string(plain), `"table_199"`) {
			t.Errorf("Accept-Encoding %q: answer %.100s", c.accept, plain)
		}
	}
}

// TestHandler_GzipWithSDK reads a large Scan with aws-sdk-go-v2 asking for
// gzip: the SDK checks the checksum of the compressed answer and inflates it.
func TestHandler_GzipWithSDK(t *testing.T) {
	db := testenv.MemDB(t, nil)
	h := wire.New(db, nil)
	var gzipped atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if w.Header().Get("Content-Encoding") == "gzip" {
			gzipped.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	client := dynamotest.NewClient(srv.URL, dynamotest.AccessKey("wire"), func(o *dynamodb.Options) { o.EnableAcceptEncodingGzip = true })
	ctx := context.Background()
	if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("gzipped"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("gzipped"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: strconv.Itoa(i)}, "v": &types.AttributeValueMemberS{Value: strings.Repeat("x", 200)}}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("gzipped")})
	if err != nil || out.Count != 50 {
		t.Fatalf("Scan with gzip: %v, %v", out, err)
	}
	if gzipped.Load() == 0 {
		t.Error("no answer was gzipped")
	}
}

// TestHandler_CORS checks a browser's preflight and the CORS headers of an
// answer: as DynamoDB gives them with CORSOrigins "*", for the listed
// origins only otherwise.
func TestHandler_CORS(t *testing.T) {
	st := &stub{}
	st.set(&dynamodb.ListTablesOutput{}, nil)
	preflight := func(origin string) *http.Request {
		pre := httptest.NewRequest(http.MethodOptions, "/", nil)
		pre.Header.Set("Origin", origin)
		pre.Header.Set("Access-Control-Request-Method", "POST")
		pre.Header.Set("Access-Control-Request-Headers", "content-type,x-amz-target,authorization,x-amz-date")
		return pre
	}
	if !wire.IsPreflight(preflight("http://page.test")) {
		t.Fatal("IsPreflight is false for a DynamoDB preflight")
	}
	for _, c := range []struct {
		allowed []string
		origin  string
		acao    string // "" when not approved
	}{
		{[]string{"*"}, "http://page.test", "*"},
		{[]string{"http://page.test", "https://other.test"}, "http://PAGE.test", "http://PAGE.test"},
		{[]string{"http://page.test/"}, "http://page.test", "http://page.test"},
		{[]string{"http://page.test"}, "https://evil.example", ""},
		{[]string{"http://page.test"}, "null", ""},
		{nil, "https://evil.example", ""},
	} {
		h := wire.New(st, &wire.Options{CORSOrigins: c.allowed})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, preflight(c.origin))
		hd := w.Header()
		if c.acao == "" {
			if w.Code != http.StatusForbidden || hd.Get("Access-Control-Allow-Origin") != "" || hd.Get("Access-Control-Allow-Methods") != "" {
				t.Errorf("%v: preflight from %s approved: %d %v", c.allowed, c.origin, w.Code, hd)
			}
		} else if w.Code != 200 || hd.Get("Access-Control-Allow-Origin") != c.acao || hd.Get("Access-Control-Allow-Methods") != "POST" ||
			hd.Get("Access-Control-Allow-Headers") != "content-type,x-amz-target,authorization,x-amz-date" || hd.Get("Access-Control-Max-Age") != "1728000" {
			t.Errorf("%v: preflight from %s: %d %v", c.allowed, c.origin, w.Code, hd)
		}
		w = httptest.NewRecorder()
		h.ServeHTTP(w, rawRequest("ListTables", []byte(`{}`), "Origin", c.origin))
		if got := w.Header().Get("Access-Control-Allow-Origin"); w.Code != 200 || got != c.acao ||
			c.acao != "" && !strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "x-amz-crc32") {
			t.Errorf("%v: answer to a browser of %s: %d %v", c.allowed, c.origin, w.Code, w.Header())
		}
	}
	other := httptest.NewRequest(http.MethodOptions, "/", nil)
	other.Header.Set("Access-Control-Request-Method", "GET")
	other.Header.Set("Access-Control-Request-Headers", "authorization")
	if wire.IsPreflight(other) {
		t.Error("IsPreflight is true for a preflight without X-Amz-Target")
	}
}
