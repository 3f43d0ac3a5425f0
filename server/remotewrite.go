package server

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/snappy"

	"github.com/timetable-db/timetable/ingest"
)

// The answer headers of remote write 2.0: what the request wrote.
const (
	hdrSamplesWritten    = "X-Prometheus-Remote-Write-Samples-Written"
	hdrHistogramsWritten = "X-Prometheus-Remote-Write-Histograms-Written"
	hdrExemplarsWritten  = "X-Prometheus-Remote-Write-Exemplars-Written"
)

// remoteWrite answers Prometheus remote write at POST /api/v1/write: a
// snappy-compressed protobuf body, 1.0's prometheus.WriteRequest
// (Content-Type application/x-protobuf, or with proto=prometheus.WriteRequest)
// or 2.0's io.prometheus.write.v2.Request (proto=io.prometheus.write.v2.Request);
// another proto or Content-Encoding is refused 415. The body is bounded
// by MaxBodyBytes as sent and MaxInflatedBytes once inflated (the length
// snappy announces is checked before anything is inflated), both held in
// the in-flight budget. Native histograms are written as classic ones
// (ingest.RemoteWrite). A 2.0 request is answered with the counts of
// samples, histograms and exemplars written: 0 on a refusal of the
// request whole, or, when native histograms that cannot be mapped were
// refused alone (2.0's partial write), 400 naming the first, with the
// counts of the rest, which was written.
func (s *Server) remoteWrite(w http.ResponseWriter, r *http.Request) error {
	v, err := remoteWriteVersion(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	if v == ingest.RemoteWrite2 {
		h := w.Header()
		h.Set(hdrSamplesWritten, "0")
		h.Set(hdrHistogramsWritten, "0")
		h.Set(hdrExemplarsWritten, "0")
	}
	if enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc != "snappy" && enc != "" {
		return errorf(http.StatusUnsupportedMediaType, codeMediaType, "Content-Encoding %q is not supported for remote write: send snappy", enc)
	}
	raw, err := s.raw(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	h := holdOf(ctx)
	compressed, err := io.ReadAll(&heldReader{r: raw, ctx: ctx, h: h, free: bodyBase})
	if err != nil {
		if ae := asTooLarge(err); ae != nil {
			return s.refuse(ae)
		}
		return err
	}
	n, err := snappy.DecodedLen(compressed)
	if err != nil {
		return s.refuse(invalid("the body is not snappy: %v", err))
	}
	if int64(n) > s.cfg.MaxInflatedBytes {
		return s.refuse(errorf(http.StatusRequestEntityTooLarge, codeTooLarge,
			"the inflated body would be %d bytes, over the limit of %d (--max-inflated)", n, s.cfg.MaxInflatedBytes))
	}
	if err := h.grow(ctx, int64(n)); err != nil {
		return s.refuse(err)
	}
	data, err := snappy.Decode(make([]byte, n), compressed)
	if err != nil {
		return s.refuse(invalid("the body is not snappy: %v", err))
	}
	o := s.ingestOptions(ctx, ingest.Millisecond)
	o.Grow = s.grow(r)
	o.Series = s.series
	b, res, err := ingest.RemoteWrite(data, v, s.lookup, o)
	if err != nil {
		return s.refuse(err)
	}
	if err := s.storeBatch(r, b); err != nil {
		return err
	}
	if v == ingest.RemoteWrite2 {
		w.Header().Set(hdrSamplesWritten, strconv.Itoa(res.Samples))
		w.Header().Set(hdrHistogramsWritten, strconv.Itoa(res.Histograms))
	}
	if res.Rejected > 0 {
		msg := res.Reason
		if res.Rejected > 1 {
			msg = fmt.Sprintf("%d native histograms refused; the first: %s", res.Rejected, res.Reason)
		}
		return s.refuse(invalid("%s (the rest of the request was written)", msg))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// remoteWriteVersion returns the remote-write message of a protobuf
// Content-Type, or a 415 error for one this server does not take.
func remoteWriteVersion(ct string) (ingest.RemoteWriteVersion, error) {
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return 0, errorf(http.StatusUnsupportedMediaType, codeMediaType, "Content-Type %q: %v", ct, err)
	}
	switch p := params["proto"]; p {
	case "", "prometheus.WriteRequest":
		return ingest.RemoteWrite1, nil
	case "io.prometheus.write.v2.Request":
		return ingest.RemoteWrite2, nil
	default:
		return 0, errorf(http.StatusUnsupportedMediaType, codeMediaType,
			"remote-write message %q is not supported: send prometheus.WriteRequest (1.0) or io.prometheus.write.v2.Request (2.0)", p)
	}
}
