package front

import (
	"bytes"
	"net/http"
	"net/textproto"

	"golang.org/x/net/http/httpguts"
)

// The only request line the fast path takes: DynamoDB's SDKs and the AWS
// CLI post every operation to the root over HTTP/1.1.
var requestLine = []byte("POST / HTTP/1.1\r\n")

// maxFields is the most header fields a request on the fast path may carry;
// the SDKs send about ten.
const maxFields = 32

// head is a request head the fast path takes: its request line is
// requestLine and its fields are ones net/http would read the same way.
type head struct {
	header        http.Header // canonical names, as net/http keys them
	host          string
	contentLength int64
	values        [maxFields]string // the backing of header's one-value slices
}

// parseHead parses raw, a request head up to and including the blank line
// that ends it, into h (whose header map is reused), and reports whether
// the fast path may take the request. It is false for anything the fast
// path leaves to net/http: another method, path or version, a folded or
// malformed line, an invalid name or value, Transfer-Encoding, Expect,
// Upgrade, a Connection other than keep-alive, a missing, repeated or
// invalid Host or Content-Length, a Content-Length above maxBody, no
// X-Amz-Target, or more than maxFields fields. Whatever it takes,
// net/http's http.ReadRequest parses to the same method, target, host,
// length and fields (FuzzParseHead checks this).
//
// The values in h are substrings of one string copy of raw.
func parseHead(raw []byte, maxBody int64, h *head) bool {
	if !bytes.HasPrefix(raw, requestLine) || !bytes.HasSuffix(raw, []byte("\r\n\r\n")) {
		return false
	}
	clear(h.header)
	h.host, h.contentLength = "", -1
	s := string(raw[len(requestLine) : len(raw)-2]) // the field lines, each ending in CRLF
	hosts, lengths, fields := 0, 0, 0
	for len(s) > 0 {
		end := indexCRLF(s)
		if end < 0 {
			return false
		}
		line := s[:end]
		s = s[end+2:]
		if fields++; fields > maxFields {
			return false
		}
		colon := -1
		for i := 0; i < len(line); i++ {
			if line[i] == ':' {
				colon = i
				break
			}
		}
		if colon <= 0 {
			return false // no name, or a folded line (it starts with a space)
		}
		name := line[:colon]
		if !httpguts.ValidHeaderFieldName(name) {
			return false
		}
		value := trimOWS(line[colon+1:])
		if !httpguts.ValidHeaderFieldValue(value) {
			return false
		}
		key := textproto.CanonicalMIMEHeaderKey(name)
		switch key {
		case "Host":
			hosts++
			if hosts > 1 || !httpguts.ValidHostHeader(value) {
				return false
			}
			h.host = value
		case "Content-Length":
			lengths++
			n, ok := parseLength(value)
			if lengths > 1 || !ok || n > maxBody {
				return false
			}
			h.contentLength = n
		case "Transfer-Encoding", "Expect", "Upgrade", "Te", "Trailer":
			return false
		case "Connection":
			if !asciiEqualFold(value, "keep-alive") {
				return false
			}
		}
		if vs, ok := h.header[key]; ok {
			h.header[key] = append(vs, value) // a repeated field: rare
		} else {
			h.values[fields-1] = value
			h.header[key] = h.values[fields-1 : fields : fields]
		}
	}
	target := h.header["X-Amz-Target"]
	return hosts == 1 && h.contentLength >= 0 && len(target) > 0 && target[0] != ""
}

// indexCRLF returns the index of the first "\r\n" in s, or -1; a CR or LF
// on its own also gives -1, as the fast path takes no bare line ends.
func indexCRLF(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				return i
			}
			return -1
		case '\n':
			return -1
		}
	}
	return -1
}

// trimOWS removes the optional whitespace (spaces and tabs) around a field
// value.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// parseLength parses a Content-Length of 1 to 18 decimal digits.
func parseLength(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// asciiEqualFold reports whether s equals lower, itself in lower case,
// ignoring ASCII case.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
