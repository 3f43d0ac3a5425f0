package difftest

import (
	"bytes"
	"fmt"
	"iter"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Op is one generated operation. Input is a pointer to the SDK input struct
// of operation Kind ("PutItem", "Query", ...), with logical table names.
type Op struct {
	Kind  string
	Input any

	// Walk, for Query and Scan, follows LastEvaluatedKey to the last page.
	Walk bool
	// AllSegments, for a Scan with TotalSegments, scans every segment
	// (Segment in Input is ignored) and compares their union.
	AllSegments bool
	// IndexKeys, for a Query on a secondary index, names the index's key
	// attributes. The order of items with equal index keys is unspecified,
	// and so is, when such items straddle a page boundary, which page holds
	// which: such queries are walked to the end and compared as one
	// sequence, items with equal index keys as a multiset (see queryWalk).
	IndexKeys []string
	// AnyOrder, for an ExecuteStatement SELECT that is a Scan or reads an
	// index, compares the items of all pages as a multiset.
	AnyOrder bool

	// keys, for PartiQL operations, are the items, partitions or tables
	// their statements name (Minimize cannot read them from the text);
	// writes says whether a statement may write.
	keys   []keyRef
	writes bool
}

// Generator produces a schema and a deterministic stream of operations from
// a seed. It is not safe for concurrent use.
type Generator struct {
	Schema *Schema

	r     *rand.Rand
	vg    valueGen
	skip  map[string]bool
	last  *dynamodb.TransactWriteItemsInput // the last transaction with a token
	ntok  int
	kinds []weighted
}

type weighted struct {
	kind string
	w    int
}

// Kinds are the operation kinds the generator produces, with their weights.
var Kinds = []weighted{
	{"PutItem", 18}, {"UpdateItem", 22}, {"DeleteItem", 8}, {"GetItem", 10}, {"Query", 14},
	{"Scan", 3}, {"BatchWriteItem", 5}, {"BatchGetItem", 5}, {"TransactWriteItems", 8},
	{"TransactGetItems", 4}, {"ExecuteStatement", 8}, {"BatchExecuteStatement", 4},
	{"ExecuteTransaction", 4},
}

// NewGenerator returns a generator for seed. Operation kinds named in skip
// are never produced (for exploring past a known divergence).
func NewGenerator(seed uint64, skip ...string) *Generator {
	r := rand.New(rand.NewPCG(seed, 0x6469666674657374))
	g := &Generator{r: r, vg: valueGen{r: r, bad: 0.1}, skip: map[string]bool{}}
	for _, k := range skip {
		g.skip[k] = true
	}
	for _, k := range Kinds {
		if !g.skip[k.kind] {
			g.kinds = append(g.kinds, k)
		}
	}
	g.Schema = genSchema(r)
	return g
}

// Next returns the next operation.
func (g *Generator) Next() Op {
	// Most operations are valid; some have one invalid part (a value, a
	// key, a parameter), never two: see valueGen.spent.
	g.vg.spent = !chance(g.r, 0.08)
	total := 0
	for _, k := range g.kinds {
		total += k.w
	}
	n := g.r.IntN(total)
	kind := g.kinds[len(g.kinds)-1].kind
	for _, k := range g.kinds {
		if n < k.w {
			kind = k.kind
			break
		}
		n -= k.w
	}
	switch kind {
	case "PutItem":
		return Op{Kind: kind, Input: g.put()}
	case "UpdateItem":
		return Op{Kind: kind, Input: g.update()}
	case "DeleteItem":
		return Op{Kind: kind, Input: g.delete()}
	case "GetItem":
		return Op{Kind: kind, Input: g.get()}
	case "Query":
		in, ix := g.query()
		op := Op{Kind: kind, Input: in, Walk: chance(g.r, 0.7)}
		if ix != nil {
			op.Walk = true
			op.IndexKeys = ix.KeyNames()
		}
		return op
	case "Scan":
		in := g.scan()
		all := in.TotalSegments != nil && chance(g.r, 0.97)
		return Op{Kind: kind, Input: in, Walk: true, AllSegments: all}
	case "BatchWriteItem":
		return Op{Kind: kind, Input: g.batchWrite()}
	case "BatchGetItem":
		return Op{Kind: kind, Input: g.batchGet()}
	case "TransactWriteItems":
		return Op{Kind: kind, Input: g.transactWrite()}
	case "ExecuteStatement":
		return g.partiQL()
	case "BatchExecuteStatement":
		return g.batchStatement()
	case "ExecuteTransaction":
		return g.transactStatement()
	default:
		return Op{Kind: kind, Input: g.transactGet()}
	}
}

// Key space.
var (
	pkVals  = []string{"a", "b", "c", "d", "e"}
	skSVals = []string{"a", "ab", "abc", "b", "ba", "c", "x#1", "x#2", "ü", "A"}
	skNVals = []string{"-10", "-1.5", "0", "1", "1.0", "1E1", "10", "1e2", "0.001", "99999999999999999999999999999999999999"}
	gVals   = []string{"x", "y", "z"}
	gnVals  = []string{"1", "2", "2.0", "3", "-1", "10", "0.5"}
	lkVals  = []string{"a", "b", "c", "d"}

	// Extra bounds for key conditions, between the stored values.
	skSBounds = []string{"aa", "b", "x#", "x", "zz", "", "0"}
	skNBounds = []string{"0.5", "5", "-100", "1e3", "-0"}
)

func (g *Generator) table() *Table { return pick(g.r, g.Schema.Tables) }

func (g *Generator) tableName(t *Table) *string {
	if chance(g.r, 0.002) {
		return aws.String("nope") // ResourceNotFoundException
	}
	return aws.String(t.Name)
}

func (g *Generator) skValue(t *Table) types.AttributeValue {
	if t.SortType == types.ScalarAttributeTypeN {
		return nv(pick(g.r, skNVals))
	}
	return sv(pick(g.r, skSVals))
}

// key returns a primary key of t; rarely a malformed one.
func (g *Generator) key(t *Table) Item {
	k := Item{"pk": sv(pick(g.r, pkVals)), "sk": g.skValue(t)}
	if g.vg.invalid(0.1) {
		switch g.r.IntN(5) {
		case 0:
			delete(k, "sk")
		case 1:
			k["a"] = nv("1")
		case 2:
			k["pk"] = nv("1")
		case 3:
			k["pk"] = sv("")
		default:
			if t.SortType == types.ScalarAttributeTypeN {
				k["sk"] = sv("1")
			} else {
				k["sk"] = nv("1")
			}
		}
	}
	return k
}

// keyID identifies a key by value ("1" and "1.0" are the same number).
func keyID(table string, k Item) string {
	var sb strings.Builder
	sb.WriteString(table)
	for _, a := range []string{"pk", "sk"} {
		sb.WriteString("|")
		switch v := k[a].(type) {
		case *types.AttributeValueMemberS:
			sb.WriteString("S" + v.Value)
		case *types.AttributeValueMemberN:
			if r, ok := new(big.Rat).SetString(v.Value); ok {
				sb.WriteString("N" + r.String())
			} else {
				sb.WriteString("N" + v.Value)
			}
		default:
			sb.WriteString(fmt.Sprintf("%T", v))
		}
	}
	return sb.String()
}

// attrValue returns a value for attribute name, of the type the attribute
// usually holds (index key attributes almost always, others mostly).
func (g *Generator) attrValue(name string) types.AttributeValue {
	vg := &g.vg
	switch name {
	case "pk":
		return sv(pick(g.r, pkVals))
	case "sk":
		if chance(g.r, 0.5) {
			return nv(pick(g.r, skNVals))
		}
		return sv(pick(g.r, skSVals))
	case "g", "gn", "lk":
		if g.vg.invalid(0.1) {
			switch g.r.IntN(3) {
			case 0:
				return sv("")
			case 1:
				return bv([]byte{1})
			default:
				return nv("1")
			}
		}
		switch name {
		case "g":
			return sv(pick(g.r, gVals))
		case "gn":
			return nv(pick(g.r, gnVals))
		default:
			return sv(pick(g.r, lkVals))
		}
	}
	if chance(g.r, 0.12) {
		return vg.any(2)
	}
	switch name {
	case "a":
		return vg.n()
	case "b", "status", "x.y":
		return vg.str()
	case "m":
		return vg.mapv(2)
	case "lst":
		return vg.list(2)
	case "ss":
		return vg.ss()
	case "ns":
		return vg.ns()
	case "bs":
		return vg.bs()
	case "f":
		return &types.AttributeValueMemberBOOL{Value: chance(g.r, 0.5)}
	case "z":
		return &types.AttributeValueMemberNULL{Value: true}
	case "bin":
		return vg.b()
	default:
		return vg.any(2)
	}
}

// itemAttrs are the non-key attributes an item may have, with the
// probability of each.
var itemAttrs = []struct {
	name string
	p    float64
}{
	{"a", 0.6}, {"b", 0.5}, {"c", 0.3}, {"m", 0.35}, {"lst", 0.35}, {"ss", 0.25}, {"ns", 0.25},
	{"bs", 0.15}, {"f", 0.15}, {"z", 0.1}, {"bin", 0.15}, {"g", 0.6}, {"gn", 0.6}, {"lk", 0.5},
	{"status", 0.1}, {"x.y", 0.05},
}

func (g *Generator) item(t *Table) Item {
	it := g.key(t)
	for _, a := range itemAttrs {
		if chance(g.r, a.p) {
			it[a.name] = g.attrValue(a.name)
		}
	}
	return it
}

// condition returns a condition expression for a write, or "" for none.
func (g *Generator) condition(b *exprBuilder, p float64) string {
	if !chance(g.r, p) {
		return ""
	}
	switch g.r.IntN(7) {
	case 0:
		return "attribute_not_exists(" + b.name("pk") + ")"
	case 1, 2:
		return "attribute_exists(" + b.name("sk") + ")"
	default:
		return b.cond(append([]string{"pk", "sk"}, condAttrs...), 2)
	}
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

func (g *Generator) capacity() types.ReturnConsumedCapacity {
	switch g.r.IntN(8) {
	case 0, 1, 2:
		return ""
	case 3:
		return types.ReturnConsumedCapacityNone
	case 4, 5:
		return types.ReturnConsumedCapacityTotal
	default:
		return types.ReturnConsumedCapacityIndexes
	}
}

func (g *Generator) collectionMetrics(t *Table) types.ReturnItemCollectionMetrics {
	if t.LSI != nil && chance(g.r, 0.05) {
		return types.ReturnItemCollectionMetricsSize
	}
	return ""
}

func (g *Generator) onFailure() types.ReturnValuesOnConditionCheckFailure {
	switch g.r.IntN(3) {
	case 0:
		return types.ReturnValuesOnConditionCheckFailureAllOld
	case 1:
		return types.ReturnValuesOnConditionCheckFailureNone
	}
	return ""
}

func (g *Generator) put() *dynamodb.PutItemInput {
	t := g.table()
	b := g.newExpr()
	in := &dynamodb.PutItemInput{TableName: g.tableName(t), Item: g.item(t)}
	in.ConditionExpression = optStr(g.condition(b, 0.4))
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.maps()
	in.ReturnValues = pick(g.r, []types.ReturnValue{"", "", types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllOld})
	if g.vg.invalid(0.1) {
		in.ReturnValues = pick(g.r, []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld})
	}
	if in.ConditionExpression != nil {
		in.ReturnValuesOnConditionCheckFailure = g.onFailure()
	}
	in.ReturnConsumedCapacity = g.capacity()
	in.ReturnItemCollectionMetrics = g.collectionMetrics(t)
	return in
}

var allReturnValues = []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld,
	types.ReturnValueUpdatedOld, types.ReturnValueAllNew, types.ReturnValueUpdatedNew}

