package tablecopy

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// schema returns the package table schema of the table, for its scan
// cursors and batch writes.
func (tc *tableCopy) schema() table.Schema {
	kt := map[string]types.ScalarAttributeType{}
	for _, n := range []string{tc.hash, tc.rng} {
		if n != "" {
			kt[n] = types.ScalarAttributeType(tc.keyTypes[n])
		}
	}
	return table.Schema{Name: tc.name, HashKey: tc.hash, RangeKey: tc.rng, KeyTypes: kt}
}

// copyItems copies the items of the segments of tc that are not done, all
// at once.
func (c *copier) copyItems(ctx context.Context, tc *tableCopy) error {
	src, err := table.New(c.from, tc.schema(), nil)
	if err != nil {
		return wrapf(err, "table %s", tc.name)
	}
	dst, err := table.New(c.to, tc.schema(), &table.Options{RetryTimeout: 5 * time.Minute})
	if err != nil {
		return wrapf(err, "table %s", tc.name)
	}
	g, ctx := errgroup.WithContext(ctx)
	for seg := range tc.state.Segments {
		g.Go(func() error { return c.copySegment(ctx, tc, src, dst, seg) })
	}
	return g.Wait()
}

// copySegment copies segment seg of tc from where its state says, a page
// at a time, recording the cursor after each page once it is written.
func (c *copier) copySegment(ctx context.Context, tc *tableCopy, src, dst *table.Table, seg int) error {
	n := len(tc.state.Segments)
	c.mu.Lock()
	ss := tc.state.Segments[seg]
	c.mu.Unlock()
	if ss.Done {
		return nil
	}
	cursor := ss.Cursor
	for {
		page, err := src.Scan(ctx, &table.Scan{Segment: seg, Segments: n, Cursor: cursor, Limit: c.o.PageItems})
		if err != nil {
			return wrapf(err, "cannot scan segment %d of %d of source table %s", seg, n, tc.name)
		}
		puts := make([]table.WriteRequest, len(page.Items))
		for i, it := range page.Items {
			puts[i] = table.PutRequest(it)
		}
		// Progress is reported after each BatchWriteItem call.
		err = dst.BatchWriteWith(ctx, puts, &table.BatchWriteOptions{Applied: func(n int) {
			c.mu.Lock()
			c.copied += int64(n)
			tc.rep.Copied += int64(n)
			c.report(tc.name)
			c.mu.Unlock()
		}})
		if err != nil {
			return wrapf(err, "cannot write to destination table %s", tc.name)
		}
		cursor = page.Cursor
		c.mu.Lock()
		s := &tc.state.Segments[seg]
		s.Items += int64(len(page.Items))
		s.Cursor, s.Done = cursor, cursor == ""
		err = c.st.save()
		c.mu.Unlock()
		if err != nil {
			return err
		}
		if cursor == "" {
			return nil
		}
	}
}

// estimate returns the number of items of tc still to copy for the
// progress total: the source's ItemCount, or a count if that is 0.
func (c *copier) estimate(ctx context.Context, tc *tableCopy) (int64, error) {
	if tc.itemCount > 0 {
		return tc.itemCount, nil
	}
	return count(ctx, c.from, tc.name, len(tc.state.Segments))
}

// verify counts the items of tc on both sides.
func (c *copier) verify(ctx context.Context, tc *tableCopy) error {
	n := len(tc.state.Segments)
	src, err := count(ctx, c.from, tc.name, n)
	if err != nil {
		return wrapf(err, "cannot count the items of source table %s", tc.name)
	}
	dst, err := count(ctx, c.to, tc.name, n)
	if err != nil {
		return wrapf(err, "cannot count the items of destination table %s", tc.name)
	}
	tc.rep.SourceItems, tc.rep.DestinationItems = src, dst
	if src != dst {
		return &MismatchError{Table: tc.name, SourceItems: src, DestinationItems: dst}
	}
	tc.rep.Verified = true
	c.o.Logger.Info("verified", "table", tc.name, "items", src)
	return nil
}

// count counts the items of a table with a parallel Scan of segments
// segments (Select COUNT), strongly consistent.
func count(ctx context.Context, api timetable.API, name string, segments int) (int64, error) {
	counts := make([]int64, segments)
	g, ctx := errgroup.WithContext(ctx)
	for seg := range segments {
		g.Go(func() error {
			in := &dynamodb.ScanInput{
				TableName: aws.String(name), Select: types.SelectCount, ConsistentRead: aws.Bool(true),
				Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(segments)),
			}
			for {
				out, err := api.Scan(ctx, in)
				if err != nil {
					return err
				}
				counts[seg] += int64(out.Count)
				if len(out.LastEvaluatedKey) == 0 {
					return nil
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		})
	}
	if err := g.Wait(); err != nil {
		return 0, fmt.Errorf("scan: %w", err)
	}
	var n int64
	for _, c := range counts {
		n += c
	}
	return n, nil
}
