package wire

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DynamoDB answers browsers (the AWS SDK for JavaScript calls it from a
// page) from any origin, since its requests are authorized by their
// signature. A Handler answers only the origins of Options.CORSOrigins:
// none by default, so that no web page the user opens can call an endpoint
// on the user's machine (one that checks no signature, or one that a
// DNS-rebinding page reaches by another name).
const (
	corsMaxAge        = "1728000" // 20 days, DynamoDB's
	corsExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amz-crc32,Date"
)

// OriginAllowed reports whether a browser's request from origin (its Origin
// header, "scheme://host[:port]") may be approved by CORS, given the
// origins allowed: "*" allows any; other entries are compared with origin
// case-insensitively, a trailing slash ignored. An empty origin or "null"
// (a sandboxed or local page) is allowed only by "*".
func OriginAllowed(allowed []string, origin string) bool {
	if origin == "" {
		return false
	}
	for _, o := range allowed {
		if o == "*" || origin != "null" && strings.EqualFold(strings.TrimSuffix(strings.TrimSpace(o), "/"), origin) {
			return true
		}
	}
	return false
}

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// IsPreflight reports whether r is a CORS preflight for a DynamoDB
// request: one whose announced headers include X-Amz-Target. A server
// that also answers other routes sends those to the Handler.
func IsPreflight(r *http.Request) bool {
	if !isPreflight(r) {
		return false
	}
	for _, h := range strings.Split(r.Header.Get("Access-Control-Request-Headers"), ",") {
		if strings.EqualFold(strings.TrimSpace(h), "x-amz-target") {
			return true
		}
	}
	return false
}

// answerPreflight answers a CORS preflight: from an allowed origin as
// DynamoDB does (200, POST allowed with the headers asked for), from any
// other 403 without CORS headers, which the browser takes as a refusal.
func (h *Handler) answerPreflight(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Amzn-Requestid", string(appendRequestID(nil)))
	if !h.allowOrigin(w, r) {
		hd.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "origin not allowed: this endpoint answers browsers only from the origins it is configured with\n")
		return
	}
	hd.Set("Access-Control-Allow-Methods", "POST")
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		hd.Set("Access-Control-Allow-Headers", asked)
	}
	hd.Set("Access-Control-Max-Age", corsMaxAge)
	hd.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// allowOrigin sets the CORS headers of an answer to a browser's request
// from an allowed origin, and reports whether the origin is allowed.
func (h *Handler) allowOrigin(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if !OriginAllowed(h.corsOrigins, origin) {
		return false
	}
	hd := w.Header()
	if slices.Contains(h.corsOrigins, "*") {
		hd.Set("Access-Control-Allow-Origin", "*")
	} else {
		hd.Set("Access-Control-Allow-Origin", origin)
		hd.Add("Vary", "Origin")
	}
	hd.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	return true
}

// errEncoding answers a request body in an encoding the handler does not
// read, and one that does not inflate.
var (
	errEncoding = serializationError("The request body's Content-Encoding is not supported: use gzip, deflate or identity")
	errInflate  = serializationError("The request body could not be decompressed")
)

// bodyReader returns r's body as sent by the client, inflated when its
// Content-Encoding is gzip or deflate (zlib, as HTTP means it).
func bodyReader(r *http.Request) (io.Reader, error) {
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return r.Body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, errInflate
		}
		return &inflating{r: zr}, nil
	case "deflate":
		zr, err := zlib.NewReader(r.Body)
		if err != nil {
			return nil, errInflate
		}
		return &inflating{r: zr}, nil
	}
	return nil, errEncoding
}

// inflating reports a corrupt compressed stream as errInflate; errors
// of the connection under it pass as they are.
type inflating struct{ r io.Reader }

func (z *inflating) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, zlib.ErrChecksum) ||
		errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrDictionary) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &corrupt) {
		return n, errInflate
	}
	return n, err
}

// minGzip is the smallest answer compressed for a client that accepts
// gzip; below it the header costs more than it saves.
const minGzip = 1 << 10

var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return zw
}}

// acceptsGzip reports whether r's Accept-Encoding allows gzip (named,
// with a q-value above zero if one is given).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !found {
			return true
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
		return err == nil && v > 0
	}
	return false
}

// compress returns body gzipped into dst, for an answer to a client that
// accepts it; ok is false when body is too small to gain.
func compress(dst *bytes.Buffer, body []byte) (ok bool) {
	if len(body) < minGzip {
		return false
	}
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(dst)
	if _, err := zw.Write(body); err != nil {
		return false
	}
	return zw.Close() == nil
}
