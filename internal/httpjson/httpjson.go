// Package httpjson writes HTTP answers whose body is one JSON value. It is
// the one writer of the server's answers and of its Prometheus API
// (promapi), which must send the same headers and encoding.
package httpjson

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Write answers v as JSON with status: Content-Type application/json,
// X-Content-Type-Options nosniff, and v encoded by encoding/json without
// HTML escaping (<, > and & are sent as they are), followed by a newline.
// An error of the encoding or of the connection is dropped: the status is
// sent by then, so there is no other answer to give.
func Write(w http.ResponseWriter, status int, v any) {
	writeHeader(w, status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// WriteBytes answers body, one JSON value and a newline encoded as Write
// encodes (the caller's encoder's contract), with status and Write's
// headers, and its Content-Length. An error of the connection is dropped.
func WriteBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	writeHeader(w, status)
	_, _ = w.Write(body)
}

func writeHeader(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
}
