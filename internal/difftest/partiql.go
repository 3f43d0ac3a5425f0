package difftest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// PartiQL statements: SELECTs that become a Query (an equality or IN on
// the partition key, maybe a sort key condition, ORDER BY) or a Scan, of
// the table or its global index, with filters and projections, paged with
// Limit and NextToken; INSERTs, UPDATEs (SET, REMOVE, arithmetic,
// set_add) and DELETEs with conditions and RETURNING. Values are passed as
// parameters (?) or, for strings and numbers, written as literals.
// Statements name tables as "tab0", which rename prefixes per target.

// pqStmt builds one statement's text and parameters, and records what it
// names for Minimize.
type pqStmt struct {
	g      *Generator
	sb     strings.Builder
	params []types.AttributeValue
	keys   []keyRef
	writes bool
}

// item records the item of key k of table t.
func (s *pqStmt) item(t *Table, k Item) {
	s.keys = append(s.keys, keyRef{table: t.Name, id: keyID("", k)})
}

// partition records the partition pk of table t, as keysOf records a
// Query's.
func (s *pqStmt) partition(t *Table, pk string) {
	s.keys = append(s.keys, keyRef{table: t.Name, id: "|S" + pk + "|", partition: true})
}

func (s *pqStmt) w(parts ...string) {
	for _, p := range parts {
		s.sb.WriteString(p)
	}
}

// val writes a value: a parameter, or a literal for plain strings and
// numbers.
func (s *pqStmt) val(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		if chance(s.g.r, 0.4) {
			return "'" + strings.ReplaceAll(x.Value, "'", "''") + "'"
		}
	case *types.AttributeValueMemberN:
		if chance(s.g.r, 0.4) && x.Value != "" && !strings.ContainsAny(x.Value, " xIN+") && x.Value[0] != '.' {
			return x.Value
		}
	}
	s.params = append(s.params, v)
	return "?"
}

func quoted(name string) string { return `"` + name + `"` }

// pqFilterAttrs are the attributes PartiQL filters and conditions read.
var pqFilterAttrs = []string{"a", "b", "c", "m", "lst", "ss", "ns", "f", "z", "g", "gn"}

// cond returns a condition on the non-key attributes.
func (s *pqStmt) cond(depth int) string {
	g := s.g
	if depth > 0 && chance(g.r, 0.25) {
		op := pick(g.r, []string{"AND", "OR"})
		return "(" + s.cond(depth-1) + " " + op + " " + s.cond(depth-1) + ")"
	}
	a := pick(g.r, pqFilterAttrs)
	q := quoted(a)
	switch g.r.IntN(11) {
	case 0:
		return q + " IS MISSING"
	case 1:
		return q + " IS NOT MISSING"
	case 2:
		return q + pick(g.r, []string{" IS NULL", " IS NOT NULL"})
	case 3:
		return "attribute_type(" + q + ", '" + pick(g.r, typeNames) + "')"
	case 4:
		return "begins_with(" + q + ", " + s.val(sv(pick(g.r, strs))) + ")"
	case 5:
		return "size(" + q + ") " + pick(g.r, []string{"=", ">", "<="}) + " " + s.val(nv(pick(g.r, []string{"0", "1", "2", "3"})))
	case 6:
		return "contains(" + q + ", " + s.val(g.attrValue(pick(g.r, []string{"b", "a"}))) + ")"
	case 7:
		return q + " IN [" + s.val(g.attrValue(a)) + ", " + s.val(g.attrValue(a)) + "]"
	case 8:
		return q + " BETWEEN " + s.val(g.attrValue(a)) + " AND " + s.val(g.attrValue(a))
	case 9:
		return "NOT " + q + " = " + s.val(g.attrValue(a))
	}
	return q + " " + pick(g.r, []string{"=", "<>", "<", "<=", ">", ">="}) + " " + s.val(g.attrValue(a))
}

