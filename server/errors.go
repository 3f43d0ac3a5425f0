package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/internal/httpjson"
	"github.com/timetable-db/timetable/series"
)

// Error codes of the JSON error body {"error": code, "message": reason}.
const (
	codeInvalid     = "invalid_argument"
	codeUnauth      = "unauthenticated"
	codeDenied      = "permission_denied"
	codeNotFound    = "not_found"
	codeMethod      = "method_not_allowed"
	codeConflict    = "conflict"
	codeTooLarge    = "too_large"
	codeMediaType   = "unsupported_media_type"
	codeRateLimited = "rate_limited"
	codeUnavailable = "unavailable"
	codeInternal    = "internal"
	codeTimeout     = "timeout"
	codeNoSpace     = "insufficient_storage"
)

// apiError is an error with the status and code it is answered with.
type apiError struct {
	status  int
	code    string
	message string
	// retryAfter, if positive, is sent as Retry-After (429, 503).
	retryAfter time.Duration
	// field, if set, is the member of the request's JSON at fault.
	field string
}

func (e *apiError) Error() string { return e.message }

// setRetryAfter sets the Retry-After header of e's answer, in whole
// seconds rounded up, if e has a retryAfter.
func (e *apiError) setRetryAfter(w http.ResponseWriter) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.retryAfter+time.Second-1)/time.Second)))
	}
}

// sentStatus is the status e is answered with: its own, but 503 for 499
// (a client that closed the connection), since no client reads a 499.
func (e *apiError) sentStatus() int {
	if e.status == 499 {
		return http.StatusServiceUnavailable
	}
	return e.status
}

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, codeInvalid, format, args...)
}

// errorBody is the JSON of every error answer; Field names the member of
// the request's JSON body at fault, when the error is one value's.
type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// jsonFields are the JSON names of the fields analytics.FieldError names.
var jsonFields = map[string]string{
	"ID": "id", "Name": "name", "Domains": "domains", "TimeZone": "time_zone", "Kind": "kind", "Match": "match", "Steps": "steps",
}

// classify maps an error of the layers below to its answer. Errors it does
// not know are internal: their text is logged, not sent.
func classify(err error) *apiError {
	var ae *apiError
	var le *ingest.Error
	var fe *analytics.FieldError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &fe):
		return &apiError{status: http.StatusBadRequest, code: codeInvalid, message: err.Error(), field: jsonFields[fe.Field]}
	case errors.Is(err, timetable.ErrStorageFailed), timetable.IsDiskFull(err):
		return storageFault(err)
	case errors.Is(err, ingest.ErrTooLong), errors.Is(err, ingest.ErrTooManyReadings), errors.Is(err, ingest.ErrTooManySeries):
		return &apiError{status: http.StatusRequestEntityTooLarge, code: codeTooLarge, message: err.Error()}
	case errors.As(err, &le):
		return &apiError{status: http.StatusBadRequest, code: codeInvalid, message: le.Error()}
	case errors.Is(err, series.ErrUnknownKind):
		return &apiError{status: http.StatusNotFound, code: codeNotFound, message: err.Error()}
	case errors.Is(err, timetable.ErrNotFound):
		return &apiError{status: http.StatusNotFound, code: codeNotFound, message: err.Error()}
	case errors.Is(err, series.ErrKindExists), errors.Is(err, series.ErrSchemaChange), errors.Is(err, series.ErrConflict):
		return &apiError{status: http.StatusConflict, code: codeConflict, message: err.Error()}
	case errors.Is(err, series.ErrInvalidSchema), errors.Is(err, series.ErrInvalidReading),
		errors.Is(err, series.ErrInvalidID), errors.Is(err, series.ErrExpired),
		errors.Is(err, series.ErrInvalidQuery), errors.Is(err, series.ErrUnbounded),
		errors.Is(err, timetable.ErrBadCursor), errors.Is(err, series.ErrNoIndex):
		return &apiError{status: http.StatusBadRequest, code: codeInvalid, message: err.Error()}
	case errors.Is(err, series.ErrTableNotFound), errors.Is(err, series.ErrClosed), errors.Is(err, series.ErrIndexNotReady):
		return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, message: err.Error()}
	case errors.Is(err, analytics.ErrInvalid), errors.Is(err, analytics.ErrExpired), errors.Is(err, auth.ErrInvalid):
		return &apiError{status: http.StatusBadRequest, code: codeInvalid, message: err.Error()}
	case errors.Is(err, analytics.ErrExists):
		return &apiError{status: http.StatusConflict, code: codeConflict, message: err.Error()}
	case errors.Is(err, auth.ErrUnauthenticated):
		return &apiError{status: http.StatusUnauthorized, code: codeUnauth, message: err.Error()}
	case errors.Is(err, auth.ErrPermissionDenied):
		return &apiError{status: http.StatusForbidden, code: codeDenied, message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusGatewayTimeout, code: codeTimeout, message: "the request took too long"}
	case errors.Is(err, context.Canceled):
		// The client went away; the status is for the log.
		return &apiError{status: 499, code: codeUnavailable, message: "request canceled"}
	}
	return nil
}

// storageFault is the answer to a write the storage refused or failed: 507
// Insufficient Storage for a full disk, 503 for another failure. A failure
// that needs a restart says so; otherwise the write may be retried once
// space is freed. The message never holds the storage's own text (file
// paths): the server logs that.
func storageFault(err error) *apiError {
	restart := errors.Is(err, timetable.ErrStorageFailed)
	switch {
	case timetable.IsDiskFull(err) && restart:
		return &apiError{status: http.StatusInsufficientStorage, code: codeNoSpace,
			message: "no space left on the data folder's disk: the storage engine stopped taking writes; free space and restart the server"}
	case timetable.IsDiskFull(err):
		return &apiError{status: http.StatusInsufficientStorage, code: codeNoSpace, retryAfter: storageRetryAfter,
			message: "no space left on the data folder's disk: writes are refused until space is freed"}
	}
	return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable,
		message: "the storage failed: writes are refused until the server restarts"}
}

// storageRetryAfter is the Retry-After of a write refused for a full disk.
const storageRetryAfter = 10 * time.Second

// fail answers err as JSON. Errors classify does not know are logged with
// the request and answered 500 without their text.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	ae := classify(err)
	if ae != nil && ae.code == codeNoSpace || errors.Is(err, timetable.ErrStorageFailed) {
		s.log.Warn("write refused: storage", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if ae == nil {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		ae = &apiError{status: http.StatusInternalServerError, code: codeInternal, message: "internal error (logged by the server)"}
	}
	writeErrorFor(w, r, ae)
}

func writeError(w http.ResponseWriter, ae *apiError) {
	ae.setRetryAfter(w)
	httpjson.Write(w, ae.sentStatus(), errorBody{Error: ae.code, Message: ae.message, Field: ae.field})
}
