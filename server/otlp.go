package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/internal/httpjson"
)

// otlpMetrics answers OTLP/HTTP metrics at POST /v1/metrics: an
// ExportMetricsServiceRequest in protobuf (Content-Type
// application/x-protobuf) or JSON (application/json), gzip or not
// (Content-Encoding), any other type refused 415. The body is bounded as
// the other write routes' (MaxBodyBytes, MaxInflatedBytes, the in-flight
// budget, which also holds the decoded request, MaxReadings, MaxSeries)
// and its data points enter the store as remote write's do (open kinds
// through grow, the write scope on each kind, storeBatch).
//
// The answer is OTLP's, in the request's encoding: 200 with an
// ExportMetricsServiceResponse, its partial_success naming the data
// points refused (ingest.OTLP says which) and the first reason; an error
// as a google.rpc.Status (code and message) with the HTTP status the
// server gives it (400 for a body that is not a metrics request, 413
// past a bound, 503 with Retry-After when busy). An error before the
// body is read (401, 403 of the token) has the server's JSON error body.
func (s *Server) otlpMetrics(w http.ResponseWriter, r *http.Request) error {
	var enc ingest.OTLPEncoding
	switch mt := mediaType(r); mt {
	case "application/x-protobuf":
		enc = ingest.OTLPProtobuf
	case "application/json":
		enc = ingest.OTLPJSON
	default:
		return writeOTLPError(w, enc, errorf(http.StatusUnsupportedMediaType, codeMediaType,
			"Content-Type %q is not supported for OTLP: send application/x-protobuf or application/json", mt))
	}
	res, err := s.otlpWrite(w, r, enc)
	if err != nil {
		ae := classify(err)
		if ae == nil {
			return err // internal: logged and answered by the server
		}
		return writeOTLPError(w, enc, ae)
	}
	return writeOTLPResponse(w, enc, res)
}

// otlpWrite reads, decodes and stores an OTLP request.
func (s *Server) otlpWrite(w http.ResponseWriter, r *http.Request, enc ingest.OTLPEncoding) (ingest.OTLPResult, error) {
	body, err := s.body(w, r)
	if err != nil {
		return ingest.OTLPResult{}, err
	}
	data, err := io.ReadAll(body)
	if err != nil {
		if ae := asTooLarge(err); ae != nil {
			return ingest.OTLPResult{}, s.refuse(ae)
		}
		return ingest.OTLPResult{}, err
	}
	o := s.ingestOptions(r.Context(), ingest.Millisecond)
	o.Grow = s.grow(r)
	b, res, err := ingest.OTLP(data, enc, s.lookup, o, ingest.OTLPOptions{PromoteResourceAttributes: s.cfg.OTLPPromoteResourceAttributes})
	if err != nil {
		return res, s.refuse(err)
	}
	if res.Rejected > 0 {
		s.metrics.refused.WithLabelValues("decode").Inc()
	}
	return res, s.storeBatch(r, b)
}

// writeOTLPResponse answers an ExportMetricsServiceResponse: empty when
// every data point was taken, else with partial_success.
func writeOTLPResponse(w http.ResponseWriter, enc ingest.OTLPEncoding, res ingest.OTLPResult) error {
	msg := res.Reason
	if res.Rejected > 1 {
		msg = fmt.Sprintf("%d data points refused; the first: %s", res.Rejected, res.Reason)
	}
	if enc == ingest.OTLPJSON {
		var v struct {
			PartialSuccess *struct {
				RejectedDataPoints string `json:"rejectedDataPoints,omitempty"`
				ErrorMessage       string `json:"errorMessage,omitempty"`
			} `json:"partialSuccess,omitempty"`
		}
		if msg != "" {
			v.PartialSuccess = &struct {
				RejectedDataPoints string `json:"rejectedDataPoints,omitempty"`
				ErrorMessage       string `json:"errorMessage,omitempty"`
			}{ErrorMessage: msg}
			if res.Rejected > 0 {
				v.PartialSuccess.RejectedDataPoints = strconv.FormatInt(res.Rejected, 10)
			}
		}
		httpjson.Write(w, http.StatusOK, v)
		return nil
	}
	var b []byte
	if msg != "" {
		var ps []byte
		if res.Rejected > 0 {
			ps = protowire.AppendTag(ps, 1, protowire.VarintType)
			ps = protowire.AppendVarint(ps, uint64(res.Rejected))
		}
		ps = protowire.AppendTag(ps, 2, protowire.BytesType)
		ps = protowire.AppendString(ps, msg)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, ps)
	}
	writeProtobuf(w, http.StatusOK, b)
	return nil
}

// writeOTLPError answers ae as OTLP/HTTP says: a google.rpc.Status of the
// gRPC code nearest the HTTP status, in the request's encoding.
func writeOTLPError(w http.ResponseWriter, enc ingest.OTLPEncoding, ae *apiError) error {
	ae.setRetryAfter(w)
	status := ae.sentStatus()
	code := grpcCode(status)
	if enc == ingest.OTLPJSON {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(status)
		return json.NewEncoder(w).Encode(struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{code, ae.message})
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(code))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, ae.message)
	writeProtobuf(w, status, b)
	return nil
}

// writeProtobuf answers the protobuf message b with status.
func writeProtobuf(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// grpcCode returns the gRPC status code of an HTTP status, as gRPC's
// HTTP mapping reads it back.
func grpcCode(status int) int {
	switch status {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		return 3 // INVALID_ARGUMENT
	case http.StatusUnauthorized:
		return 16 // UNAUTHENTICATED
	case http.StatusForbidden:
		return 7 // PERMISSION_DENIED
	case http.StatusNotFound:
		return 5 // NOT_FOUND
	case http.StatusRequestEntityTooLarge, http.StatusInsufficientStorage:
		return 8 // RESOURCE_EXHAUSTED
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return 14 // UNAVAILABLE
	}
	return 2 // UNKNOWN
}
