package table

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Scan reads a whole table or index. The zero values of its fields are the
// defaults.
type Scan struct {
	// Index is the index to read; "" reads the table.
	Index string
	// Filter drops items after they are read (they still cost read units).
	Filter Cond
	// Projection lists the document paths to return; empty returns all.
	Projection []string
	// Limit, PageSize, Consistent and Cursor are as in Query.
	Limit      int
	PageSize   int
	Consistent bool
	Cursor     string
	// Segment and Segments read one segment of a scan split in Segments
	// (DynamoDB's Segment and TotalSegments), for callers that distribute
	// segments themselves; a Cursor resumes within its segment. 0 Segments:
	// the whole table.
	Segment, Segments int
	// Parallel makes ScanAll read the whole table as Parallel segments at
	// once (and Segment, Segments and Cursor must be zero); items then come
	// in no defined order. Scan and ScanIter ignore it.
	Parallel int
}

// Scan returns one page of s, as Query does.
func (t *Table) Scan(ctx context.Context, s *Scan) (*Page, error) {
	if s == nil {
		return nil, fmt.Errorf("table: nil Scan")
	}
	return t.scanIter(ctx, s, s.Segment, s.Segments, s.Cursor).page()
}

// ScanIter returns an iterator over the items of s from s.Cursor on, at
// most s.Limit if it is set.
func (t *Table) ScanIter(ctx context.Context, s *Scan) *Iter {
	if s == nil {
		return errIter(fmt.Errorf("table: nil Scan"))
	}
	return t.scanIter(ctx, s, s.Segment, s.Segments, s.Cursor)
}

// ScanAll returns the items of s, at most s.Limit if it is set, as an
// iter.Seq2. With s.Parallel > 1 it reads that many segments concurrently
// and yields their items as they come, in the caller's goroutine; stopping
// the iteration early stops the segment readers. An error ends the
// sequence as its last pair.
func (t *Table) ScanAll(ctx context.Context, s *Scan) iter.Seq2[Item, error] {
	if s == nil || s.Parallel <= 1 {
		return seq(func() *Iter {
			if s == nil {
				return errIter(fmt.Errorf("table: nil Scan"))
			}
			return t.scanIter(ctx, s, s.Segment, s.Segments, s.Cursor)
		})
	}
	return func(yield func(Item, error) bool) {
		if s.Segments != 0 || s.Cursor != "" {
			yield(nil, fmt.Errorf("table: a parallel scan takes no Segments or Cursor"))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			item Item
			err  error
		}
		ch := make(chan result, 64)
		var wg sync.WaitGroup
		for seg := range s.Parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				one := *s
				one.Limit = 0 // the total is counted below
				it := t.scanIter(ctx, &one, seg, s.Parallel, "")
				for it.Next() {
					select {
					case ch <- result{item: it.Item()}:
					case <-ctx.Done():
						return
					}
				}
				if err := it.Err(); err != nil && ctx.Err() == nil {
					select {
					case ch <- result{err: fmt.Errorf("table: scan segment %d of %d: %w", seg, s.Parallel, err)}:
					case <-ctx.Done():
					}
				}
			}()
		}
		go func() { wg.Wait(); close(ch) }()
		defer func() {
			cancel()
			for range ch { // let the readers finish
			}
		}()
		n := 0
		for r := range ch {
			if r.err != nil {
				yield(nil, r.err)
				return
			}
			if !yield(r.item, nil) {
				return
			}
			if n++; s.Limit > 0 && n >= s.Limit {
				return
			}
		}
		if err := ctx.Err(); err != nil {
			yield(nil, err)
		}
	}
}

func (t *Table) scanIter(ctx context.Context, s *Scan, segment, segments int, cursor string) *Iter {
	if s == nil {
		return errIter(fmt.Errorf("table: nil Scan"))
	}
	if segments < 0 || segment < 0 || (segments > 0 && segment >= segments) || (segments == 0 && segment != 0) {
		return errIter(fmt.Errorf("table: scan segment %d of %d", segment, segments))
	}
	names, err := t.keyNames(s.Index)
	if err != nil {
		return errIter(err)
	}
	var start Item
	if cursor != "" {
		if start, err = decodeCursor(cursor, names); err != nil {
			return errIter(err)
		}
	}
	x, err := exprs{filter: s.Filter, projection: s.Projection, keyNames: names}.build()
	if err != nil {
		return errIter(fmt.Errorf("table: cannot build the scan expressions: %w", err))
	}
	in := &dynamodb.ScanInput{
		TableName:                 aws.String(t.schema.Name),
		FilterExpression:          x.filter,
		ProjectionExpression:      x.projection,
		ExpressionAttributeNames:  x.names,
		ExpressionAttributeValues: x.values,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if s.Index != "" {
		in.IndexName = aws.String(s.Index)
	}
	if s.Consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if segments > 0 {
		in.Segment, in.TotalSegments = aws.Int32(int32(segment)), aws.Int32(int32(segments))
	}
	return newIter(ctx, names, s.Projection, s.PageSize, s.Limit, start, func(ctx context.Context, start Item, limit int) ([]Item, Item, error) {
		call := *in
		call.ExclusiveStartKey, call.Limit = start, pageLimit(limit)
		out, err := send(ctx, t, "Scan", t.api.Scan, &call)
		if err != nil {
			return nil, nil, err
		}
		t.stats.consumed("Scan", out.ConsumedCapacity)
		return out.Items, out.LastEvaluatedKey, nil
	})
}
