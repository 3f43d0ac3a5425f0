package local

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/expr"
	"github.com/timetable-db/timetable/local/internal/partiql"
	"github.com/timetable-db/timetable/local/internal/value"
)

// ExecuteStatement runs one PartiQL statement (package
// internal/partiql has the grammar):
//
//   - SELECT reads a table or an index ("table"."index"): a Query of each
//     partition named by an equality (or IN) on the partition key, narrowed
//     by a condition on the sort key, or else a Scan; the whole WHERE clause
//     filters the items read. Limit bounds the items read, and NextToken
//     continues where the last page ended. ORDER BY a key attribute DESC
//     reads a Query backwards.
//   - INSERT puts an item that must not exist (DuplicateItemException).
//   - UPDATE and DELETE need equalities on the whole primary key in WHERE;
//     the rest of WHERE is the write's condition. UPDATE also requires the
//     item to exist (ConditionalCheckFailedException); a DELETE of a
//     missing item succeeds whatever its conditions, as in DynamoDB Local. RETURNING returns the
//     item as ReturnValues would, in Items.
//
// Parameters fill the ? placeholders in order; a request with fewer is a
// ValidationException. Errors are DynamoDB Local's.
func (db *DB) ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, _ ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error) {
	return run(ctx, db, "ExecuteStatement", in, db.executeStatement)
}

