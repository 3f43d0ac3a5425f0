package wire

import (
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/aws/smithy-go"
	"github.com/timetable-db/timetable/internal/jsonstr"
)

// Error is a DynamoDB protocol error that the endpoint answers by itself,
// before the API sees the request: a body that is not JSON or does not fit
// the operation's input shape, an unknown operation, a missing signature.
// Unmarshal returns it for malformed input.
type Error struct {
	// Code is DynamoDB's error code, such as "SerializationException".
	Code string
	// Message is the text sent to the client.
	Message string
	// Status is the HTTP status code of the answer.
	Status int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrorCode, ErrorMessage and ErrorFault make *Error a smithy.APIError.
func (e *Error) ErrorCode() string    { return e.Code }
func (e *Error) ErrorMessage() string { return e.Message }
func (e *Error) ErrorFault() smithy.ErrorFault {
	if e.Status >= 500 {
		return smithy.FaultServer
	}
	return smithy.FaultClient
}

// WriteError answers a request with DynamoDB's error JSON for err, with the
// headers every answer of a Handler carries (Content-Type, x-amz-crc32,
// x-amzn-RequestId) and x-amzn-ErrorType, the error code, which the SDKs
// read before the body. The status is err's Status for an *Error, 400 for
// other client faults, 500 for server faults; an error that is not a
// smithy.APIError is a 500 InternalServerError whose text is not sent. It is
// for middleware in front of a Handler, such as a signature check, that
// must answer as DynamoDB does.
func WriteError(w http.ResponseWriter, err error) {
	out := getBuf()
	defer putBuf(out)
	buf, status := appendError((*out)[:0], err)
	var ae smithy.APIError
	code := errInternal.Code
	if errors.As(err, &ae) && ae.ErrorCode() != "" {
		code = ae.ErrorCode()
	}
	w.Header().Set("X-Amzn-Errortype", code)
	writeAnswer(w, status, buf)
	*out = buf[:0]
}

// TooLarge returns the error for a request body over limit bytes: 413
// RequestEntityTooLargeException.
func TooLarge(limit int64) *Error {
	return &Error{
		Code:    "RequestEntityTooLargeException",
		Message: "Request payload size exceeds the limit of " + strconv.FormatInt(limit, 10) + " bytes",
		Status:  http.StatusRequestEntityTooLarge,
	}
}

// Throttled returns the error for a request refused because the bytes
// in flight are spent: ThrottlingException, which the SDKs retry.
func Throttled() *Error {
	e := *errThrottled
	return &e
}

func serializationError(msg string) *Error {
	return &Error{Code: "SerializationException", Message: msg, Status: http.StatusBadRequest}
}

func validationError(msg string) *Error {
	return &Error{Code: "ValidationException", Message: msg, Status: http.StatusBadRequest}
}

// errTooDeep answers documents nested deeper than the scanner allows. The
// engine checks DynamoDB's 32 levels of attribute nesting with its own
// messages; this bound only keeps hostile input from costing stack.
var errTooDeep = validationError("Nesting Levels have exceeded supported limits")

// Answers DynamoDB Local gives before an operation runs.
var (
	errUnknownOperation = &Error{Code: "UnknownOperationException", Message: "An unknown operation was requested.", Status: http.StatusBadRequest}
	errMissingAuth      = &Error{Code: "MissingAuthenticationToken", Message: "Request must contain either a valid (registered) AWS access key ID or X.509 certificate.", Status: http.StatusBadRequest}
	errThrottled        = &Error{Code: "ThrottlingException", Message: "Rate of requests exceeds the allowed throughput.", Status: http.StatusBadRequest}
	errInternal         = &Error{Code: "InternalServerError", Message: "Internal server error", Status: http.StatusInternalServerError}
)

// errorNamespace returns the shape namespace DynamoDB puts before an error
// code in "__type": the Coral framework's for validation and protocol errors,
// the service's for the rest.
func errorNamespace(code string) string {
	switch code {
	case "ValidationException":
		return "com.amazon.coral.validate#"
	case "SerializationException", "UnrecognizedClientException", "AccessDeniedException",
		"IncompleteSignatureException", "InvalidSignatureException", "MissingAuthenticationTokenException",
		"RequestEntityTooLargeException":
		return "com.amazon.coral.service#"
	case "ThrottlingException":
		return "com.amazon.coral.availability#"
	}
	return "com.amazonaws.dynamodb.v20120810#"
}

// errorStatus returns the HTTP status for an API error: 500 for server
// faults (503 for ServiceUnavailable), 400 for the rest, as DynamoDB does.
func errorStatus(ae smithy.APIError) int {
	var we *Error
	if errors.As(ae, &we) {
		return we.Status
	}
	switch {
	case ae.ErrorCode() == "ServiceUnavailable":
		return http.StatusServiceUnavailable
	case ae.ErrorFault() == smithy.FaultServer:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// appendError appends DynamoDB's JSON for err to buf and returns it with the
// HTTP status:
//
//	{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","Message":"...","Item":{...}}
//
// The message member is spelled "Message", as DynamoDB Local does (the SDKs
// accept either casing). Typed SDK exceptions add their other members
// (ConditionalCheckFailedException.Item,
// TransactionCanceledException.CancellationReasons, ...). An error that is
// not a smithy.APIError becomes a 500 InternalServerError whose text is not
// shown to the client.
func appendError(buf []byte, err error) ([]byte, int) {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		ae = errInternal
	}
	code := ae.ErrorCode()
	if code == "" {
		code = "InternalServerError"
	}
	buf = append(buf, `{"__type":`...)
	buf = jsonstr.Append(buf, errorNamespace(code)+code)
	extra := exceptionFields(ae)
	// DynamoDB Local writes CancellationReasons before the message.
	if extra != nil && code == "TransactionCanceledException" {
		buf = extra(buf)
		extra = nil
	}
	buf = append(buf, `,"Message":`...)
	buf = jsonstr.Append(buf, ae.ErrorMessage())
	if extra != nil {
		buf = extra(buf)
	}
	buf = append(buf, '}')
	return buf, errorStatus(ae)
}

// exceptionFields returns a function that appends the members of a typed
// exception other than its message, each preceded by a comma, or nil when
// there are none to write.
func exceptionFields(ae smithy.APIError) func([]byte) []byte {
	rv := reflect.ValueOf(ae)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	if _, ok := ae.(*Error); ok {
		return nil
	}
	if _, ok := ae.(*smithy.GenericAPIError); ok {
		return nil
	}
	sv := rv.Elem()
	c, err := codecFor(sv.Type())
	if err != nil || c.fields == nil {
		return nil
	}
	any := false
	for i := range c.fields {
		f := &c.fields[i]
		if skipExceptionField(f.name) {
			continue
		}
		if !f.omit(sv.Field(f.index)) {
			any = true
			break
		}
	}
	if !any {
		return nil
	}
	return func(buf []byte) []byte {
		e := encoder{buf: buf}
		for i := range c.fields {
			f := &c.fields[i]
			if skipExceptionField(f.name) {
				continue
			}
			fv := sv.Field(f.index)
			if f.omit(fv) {
				continue
			}
			e.buf = append(e.buf, ',')
			e.buf = append(e.buf, f.quoted...)
			f.enc(&e, fv)
		}
		return e.buf
	}
}

func skipExceptionField(name string) bool {
	return name == "Message" || name == "ErrorCodeOverride" || strings.EqualFold(name, "message")
}
