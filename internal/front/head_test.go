package front

import (
	"bufio"
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// sdkHead is the head aws-sdk-go-v2's DynamoDB client sends for a GetItem.
const sdkHead = "POST / HTTP/1.1\r\n" +
	"Host: 127.0.0.1:8000\r\n" +
	"User-Agent: aws-sdk-go-v2/1.39.2 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/dynamodb#1.50.4\r\n" +
	"Content-Length: 61\r\n" +
	"Accept-Encoding: identity\r\n" +
	"Amz-Sdk-Invocation-Id: 6a1c0d1e-55a2-4a4e-9d1b-0c6b7f2a9f41\r\n" +
	"Amz-Sdk-Request: attempt=1; max=1\r\n" +
	"Authorization: AWS4-HMAC-SHA256 Credential=key/20261128/us-east-1/dynamodb/aws4_request, SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target, Signature=0f\r\n" +
	"Content-Type: application/x-amz-json-1.0\r\n" +
	"X-Amz-Date: 20261128T093000Z\r\n" +
	"X-Amz-Target: DynamoDB_20120810.GetItem\r\n" +
	"\r\n"

func newHead() *head { return &head{header: make(http.Header)} }

func TestParseHead_SDKRequest(t *testing.T) {
	h := newHead()
	if !parseHead([]byte(sdkHead), 16<<20, h) {
		t.Fatal("the SDK's head was not taken")
	}
	if h.host != "127.0.0.1:8000" || h.contentLength != 61 {
		t.Errorf("host %q, length %d", h.host, h.contentLength)
	}
	if got := h.header.Get("X-Amz-Target"); got != "DynamoDB_20120810.GetItem" {
		t.Errorf("X-Amz-Target %q", got)
	}
	if got := h.header.Get("Amz-Sdk-Request"); got != "attempt=1; max=1" {
		t.Errorf("Amz-Sdk-Request %q", got)
	}
	checkSameAsNetHTTP(t, []byte(sdkHead), h)
}

// TestParseHead_LeavesToNetHTTP lists heads the fast path must not take.
func TestParseHead_LeavesToNetHTTP(t *testing.T) {
	const ok = "Host: h\r\nContent-Length: 2\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
	cases := map[string]string{
		"get":                "GET / HTTP/1.1\r\n" + ok + "\r\n",
		"other path":         "POST /x HTTP/1.1\r\n" + ok + "\r\n",
		"HTTP/1.0":           "POST / HTTP/1.0\r\n" + ok + "\r\n",
		"no target":          "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n",
		"empty target":       "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nX-Amz-Target:\r\n\r\n",
		"no host":            "POST / HTTP/1.1\r\nContent-Length: 2\r\nX-Amz-Target: T\r\n\r\n",
		"two hosts":          "POST / HTTP/1.1\r\nHost: h\r\n" + ok + "\r\n",
		"bad host":           "POST / HTTP/1.1\r\nHost: a b\r\nContent-Length: 2\r\nX-Amz-Target: T\r\n\r\n",
		"no length":          "POST / HTTP/1.1\r\nHost: h\r\nX-Amz-Target: T\r\n\r\n",
		"two lengths":        "POST / HTTP/1.1\r\nContent-Length: 2\r\n" + ok + "\r\n",
		"signed length":      "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +2\r\nX-Amz-Target: T\r\n\r\n",
		"length list":        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nX-Amz-Target: T\r\n\r\n",
		"length over limit":  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1025\r\nX-Amz-Target: T\r\n\r\n",
		"huge length":        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\nX-Amz-Target: T\r\n\r\n",
		"chunked":            "POST / HTTP/1.1\r\n" + ok + "Transfer-Encoding: chunked\r\n\r\n",
		"expect":             "POST / HTTP/1.1\r\n" + ok + "Expect: 100-continue\r\n\r\n",
		"upgrade":            "POST / HTTP/1.1\r\n" + ok + "Upgrade: h2c\r\n\r\n",
		"connection close":   "POST / HTTP/1.1\r\n" + ok + "Connection: close\r\n\r\n",
		"folded line":        "POST / HTTP/1.1\r\n" + ok + "X-A: 1\r\n 2\r\n\r\n",
		"bare LF":            "POST / HTTP/1.1\r\n" + ok + "X-A: 1\n\r\n",
		"bare CR":            "POST / HTTP/1.1\r\n" + ok + "X-A: 1\r2\r\n\r\n",
		"space before colon": "POST / HTTP/1.1\r\n" + ok + "X-A : 1\r\n\r\n",
		"no colon":           "POST / HTTP/1.1\r\n" + ok + "X-A\r\n\r\n",
		"empty name":         "POST / HTTP/1.1\r\n" + ok + ": 1\r\n\r\n",
		"control in value":   "POST / HTTP/1.1\r\n" + ok + "X-A: 1\x002\r\n\r\n",
		"unfinished":         "POST / HTTP/1.1\r\n" + ok,
		"too many fields":    "POST / HTTP/1.1\r\n" + ok + strings.Repeat("X-A: 1\r\n", maxFields) + "\r\n",
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			if parseHead([]byte(raw), 1024, newHead()) {
				t.Errorf("taken: %q", raw)
			}
		})
	}
	// The positive control: the common part alone is taken.
	if !parseHead([]byte("POST / HTTP/1.1\r\n"+ok+"\r\n"), 1024, newHead()) {
		t.Error("the plain head was not taken")
	}
}