func (db *DB) executeStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput) (*dynamodb.ExecuteStatementOutput, error) {
	if err := checkCapacityMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	limit := 0
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
		}
		limit = int(*in.Limit)
	}
	st, err := parseStatement(aws.ToString(in.Statement), in.Parameters)
	if err != nil {
		return nil, err
	}
	switch st := st.(type) {
	case *partiql.Select:
		return db.pqSelect(st, in, limit)
	case *partiql.Exists:
		return nil, validationError("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	op, err := db.pqWriteOp(st, in.Parameters, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	attrs, u, err := db.pqWrite(ctx, op, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	out := &dynamodb.ExecuteStatementOutput{Items: []map[string]types.AttributeValue{}, ConsumedCapacity: u.consumed(in.ReturnConsumedCapacity)}
	if attrs != nil {
		out.Items = append(out.Items, attrs)
	}
	return out, nil
}

// parseStatement parses a statement and checks that params fill its
// placeholders.
func parseStatement(text string, params []types.AttributeValue) (partiql.Statement, error) {
	if err := checkStatementLength(text); err != nil {
		return nil, err
	}
	if err := checkParams(params); err != nil {
		return nil, err
	}
	st, err := partiql.Parse(text)
	if err != nil {
		return nil, validationError(msgPQSyntax + text)
	}
	if partiql.Params(st) > len(params) {
		return nil, validationError(msgPQParams)
	}
	return st, nil
}

// maxStatementLen is the longest statement DynamoDB takes, in UTF-16
// code units.
const maxStatementLen = 8192

func checkStatementLength(text string) error {
	n := 0
	for _, r := range text {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	if n > maxStatementLen {
		return validationError("Member must have length less than or equal to 8192")
	}
	return nil
}

// checkParams validates a statement's parameters as DynamoDB validates
// attribute values, first of all.
func checkParams(params []types.AttributeValue) error {
	for _, p := range params {
		if msg := expr.ValidateValue(p); msg != "" {
			return validationError(msg)
		}
	}
	return nil
}

// pqWriteOp translates an INSERT, UPDATE, DELETE or EXISTS to the
// operation of a transaction it amounts to. The table must exist.
func (db *DB) pqWriteOp(st partiql.Statement, params []types.AttributeValue, onFail types.ReturnValuesOnConditionCheckFailure) (*txOp, error) {
	var table, index string
	switch st := st.(type) {
	case *partiql.Insert:
		table, index = st.Table, st.Index
	case *partiql.Update:
		table, index = st.Table, st.Index
	case *partiql.Delete:
		table, index = st.Table, st.Index
	case *partiql.Exists:
		table, index = st.Select.Table, st.Select.Index
	}
	t, err := db.table(table)
	if err != nil {
		return nil, err
	}
	m := t.m()
	if index != "" {
		return nil, validationError(msgPQOnIndex)
	}
	b := newPQExprs(params)
	op := &txOp{table: aws.String(table), req: writeRequest{onFail: onFail}}
	exists := "" // the condition that the item exists, for UPDATE and EXISTS
	var rest []partiql.Expr
	switch st := st.(type) {
	case *partiql.Insert:
		mp, ok := st.Value.(*partiql.Map)
		if !ok {
			return nil, validationError(msgPQInsertFormat)
		}
		v, err := b.literal(mp)
		if err != nil {
			return nil, err
		}
		op.kind, op.key = "put", v.(*types.AttributeValueMemberM).Value
		if err := checkPQKey(m, op.key, false); err != nil {
			return nil, err
		}
		op.req.cond = aws.String("attribute_not_exists(" + b.name(m.Hash) + ")")
	case *partiql.Update:
		if op.key, rest, err = b.itemKey(m, st.Where); err != nil {
			return nil, err
		}
		u, err := b.update(st.Actions)
		if err != nil {
			return nil, err
		}
		op.kind, op.req.update, op.req.isUpdate = "update", &u, true
		op.req.rv = returnValue(st.Returning)
		exists = "attribute_exists(" + b.name(m.Hash) + ")"
	case *partiql.Delete:
		if op.key, rest, err = b.itemKey(m, st.Where); err != nil {
			return nil, err
		}
		op.kind = "delete"
		if len(rest) > 0 {
			// DynamoDB Local deletes a missing item whatever the
			// conditions: they hold on the item when it exists.
			exists = "attribute_not_exists(" + b.name(m.Hash) + ") OR "
		}
		op.req.rv = returnValue(st.Returning)
	case *partiql.Exists:
		if st.Select.Where == nil {
			return nil, validationError(msgPQKeyEquality)
		}
		if op.key, rest, err = b.itemKey(m, st.Select.Where); err != nil {
			return nil, err
		}
		if len(rest) == 0 {
			return nil, validationError("EXISTS() must contain a single item read with additional condition")
		}
		op.kind = "check"
		exists = "attribute_exists(" + b.name(m.Hash) + ")"
		// DynamoDB Local returns no item for a failed EXISTS, whatever
		// ReturnValuesOnConditionCheckFailure says.
		op.req.onFail = ""
	}
	// DynamoDB Local checks the conditions, then an update's paths, before
	// the key's types.
	if err := checkPQConditions(params, rest); err != nil {
		return nil, err
	}
	if u, ok := st.(*partiql.Update); ok {
		ub := newPQExprs(params)
		text, err := ub.update(u.Actions)
		if err != nil {
			return nil, err
		}
		if _, err := ub.compiler().Update(text); err != nil {
			return nil, stripExprKind(err)
		}
	}
	if op.kind != "put" {
		if err := checkPQKey(m, op.key, true); err != nil {
			return nil, err
		}
	}
	if op.kind == "delete" && exists != "" {
		c, err := b.andAll(rest, "")
		if err != nil {
			return nil, err
		}
		c = exists + wrap(c)
		op.req.cond = &c
	} else if op.kind != "put" {
		c, err := b.andAll(rest, exists)
		if err != nil {
			return nil, err
		}
		if c != "" {
			op.req.cond = &c
		}
	}
	if len(b.names) > 0 {
		op.req.names = b.names
	}
	if len(b.values) > 0 {
		op.req.values = b.values
	}
	return op, nil
}

// returnValue maps a RETURNING clause to ReturnValues.
func returnValue(r partiql.Returning) types.ReturnValue {
	switch r {
	case "ALL OLD":
		return types.ReturnValueAllOld
	case "ALL NEW":
		return types.ReturnValueAllNew
	case "MODIFIED OLD":
		return types.ReturnValueUpdatedOld
	case "MODIFIED NEW":
		return types.ReturnValueUpdatedNew
	}
	return ""
}

// pqWrite runs a single write of a statement through the write pipeline.
// It returns the attributes RETURNING asked for and the capacity used
// (counted in full when rcc asks for capacity).
func (db *DB) pqWrite(ctx context.Context, op *txOp, rcc types.ReturnConsumedCapacity) (Item, *usage, error) {
	attrs, u, err := db.writeUsage(ctx, op.table, op.req.rv, rcc, func(m *tableMeta) (*itemWrite, error) {
		return op.prepare(db, m)
	})
	if err != nil {
		return nil, nil, pqWriteError(op, stripExprKind(err))
	}
	return attrs, u, nil
}

// pqWriteError turns the failed condition of an INSERT into
// DuplicateItemException.
func pqWriteError(op *txOp, err error) error {
	var cf *types.ConditionalCheckFailedException
	if op.kind == "put" && errors.As(err, &cf) {
		return &types.DuplicateItemException{Message: aws.String(msgPQDuplicate)}
	}
	return err
}

// pqProjection is the select list of a SELECT: each path's value is
// returned under its last name and the indexes after it ("b[1]" for
// a.b[1]), as DynamoDB Local names them.
type pqProjection struct {
	paths []*partiql.Path
	names []string
	doc   *expr.Projection // the paths as a ProjectionExpression
}

func newPQProjection(paths []*partiql.Path) (*pqProjection, error) {
	if paths == nil {
		return nil, nil
	}
	p := &pqProjection{paths: paths}
	seen := map[string]bool{}
	b := newPQExprs(nil)
	texts := make([]string, len(paths))
	for i, path := range paths {
		name := ""
		for _, s := range path.Steps {
			if s.IsIndex {
				name += "[" + strconv.Itoa(s.Index) + "]"
			} else {
				name = s.Name
			}
		}
		if seen[name] {
			return nil, validationError("Duplicate identifiers in select clause: " + name)
		}
		seen[name] = true
		p.names = append(p.names, name)
		texts[i] = b.path(path)
	}
	doc, err := b.compiler().Projection(strings.Join(texts, ", "))
	if err != nil {
		return nil, stripExprKind(err)
	}
	p.doc = doc
	return p, nil
}

// applyDoc projects item as a ProjectionExpression does, nested values in
// their documents (lst[1] as {"lst": [v]}): the SELECTs of
// BatchExecuteStatement and ExecuteTransaction, which DynamoDB Local runs
// as BatchGetItem and TransactGetItems.
func (p *pqProjection) applyDoc(item Item) Item {
	if p == nil {
		return item
	}
	return projector{p: p.doc}.apply(item)
}

// checkProjected checks that the index sp reads projects the attributes
// of p, as a Query's projection (a local index fetches the others).
func (p *pqProjection) checkProjected(sp *readSpec) error {
	if p == nil || sp.ix == nil {
		return nil
	}
	b := newPQExprs(nil)
	texts := make([]string, len(p.paths))
	for i, path := range p.paths {
		texts[i] = b.path(path)
	}
	compiled, err := b.compiler().Projection(strings.Join(texts, ", "))
	if err != nil {
		return stripExprKind(err)
	}
	sp.proj = projector{p: compiled}
	err = sp.checkProjectionProjected()
	sp.proj = projector{}
	return err
}

// apply returns the projection of item; nil p returns it whole.
func (p *pqProjection) apply(item Item) Item {
	if p == nil {
		return item
	}
	out := Item{}
	for i, path := range p.paths {
		if v := pathValue(item, path); v != nil {
			out[p.names[i]] = v
		}
	}
	return out
}

// pathValue returns the value at path in item, or nil.
func pathValue(item Item, path *partiql.Path) types.AttributeValue {
	v := item[path.Steps[0].Name]
	for _, s := range path.Steps[1:] {
		switch x := v.(type) {
		case *types.AttributeValueMemberM:
			if s.IsIndex {
				return nil
			}
			v = x.Value[s.Name]
		case *types.AttributeValueMemberL:
			if !s.IsIndex || s.Index >= len(x.Value) {
				return nil
			}
			v = x.Value[s.Index]
		default:
			return nil
		}
	}
	return v
}

// pqPart is one key range a SELECT reads: a partition (narrowed by the
// sort key condition) of a Query, or the whole table or index of a Scan.
type pqPart struct {
	lower, upper []byte
}

// pqSelect runs a SELECT: the plan (Query of the partitions the WHERE
// clause names, or Scan), then one page of it.
func (db *DB) pqSelect(st *partiql.Select, in *dynamodb.ExecuteStatementInput, limit int) (*dynamodb.ExecuteStatementOutput, error) {
	t, err := db.table(st.Table)
	if err != nil {
		return nil, err
	}
	m := t.m()
	var ixName *string
	if st.Index != "" {
		ixName = aws.String(st.Index)
	}
	sp, err := newSpec(m, ixName, "", in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	if sp.ix != nil && sp.ix.multi() {
		// DynamoDB Local's answer to a read of an index with
		// multi-attribute keys; its table's items stay reachable.
		return nil, validationError("PartiQL statements cannot be executed on tables with composite HASH keys or composite RANGE keys.")
	}
	proj, err := newPQProjection(st.Projection)
	if err != nil {
		return nil, err
	}
	b := newPQExprs(in.Parameters)
	if st.Where != nil {
		c, err := b.cond(st.Where)
		if err != nil {
			return nil, err
		}
		if sp.filter, err = b.compiler().Filter(c); err != nil {
			return nil, stripExprKind(err)
		}
	}
	// DynamoDB Local checks the WHERE clause, then ConsistentRead on a
	// global index, then the index's projection.
	if err := sp.checkConsistent(); err != nil {
		return nil, err
	}
	if err := proj.checkProjected(sp); err != nil {
		return nil, err
	}
	// DynamoDB Local evaluates the filter of a read of an index that does
	// not project all attributes on the table's item, as its Scan does.
	if ix := sp.ix; ix != nil && ix.Projection != "ALL" {
		if attrs, ok := conditionAttrs(sp.filter); ok && len(notProjected(ix, attrs)) > 0 {
			sp.filterFetch = true
		}
	}
	sp.limit = limit
	parts, reverse, err := pqPlan(m, sp.ix, st, in.Parameters)
	if err != nil {
		return nil, err
	}
	first := 0
	if in.NextToken != nil {
		var after []byte
		if first, after, err = decodePQToken(*in.NextToken, parts, reverse); err != nil {
			return nil, err
		}
		switch {
		case after == nil:
		case reverse:
			parts[first].upper = after
		default:
			parts[first].lower = keyAfter(after)
		}
	}
	out := &dynamodb.ExecuteStatementOutput{Items: []map[string]types.AttributeValue{}}
	total := &usage{table: m.Name, read: true}
	read := 0
	for i := first; i < len(parts); i++ {
		p := parts[i]
		if limit > 0 {
			sp.limit = limit - read
		}
		s := sp.scan(p.lower, p.upper, reverse)
		r, err := db.runScan(s)
		if err != nil {
			return nil, err
		}
		read += r.scanned
		addUsage(total, s.usage(r))
		for _, item := range r.items {
			out.Items = append(out.Items, proj.apply(item))
		}
		// Unlike Query, DynamoDB Local returns a NextToken whenever a page
		// ends on Limit, also on the last item of a partition.
		last := r.lastRaw
		if last != nil {
			out.NextToken = aws.String(encodePQToken(i, last))
			break
		}
		if limit > 0 && read >= limit {
			if i+1 < len(parts) {
				out.NextToken = aws.String(encodePQToken(i+1, nil))
			}
			break
		}
	}
	out.ConsumedCapacity = total.consumed(in.ReturnConsumedCapacity)
	return out, nil
}

// addUsage adds the units of src, table's and indexes', to dst.
func addUsage(dst, src *usage) {
	dst.units += src.units
	for name, units := range src.indexes {
		dst.addIndex(name, src.global[name], units)
	}
}

// pqPlan returns the key ranges a SELECT reads: for each value of an
// equality or IN on the partition key (in key order), the partition,
// narrowed by the first condition on the sort key; or, without one, the
// whole table or index. reverse is ORDER BY ... DESC.
func pqPlan(m *tableMeta, ix *indexMeta, st *partiql.Select, params []types.AttributeValue) (parts []pqPart, reverse bool, err error) {
	hashKey, hashType, rangeKey, rangeType := m.Hash, m.HashType, m.Range, m.RangeType
	if ix != nil {
		hashKey, hashType, rangeKey, rangeType = ix.Hash, ix.HashType, ix.Range, ix.RangeType
	}
	var cs []partiql.Expr
	if st.Where != nil {
		cs = conjuncts(st.Where, nil)
	}
	b := newPQExprs(params)
	var hashVals []types.AttributeValue
	var rangeCond partiql.Expr
	for _, c := range cs {
		if hashVals != nil {
			break
		}
		if name, lit, ok := keyTerm(c); ok && name == hashKey {
			v, err := b.literal(lit)
			if err != nil {
				return nil, false, err
			}
			hashVals = []types.AttributeValue{v}
		} else if in, ok := c.(*partiql.In); ok && isTopPath(in.X, hashKey) && len(in.List) > 0 && allLiterals(in.List) {
			for _, e := range in.List {
				v, err := b.literal(e)
				if err != nil {
					return nil, false, err
				}
				hashVals = append(hashVals, v)
			}
		}
	}
	if rangeKey != "" {
		for _, c := range cs {
			if isRangeCond(c, rangeKey) {
				rangeCond = c
				break
			}
		}
	}
	// DynamoDB Local reads "key IS NULL" as a key condition of type NULL
	// (on the partition key, or on the sort key of a Query), and refuses
	// other tests of a key attribute for NULL.
	for _, c := range cs {
		if is, ok := c.(*partiql.Is); ok && is.What == "NULL" && !is.Not &&
			(isTopPath(is.X, hashKey) || (hashVals != nil && rangeKey != "" && isTopPath(is.X, rangeKey))) {
			return nil, false, validationError(msgPQKeyType + is.X.(*partiql.Path).Steps[0].Name)
		}
	}
	if st.Where != nil && (nullTestOfKey(st.Where, hashKey, rangeKey) || typeTestOfKey(st.Where, rangeKey)) {
		return nil, false, validationError("One or more parameter values were invalid: Condition parameter type does not match schema type")
	}
	// The types of the key values, in the order of DynamoDB Local's hash
	// map of the key attributes.
	for _, name := range expr.JavaOrder([]string{hashKey, rangeKey}) {
		switch {
		case name == "":
		case name == hashKey:
			for _, v := range hashVals {
				if value.TypeOf(v).String() != hashType {
					return nil, false, validationError(msgPQKeyType + hashKey)
				}
			}
		case rangeCond != nil && hashVals != nil:
			if _, err := newPQExprs(params).rangeCond(rangeCond, rangeKey, rangeType); err != nil {
				return nil, false, err
			}
		}
	}
	if len(st.OrderBy) > 0 {
		if st.Where == nil {
			return nil, false, validationError("Must have WHERE clause in the statement when using ORDER BY clause.")
		}
		for _, o := range st.OrderBy {
			if len(o.Path.Steps) != 1 || (o.Path.Steps[0].Name != hashKey && o.Path.Steps[0].Name != rangeKey) {
				return nil, false, validationf("Variable reference %s in ORDER BY clause must be part of the primary key", o.Path.Steps[0].Name)
			}
			if o.Path.Steps[0].Name == rangeKey {
				reverse = o.Desc
			}
		}
		if hashVals == nil {
			return nil, false, validationError("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.")
		}
	}
	id := uint32(baseIndex)
	if ix != nil {
		id = ix.ID
	}
	if hashVals == nil {
		p := appendDataPrefix(nil, m.ID, id)
		return []pqPart{{lower: p, upper: keyEnd(p)}}, false, nil
	}
	type keyed struct {
		enc []byte
		v   types.AttributeValue
	}
	var ks []keyed
	for _, v := range hashVals {
		enc, err := codec.AppendKey(nil, v)
		if err != nil {
			return nil, false, validationError(err.Error())
		}
		ks = append(ks, keyed{enc, v})
	}
	slices.SortFunc(ks, func(a, b keyed) int { return bytes.Compare(a.enc, b.enc) })
	ks = slices.CompactFunc(ks, func(a, b keyed) bool { return bytes.Equal(a.enc, b.enc) })
	for _, k := range ks {
		kb := newPQExprs(params)
		kc := kb.name(hashKey) + " = " + kb.value(k.v)
		if rangeCond != nil {
			rc, err := kb.rangeCond(rangeCond, rangeKey, rangeType)
			if err != nil {
				return nil, false, err
			}
			kc += " AND " + rc
		}
		compiled, err := kb.compiler().KeyCondition(kc)
		if err != nil {
			return nil, false, stripExprKind(err)
		}
		kr, err := compiled.Resolve(hashKey, rangeKey)
		if err != nil {
			return nil, false, stripExprKind(err)
		}
		hashes, ranges := []attrDef{{Name: hashKey, Type: hashType}}, []attrDef(nil)
		if rangeKey != "" {
			ranges = []attrDef{{Name: rangeKey, Type: rangeType}}
		}
		lower, upper, _, _, err := keyRange(m, ix, kr, hashes, ranges)
		if err != nil {
			return nil, false, stripPrefix(err)
		}
		parts = append(parts, pqPart{lower, upper})
	}
	return parts, reverse, nil
}

// nullTestOfKey reports whether e tests a key attribute with IS [NOT]
// NULL anywhere.
func nullTestOfKey(e partiql.Expr, keys ...string) bool {
	switch x := e.(type) {
	case *partiql.Is:
		for _, k := range keys {
			if k != "" && x.What == "NULL" && isTopPath(x.X, k) {
				return true
			}
		}
	case *partiql.Binary:
		return nullTestOfKey(x.L, keys...) || nullTestOfKey(x.R, keys...)
	case *partiql.Not:
		return nullTestOfKey(x.X, keys...)
	}
	return false
}

// typeTestOfKey reports whether e calls attribute_type on one of keys (the
// sort key of what the SELECT reads), which DynamoDB Local refuses
// whatever the type named, in a Query and in a Scan (on the partition key
// it is allowed).
func typeTestOfKey(e partiql.Expr, keys ...string) bool {
	switch x := e.(type) {
	case *partiql.Call:
		if strings.EqualFold(x.Name, "attribute_type") && len(x.Args) > 0 {
			for _, k := range keys {
				if k != "" && isTopPath(x.Args[0], k) {
					return true
				}
			}
		}
	case *partiql.Binary:
		return typeTestOfKey(x.L, keys...) || typeTestOfKey(x.R, keys...)
	case *partiql.Not:
		return typeTestOfKey(x.X, keys...)
	}
	return false
}

func isTopPath(e partiql.Expr, name string) bool {
	p, ok := e.(*partiql.Path)
	return ok && len(p.Steps) == 1 && p.Steps[0].Name == name
}

func allLiterals(es []partiql.Expr) bool {
	for _, e := range es {
		if !isLiteral(e) {
			return false
		}
	}
	return true
}

// isRangeCond reports whether c is a condition a key condition can hold
// on the sort key: a comparison (other than <>) or BETWEEN with literals,
// or begins_with.
func isRangeCond(c partiql.Expr, rangeKey string) bool {
	switch x := c.(type) {
	case *partiql.Binary:
		switch x.Op {
		case "=", "<", "<=", ">", ">=":
			return (isTopPath(x.L, rangeKey) && isLiteral(x.R)) || (isTopPath(x.R, rangeKey) && isLiteral(x.L))
		}
	case *partiql.Between:
		return isTopPath(x.X, rangeKey) && isLiteral(x.Lo) && isLiteral(x.Hi)
	case *partiql.Call:
		return x.Name == "begins_with" && len(x.Args) == 2 && isTopPath(x.Args[0], rangeKey) && isLiteral(x.Args[1])
	}
	return false
}

// rangeCond translates a sort key condition (isRangeCond) for a key
// condition, checking its values' type.
func (b *pqExprs) rangeCond(c partiql.Expr, rangeKey, rangeType string) (string, error) {
	var lits []partiql.Expr
	switch x := c.(type) {
	case *partiql.Binary:
		lits = []partiql.Expr{x.L, x.R}
	case *partiql.Between:
		lits = []partiql.Expr{x.Lo, x.Hi}
	case *partiql.Call:
		lits = []partiql.Expr{x.Args[1]}
	}
	begins := false
	if call, ok := c.(*partiql.Call); ok && call.Name == "begins_with" {
		begins = true
	}
	for _, l := range lits {
		if !isLiteral(l) {
			continue
		}
		v, err := b.literal(l)
		if err != nil {
			return "", err
		}
		t := value.TypeOf(v).String()
		if begins && t != "S" && t != "B" {
			return "", validationError("Incorrect operand type for operator or function; operator or function: begins_with, operand type: " + t)
		}
		if t != rangeType {
			return "", validationError(msgPQKeyType + rangeKey)
		}
	}
	return b.cond(c)
}

// stripPrefix removes "Invalid KeyConditionExpression: " from the
// ValidationException of a key condition.
func stripPrefix(err error) error {
	var ae *smithy.GenericAPIError
	if errors.As(err, &ae) {
		if msg, ok := strings.CutPrefix(ae.Message, "Invalid KeyConditionExpression: "); ok {
			return validationError(msg)
		}
	}
	return err
}

// PartiQL's NextToken: "P1", then the part to continue with (uvarint)
// and the storage key the page ended on (empty: the part's start), in
// base64.
const pqTokenVersion = "P1"

func encodePQToken(part int, last []byte) string {
	b := append([]byte(pqTokenVersion), binary.AppendUvarint(nil, uint64(part))...)
	return base64.StdEncoding.EncodeToString(append(b, last...))
}

// decodePQToken returns the part and the key a token continues after,
// checking that it belongs to the ranges of parts ("Invalid NextToken"
// otherwise). A nil key means the part's start.
func decodePQToken(tok string, parts []pqPart, reverse bool) (int, []byte, error) {
	bad := validationError("Invalid NextToken")
	raw, err := base64.StdEncoding.DecodeString(tok)
	if err != nil || !bytes.HasPrefix(raw, []byte(pqTokenVersion)) {
		return 0, nil, bad
	}
	raw = raw[len(pqTokenVersion):]
	part, n := binary.Uvarint(raw)
	if n <= 0 || part >= uint64(len(parts)) {
		return 0, nil, bad
	}
	key := raw[n:]
	p := parts[part]
	if len(key) == 0 {
		return int(part), nil, nil
	}
	if bytes.Compare(key, p.lower) < 0 || bytes.Compare(key, p.upper) >= 0 {
		return 0, nil, bad
	}
	return int(part), key, nil
}
