package table

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable"
)

// Sentinel errors, matched with errors.Is. They are the root package's,
// so errors.Is(err, ErrNotFound) also matches series.ErrNotFound.
var (
	// ErrNotFound is returned by Get when no item has the key. It is
	// timetable.ErrNotFound.
	ErrNotFound = timetable.ErrNotFound
	// ErrBadCursor is returned by Query and Scan for a cursor they did not
	// make, or made for another index. It is timetable.ErrBadCursor.
	ErrBadCursor = timetable.ErrBadCursor
)

// BatchError reports the part of a batch that could not be done before the
// retry deadline, the context's end or a failed call. Nothing is dropped:
// everything not read or written is in Keys or Writes, in input order.
type BatchError struct {
	// Op is "BatchGetItem" or "BatchWriteItem".
	Op string
	// Keys are the keys BatchGet did not read.
	Keys []Key
	// Writes are the requests BatchWrite did not apply.
	Writes []WriteRequest
	// Err is why: the last call's error, the context's, or
	// ErrRetriesExhausted.
	Err error
}

// ErrRetriesExhausted reports work still unprocessed when the retry
// deadline passed.
var ErrRetriesExhausted = errors.New("timetable: retries exhausted")

func (e *BatchError) Error() string {
	n := len(e.Keys) + len(e.Writes)
	return fmt.Sprintf("table: %s: %d items not processed: %v", e.Op, n, e.Err)
}

// Unwrap returns Err.
func (e *BatchError) Unwrap() error { return e.Err }

// IsTableMissing reports whether err says the table does not exist:
// DynamoDB's ResourceNotFoundException (a table never created, or deleted
// meanwhile).
func IsTableMissing(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

// IsConditionFailed reports whether err is a failed condition: a
// ConditionalCheckFailedException, or a transaction cancelled because a
// condition failed.
func IsConditionFailed(err error) bool {
	var cf *types.ConditionalCheckFailedException
	if errors.As(err, &cf) {
		return true
	}
	for _, r := range CancellationReasons(err) {
		if r == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// CancellationReasons returns the reason codes of a cancelled transaction,
// one per action in order ("None" for actions that did not cause it), and
// nil if err is not a TransactionCanceledException.
func CancellationReasons(err error) []string {
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		return nil
	}
	out := make([]string, len(tc.CancellationReasons))
	for i, r := range tc.CancellationReasons {
		out[i] = "None"
		if r.Code != nil {
			out[i] = *r.Code
		}
	}
	return out
}

// IsThrottled reports whether err asks the caller to slow down and retry:
// provisioned throughput exceeded, throttling or request limit exceeded.
func IsThrottled(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
		"Throttling", "TooManyRequestsException":
		return true
	}
	return false
}

// retryable reports whether a call that failed with err may succeed if
// sent again: throttling, a transaction conflict, or a server-side (5xx)
// failure. A write an embedded engine refused for a full disk or a failed
// storage (timetable.ErrDiskFull, ErrStorageFailed) is not retried.
func retryable(err error) bool {
	if err == nil || errors.Is(err, timetable.ErrDiskFull) || errors.Is(err, timetable.ErrStorageFailed) {
		// An embedded engine out of space, or failed: not for seconds.
		return false
	}
	if IsThrottled(err) {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "InternalServerError", "InternalFailure", "ServiceUnavailable", "TransactionConflictException",
			"TransactionInProgressException":
			return true
		}
		if ae.ErrorFault() == smithy.FaultServer {
			return true
		}
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) && hs.HTTPStatusCode() >= 500 {
		return true
	}
	// A transaction cancelled only by conflicts or throttling.
	if reasons := CancellationReasons(err); len(reasons) > 0 {
		transient := false
		for _, r := range reasons {
			switch r {
			case "None", "":
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				transient = true
			default:
				return false
			}
		}
		return transient
	}
	return false
}
