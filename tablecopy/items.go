package tablecopy

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
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
	c.mu.Lock()
	c.report(tc, false)
	c.mu.Unlock()
	g, ctx := errgroup.WithContext(ctx)
	for seg := range tc.state.Segments {
		g.Go(func() error { return c.copySegment(ctx, tc, src, dst, seg) })
	}
	return g.Wait()
}

// copySegment copies segment seg of tc from where its state says, a page
// at a time: it writes the page, checks it, and records the cursor after
// it.
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
			tc.rep.Copied += int64(n)
			c.report(tc, false)
			c.mu.Unlock()
		}})
		if err != nil {
			return wrapf(err, "cannot write to destination table %s", tc.name)
		}
		chk, err := c.check(ctx, tc, dst, page.Items)
		if err != nil {
			return wrapf(err, "cannot read back the items written to destination table %s", tc.name)
		}
		cursor = page.Cursor
		c.mu.Lock()
		tc.rep.Read += int64(len(page.Items))
		tc.rep.Found += chk.found
		tc.rep.Expired += chk.expired
		tc.rep.Missing += chk.missing
		if tc.key == "" {
			tc.key = chk.key
		}
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

// checked is what check found of a page's items.
type checked struct {
	found, expired, missing int64
	key                     string // of a missing item
}

// check reads the items of a page back from the destination, by key
// (strongly consistent, key attributes only), and counts those found,
// those absent whose TTL has passed (the destination may have deleted
// them) and those absent although it has not.
func (c *copier) check(ctx context.Context, tc *tableCopy, dst *table.Table, items []table.Item) (checked, error) {
	var r checked
	if len(items) == 0 {
		return r, nil
	}
	ks := make([]table.Key, len(items))
	for i, it := range items {
		ks[i] = dst.KeyOf(it)
	}
	proj := []string{tc.hash}
	if tc.rng != "" {
		proj = append(proj, tc.rng)
	}
	got, err := dst.BatchGet(ctx, ks, &table.BatchGetOptions{Consistent: true, Projection: proj})
	if err != nil {
		return r, err
	}
	now := c.o.Now().Unix()
	for i, it := range got {
		switch {
		case it != nil:
			r.found++
		case expired(items[i], tc.ttl, now):
			r.expired++
		default:
			r.missing++
			if r.key == "" {
				r.key = tc.keyString(items[i])
			}
		}
	}
	return r, nil
}

// expired reports whether item's TTL attribute attr holds a number of
// seconds since the epoch that is not after now: an item DynamoDB may
// delete at any time. Without attr, or with another type, it does not
// expire.
func expired(item table.Item, attr string, now int64) bool {
	if attr == "" {
		return false
	}
	n, ok := item[attr].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	return err == nil && f <= float64(now)
}

// finish ends the copy of tc with err, the error of its copy if any: it
// records the table's outcome in its report, fails it if items are
// missing (and then forgets its progress, so that a resumed copy copies
// it again), saves the state and reports the table done.
func (c *copier) finish(tc *tableCopy, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && tc.rep.Missing > 0 {
		err = &MismatchError{Table: tc.name, Missing: tc.rep.Missing, Read: tc.rep.Read, Key: tc.key}
		tc.state.Segments = make([]segmentState, len(tc.state.Segments))
		tc.before = 0
	}
	if serr := c.st.save(); err == nil {
		err = serr
	}
	tc.rep.Err = err
	tc.rep.Checked = err == nil
	if err != nil {
		c.o.Logger.Warn("table failed", "table", tc.name, "err", err)
	} else {
		c.o.Logger.Info("checked", "table", tc.name, "read", tc.rep.Read, "found", tc.rep.Found, "expired", tc.rep.Expired)
	}
	c.report(tc, true)
}

// estimate returns the number of items of tc still to copy for the
// progress total: the source's ItemCount, or a count if that is 0.
func (c *copier) estimate(ctx context.Context, tc *tableCopy) (int64, error) {
	if tc.itemCount > 0 {
		return tc.itemCount, nil
	}
	return count(ctx, c.from, tc.name, len(tc.state.Segments))
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

// keyString returns the key of item as "hash=value" or "hash=value
// range=value", strings quoted, binaries in base64.
func (tc *tableCopy) keyString(item table.Item) string {
	var b strings.Builder
	for _, n := range []string{tc.hash, tc.rng} {
		if n == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n + "=")
		switch v := item[n].(type) {
		case *types.AttributeValueMemberS:
			b.WriteString(strconv.Quote(v.Value))
		case *types.AttributeValueMemberN:
			b.WriteString(v.Value)
		case *types.AttributeValueMemberB:
			b.WriteString(base64.StdEncoding.EncodeToString(v.Value))
		default:
			fmt.Fprintf(&b, "%T", v)
		}
	}
	return b.String()
}