func (g *Generator) update() *dynamodb.UpdateItemInput {
	t := g.table()
	b := g.newExpr()
	in := &dynamodb.UpdateItemInput{TableName: g.tableName(t), Key: g.key(t)}
	in.UpdateExpression = aws.String(b.update())
	in.ConditionExpression = optStr(g.condition(b, 0.4))
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.maps()
	in.ReturnValues = pick(g.r, allReturnValues)
	if in.ConditionExpression != nil {
		in.ReturnValuesOnConditionCheckFailure = g.onFailure()
	}
	in.ReturnConsumedCapacity = g.capacity()
	in.ReturnItemCollectionMetrics = g.collectionMetrics(t)
	return in
}

func (g *Generator) delete() *dynamodb.DeleteItemInput {
	t := g.table()
	b := g.newExpr()
	in := &dynamodb.DeleteItemInput{TableName: g.tableName(t), Key: g.key(t)}
	in.ConditionExpression = optStr(g.condition(b, 0.4))
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.maps()
	in.ReturnValues = pick(g.r, []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllOld})
	if g.vg.invalid(0.1) {
		in.ReturnValues = types.ReturnValueUpdatedNew
	}
	if in.ConditionExpression != nil {
		in.ReturnValuesOnConditionCheckFailure = g.onFailure()
	}
	in.ReturnConsumedCapacity = g.capacity()
	in.ReturnItemCollectionMetrics = g.collectionMetrics(t)
	return in
}

