package local

import (
	"maps"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/expr"
	"github.com/timetable-db/timetable/local/internal/value"
)

// planTemplates plans the requests of a QueryBatch whose requests mostly
// share their shape: the same key condition text, names and parameters,
// with other values (the first pages of many partitions). The first
// request of a shape is planned in full (planQuery); the next ones of that
// shape only bind their values into its resolved key condition, when every
// check planQuery makes of them is known to pass: the checks of the text,
// of the names and of the parameters passed for the first request; those
// of the values' types passed for values of the same types; those left
// (values valid, BETWEEN's bounds in order, the values against the key
// schema, Limit) are made again. Any request that fails one, or whose
// shape is not a key condition alone, is planned in full, and so answered
// with planQuery's error.
type planTemplates map[templateKey]*queryTemplate

// templateKey is the shape of a request but its placeholders' maps.
type templateKey struct {
	table, index, key string
	hasIndex          bool
	sel               types.Select
	consistent        int8 // -1 absent, 0 false, 1 true
	forward           int8
	capacity          types.ReturnConsumedCapacity
}

// queryTemplate is a request planned in full and the placeholders whose
// values its resolved key condition holds, or nil for a shape that is
// planned in full each time.
type queryTemplate struct {
	m      *tableMeta
	in     *dynamodb.QueryInput
	k      keyedPlan
	hashes []string // placeholders of k.kr.HashValues
	prefix []string // of k.kr.Prefix
	values []string // of k.kr.Values
}

func triBool(b *bool) int8 {
	switch {
	case b == nil:
		return -1
	case *b:
		return 1
	}
	return 0
}

// keyOnly reports whether in is a Query by a key condition expression
// alone, from its start: the requests planTemplates shares plans between.
func keyOnly(in *dynamodb.QueryInput) bool {
	return in.KeyConditionExpression != nil && in.FilterExpression == nil && in.ProjectionExpression == nil &&
		len(in.AttributesToGet) == 0 && len(in.QueryFilter) == 0 && in.ConditionalOperator == "" &&
		in.KeyConditions == nil && in.ExclusiveStartKey == nil
}

// plan returns the plan of in, a request of table t, as planQuery does.
func (pt planTemplates) plan(t *table, in *dynamodb.QueryInput) (*queryPlan, error) {
	if !keyOnly(in) {
		return planQuery(t, in)
	}
	key := templateKey{table: *in.TableName, key: *in.KeyConditionExpression, sel: in.Select,
		consistent: triBool(in.ConsistentRead), forward: triBool(in.ScanIndexForward), capacity: in.ReturnConsumedCapacity}
	if in.IndexName != nil {
		key.index, key.hasIndex = *in.IndexName, true
	}
	tpl, seen := pt[key]
	if !seen {
		var k keyedPlan
		q, err := planQueryFull(t, in, &k)
		if err == nil {
			// Only a plan made becomes the shape's template; a shape
			// whose first request fails waits for one that succeeds.
			pt[key] = newTemplate(t.m(), in, k)
		}
		return q, err
	}
	if tpl != nil {
		if q, ok := tpl.bind(t.m(), in); ok {
			return q, nil
		}
	}
	return planQuery(t, in)
}

// newTemplate is the template of request in, planned on m as k, or nil
// when its key condition's values cannot each be told by one placeholder.
func newTemplate(m *tableMeta, in *dynamodb.QueryInput, k keyedPlan) *queryTemplate {
	tpl := &queryTemplate{m: m, in: in, k: k}
	refs := func(vs []types.AttributeValue) ([]string, bool) {
		out := make([]string, len(vs))
		for i, v := range vs {
			n := 0
			for name, w := range in.ExpressionAttributeValues {
				// The values are pointers: the same value, not an
				// equal one.
				if w == v {
					out[i] = name
					n++
				}
			}
			if n != 1 {
				return nil, false
			}
		}
		return out, true
	}
	var ok1, ok2, ok3 bool
	tpl.hashes, ok1 = refs(k.kr.HashValues)
	tpl.prefix, ok2 = refs(k.kr.Prefix)
	tpl.values, ok3 = refs(k.kr.Values)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	return tpl
}

// bind returns the plan of in, a request of the template's shape on the
// table described by m, and true; or false when it must be planned in full.
func (tpl *queryTemplate) bind(m *tableMeta, in *dynamodb.QueryInput) (*queryPlan, bool) {
	if m != tpl.m {
		return nil, false
	}
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, false
	}
	limit, err := checkLimit(in.Limit)
	if err != nil {
		return nil, false
	}
	// The same names; the same value placeholders, each valid and of the
	// type of the template's.
	names, tnames := in.ExpressionAttributeNames, tpl.in.ExpressionAttributeNames
	if (names == nil) != (tnames == nil) || !maps.Equal(names, tnames) {
		return nil, false
	}
	values, tvalues := in.ExpressionAttributeValues, tpl.in.ExpressionAttributeValues
	if (values == nil) != (tvalues == nil) || len(values) != len(tvalues) {
		return nil, false
	}
	for name, tv := range tvalues {
		v, ok := values[name]
		if !ok || v == nil || value.TypeOf(v) != value.TypeOf(tv) || expr.ValidateValue(v) != "" {
			return nil, false
		}
	}
	tkr := tpl.k.kr
	kr := &expr.KeyRange{Op: tkr.Op}
	// One array for the three lists of values.
	all := make([]types.AttributeValue, 0, len(tpl.hashes)+len(tpl.prefix)+len(tpl.values))
	bound := func(refs []string) []types.AttributeValue {
		if len(refs) == 0 {
			return nil
		}
		start := len(all)
		for _, r := range refs {
			all = append(all, values[r])
		}
		return all[start:len(all):len(all)]
	}
	kr.HashValues, kr.Prefix, kr.Values = bound(tpl.hashes), bound(tpl.prefix), bound(tpl.values)
	if len(kr.HashValues) > 0 {
		kr.HashValue = kr.HashValues[0]
	}
	if kr.Op == expr.Between {
		if c, ok := value.Compare(kr.Values[0], kr.Values[1]); !ok || c > 0 {
			return nil, false
		}
	}
	lower, upper, fwdEnd, revEnd, err := keyRange(m, tpl.k.sp.ix, kr, tpl.k.hashes, tpl.k.ranges)
	if err != nil {
		return nil, false
	}
	sp := tpl.k.sp
	sp.limit = limit
	return newQueryPlan(&sp, lower, upper, fwdEnd, revEnd, in.ScanIndexForward != nil && !*in.ScanIndexForward), true
}
