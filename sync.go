package timetable

import "context"

// A Syncer is an API whose writes can be acknowledged before they are
// durable, and made durable later all at once: the embedded engine
// (*local.DB) is one. A DynamoDB endpoint is not: its writes are durable
// when acknowledged.
type Syncer interface {
	// Sync makes durable every write acknowledged before it is called.
	Sync(ctx context.Context) error
}

// deferredSyncKey marks a context made by WithDeferredSync.
type deferredSyncKey struct{}

// WithDeferredSync returns a context under which a Syncer may acknowledge
// writes before they are durable; its Sync makes them durable. Other APIs
// ignore it. It is for callers that keep their own durable record of the
// writes until Sync returns, such as the series store's write-ahead log,
// so that many writes share one sync.
func WithDeferredSync(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferredSyncKey{}, true)
}

// DeferredSync reports whether ctx (or a context it derives from) was made
// by WithDeferredSync. A Syncer calls it to choose how durable a write must
// be before it is acknowledged. It is false for a nil ctx.
func DeferredSync(ctx context.Context) bool {
	return ctx != nil && ctx.Value(deferredSyncKey{}) != nil
}
