package local

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/codec"
)

// GetItemJSON is GetItem with the item written as DynamoDB JSON (the
// object of attribute values of the awsJson1_0 protocol) appended to dst,
// transcoded from its stored bytes rather than decoded into attribute
// values: for a server that would encode the item again. It returns the
// output without its Item, and dst extended by the item's JSON, or
// unchanged when the item is absent. The errors are GetItem's; on error
// the returned slice is dst as given.
//
// A request with a ProjectionExpression or AttributesToGet is not served
// this way: GetItemJSON returns a nil output, no error and dst unchanged,
// and the caller calls GetItem.
func (db *DB) GetItemJSON(_ context.Context, in *dynamodb.GetItemInput, dst []byte) (*dynamodb.GetItemOutput, []byte, error) {
	if in.ProjectionExpression != nil || len(in.AttributesToGet) > 0 {
		return nil, dst, nil
	}
	n := len(dst)
	out, err := tableOperation(db, "GetItem", in.TableName, func(t *table) (*dynamodb.GetItemOutput, error) {
		var err error
		var out *dynamodb.GetItemOutput
		out, dst, err = db.getItemJSON(t, in, dst)
		return out, err
	})
	if err != nil {
		return nil, dst[:n], err
	}
	return out, dst, nil
}

func (db *DB) getItemJSON(t *table, in *dynamodb.GetItemInput, dst []byte) (*dynamodb.GetItemOutput, []byte, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, dst, err
	}
	m := t.m()
	// The checks of getItem, in its order.
	if _, err := m.readProjection(nil, nil, in.ExpressionAttributeNames); err != nil {
		return nil, dst, err
	}
	k, err := m.keyFromMap(in.Key)
	if err != nil {
		return nil, dst, err
	}
	size := 0
	v, closer, err := db.pdb.Get(k.key)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
	case err != nil:
		return nil, dst, err
	default:
		dst, size, err = codec.AppendItemJSON(dst, v)
		closer.Close()
		if err != nil {
			return nil, dst, fmt.Errorf("local: cannot decode stored item: %w", err)
		}
	}
	u := &usage{table: m.Name, read: true, units: readUnits(size, aws.ToBool(in.ConsistentRead))}
	return &dynamodb.GetItemOutput{ConsumedCapacity: u.consumed(in.ReturnConsumedCapacity)}, dst, nil
}

// QueryJSON is Query with the page's items written as a JSON array of
// DynamoDB JSON items appended to dst, transcoded from their stored bytes
// rather than decoded into attribute values: for a server that would
// encode the items again. It returns the output without its Items (Count,
// ScannedCount, LastEvaluatedKey and ConsumedCapacity are Query's), and
// dst extended by the array. The errors are Query's; on error the returned
// slice is dst as given.
//
// Only a Query that returns its items whole is served this way: with a
// ProjectionExpression, AttributesToGet, a FilterExpression or QueryFilter,
// a Select other than ALL_ATTRIBUTES or ALL_PROJECTED_ATTRIBUTES, or on a
// local index whose items are read from the table, QueryJSON returns a nil
// output, no error and dst unchanged, and the caller calls Query.
func (db *DB) QueryJSON(_ context.Context, in *dynamodb.QueryInput, dst []byte) (*dynamodb.QueryOutput, []byte, error) {
	if !wholeItems(in.ProjectionExpression, in.AttributesToGet, in.FilterExpression, len(in.QueryFilter), in.Select) {
		return nil, dst, nil
	}
	var q *queryPlan
	return scanJSON(db, "Query", in.TableName, dst, func(t *table) (*scan, error) {
		var err error
		if q, err = planQuery(t, in); err != nil {
			return nil, err
		}
		return q.s, nil
	}, func(s *scan, r *scanResult) *dynamodb.QueryOutput {
		q.trimLastKey(r)
		return &dynamodb.QueryOutput{
			Count:            int32(r.count),
			ScannedCount:     int32(r.scanned),
			LastEvaluatedKey: r.lastKey,
			ConsumedCapacity: s.usage(r).consumed(in.ReturnConsumedCapacity),
		}
	})
}

