package local

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/expr"
	"github.com/timetable-db/timetable/local/internal/partiql"
	"github.com/timetable-db/timetable/local/internal/value"
)

// PartiQL statements run on the engine's own operations: their WHERE
// clauses, SET values and projections are translated to DynamoDB
// expressions with placeholders (#p0, :p0, ...), which package expr
// compiles and evaluates as it does those of Query, Scan and the writes.
// pqExprs builds one statement's expressions and placeholders.

// Messages of DynamoDB Local's PartiQL front end.
const (
	msgPQSyntax       = "Statement wasn't well formed, can't be processed: "
	msgPQParams       = "Number of parameters in request and statement don't match."
	msgPQBoolean      = "WHERE clause must contain an expression that resolves to a boolean"
	msgPQMissing      = "MISSING must be compared using IS operator"
	msgPQIn           = "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"
	msgPQKeyEquality  = "Where clause does not contain a mandatory equality on all key attributes"
	msgPQKeyType      = "Key attribute's data type should match its data type in table's schema: Key "
	msgPQKeyMissing   = "Key attribute should be present in the item: Key "
	msgPQDuplicate    = "Duplicate primary key exists in table"
	msgPQOnIndex      = "This operation is not supported on an index"
	msgPQEmptyBag     = "Empty bags are not supported"
	msgPQBagType      = "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
	msgPQInsertFormat = "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."
)

type pqExprs struct {
	params []types.AttributeValue
	names  map[string]string
	values map[string]types.AttributeValue
	byName map[string]string
}

func newPQExprs(params []types.AttributeValue) *pqExprs {
	return &pqExprs{params: params, names: map[string]string{}, values: map[string]types.AttributeValue{}, byName: map[string]string{}}
}

// compiler returns a compiler over the placeholders made so far.
func (b *pqExprs) compiler() *expr.Compiler {
	var names map[string]string
	var values map[string]types.AttributeValue
	if len(b.names) > 0 {
		names = b.names
	}
	if len(b.values) > 0 {
		values = b.values
	}
	return expr.NewCompiler(names, values)
}

func (b *pqExprs) name(n string) string {
	if p, ok := b.byName[n]; ok {
		return p
	}
	p := "#p" + strconv.Itoa(len(b.names))
	b.names[p] = n
	b.byName[n] = p
	return p
}

func (b *pqExprs) value(v types.AttributeValue) string {
	p := ":p" + strconv.Itoa(len(b.values))
	b.values[p] = v
	return p
}

func (b *pqExprs) path(p *partiql.Path) string {
	var s strings.Builder
	for i, st := range p.Steps {
		switch {
		case st.IsIndex:
			s.WriteString("[" + strconv.Itoa(st.Index) + "]")
		case i == 0:
			s.WriteString(b.name(st.Name))
		default:
			s.WriteString("." + b.name(st.Name))
		}
	}
	return s.String()
}