// partiQL returns an ExecuteStatement operation; its AnyOrder says whether
// its answer's order is unspecified (a Scan, or a Query of an index).
func (g *Generator) partiQL() Op {
	t := g.table()
	s := &pqStmt{g: g}
	in := &dynamodb.ExecuteStatementInput{}
	anyOrder := false
	switch n := g.r.IntN(10); {
	case n < 4:
		anyOrder = g.pqSelect(s, t, in)
	case n < 6:
		g.pqInsert(s, t)
	case n < 8:
		g.pqUpdate(s, t)
	default:
		g.pqDelete(s, t)
	}
	in.Statement = aws.String(s.sb.String())
	in.Parameters = s.params
	if chance(g.r, 0.1) {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return Op{Kind: "ExecuteStatement", Input: in, AnyOrder: anyOrder, keys: s.keys, writes: s.writes}
}

func (g *Generator) pqSelect(s *pqStmt, t *Table, in *dynamodb.ExecuteStatementInput) bool {
	s.w("SELECT ")
	star := true
	// DynamoDB Local fails a nested projection of an index with an
	// InternalFailure (docs/compat.md): those go to the table.
	onTable := g.r.IntN(10)
	if chance(g.r, 0.3) {
		star = false
		attrs := []string{"pk", "sk", "a", "ss", "b"}
		if onTable != 6 {
			attrs = append(attrs, "m.x", "lst[0]")
		}
		g.r.Shuffle(len(attrs), func(i, j int) { attrs[i], attrs[j] = attrs[j], attrs[i] })
		paths := attrs[:1+g.r.IntN(3)]
		for i, p := range paths {
			if i > 0 {
				s.w(", ")
			}
			s.w(pqPath(p))
		}
	} else {
		s.w("*")
	}
	anyOrder := false
	var where []string
	switch n := onTable; {
	case n < 5: // a Query of the table
		s.w(" FROM ", quoted(t.Name))
		pkv := pick(g.r, pkVals)
		s.partition(t, pkv)
		where = append(where, `"pk" = `+s.val(sv(pkv)))
		if chance(g.r, 0.5) {
			sk := g.skValue(t)
			switch g.r.IntN(4) {
			case 0:
				where = append(where, `"sk" BETWEEN `+s.val(sk)+" AND "+s.val(g.skValue(t)))
			case 1:
				if t.SortType == types.ScalarAttributeTypeS {
					where = append(where, `begins_with("sk", `+s.val(sv(pick(g.r, skSBounds)))+")")
					break
				}
				fallthrough
			default:
				where = append(where, `"sk" `+pick(g.r, []string{"=", "<", "<=", ">", ">="})+" "+s.val(sk))
			}
		}
	case n < 6: // IN on the partition key
		s.w(" FROM ", quoted(t.Name))
		p1, p2 := pick(g.r, pkVals), pick(g.r, pkVals)
		s.partition(t, p1)
		s.partition(t, p2)
		where = append(where, `"pk" IN [`+s.val(sv(p1))+", "+s.val(sv(p2))+"]")
	case n < 7: // a Query of the global index
		s.w(" FROM ", quoted(t.Name), ".", quoted(t.GSI.Name))
		where = append(where, quoted(t.GSI.Hash)+" = "+s.val(g.indexValue(t, t.GSI.Hash)))
		anyOrder = true
		s.keys = append(s.keys, keyRef{table: t.Name})
	default: // a Scan
		s.w(" FROM ", quoted(t.Name))
		anyOrder = true
		s.keys = append(s.keys, keyRef{table: t.Name})
	}
	// DynamoDB Local sorts only the page it read and fails ORDER BY with
	// a filter or a projection (docs/compat.md), so ORDER BY goes alone.
	orderBy := !anyOrder && star && chance(g.r, 0.2)
	if !orderBy && chance(g.r, 0.5) {
		where = append(where, s.cond(1))
	}
	if len(where) > 0 {
		s.w(" WHERE ", strings.Join(where, " AND "))
	}
	if orderBy {
		s.w(` ORDER BY "sk" DESC`)
		return false
	}
	if chance(g.r, 0.4) {
		in.Limit = aws.Int32(int32(1 + g.r.IntN(4)))
	}
	if chance(g.r, 0.2) {
		in.ConsistentRead = aws.Bool(true)
	}
	return anyOrder
}

// pqPath spells a path of pqSelect's projections with quoted names.
func pqPath(p string) string {
	switch p {
	case "m.x":
		return `"m"."x"`
	case "lst[0]":
		return `"lst"[0]`
	}
	return quoted(p)
}

func (g *Generator) pqInsert(s *pqStmt, t *Table) {
	it := g.item(t)
	delete(it, "x.y")
	names := slices.Sorted(maps.Keys(it))
	s.item(t, it)
	s.writes = true
	s.w("INSERT INTO ", quoted(t.Name), " VALUE {")
	for i, n := range names {
		if i > 0 {
			s.w(", ")
		}
		s.w("'", n, "': ", s.val(it[n]))
	}
	s.w("}")
}

// pqKeyWhere writes the WHERE clause of a write on one item, maybe with a
// condition.
func (g *Generator) pqKeyWhere(s *pqStmt, t *Table) {
	k := g.key(t)
	s.item(t, k)
	s.writes = true
	// The parts are shuffled before they are written: their parameters
	// follow the order of the text.
	var parts []string
	for _, a := range []string{"pk", "sk"} {
		if _, ok := k[a]; ok {
			parts = append(parts, a)
		}
	}
	if chance(g.r, 0.4) {
		parts = append(parts, "")
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	where := make([]string, len(parts))
	for i, a := range parts {
		if a == "" {
			where[i] = s.cond(1)
		} else {
			where[i] = quoted(a) + " = " + s.val(k[a])
		}
	}
	s.w(" WHERE ", strings.Join(where, " AND "))
}

func (g *Generator) pqUpdate(s *pqStmt, t *Table) {
	s.w("UPDATE ", quoted(t.Name))
	for range 1 + g.r.IntN(2) {
		a := pick(g.r, []string{"a", "b", "c", "m", "lst", "ss", "g", "gn", "f"})
		switch n := g.r.IntN(10); {
		case n < 5:
			s.w(" SET ", quoted(a), " = ", s.val(g.attrValue(a)))
		case n < 7:
			s.w(` SET "a" = "a" `, pick(g.r, []string{"+", "-"}), " ", s.val(nv(pick(g.r, []string{"1", "2.5", "-3"}))))
		case n < 8:
			s.w(` SET "ss" = set_add("ss", `, s.val(g.vg.ss()), ")")
		default:
			s.w(" REMOVE ", quoted(a))
		}
	}
	g.pqKeyWhere(s, t)
	if chance(g.r, 0.3) {
		s.w(" RETURNING ", pick(g.r, []string{"ALL OLD", "ALL NEW", "MODIFIED OLD", "MODIFIED NEW"}), " *")
	}
}

func (g *Generator) pqDelete(s *pqStmt, t *Table) {
	s.w("DELETE FROM ", quoted(t.Name))
	g.pqKeyWhere(s, t)
	if chance(g.r, 0.3) {
		s.w(" RETURNING ALL OLD *")
	}
}

// renameStatement prefixes the table names of a statement ("tab0", "tab1").
func renameStatement(s, prefix string) string {
	return strings.ReplaceAll(s, `"tab`, `"`+prefix+"tab")
}

// statementWalk runs a statement; with Limit, it follows NextToken to the
// last page and returns every page's items and whether a token followed;
// with anyOrder, it returns all the items sorted instead.
func statementWalk(ctx context.Context, c *canonizer, api timetable.API, in *dynamodb.ExecuteStatementInput, anyOrder bool) (any, int, error) {
	p, ok := api.(timetable.PartiQLAPI)
	if !ok {
		return nil, 0, fmt.Errorf("%T has no PartiQL", api)
	}
	page := *in
	var pages []any
	var items []any
	result := func() map[string]any {
		if anyOrder {
			sortByJSON(items)
			return map[string]any{"Items": items}
		}
		return map[string]any{"statementPages": pages}
	}
	for n := 1; ; n++ {
		out, err := p.ExecuteStatement(ctx, &page)
		if err != nil {
			return c.failed(result(), n, err)
		}
		for _, it := range out.Items {
			items = append(items, c.of(it))
		}
		pages = append(pages, map[string]any{"Items": c.of(out.Items), "NextToken": out.NextToken != nil})
		if out.NextToken == nil {
			return result(), n, nil
		}
		if n == maxPages {
			return tooManyPages(result(), n)
		}
		page.NextToken = out.NextToken
	}
}

// pqWrite writes an INSERT, UPDATE or DELETE on t.
func (g *Generator) pqWrite(s *pqStmt, t *Table) {
	switch g.r.IntN(3) {
	case 0:
		g.pqInsert(s, t)
	case 1:
		g.pqUpdate(s, t)
	default:
		g.pqDelete(s, t)
	}
}

// pqOnce writes a statement with write, on an item no other statement of
// its batch or transaction names (seen, which it updates); it reports false
// when it finds none in a few draws, and then leaves s as it was.
func (g *Generator) pqOnce(s *pqStmt, seen map[keyRef]bool, write func()) bool {
	for range 5 {
		s.sb.Reset()
		s.params = nil
		nk := len(s.keys)
		write()
		k := s.keys[nk]
		if !seen[k] {
			seen[k] = true
			return true
		}
		s.keys = s.keys[:nk]
	}
	return false
}

// pqWriteOnce writes a write statement on t with pqOnce.
func (g *Generator) pqWriteOnce(s *pqStmt, t *Table, written map[keyRef]bool) bool {
	return g.pqOnce(s, written, func() { g.pqWrite(s, t) })
}

// pqGetOne writes a SELECT of one item by its key (the reads of
// BatchExecuteStatement and ExecuteTransaction), maybe projected.
func (g *Generator) pqGetOne(s *pqStmt, t *Table) {
	s.w("SELECT ")
	if chance(g.r, 0.3) {
		attrs := []string{"pk", "sk", "a", "ss", "b", "m.x", "lst[0]"}
		g.r.Shuffle(len(attrs), func(i, j int) { attrs[i], attrs[j] = attrs[j], attrs[i] })
		for i, p := range attrs[:1+g.r.IntN(3)] {
			if i > 0 {
				s.w(", ")
			}
			s.w(pqPath(p))
		}
	} else {
		s.w("*")
	}
	s.w(" FROM ", quoted(t.Name))
	k := g.key(t)
	s.item(t, k)
	var where []string
	for _, a := range []string{"pk", "sk"} {
		if v, ok := k[a]; ok {
			where = append(where, quoted(a)+" = "+s.val(v))
		}
	}
	s.w(" WHERE ", strings.Join(where, " AND "))
}

// pqMixed reports whether a batch or transaction of reads (or writes) gets
// one statement of the other kind: an error.
func (g *Generator) pqMixed() bool { return g.vg.invalid(0.03) }

// batchStatement returns a BatchExecuteStatement of reads or of writes,
// with conditions and RETURNING; two reads of one item, or more than 25
// statements, are rare errors.
//
// Two writes of one item are never generated: DynamoDB Local runs every
// write of such a batch, in order, and only then refuses it ("Provided
// list of item keys contains duplicates"), where the engine, as DynamoDB,
// refuses it before writing (docs/compat.md, PartiQL; FINDINGS.md, F20).
// The conformance case PartiQL/Batch/DuplicateKeys checks the refusal.
func (g *Generator) batchStatement() Op {
	in := &dynamodb.BatchExecuteStatementInput{}
	s := &pqStmt{g: g}
	writes := chance(g.r, 0.6)
	n := 1 + g.r.IntN(5)
	if g.vg.invalid(0.03) {
		n = 26
	}
	written := map[keyRef]bool{}
	for range n {
		t := g.table()
		w := writes
		if n < 26 && g.pqMixed() {
			w = !w
		}
		req := types.BatchStatementRequest{}
		if w {
			if !g.pqWriteOnce(s, t, written) {
				continue
			}
			if chance(g.r, 0.1) {
				req.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
			}
		} else {
			s.sb.Reset()
			s.params = nil
			g.pqGetOne(s, t)
			if chance(g.r, 0.2) {
				req.ConsistentRead = aws.Bool(true)
			}
		}
		req.Statement = aws.String(s.sb.String())
		req.Parameters = s.params
		in.Statements = append(in.Statements, req)
	}
	return Op{Kind: "BatchExecuteStatement", Input: in, keys: s.keys, writes: s.writes}
}

// transactStatement returns an ExecuteTransaction of reads or of writes,
// the writes with conditions and EXISTS checks.
//
// Two statements on one item are never generated: DynamoDB Local compares
// their keys as written (1 and 1.0 are two items to it) and then runs both
// on the one item, where the engine, as DynamoDB, refuses the transaction
// (docs/compat.md, PartiQL; FINDINGS.md, F23). The conformance cases
// PartiQL/Transaction/Error/SameItem... check the refusal.
func (g *Generator) transactStatement() Op {
	in := &dynamodb.ExecuteTransactionInput{}
	s := &pqStmt{g: g}
	writes := chance(g.r, 0.7)
	seen := map[keyRef]bool{}
	for range 1 + g.r.IntN(4) {
		t := g.table()
		w := writes
		if g.pqMixed() {
			w = !w
		}
		req := types.ParameterizedStatement{}
		ok := g.pqOnce(s, seen, func() {
			switch {
			case w && chance(g.r, 0.15):
				s.w("EXISTS(")
				g.pqGetOne(s, t)
				if chance(g.r, 0.7) {
					s.w(" AND ", s.cond(1))
				}
				s.w(")")
			case w:
				g.pqWrite(s, t)
			default:
				g.pqGetOne(s, t)
			}
		})
		if !ok {
			continue
		}
		if w && chance(g.r, 0.1) {
			req.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		}
		req.Statement = aws.String(s.sb.String())
		req.Parameters = s.params
		in.TransactStatements = append(in.TransactStatements, req)
	}
	return Op{Kind: "ExecuteTransaction", Input: in, keys: s.keys, writes: s.writes}
}
