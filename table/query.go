package table

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type keyOp uint8

const (
	keyNone keyOp = iota
	keyEq
	keyLt
	keyLte
	keyGt
	keyGte
	keyBetween
	keyBeginsWith
)

// KeyCond is a condition on the range key of a Query, made by Eq, Lt, Lte,
// Gt, Gte, Between or BeginsWith. The zero KeyCond selects the whole
// partition.
type KeyCond struct {
	op   keyOp
	a, b any
}

// Eq selects the range key equal to v.
func Eq(v any) KeyCond { return KeyCond{op: keyEq, a: v} }

// Lt selects range keys less than v.
func Lt(v any) KeyCond { return KeyCond{op: keyLt, a: v} }

// Lte selects range keys less than or equal to v.
func Lte(v any) KeyCond { return KeyCond{op: keyLte, a: v} }

// Gt selects range keys greater than v.
func Gt(v any) KeyCond { return KeyCond{op: keyGt, a: v} }

// Gte selects range keys greater than or equal to v.
func Gte(v any) KeyCond { return KeyCond{op: keyGte, a: v} }

// Between selects range keys from lo to hi, both included (DynamoDB
// refuses lo > hi).
func Between(lo, hi any) KeyCond { return KeyCond{op: keyBetween, a: lo, b: hi} }

// BeginsWith selects string or binary range keys that start with prefix.
func BeginsWith(prefix string) KeyCond { return KeyCond{op: keyBeginsWith, a: prefix} }

// Query reads one partition of the table or of an index. The zero values
// of its fields are the defaults.
type Query struct {
	// Index is the index to read; "" reads the table.
	Index string
	// Hash is the value of the partition key of the table or index. Required.
	Hash any
	// MoreHash, for an index with a multi-attribute partition key, holds
	// the values of its further partition attributes (Index.MoreHashKeys),
	// in order; all are required.
	MoreHash []any
	// RangePrefix, for an index with a multi-attribute sort key, holds the
	// values that its first sort attributes equal, in order; Range then
	// applies to the sort attribute after them.
	RangePrefix []any
	// Range is the condition on the range key of the table or index (for
	// a multi-attribute sort key, on the attribute after RangePrefix); the
	// zero KeyCond selects the whole partition (or all of RangePrefix).
	Range KeyCond
	// Filter drops items after they are read (they still cost read units).
	Filter Cond
	// Projection lists the document paths to return; empty returns all the
	// attributes (of the index's projection, for an index).
	Projection []string
	// Reverse returns items in descending range key order.
	Reverse bool
	// Limit is, for Query, the number of items of a page; for QueryAll and
	// QueryIter the number of items in all. 0: for Query, the items of one
	// backend call (up to DynamoDB's 1 MB, and at least one item unless the
	// read is over); for QueryAll and QueryIter, no limit.
	Limit int
	// PageSize is the Limit of each backend call (items read, before the
	// filter). 0: the number of items still wanted, or none.
	PageSize int
	// Consistent asks for strongly consistent reads (not on global indexes).
	Consistent bool
	// Cursor resumes the read after the item it was made from: a Page's
	// Cursor or an Iter's, from the same Index.
	Cursor string
}

// Query returns one page of q: the first q.Limit items after q.Cursor
// that match the key condition and the filter. The page's Cursor resumes
// after its last item, and is "" when no item can follow.
func (t *Table) Query(ctx context.Context, q *Query) (*Page, error) {
	return t.queryIter(ctx, q, true).page()
}

// QueryIter returns an iterator over the items of q from q.Cursor on, at
// most q.Limit items if it is set.
func (t *Table) QueryIter(ctx context.Context, q *Query) *Iter {
	return t.queryIter(ctx, q, false)
}

// QueryAll returns the items of q from q.Cursor on, at most q.Limit if it
// is set, as an iter.Seq2. An error ends the sequence as its last pair.
func (t *Table) QueryAll(ctx context.Context, q *Query) iter.Seq2[Item, error] {
	return seq(func() *Iter { return t.queryIter(ctx, q, false) })
}