func (g *Generator) consistent() *bool {
	switch g.r.IntN(3) {
	case 0:
		return aws.Bool(true)
	case 1:
		return aws.Bool(false)
	}
	return nil
}

func (g *Generator) get() *dynamodb.GetItemInput {
	t := g.table()
	b := g.newExpr()
	in := &dynamodb.GetItemInput{TableName: g.tableName(t), Key: g.key(t), ConsistentRead: g.consistent()}
	if chance(g.r, 0.4) {
		in.ProjectionExpression = aws.String(b.projection(nil))
	}
	in.ExpressionAttributeNames, _ = b.maps()
	in.ReturnConsumedCapacity = g.capacity()
	return in
}

// less reports whether a < b for two values of the same scalar type S, N or
// B; false otherwise.
func less(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		if y, ok := b.(*types.AttributeValueMemberS); ok {
			return x.Value < y.Value
		}
	case *types.AttributeValueMemberB:
		if y, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(x.Value, y.Value) < 0
		}
	case *types.AttributeValueMemberN:
		if y, ok := b.(*types.AttributeValueMemberN); ok {
			rx, ok1 := new(big.Rat).SetString(x.Value)
			ry, ok2 := new(big.Rat).SetString(y.Value)
			return ok1 && ok2 && rx.Cmp(ry) < 0
		}
	}
	return false
}

