package table

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
)

// queryPagesConcurrency is how many queries QueryPages runs at once on an
// API that is not a timetable.QueryBatcher.
const queryPagesConcurrency = 8

// QueryPages returns the page Query returns for each query of qs: pages[i]
// for qs[i], or its error errs[i]. On an API that is a
// timetable.QueryBatcher (the embedded engine), the first backend call of
// every query is made in one QueryBatch call, and a query whose answer
// there is an error, or whose page needs more calls, goes on through the
// ordinary path (retries included); on another API the queries run
// concurrently, a few at once. Each backend call counts in the stats as a
// Query call, as through Query.
func (t *Table) QueryPages(ctx context.Context, qs []*Query) (pages []*Page, errs []error) {
	pages, errs = make([]*Page, len(qs)), make([]error, len(qs))
	b, ok := t.api.(timetable.QueryBatcher)
	if !ok {
		t.queryPagesEach(ctx, qs, pages, errs)
		return pages, errs
	}
	type first struct {
		in    *dynamodb.QueryInput // without ExclusiveStartKey and Limit
		start Item
		names []string
		out   *dynamodb.QueryOutput
		used  bool
	}
	var (
		ins   []*dynamodb.QueryInput
		which []int
	)
	firsts := make([]*first, len(qs))
	for i, q := range qs {
		if q == nil {
			errs[i] = fmt.Errorf("table: nil Query")
			continue
		}
		in, start, names, err := t.queryInput(q)
		if err != nil {
			errs[i] = err
			continue
		}
		firsts[i] = &first{in: in, start: start, names: names}
		// The first call's Limit, as Iter.Next makes it.
		limit := max(q.PageSize, 0)
		if limit == 0 && q.Limit > 0 {
			limit = q.Limit
		}
		call := *in
		call.ExclusiveStartKey, call.Limit = start, pageLimit(limit)
		ins = append(ins, &call)
		which = append(which, i)
	}
	if err := ctx.Err(); err != nil {
		for _, i := range which {
			errs[i] = err
		}
		return pages, errs
	}
	outs, berrs := b.QueryBatch(ctx, ins)
	for j, i := range which {
		if j < len(berrs) && berrs[j] == nil && j < len(outs) && outs[j] != nil {
			t.called("Query", nil)
			t.stats.consumed("Query", outs[j].ConsumedCapacity)
			firsts[i].out = outs[j]
		}
	}
	for _, i := range which {
		f := firsts[i]
		if f.out == nil {
			// Not answered in the batch: the ordinary path.
			pages[i], errs[i] = t.Query(ctx, qs[i])
			continue
		}
		q, next := qs[i], t.queryPage(f.in)
		it := newIter(ctx, f.names, q.Projection, q.PageSize, q.Limit, f.start, func(ctx context.Context, start Item, limit int) ([]Item, Item, error) {
			if !f.used {
				// The first call, made in the batch.
				f.used = true
				return f.out.Items, f.out.LastEvaluatedKey, nil
			}
			return next(ctx, start, limit)
		})
		pages[i], errs[i] = it.page()
	}
	return pages, errs
}

// queryPagesEach is QueryPages through Query, a few queries at once.
func (t *Table) queryPagesEach(ctx context.Context, qs []*Query, pages []*Page, errs []error) {
	sem := make(chan struct{}, queryPagesConcurrency)
	var wg sync.WaitGroup
	for i := range qs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if qs[i] == nil {
				errs[i] = fmt.Errorf("table: nil Query")
				return
			}
			pages[i], errs[i] = t.Query(ctx, qs[i])
		}()
	}
	wg.Wait()
}
