package wire

import (
	"bufio"
	"strings"
	"testing"
)

// FuzzParseHeader feeds the fast path's header parser arbitrary bytes: it
// must not panic, and what it accepts must be a whole header block of a POST
// over HTTP/1.1 with a Host and a Content-Length.
func FuzzParseHeader(f *testing.F) {
	f.Add("POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\nAuthorization: a\r\nContent-Length: 2\r\n\r\n{}")
	f.Add("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	f.Add("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
	f.Add("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		br := bufio.NewReaderSize(strings.NewReader(in), maxHeaderBlock)
		if _, err := br.Peek(1); err != nil {
			return
		}
		req, n, err := parseHeader(br)
		if err != nil {
			return
		}
		block := in[:n]
		if !strings.HasPrefix(block, "POST /") || !strings.HasSuffix(block, "\r\n\r\n") || req.contentLength < 0 {
			t.Fatalf("accepted %q as %+v", block, req)
		}
		if first, _, _ := strings.Cut(block, "\r\n"); !strings.HasSuffix(first, " HTTP/1.1") {
			t.Fatalf("accepted request line %q", first)
		}
	})
}