// indexValue returns a value for a key attribute of t or of one of its
// indexes, for key conditions: stored values and bounds between them.
func (g *Generator) indexValue(t *Table, attr string) types.AttributeValue {
	switch attr {
	case "pk":
		return sv(pick(g.r, pkVals))
	case "sk":
		if t.SortType == types.ScalarAttributeTypeN {
			if chance(g.r, 0.3) {
				return nv(pick(g.r, skNBounds))
			}
			return nv(pick(g.r, skNVals))
		}
		if chance(g.r, 0.3) {
			return sv(pick(g.r, skSBounds))
		}
		return sv(pick(g.r, skSVals))
	case "g":
		return sv(pick(g.r, append(gVals, "w", "xx")))
	case "gn":
		return nv(pick(g.r, append(gnVals, "1.5", "0")))
	default:
		return sv(pick(g.r, append(lkVals, "bb", "0")))
	}
}

// keyCondition returns a key condition on ix (nil: the table's key).
func (g *Generator) keyCondition(b *exprBuilder, t *Table, ix *Index) string {
	if ix != nil && ix.multi() {
		return g.multiKeyCondition(b, t, ix)
	}
	hash, rng, rngType := "pk", "sk", t.SortType
	if ix != nil {
		hash, rng, rngType = ix.Hash, ix.Range, ix.RangeType
	}
	parts := []string{b.name(hash) + " = " + b.value(g.indexValue(t, hash))}
	if chance(g.r, 0.01) { // an operator key conditions do not allow
		parts[0] = b.name(hash) + " " + pick(g.r, []string{"<", ">=", "<>"}) + " " + b.value(g.indexValue(t, hash))
	}
	if chance(g.r, 0.005) {
		parts = parts[:0]
	}
	if rng == "" && chance(g.r, 0.02) {
		rng, rngType = "a", types.ScalarAttributeTypeN // not a key attribute: an error
	}
	if rng != "" && chance(g.r, 0.75) {
		parts = g.rangeCondition(b, t, parts, rng, rngType)
	}
	return strings.Join(parts, " "+b.kw("AND")+" ")
}

