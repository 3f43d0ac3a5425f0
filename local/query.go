package local

import (
	"bytes"
	"context"
	"encoding/base64"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/expr"
	"github.com/timetable-db/timetable/local/internal/value"
)

// Query reads the items of one partition of a table or index, in sort key
// order (ScanIndexForward false reverses it), one page at a time: a page
// ends after Limit items were read (before filtering) or after the item that
// brings the data read to 1 MB, and then carries LastEvaluatedKey.
// Reads are consistent snapshots whatever ConsistentRead says; it only
// changes the capacity reported. Expired items not yet swept are returned,
// as in DynamoDB.
func (db *DB) Query(ctx context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return tableRun(db, "Query", in.TableName, in, db.query)
}

// QueryBatch answers each request of ins as Query would (the same items,
// LastEvaluatedKey and consumed capacity, or the same error in errs[i]),
// reading them all with one storage iterator moved from partition to
// partition in key order, rather than an iterator per request: the read
// of the first pages of many partitions at once (see
// timetable.QueryBatcher). Requests of one shape (a key condition alone,
// the same text, names and parameters, other values) share the planning
// of the first of them (see planTemplates). The answers are read one
// after the other, so
// writes made during the call may be seen by some and not others, as by
// Query calls made in a row.
func (db *DB) QueryBatch(ctx context.Context, ins []*dynamodb.QueryInput) (outs []*dynamodb.QueryOutput, errs []error) {
	outs, errs = make([]*dynamodb.QueryOutput, len(ins)), make([]error, len(ins))
	_, err := operation(db, "Query", func() (struct{}, error) {
		plans := make([]*queryPlan, len(ins))
		templates := planTemplates{}
		var order []int
		for i, in := range ins {
			if in == nil {
				errs[i] = opError("Query", validationError("nil QueryInput"))
				continue
			}
			t, err := db.namedTable(in.TableName)
			if err == nil {
				plans[i], err = templates.plan(t, in)
			}
			if err != nil {
				errs[i] = opError("Query", err)
				continue
			}
			order = append(order, i)
		}
		// Partitions in key order: the iterator moves forward, through
		// the storage files it has open.
		slices.SortStableFunc(order, func(a, b int) int { return bytes.Compare(plans[a].s.lower, plans[b].s.lower) })
		if len(order) == 0 {
			return struct{}{}, nil
		}
		it, err := db.pdb.NewIter(&pebble.IterOptions{})
		if err != nil {
			return struct{}{}, err
		}
		defer it.Close()
		for _, i := range order {
			q := plans[i]
			r, err := db.runScanOn(it, q.s)
			if err != nil {
				errs[i] = opError("Query", err)
				continue
			}
			q.trimLastKey(r)
			outs[i] = &dynamodb.QueryOutput{
				Items:            r.items,
				Count:            int32(r.count),
				ScannedCount:     int32(r.scanned),
				LastEvaluatedKey: r.lastKey,
				ConsumedCapacity: q.s.usage(r).consumed(ins[i].ReturnConsumedCapacity),
			}
		}
		return struct{}{}, nil
	})
	if err != nil {
		for i := range errs {
			outs[i], errs[i] = nil, err
		}
	}
	return outs, errs
}

func (db *DB) query(t *table, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	q, err := planQuery(t, in)
	if err != nil {
		return nil, err
	}
	r, err := db.runScan(q.s)
	if err != nil {
		return nil, err
	}
	q.trimLastKey(r)
	out := &dynamodb.QueryOutput{
		Items:            r.items,
		Count:            int32(r.count),
		ScannedCount:     int32(r.scanned),
		LastEvaluatedKey: r.lastKey,
		ConsumedCapacity: q.s.usage(r).consumed(in.ReturnConsumedCapacity),
	}
	return out, nil
}

// queryPlan is a validated Query: the page to read, and what decides
// whether its LastEvaluatedKey is kept.
type queryPlan struct {
	s *scan
	// noLastKey: the table has no sort key, so nothing is ever left.
	noLastKey bool
	// end is the inclusive bound of the sort key condition in the
	// direction read, for a table Query (nil: none).
	end []byte
}

