package local

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// ErrClosed is returned (wrapped in a *smithy.OperationError) by every
// operation on a DB after Close.
var ErrClosed = errors.New("local: database is closed")

// ErrInUse is returned by Open for a data folder another DB holds, in this
// process or another one: a folder has one engine at a time.
var ErrInUse = errors.New("local: data folder in use")

// Messages DynamoDB (and DynamoDB Local, the reference) uses in several places.
const (
	msgTableNotFound   = "Cannot do operations on a non-existent table"
	msgConditionFailed = "The conditional request failed"
	msgKeySchema       = "The provided key element does not match the schema"
	msgKeyCount        = "The number of conditions on the keys is invalid"
	msgMissingKey      = "One of the required keys was not given a value"
	msgKeyType         = "One or more parameter values were invalid: Type mismatch for key"
	msgIndexKeyType    = "One or more parameter values were invalid: Type mismatch for Index Key"
	msgKeySize         = "Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes"
	msgItemSize        = "Item size has exceeded the maximum allowed size"
	msgUpdateItemSize  = "Item size to update has exceeded the maximum allowed size"
	msgReturnValues    = "Return values set to invalid value"
)

// validationError is DynamoDB's ValidationException. The SDK has no type for
// it; the real client returns a *smithy.GenericAPIError, and so do we.
func validationError(msg string) error {
	return &smithy.GenericAPIError{Code: "ValidationException", Message: msg, Fault: smithy.FaultClient}
}

func validationf(format string, args ...any) error {
	return validationError(fmt.Sprintf(format, args...))
}

func notFound(msg string) error {
	return &types.ResourceNotFoundException{Message: aws.String(msg)}
}

func inUse(msg string) error {
	return &types.ResourceInUseException{Message: aws.String(msg)}
}

func limitExceeded(msg string) error {
	return &types.LimitExceededException{Message: aws.String(msg)}
}

func conditionFailed(item map[string]types.AttributeValue) error {
	return &types.ConditionalCheckFailedException{Message: aws.String(msgConditionFailed), Item: item}
}

// opError wraps err as the SDK client does, so that callers can use
// errors.As on the typed exceptions and on smithy.APIError. Errors from the
// expression compiler become ValidationExceptions.
func opError(op string, err error) error {
	if err == nil {
		return nil
	}
	var ee *expr.Error
	if errors.As(err, &ee) {
		err = validationError(ee.Msg)
	}
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: err}
}

// errCondition carries a failed condition out of commitOne: old is the item
// the condition was evaluated on.
type errCondition struct{ old Item }

func (e *errCondition) Error() string { return msgConditionFailed }

// errFatal marks an error of a write that fails a transaction as a plain
// error (DynamoDB Local reports runtime errors of update expressions so).
type errFatal struct{ err error }

func (e *errFatal) Error() string { return e.err.Error() }

func (e *errFatal) Unwrap() error { return e.err }

// errAlone marks an error that cancels a transaction with this write's
// reason alone.
type errAlone struct{ err error }

func (e *errAlone) Error() string { return e.err.Error() }

func (e *errAlone) Unwrap() error { return e.err }

// unwrapWriteErr removes the transaction markers from an error.
func unwrapWriteErr(err error) error {
	switch e := err.(type) {
	case *errFatal:
		return e.err
	case *errAlone:
		return e.err
	}
	return err
}

// errCanceled is returned by commitMany when a write of the batch or
// transaction fails; nothing is then written.
var errCanceled = errors.New("local: transaction canceled")
