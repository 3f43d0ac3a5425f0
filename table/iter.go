package table

import (
	"context"
	"iter"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// fetchFunc makes one backend call from the position start (nil for the
// beginning) with the backend Limit limit (0 for none), and returns the
// items and the LastEvaluatedKey (nil at the end).
type fetchFunc func(ctx context.Context, start Item, limit int) (items []Item, last Item, err error)

// Iter iterates over the items of a Query or Scan, call after call, in the
// shape of sql.Rows:
//
//	it := tbl.QueryIter(ctx, q)
//	defer it.Close()
//	for it.Next() {
//		use(it.Item())
//	}
//	if err := it.Err(); err != nil { ... }
//
// Cursor returns, at any item, the cursor that resumes just after it. An
// Iter is not safe for concurrent use.
type Iter struct {
	ctx      context.Context
	fetch    fetchFunc
	names    []string   // position attributes, for cursors
	strip    func(Item) // removes attributes added only for cursors
	remain   int        // items still allowed, < 0 for no limit
	pageSize int        // backend Limit per call, 0 for none
	buf      []Item     // fetched, not yet returned
	next     Item       // ExclusiveStartKey of the next call
	done     bool       // no call left to make
	cur      Item       // current item
	lastKey  Item       // position attributes of the last item returned
	err      error
}

func errIter(err error) *Iter { return &Iter{err: err, done: true} }

// newIter is the iterator over the items fetch reads, from start (nil for
// the beginning): the attributes names position a cursor, those a
// projection proj does not name are stripped, pageSize is the Limit of
// each call (<= 0 for none) and limit the items returned (<= 0 for all).
func newIter(ctx context.Context, names, proj []string, pageSize, limit int, start Item, fetch fetchFunc) *Iter {
	it := &Iter{
		ctx: ctx, fetch: fetch, names: names, strip: stripper(proj, names),
		remain: -1, pageSize: max(pageSize, 0), next: start,
	}
	if limit > 0 {
		it.remain = limit
	}
	return it
}

// pageLimit is the Limit of a call that may read limit items, nil for
// limit <= 0 (no limit).
func pageLimit(limit int) *int32 {
	if limit <= 0 {
		return nil
	}
	return aws.Int32(int32(min(limit, 1<<30)))
}

// Next advances to the next item and reports whether there is one. It
// returns false at the end, at the limit, and on error (see Err).
func (it *Iter) Next() bool {
	if !it.advance() {
		return false
	}
	it.lastKey = it.keyOf(it.cur)
	if it.strip != nil {
		it.strip(it.cur)
	}
	return true
}

// advance moves to the next item, as Next does, but leaves it.lastKey as
// it was and the item unstripped: the caller does both.
func (it *Iter) advance() bool {
	it.cur = nil
	if it.err != nil || it.remain == 0 {
		return false
	}
	for len(it.buf) == 0 {
		if it.done {
			return false
		}
		if err := it.ctx.Err(); err != nil {
			it.err = err
			return false
		}
		limit := it.pageSize
		if limit == 0 && it.remain > 0 {
			limit = it.remain
		}
		items, last, err := it.fetch(it.ctx, it.next, limit)
		if err != nil {
			it.err = err
			return false
		}
		it.buf, it.next, it.done = items, last, last == nil
	}
	it.cur = it.buf[0]
	it.buf[0] = nil
	it.buf = it.buf[1:]
	if it.remain > 0 {
		it.remain--
	}
	return true
}

// keyOf returns the position attributes of item, for a cursor.
func (it *Iter) keyOf(item Item) Item {
	key := make(Item, len(it.names))
	for _, n := range it.names {
		if v, ok := item[n]; ok {
			key[n] = v
		}
	}
	return key
}

// Item returns the current item, owned by the caller; nil before the first
// Next or after Next returned false.
func (it *Iter) Item() Item { return it.cur }

// Decode unmarshals the current item into out, like Unmarshal.
func (it *Iter) Decode(out any) error { return Unmarshal(it.cur, out) }

// Cursor returns the cursor that resumes the read just after the current
// item, or "" when there is no current item.
func (it *Iter) Cursor() string {
	if it.cur == nil {
		return ""
	}
	return encodeCursor(it.lastKey, it.names)
}

// more reports whether items may follow the last one returned, limit
// aside: some are fetched, or a call is left to make.
func (it *Iter) more() bool { return len(it.buf) > 0 || !it.done }

// Err returns the error that ended the iteration, nil at a normal end.
func (it *Iter) Err() error { return it.err }

// Close ends the iteration and releases the buffered items. It returns
// nil; Next returns false afterwards.
func (it *Iter) Close() error {
	it.buf, it.cur, it.done, it.remain = nil, nil, true, 0
	return nil
}

// seq adapts an Iter to iter.Seq2: each item with a nil error, then, if
// the iteration failed, one (nil, err).
func seq(mk func() *Iter) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		it := mk()
		defer it.Close()
		for it.Next() {
			if !yield(it.Item(), nil) {
				return
			}
		}
		if err := it.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Page is a page of items, owned by the caller, and the cursor that
// resumes after its last item; Cursor is "" when the read is known to be
// complete.
type Page struct {
	Items  []Item
	Cursor string
}

// page collects one page from it: up to its limit, or with no limit the
// items of the first backend call that returned any.
func (it *Iter) page() (*Page, error) {
	p := &Page{}
	unlimited := it.remain < 0
	// Only the last item's position makes the cursor: it is taken once,
	// when a cursor is returned, before the items are stripped, rather
	// than at every item as Next does.
	for it.advance() {
		p.Items = append(p.Items, it.cur)
		if unlimited && len(it.buf) == 0 {
			break
		}
	}
	if it.err != nil {
		return nil, it.err
	}
	if n := len(p.Items); n > 0 {
		if it.more() {
			it.lastKey = it.keyOf(p.Items[n-1])
			p.Cursor = encodeCursor(it.lastKey, it.names)
		}
		if it.strip != nil {
			for _, item := range p.Items {
				it.strip(item)
			}
		}
	}
	return p, nil
}
