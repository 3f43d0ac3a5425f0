package wire

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// DynamoDB answers browsers (the AWS SDK for JavaScript calls it from a
// page): a preflight is answered for any origin, since requests are
// authorized by their signature, and every answer to a request with an
// Origin allows it and exposes the headers the SDKs read.
const (
	corsMaxAge        = "1728000" // 20 days, DynamoDB's
	corsExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amz-crc32,Date"
)

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

// answerPreflight answers a CORS preflight as DynamoDB does: 200, POST
// allowed with the headers asked for.
func answerPreflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "POST")
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Set("X-Amzn-Requestid", string(appendRequestID(nil)))
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// allowOrigin sets the CORS headers of an answer to a browser's request.
func allowOrigin(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
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