// TestParseHead_ReusesHeader checks that a second head does not keep the
// fields of the first.
func TestParseHead_ReusesHeader(t *testing.T) {
	h := newHead()
	if !parseHead([]byte("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nX-Amz-Target: A\r\nX-Old: 1\r\n\r\n"), 1024, h) {
		t.Fatal("not taken")
	}
	if !parseHead([]byte("POST / HTTP/1.1\r\nHost: g\r\nContent-Length: 3\r\nX-Amz-Target: B\r\n\r\n"), 1024, h) {
		t.Fatal("not taken")
	}
	if h.header.Get("X-Old") != "" || h.header.Get("X-Amz-Target") != "B" || h.host != "g" || h.contentLength != 3 {
		t.Errorf("second head: %v %q %d", h.header, h.host, h.contentLength)
	}
}

// checkSameAsNetHTTP fails unless net/http reads raw as a request with the
// method, target, host, length and fields of h.
func checkSameAsNetHTTP(t *testing.T, raw []byte, h *head) {
	t.Helper()
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatalf("taken, but net/http refuses it: %v\n%q", err, raw)
	}
	if req.Method != http.MethodPost || req.RequestURI != "/" || req.Host != h.host || req.ContentLength != h.contentLength {
		t.Fatalf("net/http reads %s %s host %q length %d; the fast path host %q length %d\n%q",
			req.Method, req.RequestURI, req.Host, req.ContentLength, h.host, h.contentLength, raw)
	}
	// net/http keeps Host out of the fields.
	want := req.Header.Clone()
	got := h.header.Clone()
	delete(got, "Host")
	if len(got) != len(want) {
		t.Fatalf("fields: net/http %q, fast path %q\n%q", want, got, raw)
	}
	for k, vs := range want {
		if !slices.Equal(vs, got[k]) {
			t.Fatalf("field %s: net/http %q, fast path %q\n%q", k, vs, got[k], raw)
		}
	}
}

// FuzzParseHead checks the fast path's promise: whatever head it takes,
// net/http reads the same way.
func FuzzParseHead(f *testing.F) {
	f.Add([]byte(sdkHead))
	f.Add([]byte("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nX-Amz-Target: T\r\n\r\n"))
	f.Add([]byte("POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 002\r\nx-amz-target:\tT \r\nx-a: 1\r\nX-A: 2\r\nConnection: Keep-Alive\r\n\r\n"))
	f.Add([]byte("POST / HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 0\r\nX-Amz-Target: T\r\nX-B: \xff\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h := newHead()
		if parseHead(raw, 16<<20, h) {
			checkSameAsNetHTTP(t, raw, h)
		}
	})
}

// FuzzParseHeadFields is FuzzParseHead with the head built from fuzzed
// parts, so that the fuzzer spends its time on names, values, hosts and
// lengths rather than on finding the request line.
func FuzzParseHeadFields(f *testing.F) {
	f.Add("h:80", "2", "X-Amz-Target", "DynamoDB_20120810.GetItem", "X-A", "1")
	f.Add("[::1]", "0", "x-amz-target", " T\t", "connection", "keep-alive")
	f.Add("h", "007", "X-Amz-Target", "T", "Content-Length", "7")
	f.Fuzz(func(t *testing.T, host, length, name1, value1, name2, value2 string) {
		raw := []byte("POST / HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: " + length + "\r\n" +
			name1 + ":" + value1 + "\r\n" + name2 + ": " + value2 + "\r\n\r\n")
		h := newHead()
		if parseHead(raw, 16<<20, h) {
			checkSameAsNetHTTP(t, raw, h)
		}
	})
}