// multiKeyCondition returns a key condition on ix, an index with a
// multi-attribute key: equality on every partition attribute and
// conditions on the sort attributes left to right, equality but on the
// last, in a random order; rarely one of them broken (a partition
// attribute left out or compared, a sort attribute skipped or compared
// before the last, a non-key attribute), to exercise the errors.
func (g *Generator) multiKeyCondition(b *exprBuilder, t *Table, ix *Index) string {
	var parts []string
	eq := func(a string) string { return b.name(a) + " = " + b.value(g.indexValue(t, a)) }
	for _, a := range ix.HashKeys() {
		switch {
		case chance(g.r, 0.01):
			continue
		case chance(g.r, 0.01):
			parts = append(parts, b.name(a)+" "+pick(g.r, []string{"<", ">=", "<>"})+" "+b.value(g.indexValue(t, a)))
		default:
			parts = append(parts, eq(a))
		}
	}
	ranges := ix.RangeKeys()
	n := g.r.IntN(len(ranges) + 1)
	for i, a := range ranges[:n] {
		switch {
		case i == n-1:
			parts = g.rangeCondition(b, t, parts, a, t.attrType(a))
		case chance(g.r, 0.02):
			// skipped: an error
		case chance(g.r, 0.02):
			parts = append(parts, b.name(a)+" > "+b.value(g.indexValue(t, a)))
		default:
			parts = append(parts, eq(a))
		}
	}
	if chance(g.r, 0.02) {
		parts = append(parts, b.name("a")+" = "+b.value(nv("1"))) // not a key attribute: an error
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return strings.Join(parts, " "+b.kw("AND")+" ")
}

// rangeCondition adds to parts, first or last, a condition on the sort key
// attribute rng of type rngType, with any of the sort key operators.
func (g *Generator) rangeCondition(b *exprBuilder, t *Table, parts []string, rng string, rngType types.ScalarAttributeType) []string {
	r := b.name(rng)
	v := func() string { return b.value(g.indexValue(t, rng)) }
	var c string
	switch k := g.r.IntN(8); {
	case k < 5:
		op := pick(g.r, []string{"=", "<", "<=", ">", ">="})
		if chance(g.r, 0.1) {
			c = v() + " " + op + " " + r
		} else {
			c = r + " " + op + " " + v()
		}
	case k < 7:
		lo, hi := g.indexValue(t, rng), g.indexValue(t, rng)
		if less(hi, lo) && chance(g.r, 0.85) {
			lo, hi = hi, lo
		}
		c = r + " " + b.kw("BETWEEN") + " " + b.value(lo) + " " + b.kw("AND") + " " + b.value(hi)
	default:
		if rngType == types.ScalarAttributeTypeN && chance(g.r, 0.9) {
			c = r + " >= " + v()
			break // begins_with on a number is an error: rarely
		}
		var p types.AttributeValue = sv(pick(g.r, []string{"a", "ab", "x#", "b", "", "z", "A"}))
		if chance(g.r, 0.03) {
			p = nv("1")
		}
		c = "begins_with(" + r + ", " + b.value(p) + ")"
	}
	if chance(g.r, 0.2) {
		c = "(" + c + ")"
	}
	if chance(g.r, 0.2) {
		parts = append([]string{c}, parts...)
	} else {
		parts = append(parts, c)
	}
	return parts
}

// projected returns the subset of attrs that index ix projects (all of
// them for a table, or when ix projects ALL), except rarely, since reading
// an attribute an index does not project is an error.
func (g *Generator) projected(ix *Index, attrs []string) []string {
	if ix == nil || ix.Proj == types.ProjectionTypeAll || chance(g.r, 0.03) {
		return attrs
	}
	var out []string
	for _, a := range attrs {
		switch {
		case a == "pk" || a == "sk" || slices.Contains(ix.KeyNames(), a) || a == "g" || a == "gn" && ix.Name == "gsi":
		case ix.Proj == types.ProjectionTypeInclude && (a == "a" || a == "m" || a == "ss"):
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}

// filterAttrs returns the attributes a query filter on t (or its index ix)
// may name: everything but the key attributes, which query filters may not
// use (rarely included, to exercise the error).
func (g *Generator) filterAttrs(t *Table, ix *Index) []string {
	var out []string
	for _, a := range condAttrs {
		if a == "pk" || a == "sk" || ix != nil && slices.Contains(ix.KeyNames(), a) {
			continue
		}
		out = append(out, a)
	}
	if chance(g.r, 0.03) {
		out = append(out, "pk", "sk")
	}
	out = g.projected(ix, out)
	if len(out) == 0 {
		out = []string{"a"} // an index that projects nothing else: an error
	}
	return out
}

func (g *Generator) selectFor(ix *Index, proj bool) types.Select {
	if proj {
		if chance(g.r, 0.3) {
			return types.SelectSpecificAttributes
		}
		if chance(g.r, 0.03) {
			return types.SelectAllAttributes
		}
		return ""
	}
	switch g.r.IntN(14) {
	case 0, 1:
		return types.SelectCount
	case 2:
		if ix != nil && ix.Proj != types.ProjectionTypeAll && chance(g.r, 0.7) {
			return ""
		}
		return types.SelectAllAttributes
	case 3:
		if ix == nil && chance(g.r, 0.8) {
			return ""
		}
		return types.SelectAllProjectedAttributes
	case 4:
		if chance(g.r, 0.1) {
			return types.SelectSpecificAttributes // without a projection: an error
		}
	}
	return ""
}

// readProjection draws, with probability p, the ProjectionExpression of a
// Query or Scan of ix (nil: the table), nil for none, and then the Select
// that goes with it.
func (g *Generator) readProjection(b *exprBuilder, ix *Index, p float64) (*string, types.Select) {
	var pe *string
	if chance(g.r, p) {
		pe = aws.String(b.projection(g.projected(ix, projAttrs)))
	}
	return pe, g.selectFor(ix, pe != nil)
}

func (g *Generator) pickIndex(t *Table, pGSI, pLSI float64) *Index {
	x := g.r.Float64()
	if x < pGSI {
		return &t.GSI
	}
	if x < pGSI+pLSI && t.LSI != nil {
		return t.LSI
	}
	if x < 2*pGSI+pLSI && t.MGSI != nil {
		return t.MGSI
	}
	return nil
}

// query returns a query and the index it reads (nil for the table).
func (g *Generator) query() (*dynamodb.QueryInput, *Index) {
	t := g.table()
	ix := g.pickIndex(t, 0.3, 0.15)
	b := g.newExpr()
	in := &dynamodb.QueryInput{TableName: g.tableName(t)}
	if ix != nil {
		in.IndexName = aws.String(ix.Name)
	}
	in.KeyConditionExpression = aws.String(g.keyCondition(b, t, ix))
	if chance(g.r, 0.4) {
		in.FilterExpression = aws.String(b.cond(g.filterAttrs(t, ix), 2))
	}
	in.ProjectionExpression, in.Select = g.readProjection(b, ix, 0.3)
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.maps()
	if chance(g.r, 0.45) {
		in.Limit = aws.Int32(int32(1 + g.r.IntN(7)))
		if chance(g.r, 0.01) {
			in.Limit = aws.Int32(0)
		}
	}
	switch g.r.IntN(3) {
	case 0:
		in.ScanIndexForward = aws.Bool(false)
	case 1:
		in.ScanIndexForward = aws.Bool(true)
	}
	if ix == nil || ix == t.LSI || chance(g.r, 0.02) {
		in.ConsistentRead = g.consistent()
	}
	// With equal index keys on both sides of a page boundary, which items
	// a page holds, and so the capacity it consumes, is unspecified.
	if ix == nil || in.Limit == nil {
		in.ReturnConsumedCapacity = g.capacity()
	}
	return in, ix
}

func (g *Generator) scan() *dynamodb.ScanInput {
	t := g.table()
	ix := g.pickIndex(t, 0.15, 0.07)
	b := g.newExpr()
	in := &dynamodb.ScanInput{TableName: g.tableName(t)}
	if ix != nil {
		in.IndexName = aws.String(ix.Name)
	}
	if chance(g.r, 0.5) {
		attrs := condAttrs
		if chance(g.r, 0.2) {
			attrs = append([]string{"pk", "sk"}, attrs...) // scans may filter on keys
		}
		in.FilterExpression = aws.String(b.cond(g.projected(ix, attrs), 2))
	}
	in.ProjectionExpression, in.Select = g.readProjection(b, ix, 0.25)
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.maps()
	if chance(g.r, 0.4) {
		in.Limit = aws.Int32(int32(1 + g.r.IntN(10)))
	}
	if chance(g.r, 0.2) {
		in.TotalSegments = aws.Int32(int32(1 + g.r.IntN(4)))
		in.Segment = aws.Int32(0)
		if chance(g.r, 0.03) {
			in.Segment = aws.Int32(*in.TotalSegments) // out of range: an error
		}
	}
	if ix == nil || ix == t.LSI {
		in.ConsistentRead = g.consistent()
	}
	// Which items a page holds is implementation-defined, and so is the
	// capacity a page consumes: ask for it only when the scan is one page.
	if in.Limit == nil && in.TotalSegments == nil {
		in.ReturnConsumedCapacity = g.capacity()
	}
	return in
}

// distinctKeys returns n keys of t, distinct by value unless dup.
func (g *Generator) distinctKeys(t *Table, n int, seen map[string]bool) []Item {
	var out []Item
	for try := 0; len(out) < n && try < 4*n; try++ {
		k := g.key(t)
		id := keyID(t.Name, k)
		if seen[id] && !g.vg.invalid(0.1) {
			continue
		}
		seen[id] = true
		out = append(out, k)
	}
	return out
}

// transactKeys yields the table and key of each item of a transaction, as
// it draws them: 1 to 5 draws of a table and of a key of it that no other
// item has (a draw that finds none yields nothing). The draws of an item
// come before those the loop body makes for it.
func (g *Generator) transactKeys() iter.Seq2[*Table, Item] {
	return func(yield func(*Table, Item) bool) {
		seen := map[string]bool{}
		n := 1 + g.r.IntN(5)
		for range n {
			t := g.table()
			ks := g.distinctKeys(t, 1, seen)
			if len(ks) == 0 {
				continue
			}
			if !yield(t, ks[0]) {
				return
			}
		}
	}
}

func (g *Generator) batchWrite() *dynamodb.BatchWriteItemInput {
	in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}}
	seen := map[string]bool{}
	n := 1 + g.r.IntN(25)
	if g.vg.invalid(0.1) {
		n = 26 // over the limit
	}
	for _, t := range g.Schema.Tables {
		m := n
		if len(g.Schema.Tables) > 1 {
			m = n / 2
		}
		for _, k := range g.distinctKeys(t, max(m, 1), seen) {
			if chance(g.r, 0.7) {
				it := g.item(t)
				for a, v := range k {
					it[a] = v
				}
				in.RequestItems[t.Name] = append(in.RequestItems[t.Name], types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
			} else {
				in.RequestItems[t.Name] = append(in.RequestItems[t.Name], types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}})
			}
		}
	}
	in.ReturnConsumedCapacity = g.capacity()
	if g.Schema.Tables[0].LSI != nil && chance(g.r, 0.05) {
		in.ReturnItemCollectionMetrics = types.ReturnItemCollectionMetricsSize
	}
	return in
}

