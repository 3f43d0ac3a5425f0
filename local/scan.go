package local

import (
	"bytes"
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// Scan reads a whole table or index (or one segment of it: segment i of N
// holds the partitions whose hash falls in the i-th N-th of the hash space),
// in an order that is arbitrary but stable, one page at a time as Query.
func (db *DB) Scan(ctx context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return tableRun(db, "Scan", in.TableName, in, db.scanOp)
}

func (db *DB) scanOp(t *table, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	s, err := planScan(t, in)
	if err != nil {
		return nil, err
	}
	r, err := db.runScan(s)
	if err != nil {
		return nil, err
	}
	return &dynamodb.ScanOutput{
		Items:            r.items,
		Count:            int32(r.count),
		ScannedCount:     int32(r.scanned),
		LastEvaluatedKey: r.lastKey,
		ConsumedCapacity: s.usage(r).consumed(in.ReturnConsumedCapacity),
	}, nil
}

// planScan checks a Scan of table t, in DynamoDB Local's order, and returns
// the scan that serves it.
func planScan(t *table, in *dynamodb.ScanInput) (*scan, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	m := t.m()
	// DynamoDB Local checks a Scan in this order: index, ConsistentRead,
	// parameters, ScanFilter, placeholders without expressions, Limit,
	// AttributesToGet, expressions; the
	// start key; Select; segments; the start key against the segment;
	// nested paths into keys; the attributes an index projects.
	sp, err := newSpec(m, in.IndexName, in.Select, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	if err := sp.checkConsistent(); err != nil {
		return nil, err
	}
	useExprs, err := mixedParams([]param{
		{"AttributesToGet", len(in.AttributesToGet) > 0},
		{"ScanFilter", len(in.ScanFilter) > 0},
		{"ConditionalOperator", in.ConditionalOperator != ""},
	}, []param{
		{"ProjectionExpression", in.ProjectionExpression != nil},
		{"FilterExpression", in.FilterExpression != nil},
	})
	if err != nil {
		return nil, err
	}
	var (
		filter *expr.Condition
		proj   projector
	)
	if len(in.ScanFilter) > 0 {
		if filter, err = expr.LegacyFilter(in.ScanFilter, in.ConditionalOperator); err != nil {
			return nil, err
		}
	} else if in.ConditionalOperator != "" {
		return nil, validationError("ConditionalOperator cannot be used without Filter or Expected")
	}
	if !useExprs && len(in.ExpressionAttributeNames) > 0 {
		return nil, validationError("ExpressionAttributeNames can only be specified when using expressions")
	}
	if in.FilterExpression == nil && len(in.ExpressionAttributeValues) > 0 {
		return nil, validationError("ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null")
	}
	if sp.limit, err = checkLimit(in.Limit); err != nil {
		return nil, err
	}
	if len(in.AttributesToGet) > 0 {
		if proj, err = attributesToGet(in.AttributesToGet); err != nil {
			return nil, err
		}
	}
	if useExprs {
		c := expr.NewCompiler(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if filter, proj, err = compileRead(c, in.FilterExpression, in.ProjectionExpression); err != nil {
			return nil, err
		}
		if err := c.Finish(); err != nil {
			return nil, err
		}
	}
	sp.proj, sp.filter = proj, filter
	var start []byte
	if in.ExclusiveStartKey != nil {
		if start, err = sp.startKey(in.ExclusiveStartKey); err != nil {
			return nil, err
		}
	}
	if err := sp.checkSelect(in.ProjectionExpression != nil); err != nil {
		return nil, err
	}
	// Segments.
	seg, total := uint64(0), uint64(1)
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, validationError("If segment is specified, total segment must also be specified")
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, validationError("If total segments is specified, a particular segment must also be specified for this request")
	case in.Segment != nil:
		if *in.TotalSegments > 1000000 {
			return nil, validationf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000", *in.TotalSegments)
		}
		// DynamoDB Local's wording, also for TotalSegments < 1.
		if *in.Segment < 0 || *in.Segment >= *in.TotalSegments {
			return nil, validationf("1 validation error detected: Value '%d' at 'segment' failed to satisfy constraint: Member must have value less than or equal to %d", *in.Segment, *in.TotalSegments-1)
		}
		seg, total = uint64(*in.Segment), uint64(*in.TotalSegments)
	}
	id := uint32(baseIndex)
	if sp.ix != nil {
		id = sp.ix.ID
	}
	p := appendDataPrefix(nil, m.ID, id)
	lower, upper := p, keyEnd(p)
	if total > 1 {
		lo, _ := segmentBound(seg, total)
		lower = append(append([]byte(nil), p...), be64(lo)...)
		if hi, ok := segmentBound(seg+1, total); ok {
			upper = append(append([]byte(nil), p...), be64(hi)...)
		}
	}
	if start != nil {
		if bytes.Compare(start, lower) < 0 || bytes.Compare(start, upper) >= 0 {
			return nil, validationError("Exclusive start key must lie within the segment")
		}
		lower = keyAfter(start)
	}
	// Nested paths into key attributes, per expression (filter, then
	// projection), and the index's projection of the projected attributes.
	// With Select SPECIFIC_ATTRIBUTES given, DynamoDB Local checks the
	// projection first; without it, last (internal/difftest F19).
	projectionFirst := in.Select == types.SelectSpecificAttributes
	if projectionFirst {
		if err := sp.checkProjectionProjected(); err != nil {
			return nil, err
		}
	}
	if err := m.checkNested(condNested(filter)); err != nil {
		return nil, err
	}
	if err := m.checkNested(projNested(proj)); err != nil {
		return nil, err
	}
	if !projectionFirst {
		if err := sp.checkProjectionProjected(); err != nil {
			return nil, err
		}
	}
	// Unlike Query, DynamoDB Local's Scan of an index evaluates a filter on
	// attributes the index does not project against the table's item.
	if ix := sp.ix; ix != nil && ix.Projection != "ALL" {
		if attrs, ok := conditionAttrs(sp.filter); ok && len(notProjected(ix, attrs)) > 0 {
			sp.filterFetch = true
		}
	}
	return sp.scan(lower, upper, false), nil
}

func be64(v uint64) []byte {
	b := make([]byte, 8)
	putUint64(b, v)
	return b
}