// literal evaluates a literal or parameter to an attribute value.
func (b *pqExprs) literal(e partiql.Expr) (types.AttributeValue, error) {
	switch x := e.(type) {
	case *partiql.String:
		return &types.AttributeValueMemberS{Value: x.V}, nil
	case *partiql.Number:
		n, err := checkNumber(x.V)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: decimalText(x.V, n)}, nil
	case *partiql.Bool:
		return &types.AttributeValueMemberBOOL{Value: x.V}, nil
	case *partiql.Null:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case *partiql.Missing:
		return nil, validationError(msgPQMissing)
	case *partiql.Param:
		if x.N >= len(b.params) || b.params[x.N] == nil {
			return nil, validationError(msgPQParams)
		}
		return b.params[x.N], nil
	case *partiql.List:
		l := make([]types.AttributeValue, len(x.Elems))
		for i, el := range x.Elems {
			v, err := b.literal(el)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case *partiql.Map:
		m := make(map[string]types.AttributeValue, len(x.Entries))
		for _, en := range x.Entries {
			v, err := b.literal(en.Value)
			if err != nil {
				return nil, err
			}
			m[en.Key] = v
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case *partiql.Set:
		return b.set(x)
	}
	return nil, validationError(msgPQBoolean)
}

// decimalText spells a number literal as DynamoDB Local does (as Java's
// BigDecimal prints it): as written, without leading zeros or the sign of
// a zero, when it has no exponent; otherwise canonical. Stored items hold
// canonical numbers whatever the spelling; error messages show this one.
func decimalText(lit, canonical string) string {
	if strings.ContainsAny(lit, "eE") {
		return canonical
	}
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	for len(s) > 1 && s[0] == '0' && s[1] != '.' {
		s = s[1:]
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// set evaluates <<...>>: strings, numbers or binaries, all of one kind.
func (b *pqExprs) set(x *partiql.Set) (types.AttributeValue, error) {
	if len(x.Elems) == 0 {
		return nil, validationError(msgPQEmptyBag)
	}
	var ss, ns []string
	var bs [][]byte
	for _, el := range x.Elems {
		v, err := b.literal(el)
		if err != nil {
			return nil, err
		}
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			ss = append(ss, v.Value)
		case *types.AttributeValueMemberN:
			ns = append(ns, v.Value)
		case *types.AttributeValueMemberB:
			bs = append(bs, v.Value)
		default:
			return nil, validationError(msgPQBagType)
		}
	}
	switch {
	case len(ss) == len(x.Elems):
		return &types.AttributeValueMemberSS{Value: ss}, nil
	case len(ns) == len(x.Elems):
		return &types.AttributeValueMemberNS{Value: ns}, nil
	case len(bs) == len(x.Elems):
		return &types.AttributeValueMemberBS{Value: bs}, nil
	}
	return nil, validationError(msgPQBagType)
}

func isLiteral(e partiql.Expr) bool {
	switch e.(type) {
	case *partiql.String, *partiql.Number, *partiql.Bool, *partiql.Null, *partiql.Param,
		*partiql.List, *partiql.Map, *partiql.Set:
		return true
	}
	return false
}

// operand translates a comparison operand: a path, a literal or size(path).
func (b *pqExprs) operand(e partiql.Expr) (string, error) {
	switch x := e.(type) {
	case *partiql.Path:
		return b.path(x), nil
	case *partiql.Missing:
		return "", validationError(msgPQMissing)
	case *partiql.Call:
		if x.Name == "size" {
			return b.call(x)
		}
		return "", unknownFunction(x.Name)
	}
	if isLiteral(e) {
		v, err := b.literal(e)
		if err != nil {
			return "", err
		}
		return b.value(v), nil
	}
	return "", validationError(msgPQBoolean)
}

func unknownFunction(name string) error {
	return validationError("Unrecognized function: " + name)
}

// pqFunctions are the functions of WHERE clauses and SET values, with the
// functions of DynamoDB's expressions they become.
var pqFunctions = map[string]string{
	"begins_with": "begins_with", "contains": "contains", "attribute_type": "attribute_type",
	"size": "size", "list_append": "list_append", "if_not_exists": "if_not_exists",
}

func (b *pqExprs) call(x *partiql.Call) (string, error) {
	fn, ok := pqFunctions[x.Name]
	if !ok {
		return "", unknownFunction(x.Name)
	}
	args, err := b.operands(x.Args...)
	if err != nil {
		return "", err
	}
	return fn + "(" + strings.Join(args, ", ") + ")", nil
}

// cond translates a WHERE clause (or a part of one) to a condition.
func (b *pqExprs) cond(e partiql.Expr) (string, error) {
	switch x := e.(type) {
	case *partiql.Binary:
		switch x.Op {
		case "AND", "OR":
			l, err := b.cond(x.L)
			if err != nil {
				return "", err
			}
			r, err := b.cond(x.R)
			if err != nil {
				return "", err
			}
			return wrap(l) + " " + x.Op + " " + wrap(r), nil
		case "+", "-":
			return "", validationError(msgPQBoolean)
		}
		ops, err := b.operands(x.L, x.R)
		if err != nil {
			return "", err
		}
		return ops[0] + " " + x.Op + " " + ops[1], nil
	case *partiql.Not:
		c, err := b.cond(x.X)
		if err != nil {
			return "", err
		}
		return "NOT " + wrap(c), nil
	case *partiql.Between:
		ops, err := b.operands(x.X, x.Lo, x.Hi)
		if err != nil {
			return "", err
		}
		return ops[0] + " BETWEEN " + ops[1] + " AND " + ops[2], nil
	case *partiql.In:
		if _, ok := x.X.(*partiql.Path); !ok || len(x.List) == 0 {
			return "", validationError(msgPQIn)
		}
		ops, err := b.operands(append([]partiql.Expr{x.X}, x.List...)...)
		if err != nil {
			return "", err
		}
		return ops[0] + " IN (" + strings.Join(ops[1:], ", ") + ")", nil
	case *partiql.Is:
		p, ok := x.X.(*partiql.Path)
		if !ok {
			return "", validationError(msgPQBoolean)
		}
		path := b.path(p)
		var c string
		switch {
		case x.What == "MISSING" && x.Not:
			return "attribute_exists(" + path + ")", nil
		case x.What == "MISSING":
			return "attribute_not_exists(" + path + ")", nil
		default:
			c = "attribute_type(" + path + ", " + b.value(&types.AttributeValueMemberS{Value: "NULL"}) + ")"
		}
		if x.Not {
			c = "NOT " + c
		}
		return c, nil
	case *partiql.Call:
		if x.Name == "size" {
			return "", validationError(msgPQBoolean)
		}
		return b.call(x)
	}
	return "", validationError(msgPQBoolean)
}

func (b *pqExprs) operands(es ...partiql.Expr) ([]string, error) {
	out := make([]string, len(es))
	for i, e := range es {
		s, err := b.operand(e)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// setValue translates the value of a SET action: an operand, a sum or
// difference, list_append or if_not_exists.
func (b *pqExprs) setValue(e partiql.Expr) (string, error) {
	switch x := e.(type) {
	case *partiql.Binary:
		if x.Op != "+" && x.Op != "-" {
			return "", validationError("Unsupported operation in SET clause: " + x.Op)
		}
		l, err := b.setValue(x.L)
		if err != nil {
			return "", err
		}
		r, err := b.setValue(x.R)
		if err != nil {
			return "", err
		}
		return l + " " + x.Op + " " + r, nil
	case *partiql.Call:
		if x.Name != "list_append" && x.Name != "if_not_exists" {
			return "", unknownFunction(x.Name)
		}
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			s, err := b.setValue(a)
			if err != nil {
				return "", err
			}
			args[i] = s
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")", nil
	}
	return b.operand(e)
}

// update translates the actions of an UPDATE to an update expression.
// SET p = set_add(p, s) and set_delete(p, s) become ADD p s and DELETE p s.
func (b *pqExprs) update(actions []partiql.Action) (string, error) {
	var set, remove, add, del []string
	for _, a := range actions {
		path := b.path(a.Path)
		if a.Value == nil {
			remove = append(remove, path)
			continue
		}
		if c, ok := a.Value.(*partiql.Call); ok && (c.Name == "set_add" || c.Name == "set_delete") {
			if len(c.Args) != 2 {
				return "", validationf("Incorrect number of arguments for function: %s", c.Name)
			}
			if p, ok := c.Args[0].(*partiql.Path); !ok || p.String() != a.Path.String() {
				return "", validationf("The first argument of %s must be the path being set", c.Name)
			}
			v, err := b.literal(c.Args[1])
			if err != nil {
				return "", err
			}
			clause := path + " " + b.value(v)
			if c.Name == "set_add" {
				add = append(add, clause)
			} else {
				del = append(del, clause)
			}
			continue
		}
		v, err := b.setValue(a.Value)
		if err != nil {
			return "", err
		}
		set = append(set, path+" = "+v)
	}
	var s []string
	for _, c := range []struct {
		kw      string
		clauses []string
	}{{"SET", set}, {"REMOVE", remove}, {"ADD", add}, {"DELETE", del}} {
		if len(c.clauses) > 0 {
			s = append(s, c.kw+" "+strings.Join(c.clauses, ", "))
		}
	}
	return strings.Join(s, " "), nil
}

// conjuncts flattens the top-level ANDs of e.
func conjuncts(e partiql.Expr, out []partiql.Expr) []partiql.Expr {
	if x, ok := e.(*partiql.Binary); ok && x.Op == "AND" {
		return conjuncts(x.R, conjuncts(x.L, out))
	}
	return append(out, e)
}

// keyTerm reports whether c is attr = literal (either way round) for a
// top-level attribute attr, and returns them.
func keyTerm(c partiql.Expr) (string, partiql.Expr, bool) {
	x, ok := c.(*partiql.Binary)
	if !ok || x.Op != "=" {
		return "", nil, false
	}
	l, r := x.L, x.R
	if _, ok := l.(*partiql.Path); !ok {
		l, r = r, l
	}
	p, ok := l.(*partiql.Path)
	if !ok || len(p.Steps) != 1 || !isLiteral(r) {
		return "", nil, false
	}
	return p.Steps[0].Name, r, true
}

// itemKey takes from the WHERE clause of a statement on one item the
// equalities on the table's key attributes; it returns the key and the
// other conditions. The caller checks the key's types (checkPQKey).
func (b *pqExprs) itemKey(m *tableMeta, where partiql.Expr) (Item, []partiql.Expr, error) {
	key := Item{}
	var rest []partiql.Expr
	for _, c := range conjuncts(where, nil) {
		if name, lit, ok := keyTerm(c); ok && (name == m.Hash || name == m.Range) && key[name] == nil {
			v, err := b.literal(lit)
			if err != nil {
				return nil, nil, err
			}
			key[name] = v
			continue
		}
		rest = append(rest, c)
	}
	if key[m.Hash] == nil || (m.Range != "" && key[m.Range] == nil) {
		// DynamoDB Local reports an operand of the wrong type in the
		// other conditions first.
		if err := checkPQConditions(b.params, rest); err != nil {
			return nil, nil, err
		}
		return nil, nil, validationError(msgPQKeyEquality)
	}
	return key, rest, nil
}

// checkPQConditions compiles the conditions rest of a WHERE clause (with
// the statement's params) and returns the error DynamoDB's expression
// rules find in them, if any.
func checkPQConditions(params []types.AttributeValue, rest []partiql.Expr) error {
	if len(rest) == 0 {
		return nil
	}
	cb := newPQExprs(params)
	c, err := cb.andAll(rest, "")
	if err != nil {
		return err
	}
	if _, err := cb.compiler().Condition(c); err != nil {
		return stripExprKind(err)
	}
	return nil
}

// checkPQKey checks the types of the key attributes of item against the
// key schema, with PartiQL's words: an INSERT's (byWhere false) in the
// order of the key schema, a WHERE clause's in the order of DynamoDB
// Local's hash map of them.
func checkPQKey(m *tableMeta, item Item, byWhere bool) error {
	order := [2][2]string{{m.Hash, m.HashType}, {m.Range, m.RangeType}}
	if byWhere && m.Range != "" && expr.JavaOrder([]string{m.Hash, m.Range})[0] == m.Range {
		order[0], order[1] = order[1], order[0]
	}
	for _, k := range order {
		if k[0] == "" {
			continue
		}
		v, ok := item[k[0]]
		if !ok {
			return validationError(msgPQKeyMissing + k[0])
		}
		if err := pqKeyType(k[0], k[1], v); err != nil {
			return err
		}
	}
	return nil
}

// pqKeyType checks the value v of key attribute name, of type typ.
func pqKeyType(name, typ string, v types.AttributeValue) error {
	switch t := value.TypeOf(v).String(); {
	case t != "S" && t != "N" && t != "B":
		return validationf("Key value must be of type S, N, or B. Key name: %s, Key type: %s", name, t)
	case t != typ:
		return validationError(msgPQKeyType + name)
	}
	return nil
}

// wrap parenthesizes an expression this file built, unless parentheses
// enclose it already (DynamoDB refuses redundant ones). The expressions
// hold no literal text, only placeholders, so parentheses are all syntax.
func wrap(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i < len(s)-1 {
				return "(" + s + ")"
			}
		}
	}
	if strings.HasPrefix(s, "(") {
		return s
	}
	return "(" + s + ")"
}

// andAll joins conditions with AND; "" for none.
func (b *pqExprs) andAll(cs []partiql.Expr, first string) (string, error) {
	parts := []string{}
	if first != "" {
		parts = append(parts, first)
	}
	for _, c := range cs {
		s, err := b.cond(c)
		if err != nil {
			return "", err
		}
		parts = append(parts, wrap(s))
	}
	return strings.Join(parts, " AND "), nil
}

// stripExprKind removes the "Invalid XExpression: " prefix of an error of
// package expr: PartiQL reports the problem alone.
func stripExprKind(err error) error {
	ee, ok := err.(*expr.Error)
	if !ok {
		return err
	}
	msg := ee.Msg
	if rest, ok := strings.CutPrefix(msg, "Invalid "); ok {
		if kind, tail, ok := strings.Cut(rest, ": "); ok && strings.HasSuffix(kind, "Expression") && !strings.Contains(kind, " ") {
			msg = tail
		}
	}
	return validationError(msg)
}