// itemProjection draws, with probability p, the ProjectionExpression of
// the items of a batch or transaction read and its attribute names; nil
// and nil for none.
func (g *Generator) itemProjection(p float64) (*string, map[string]string) {
	if !chance(g.r, p) {
		return nil, nil
	}
	b := g.newExpr()
	pe := aws.String(b.projection(nil))
	names, _ := b.maps()
	return pe, names
}

func (g *Generator) batchGet() *dynamodb.BatchGetItemInput {
	in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}
	seen := map[string]bool{}
	for _, t := range g.Schema.Tables {
		if len(in.RequestItems) > 0 && chance(g.r, 0.4) {
			continue
		}
		ka := types.KeysAndAttributes{Keys: g.distinctKeys(t, 1+g.r.IntN(10), seen), ConsistentRead: g.consistent()}
		ka.ProjectionExpression, ka.ExpressionAttributeNames = g.itemProjection(0.3)
		in.RequestItems[t.Name] = ka
	}
	in.ReturnConsumedCapacity = g.capacity()
	return in
}

func (g *Generator) transactWrite() *dynamodb.TransactWriteItemsInput {
	if g.last != nil && chance(g.r, 0.05) {
		in := g.last // the same request again: idempotent
		g.last = nil
		if chance(g.r, 0.3) { // the same token with another request: an error
			c := *in
			c.TransactItems = c.TransactItems[:len(c.TransactItems)-1]
			if len(c.TransactItems) == 0 {
				c.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			}
			return &c
		}
		return in
	}
	in := &dynamodb.TransactWriteItemsInput{}
	for t, k := range g.transactKeys() {
		b := g.newExpr()
		var ti types.TransactWriteItem
		switch g.r.IntN(10) {
		case 0, 1, 2:
			it := g.item(t)
			for a, v := range k {
				it[a] = v
			}
			p := &types.Put{TableName: g.tableName(t), Item: it}
			p.ConditionExpression = optStr(g.condition(b, 0.25))
			p.ExpressionAttributeNames, p.ExpressionAttributeValues = b.maps()
			p.ReturnValuesOnConditionCheckFailure = g.onFailure()
			ti.Put = p
		case 3, 4, 5:
			u := &types.Update{TableName: g.tableName(t), Key: k, UpdateExpression: aws.String(b.update())}
			u.ConditionExpression = optStr(g.condition(b, 0.25))
			u.ExpressionAttributeNames, u.ExpressionAttributeValues = b.maps()
			u.ReturnValuesOnConditionCheckFailure = g.onFailure()
			ti.Update = u
		case 6, 7:
			d := &types.Delete{TableName: g.tableName(t), Key: k}
			d.ConditionExpression = optStr(g.condition(b, 0.25))
			d.ExpressionAttributeNames, d.ExpressionAttributeValues = b.maps()
			d.ReturnValuesOnConditionCheckFailure = g.onFailure()
			ti.Delete = d
		default:
			c := &types.ConditionCheck{TableName: g.tableName(t), Key: k}
			c.ConditionExpression = aws.String(g.condition(b, 1))
			c.ExpressionAttributeNames, c.ExpressionAttributeValues = b.maps()
			c.ReturnValuesOnConditionCheckFailure = g.onFailure()
			ti.ConditionCheck = c
		}
		in.TransactItems = append(in.TransactItems, ti)
	}
	// No capacity is asked for: docs/compat.md row "TransactWriteItems
	// capacity". The engine charges every operation twice, as DynamoDB;
	// DynamoDB Local charges once and counts equal per-operation figures
	// once (two puts of 1 unit: 2, not 4; puts of 1 and 2 units: 6 = 2 x 3;
	// a delete of a missing item: 1), so that engine = 2 x DynamoDB Local
	// does not hold and no exact normalization exists. The draw stays, so
	// that a seed's other operations do not change.
	_ = g.capacity()
	if chance(g.r, 0.15) {
		g.ntok++
		in.ClientRequestToken = aws.String(fmt.Sprintf("tok%d", g.ntok))
		g.last = in
	}
	return in
}

func (g *Generator) transactGet() *dynamodb.TransactGetItemsInput {
	in := &dynamodb.TransactGetItemsInput{}
	for t, k := range g.transactKeys() {
		get := &types.Get{TableName: g.tableName(t), Key: k}
		get.ProjectionExpression, get.ExpressionAttributeNames = g.itemProjection(0.3)
		in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: get})
	}
	in.ReturnConsumedCapacity = g.capacity()
	return in
}
