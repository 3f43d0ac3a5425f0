package timetable

import "context"

// newItemsKey marks a context made by WithNewItems.
type newItemsKey struct{}

// WithNewItems returns a context under which the caller asserts that the
// items its BatchWriteItem calls put are not in the table, or are stored
// exactly as put (a write repeated after an interruption): keys it made
// new, such as keys holding a sequence number. An API may then skip
// reading the item a put replaces. When the assertion holds, the results
// are DynamoDB's: the same items and the same consumed capacity (a put's
// write units follow the larger of the old and the new item, which is
// then the new one). Deletes, conditions and other operations are not
// affected, and APIs that always read (DynamoDB itself) ignore it.
func WithNewItems(ctx context.Context) context.Context {
	return context.WithValue(ctx, newItemsKey{}, true)
}

// NewItems reports whether ctx (or a context it derives from) was made by
// WithNewItems. It is false for a nil ctx.
func NewItems(ctx context.Context) bool {
	return ctx != nil && ctx.Value(newItemsKey{}) != nil
}
