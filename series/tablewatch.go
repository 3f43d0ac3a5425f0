package series

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// A Store knows whether its table exists, so that a write to a missing
// table fails at once (ErrTableNotFound) instead of being buffered and
// failing at every flush: Open finds out (reading the stored schemas),
// EnsureTable sets it, and any item operation answered with
// ResourceNotFoundException (a table deleted meanwhile) resets it.

// isTableMissing reports whether err is DynamoDB's ResourceNotFoundException.
func isTableMissing(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

// tableErr returns err, wrapped with ErrTableNotFound if it says the table
// is missing.
func (s *Store) tableErr(err error) error {
	if err != nil && isTableMissing(err) {
		return fmt.Errorf("%w: %w", s.errTableNotFound(), err)
	}
	return err
}

// errTableNotFound is ErrTableNotFound naming the Store's table.
func (s *Store) errTableNotFound() error {
	return fmt.Errorf("%w: %q does not exist (EnsureTable creates it)", ErrTableNotFound, s.opts.Table)
}

// Ready reports whether the Store takes writes: nil, or ErrClosed, or
// ErrTableNotFound while its table is known to be missing (checked at Open,
// set by EnsureTable, and reset by any call answered ResourceNotFound), or
// the error of the write-ahead log's last commit while it failed (a full
// disk: it matches syscall.ENOSPC, see timetable.IsDiskFull). It makes no
// request; while the log failed it waits for a commit that repairs it.
func (s *Store) Ready() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.wal != nil {
		ctx, cancel := context.WithTimeout(context.Background(), readyWALWait)
		defer cancel()
		if err := s.wal.Check(ctx); err != nil {
			return fmt.Errorf("series: the write-ahead log cannot take writes: %w", err)
		}
	}
	return s.checkTable()
}

// readyWALWait bounds Ready's wait for a commit of a failed log.
const readyWALWait = 5 * time.Second

// checkTable returns ErrTableNotFound while the table is known to be
// missing.
func (s *Store) checkTable() error {
	if s.tableMissing.Load() {
		return s.errTableNotFound()
	}
	return nil
}

// watchedAPI is the Store's API: it notes a ResourceNotFoundException of
// an item operation in missing. Other operations pass through.
type watchedAPI struct {
	timetable.API
	missing interface{ Store(bool) }
}

func watch[T any](w *watchedAPI, out T, err error) (T, error) {
	if err != nil && isTableMissing(err) {
		w.missing.Store(true)
	}
	return out, err
}

func (w *watchedAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := w.API.GetItem(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := w.API.PutItem(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := w.API.UpdateItem(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := w.API.DeleteItem(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := w.API.Query(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := w.API.Scan(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := w.API.BatchGetItem(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := w.API.BatchWriteItem(ctx, in, o...)
	return watch(w, out, err)
}

func (w *watchedAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := w.API.TransactWriteItems(ctx, in, o...)
	return watch(w, out, err)
}