// Count returns the number of items of q from q.Cursor on (with Select
// COUNT: items are read and billed, not returned). q.Limit, q.Projection
// and q.PageSize are ignored.
func (t *Table) Count(ctx context.Context, q *Query) (int64, error) {
	if q == nil {
		return 0, fmt.Errorf("table: nil Query")
	}
	qq := *q
	qq.Projection = nil
	in, start, _, err := t.queryInput(&qq)
	if err != nil {
		return 0, err
	}
	in.Select = types.SelectCount
	var n int64
	in.ExclusiveStartKey = start
	for {
		out, err := send(ctx, t, "Query", t.api.Query, in)
		if err != nil {
			return n, err
		}
		t.stats.consumed("Query", out.ConsumedCapacity)
		n += int64(out.Count)
		if out.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func (t *Table) queryIter(ctx context.Context, q *Query, page bool) *Iter {
	if q == nil {
		return errIter(fmt.Errorf("table: nil Query"))
	}
	in, start, names, err := t.queryInput(q)
	if err != nil {
		return errIter(err)
	}
	return newIter(ctx, names, q.Projection, q.PageSize, q.Limit, start, t.queryPage(in))
}

// queryPage returns the page reader of an Iter over in: one Query call a
// page, from start, with its retries and its consumed capacity counted.
func (t *Table) queryPage(in *dynamodb.QueryInput) func(ctx context.Context, start Item, limit int) ([]Item, Item, error) {
	return func(ctx context.Context, start Item, limit int) ([]Item, Item, error) {
		call := *in
		call.ExclusiveStartKey, call.Limit = start, pageLimit(limit)
		out, err := send(ctx, t, "Query", t.api.Query, &call)
		if err != nil {
			return nil, nil, err
		}
		t.stats.consumed("Query", out.ConsumedCapacity)
		return out.Items, out.LastEvaluatedKey, nil
	}
}

// queryInput builds the QueryInput of q (without Limit and
// ExclusiveStartKey), the start position from q.Cursor, and the names of
// the position attributes.
func (t *Table) queryInput(q *Query) (*dynamodb.QueryInput, Item, []string, error) {
	ix, err := t.index(q.Index)
	if err != nil {
		return nil, nil, nil, err
	}
	names, err := t.keyNames(q.Index)
	if err != nil {
		return nil, nil, nil, err
	}
	var start Item
	if q.Cursor != "" {
		if start, err = decodeCursor(q.Cursor, names); err != nil {
			return nil, nil, nil, err
		}
	}
	hv, err := marshalValue(q.Hash)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("table: cannot marshal the hash value of a query: %w", err)
	}
	terms := []keyTerm{{name: ix.HashKey, op: keyEq, a: hv}}
	if len(q.MoreHash) != len(ix.MoreHashKeys) {
		return nil, nil, nil, fmt.Errorf("table: %d more hash values for %s, which has %d more hash keys", len(q.MoreHash), t.what(q.Index), len(ix.MoreHashKeys))
	}
	sortKeys := ix.rangeKeys()
	if n := len(q.RangePrefix); n > len(sortKeys) || n == len(sortKeys) && n > 0 && q.Range.op != keyNone {
		return nil, nil, nil, fmt.Errorf("table: %d range prefix values and a range condition on %s, which has %d range keys", n, t.what(q.Index), len(sortKeys))
	}
	eq := func(names []string, values []any) error {
		for i, v := range values {
			av, err := marshalValue(v)
			if err != nil {
				return fmt.Errorf("table: cannot marshal the value of %s in a query: %w", names[i], err)
			}
			terms = append(terms, keyTerm{name: names[i], op: keyEq, a: av})
		}
		return nil
	}
	if err := eq(ix.MoreHashKeys, q.MoreHash); err != nil {
		return nil, nil, nil, err
	}
	if err := eq(sortKeys, q.RangePrefix); err != nil {
		return nil, nil, nil, err
	}
	if q.Range.op != keyNone {
		if ix.RangeKey == "" {
			return nil, nil, nil, fmt.Errorf("table: range condition on %s, which has no range key", t.what(q.Index))
		}
		rt, err := rangeTerm(sortKeys[len(q.RangePrefix)], q.Range)
		if err != nil {
			return nil, nil, nil, err
		}
		terms = append(terms, rt)
	}
	var x built
	if !q.Filter.set && q.Filter.raw == nil && q.Filter.err == nil && len(q.Projection) == 0 {
		x = keyOnly(terms)
	} else {
		kc := terms[0].builder()
		for _, kt := range terms[1:] {
			kc = kc.And(kt.builder())
		}
		if x, err = (exprs{key: &kc, filter: q.Filter, projection: q.Projection, keyNames: names}).build(); err != nil {
			return nil, nil, nil, fmt.Errorf("table: cannot build the query expressions: %w", err)
		}
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(t.schema.Name),
		KeyConditionExpression:    x.key,
		FilterExpression:          x.filter,
		ProjectionExpression:      x.projection,
		ExpressionAttributeNames:  x.names,
		ExpressionAttributeValues: x.values,
		ScanIndexForward:          aws.Bool(!q.Reverse),
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if q.Index != "" {
		in.IndexName = aws.String(q.Index)
	}
	if q.Consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, start, names, nil
}

func (t *Table) what(index string) string {
	if index == "" {
		return "table " + t.schema.Name
	}
	return "index " + index + " of table " + t.schema.Name
}

// keyTerm is a term of a key condition: name op a (and b, for BETWEEN).
type keyTerm struct {
	name string
	op   keyOp
	a, b types.AttributeValue
}

func rangeTerm(name string, c KeyCond) (keyTerm, error) {
	if c.op < keyEq || c.op > keyBeginsWith {
		return keyTerm{}, fmt.Errorf("table: invalid key condition")
	}
	var err error
	kt := keyTerm{name: name, op: c.op}
	if c.op == keyBeginsWith {
		kt.a = &types.AttributeValueMemberS{Value: c.a.(string)}
		return kt, nil
	}
	if kt.a, err = marshalValue(c.a); err != nil {
		return keyTerm{}, fmt.Errorf("table: cannot marshal the range value of a query: %w", err)
	}
	if c.op == keyBetween {
		if kt.b, err = marshalValue(c.b); err != nil {
			return keyTerm{}, fmt.Errorf("table: cannot marshal the range value of a query: %w", err)
		}
	}
	return kt, nil
}

// builder returns the term as the expression package builds it.
func (kt keyTerm) builder() expression.KeyConditionBuilder {
	k, va := expression.Key(kt.name), expression.Value(kt.a)
	switch kt.op {
	case keyLt:
		return k.LessThan(va)
	case keyLte:
		return k.LessThanEqual(va)
	case keyGt:
		return k.GreaterThan(va)
	case keyGte:
		return k.GreaterThanEqual(va)
	case keyBeginsWith:
		return k.BeginsWith(kt.a.(*types.AttributeValueMemberS).Value)
	case keyBetween:
		return k.Between(va, expression.Value(kt.b))
	}
	return k.Equal(va)
}

// keyOnly returns the expressions of a query with a key condition only
// (no filter, no projection), written directly: the expression package's
// builder costs more than the read of a small partition.
func keyOnly(terms []keyTerm) built {
	names := make(map[string]string, len(terms))
	values := make(map[string]types.AttributeValue, len(terms)+1)
	var b strings.Builder
	for i, kt := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		n, v := placeholder(keyNamePH, "#k", i), placeholder(keyValuePH, ":k", i)
		names[n], values[v] = kt.name, kt.a
		switch kt.op {
		case keyBeginsWith:
			b.WriteString("begins_with(" + n + ", " + v + ")")
			continue
		case keyBetween:
			w := placeholder(keyUpperPH, ":l", i)
			values[w] = kt.b
			b.WriteString(n + " BETWEEN " + v + " AND " + w)
			continue
		}
		b.WriteString(n + " " + keyOps[kt.op] + " " + v)
	}
	key := b.String()
	return built{key: &key, names: names, values: values}
}

// The placeholders of keyOnly's first terms, written once.
var (
	keyNamePH  = placeholders("#k")
	keyValuePH = placeholders(":k")
	keyUpperPH = placeholders(":l")
)

func placeholders(prefix string) [8]string {
	var out [8]string
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// placeholder is prefix followed by i, from known when i is within it.
func placeholder(known [8]string, prefix string, i int) string {
	if i < len(known) {
		return known[i]
	}
	return prefix + strconv.Itoa(i)
}

// keyOps are the comparisons of key conditions.
var keyOps = [...]string{keyEq: "=", keyLt: "<", keyLte: "<=", keyGt: ">", keyGte: ">="}