// ScanJSON is Scan with the page's items appended to dst as the JSON array
// of the answer's Items (timetable.ItemJSONReader). On error the returned
// slice is dst as given.
//
// Only a Scan that returns its items whole is served this way: with a
// ProjectionExpression, AttributesToGet, a FilterExpression or ScanFilter,
// or a Select other than ALL_ATTRIBUTES or ALL_PROJECTED_ATTRIBUTES,
// ScanJSON returns a nil output, no error and dst unchanged, and the
// caller calls Scan.
func (db *DB) ScanJSON(_ context.Context, in *dynamodb.ScanInput, dst []byte) (*dynamodb.ScanOutput, []byte, error) {
	if !wholeItems(in.ProjectionExpression, in.AttributesToGet, in.FilterExpression, len(in.ScanFilter), in.Select) {
		return nil, dst, nil
	}
	return scanJSON(db, "Scan", in.TableName, dst, func(t *table) (*scan, error) {
		return planScan(t, in)
	}, func(s *scan, r *scanResult) *dynamodb.ScanOutput {
		return &dynamodb.ScanOutput{
			Count:            int32(r.count),
			ScannedCount:     int32(r.scanned),
			LastEvaluatedKey: r.lastKey,
			ConsumedCapacity: s.usage(r).consumed(in.ReturnConsumedCapacity),
		}
	})
}

// wholeItems reports whether a Query's or Scan's parameters leave its
// items whole: no projection, no filter, and a Select that returns items.
func wholeItems(proj *string, attrs []string, filter *string, legacyFilters int, sel types.Select) bool {
	return proj == nil && len(attrs) == 0 && filter == nil && legacyFilters == 0 &&
		(sel == "" || sel == types.SelectAllAttributes || sel == types.SelectAllProjectedAttributes)
}

// scanJSON runs, as operation op on the table named name, the scan that
// plan checks and makes, appending its items' JSON to dst, and returns
// the output that out builds from its result. A scan that does not return
// its items whole (an index read that fetches from the table, say) is not
// run: the output is nil, and dst as given, as on error.
func scanJSON[O any](db *DB, op string, name *string, dst []byte, plan func(*table) (*scan, error), out func(*scan, *scanResult) *O) (*O, []byte, error) {
	n := len(dst)
	o, err := tableOperation(db, op, name, func(t *table) (*O, error) {
		s, err := plan(t)
		if err != nil {
			return nil, err
		}
		if s.filter != nil || s.proj.set() || s.count || s.fetch || s.filterFetch {
			return nil, nil
		}
		var r *scanResult
		if r, dst, err = db.runScanJSON(s, dst); err != nil {
			return nil, err
		}
		return out(s, r), nil
	})
	if err != nil || o == nil {
		return nil, dst[:n], err
	}
	return o, dst, nil
}

// runScanJSON is runScan for a scan without filter, projection, Select
// COUNT or fetch: it appends the items read to dst as a JSON array of
// DynamoDB JSON items, and decodes only the last one, when the page ends
// early, for its LastEvaluatedKey.
func (db *DB) runScanJSON(s *scan, dst []byte) (*scanResult, []byte, error) {
	r := &scanResult{}
	dst = append(dst, '[')
	err := db.walk(s, func(it *pebble.Iterator) (bool, error) {
		if r.count > 0 {
			dst = append(dst, ',')
		}
		v := it.Value()
		var size int
		var err error
		if dst, size, err = codec.AppendItemJSON(dst, v); err != nil {
			return false, fmt.Errorf("local: cannot read %x: local: cannot decode stored item: %w", it.Key(), err)
		}
		r.indexBytes += size
		r.pageBytes += size
		r.scanned++
		r.count++
		if s.pageEnds(r) {
			item, err := decodeItem(v)
			if err != nil {
				return false, fmt.Errorf("local: cannot read %x: %w", it.Key(), err)
			}
			r.endPage(s, item, it.Key())
			return true, nil
		}
		return false, nil
	})
	return r, append(dst, ']'), err
}