// planQuery validates a Query of table t, in DynamoDB Local's order, and
// returns the page it reads.
func planQuery(t *table, in *dynamodb.QueryInput) (*queryPlan, error) {
	return planQueryFull(t, in, nil)
}

// keyedPlan is what planQueryFull found before the key range: the spec of
// the read, the key condition resolved and the key schema it resolved on.
type keyedPlan struct {
	sp             readSpec
	kr             *expr.KeyRange
	hashes, ranges []attrDef
}

// planQueryFull is planQuery that also sets *k, when k is not nil and
// the plan is made.
func planQueryFull(t *table, in *dynamodb.QueryInput, k *keyedPlan) (*queryPlan, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	m := t.m()
	// DynamoDB Local checks a Query in this order: Limit; parameters;
	// index; expressions (filter, projection, key condition) and their
	// placeholders; nested paths into keys; ConsistentRead; the key
	// condition against the key schema; ExclusiveStartKey; the filter
	// (key attributes, projected attributes); Select; the projection
	// (projected attributes).
	limit, err := checkLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	// KeyConditions mixes with a FilterExpression or a
	// ProjectionExpression, not with a KeyConditionExpression.
	useExprs, err := mixedParams([]param{
		{"AttributesToGet", len(in.AttributesToGet) > 0},
		{"QueryFilter", len(in.QueryFilter) > 0},
		{"ConditionalOperator", in.ConditionalOperator != ""},
		{"KeyConditions", len(in.KeyConditions) > 0 && in.KeyConditionExpression != nil},
	}, []param{
		{"ProjectionExpression", in.ProjectionExpression != nil},
		{"FilterExpression", in.FilterExpression != nil},
		{"KeyConditionExpression", in.KeyConditionExpression != nil},
	})
	if err != nil {
		return nil, err
	}
	if in.KeyConditionExpression == nil && in.KeyConditions == nil {
		return nil, validationError("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	sp, err := newSpec(m, in.IndexName, in.Select, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	sp.limit = limit
	var (
		kc     *expr.KeyCondition
		filter *expr.Condition
		proj   projector
	)
	if useExprs {
		c := expr.NewCompiler(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if filter, proj, err = compileRead(c, in.FilterExpression, in.ProjectionExpression); err != nil {
			return nil, err
		}
		if in.KeyConditionExpression != nil {
			if kc, err = c.KeyCondition(*in.KeyConditionExpression); err != nil {
				return nil, err
			}
		}
		if err := c.Finish(); err != nil {
			return nil, err
		}
	} else {
		if len(in.ExpressionAttributeNames) > 0 {
			return nil, validationError("ExpressionAttributeNames can only be specified when using expressions")
		}
		if len(in.ExpressionAttributeValues) > 0 {
			return nil, validationError("ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null")
		}
	}
	if in.KeyConditions != nil && in.KeyConditionExpression == nil {
		if kc, err = expr.KeyConditions(in.KeyConditions); err != nil {
			return nil, err
		}
	}
	if len(in.QueryFilter) > 0 {
		if filter, err = expr.LegacyFilter(in.QueryFilter, in.ConditionalOperator); err != nil {
			return nil, err
		}
	} else if in.ConditionalOperator != "" {
		return nil, validationError("ConditionalOperator cannot be used without Filter or Expected")
	}
	if len(in.AttributesToGet) > 0 {
		if proj, err = attributesToGet(in.AttributesToGet); err != nil {
			return nil, err
		}
	}
	sp.proj, sp.filter = proj, filter
	// Nested paths into key attributes, per expression.
	if err := m.checkNested(condNested(filter)); err != nil {
		return nil, err
	}
	if err := m.checkNested(projNested(proj)); err != nil {
		return nil, err
	}
	if kc != nil {
		if err := m.checkNested(kc.Nested()); err != nil {
			return nil, err
		}
	}
	if err := sp.checkConsistent(); err != nil {
		return nil, err
	}
	hashes, ranges := m.hashes, m.ranges
	if sp.ix != nil {
		hashes, ranges = sp.ix.hashes, sp.ix.ranges
	}
	var kr *expr.KeyRange
	if sp.ix != nil && sp.ix.multi() {
		kr, err = kc.ResolveMulti(sp.ix.keyNames[:len(hashes)], sp.ix.keyNames[len(hashes):])
	} else {
		rangeKey := ""
		if len(ranges) > 0 {
			rangeKey = ranges[0].Name
		}
		kr, err = kc.Resolve(hashes[0].Name, rangeKey)
	}
	if err != nil {
		return nil, err
	}
	lower, upper, fwdEnd, revEnd, err := keyRange(m, sp.ix, kr, hashes, ranges)
	if err != nil {
		return nil, err
	}
	reverse := in.ScanIndexForward != nil && !*in.ScanIndexForward
	if in.ExclusiveStartKey != nil {
		sk, err := sp.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if bytes.Compare(sk, lower) < 0 || bytes.Compare(sk, upper) >= 0 {
			return nil, validationError("The provided starting key does not match the range key predicate")
		}
		if reverse {
			upper = sk
		} else {
			lower = keyAfter(sk)
		}
	}
	if attrs, ok := conditionAttrs(filter); ok {
		for _, a := range attrs {
			if slices.ContainsFunc(hashes, func(d attrDef) bool { return d.Name == a }) ||
				slices.ContainsFunc(ranges, func(d attrDef) bool { return d.Name == a }) {
				what := "Filter Expression"
				if len(in.QueryFilter) > 0 {
					what = "QueryFilter"
				}
				return nil, validationf("%s can only contain non-primary key attributes: Primary key attribute: %s", what, a)
			}
		}
	}
	if err := sp.checkFilterProjected(); err != nil {
		return nil, err
	}
	if err := sp.checkSelect(in.ProjectionExpression != nil); err != nil {
		return nil, err
	}
	if err := sp.checkProjectionProjected(); err != nil {
		return nil, err
	}
	if k != nil {
		*k = keyedPlan{sp: *sp, kr: kr, hashes: hashes, ranges: ranges}
	}
	return newQueryPlan(sp, lower, upper, fwdEnd, revEnd, reverse), nil
}

// newQueryPlan is the plan reading the storage keys [lower, upper) of sp,
// with the inclusive ends of the sort key condition fwdEnd and revEnd (see
// keyRange).
func newQueryPlan(sp *readSpec, lower, upper, fwdEnd, revEnd []byte, reverse bool) *queryPlan {
	q := &queryPlan{s: sp.scan(lower, upper, reverse), noLastKey: sp.ix == nil && sp.m.Range == ""}
	if sp.ix == nil {
		q.end = fwdEnd
		if reverse {
			q.end = revEnd
		}
	}
	return q
}

// trimLastKey drops the LastEvaluatedKey of a page read by q when nothing
// can follow it.
func (q *queryPlan) trimLastKey(r *scanResult) {
	if q.noLastKey {
		// One item per partition: nothing is ever left.
		r.lastKey = nil
	}
	// DynamoDB Local leaves LastEvaluatedKey out when a table (not index)
	// page ends on the inclusive bound of the sort key condition in the
	// direction read (<= or BETWEEN's upper bound forwards, >= or
	// BETWEEN's lower bound backwards): nothing can follow.
	if q.end != nil && r.lastRaw != nil && bytes.HasPrefix(r.lastRaw, q.end) {
		r.lastKey = nil
	}
}

// keyRange validates a resolved key condition against the key schema
// (partition key attributes hashes, sort key attributes ranges) and
// returns the storage key range it designates.
// It also returns the inclusive end bounds of the sort key condition in
// each direction (nil when the condition has none): <= and BETWEEN bound
// forward reads, >= and BETWEEN backward ones.
func keyRange(m *tableMeta, ix *indexMeta, kr *expr.KeyRange, hashes, ranges []attrDef) (lower, upper, fwdEnd, revEnd []byte, err error) {
	for i, v := range kr.HashValues {
		if err := checkCondValue(ix, hashes[i].Name, hashes[i].Type, v); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	for i, v := range kr.Prefix {
		if err := checkCondValue(ix, ranges[i].Name, ranges[i].Type, v); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	var rangeKey, rangeType string
	if len(kr.Values) > 0 {
		rangeKey, rangeType = ranges[len(kr.Prefix)].Name, ranges[len(kr.Prefix)].Type
	}
	for _, v := range kr.Values {
		if kr.Op == expr.BeginsWith {
			if t := value.TypeOf(v).String(); t != "S" && t != "B" {
				return nil, nil, nil, nil, validationf("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: %s", t)
			}
		}
		if err := checkCondValue(ix, rangeKey, rangeType, v); err != nil {
			return nil, nil, nil, nil, err
		}
		if rangeValueTooLarge(v) {
			// A hash value past its limit only matches nothing.
			return nil, nil, nil, nil, validationError("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
		}
	}
	id := uint32(baseIndex)
	if ix != nil {
		id = ix.ID
	}
	p := appendDataPrefix(make([]byte, 0, 64), m.ID, id)
	var enc []byte
	for _, v := range kr.HashValues {
		if enc, err = codec.AppendKey(enc, v); err != nil {
			return nil, nil, nil, nil, validationError(err.Error())
		}
	}
	p = appendPartition(p, enc)
	for _, v := range kr.Prefix {
		if p, err = codec.AppendKey(p, v); err != nil {
			return nil, nil, nil, nil, validationError(err.Error())
		}
	}
	with := func(v types.AttributeValue) []byte {
		k, _ := codec.AppendKey(append([]byte(nil), p...), v)
		return k
	}
	switch kr.Op {
	case expr.None:
		return p, keyEnd(p), nil, nil, nil
	case expr.EQ:
		k := with(kr.Values[0])
		return k, keyEnd(k), nil, nil, nil
	case expr.LT:
		return p, with(kr.Values[0]), nil, nil, nil
	case expr.LE:
		k := with(kr.Values[0])
		return p, keyEnd(k), k, nil, nil
	case expr.GT:
		return keyEnd(with(kr.Values[0])), keyEnd(p), nil, nil, nil
	case expr.GE:
		k := with(kr.Values[0])
		return k, keyEnd(p), nil, k, nil
	case expr.Between:
		lo, hi := with(kr.Values[0]), with(kr.Values[1])
		if bytes.Compare(lo, hi) > 0 {
			return nil, nil, nil, nil, validationf("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}",
				showValue(kr.Values[0]), showValue(kr.Values[1]))
		}
		return lo, keyEnd(hi), hi, lo, nil
	case expr.BeginsWith:
		k, err := codec.AppendKeyPrefix(append([]byte(nil), p...), kr.Values[0])
		if err != nil {
			return nil, nil, nil, nil, validationError(err.Error())
		}
		return k, keyEnd(k), nil, nil, nil
	}
	return nil, nil, nil, nil, validationError("Query key condition not supported")
}

// checkCondValue checks a value of a key condition on key attribute name
// of type typ, of the table or of index ix (nil for the table).
func checkCondValue(ix *indexMeta, name, typ string, v types.AttributeValue) error {
	if value.TypeOf(v).String() != typ {
		return validationError("One or more parameter values were invalid: Condition parameter type does not match schema type")
	}
	if kind, empty := isEmptyKeyValue(v); empty {
		if ix != nil {
			return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, ix.Name, name)
		}
		return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s", kind, name)
	}
	return nil
}

func showValue(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + x.Value
	case *types.AttributeValueMemberN:
		return "N:" + x.Value
	case *types.AttributeValueMemberB:
		return "B:" + base64.StdEncoding.EncodeToString(x.Value)
	}
	return value.TypeOf(v).String()
}

// rangeValueTooLarge reports whether v, a sort key value of a key
// condition, is larger than a sort key can be (1024 bytes).
func rangeValueTooLarge(v types.AttributeValue) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value) > 1024
	case *types.AttributeValueMemberB:
		return len(v.Value) > 1024
	}
	return false
}

var _ timetable.QueryBatcher = (*DB)(nil)
