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
	if in.ProjectionExpression != nil || len(in.AttributesToGet) > 0 ||
		in.FilterExpression != nil || len(in.QueryFilter) > 0 ||
		(in.Select != "" && in.Select != types.SelectAllAttributes && in.Select != types.SelectAllProjectedAttributes) {
		return nil, dst, nil
	}
	n := len(dst)
	out, err := tableOperation(db, "Query", in.TableName, func(t *table) (*dynamodb.QueryOutput, error) {
		q, err := planQuery(t, in)
		if err != nil {
			return nil, err
		}
		s := q.s
		if s.filter != nil || s.proj.set() || s.count || s.fetch || s.filterFetch {
			return nil, nil
		}
		var r *scanResult
		if r, dst, err = db.runScanJSON(s, dst); err != nil {
			return nil, err
		}
		q.trimLastKey(r)
		return &dynamodb.QueryOutput{
			Count:            int32(r.count),
			ScannedCount:     int32(r.scanned),
			LastEvaluatedKey: r.lastKey,
			ConsumedCapacity: s.usage(r).consumed(in.ReturnConsumedCapacity),
		}, nil
	})
	if err != nil || out == nil {
		return nil, dst[:n], err
	}
	return out, dst, nil
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
