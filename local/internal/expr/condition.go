package expr

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

// Condition is a compiled ConditionExpression or FilterExpression (or a
// legacy Expected, QueryFilter or ScanFilter). It is immutable and safe for
// concurrent use.
type Condition struct {
	root   *cond
	top    []string
	nested []string
}

// cop is the operation of a condition node.
type cop uint8

const (
	cAnd cop = iota
	cOr
	cNot
	cCompare
	cBetween
	cIn
	cExists
	cNotExists
	cType
	cBeginsWith
	cContains
	cTrue // the empty condition of legacy parameters
)

type cond struct {
	op   cop
	cmp  tokKind // comparator of cCompare
	kids []*cond
	args []operand
	typ  value.Type // cType
}

// operand kinds
const (
	oPath uint8 = iota
	oValue
	oSize // size(path)
)

// operand is a compiled operand: a path, a constant, or size(path).
// size() of a constant is computed when compiling.
type operand struct {
	kind uint8
	path path
	val  types.AttributeValue
}

func (o *operand) eval(item Item) val {
	switch o.kind {
	case oValue:
		return val{av: o.val}
	case oPath:
		return val{av: o.path.get(item)}
	}
	v := o.path.get(item)
	if v == nil {
		return val{}
	}
	n, ok := sizeOf(v)
	if !ok {
		return val{}
	}
	return val{size: n, isSize: true}
}

// Condition compiles a ConditionExpression.
func (c *Compiler) Condition(s string) (*Condition, error) {
	return c.condition(kindCondition, s)
}

// Filter compiles a FilterExpression; it differs from Condition only in the
// messages of its errors.
func (c *Compiler) Filter(s string) (*Condition, error) {
	return c.condition(kindFilter, s)
}

func (c *Compiler) condition(kind, s string) (*Condition, error) {
	root, err := c.parseCondition(kind, s)
	if err != nil {
		return nil, err
	}
	return newCondition(root), nil
}

func newCondition(root *cond) *Condition {
	c := &Condition{root: root}
	c.top = root.topLevel(nil)
	c.nested = root.nestedNames(nil)
	return c
}

// nestedNames appends the top-level names of the nested paths c reads to
// names.
func (c *cond) nestedNames(names []string) []string {
	for _, k := range c.kids {
		names = k.nestedNames(names)
	}
	for _, a := range c.args {
		if a.kind != oValue {
			names = a.path.addNested(names)
		}
	}
	return names
}

// Nested returns the top-level attribute names of the nested document
// paths (a.b, a[0]) the condition uses, in order of first appearance, or
// nil. DynamoDB refuses such paths into key attributes ("Key attributes
// must be scalars; ..."), a check the caller makes with the key schema.
// The caller must not modify the slice.
func (c *Condition) Nested() []string {
	return c.nested
}

// topLevel appends the top-level attribute names c reads to names.
func (c *cond) topLevel(names []string) []string {
	for _, k := range c.kids {
		names = k.topLevel(names)
	}
	for _, a := range c.args {
		if a.kind != oValue && !slices.Contains(names, a.path[0].name) {
			names = append(names, a.path[0].name)
		}
	}
	return names
}

// TopLevel returns the top-level attribute names the condition reads, in
// order of first appearance; a Query uses it to reject filters on key
// attributes. The caller must not modify the slice.
func (c *Condition) TopLevel() []string {
	return c.top
}

func (c *Compiler) parseCondition(kind, s string) (*cond, error) {
	p, root, err := c.parsedCondition(kind, s)
	if err != nil {
		return nil, err
	}
	k := &checker{c: c, p: p, kind: kind}
	cd, err := k.cond(root)
	if err != nil {
		return nil, err
	}
	// DynamoDB counts operators as it validates the tree, after the
	// other checks of each node, so any other problem is reported first.
	if p.ops > maxOperators {
		return nil, k.errorf("The expression contains too many operators; operator count: %d", maxOperators+1)
	}
	return cd, nil
}

// parsedCondition returns the parse of condition s of kind (its parser
// and tree), from the cache of parsed conditions when s was parsed before
// without a syntax error, and marks its placeholders used in c. A parse
// depends on the text alone; the checks of its placeholders against c's
// maps follow it (checker), so a cached parse answers every expression
// of that text as a new one does.
func (c *Compiler) parsedCondition(kind, s string) (*parser, *node, error) {
	key := parseKey{kind, s}
	if v, ok := parsedConditions.Load(key); ok {
		if err := c.Check(); err != nil {
			return nil, nil, err
		}
		pc := v.(parsedCond)
		c.use(pc.p)
		return pc.p, pc.root, nil
	}
	var root *node
	p, err := c.begin(kind, s, func(p *parser) {
		root = p.parseCondition(false)
		p.expect(tEOF)
	}, func(p *parser) { p.misplacedInCondition(root, true) })
	if err != nil {
		return nil, nil, err
	}
	if len(s) <= maxCachedCondition && parsedCount.Load() < maxParsedConditions {
		if _, loaded := parsedConditions.LoadOrStore(key, parsedCond{p, root}); !loaded {
			parsedCount.Add(1)
		}
	}
	return p, root, nil
}

// The cache of parsed conditions: the texts a program sends are few
// (its requests' expressions differ by their placeholders' values, not
// their text), so it keeps the first maxParsedConditions of at most
// maxCachedCondition bytes, and parses any other each time. A parser and
// its tree are not modified once parsed, so its entries are shared.
const (
	maxParsedConditions = 4096
	maxCachedCondition  = 1024
)

var (
	parsedConditions sync.Map // parseKey -> parsedCond
	parsedCount      atomic.Int64
)

type parseKey struct{ kind, src string }

type parsedCond struct {
	p    *parser
	root *node
}

// misplacedInCondition records the functions of a condition used where
// they are not allowed: functions of update expressions anywhere, size as a
// condition, the other condition functions as operands. top is true where
// n stands for a condition, false for an operand.
func (p *parser) misplacedInCondition(n *node, top bool) {
	switch n.kind {
	case nAnd, nOr, nNot:
		for _, a := range n.args {
			p.misplacedInCondition(a, true)
		}
	case nCompare, nBetween, nIn:
		for _, a := range n.args {
			p.misplacedInCondition(a, false)
		}
	case nFunc:
		name := p.text(n.tok)
		switch {
		case !knownFunctions[name]:
			// An invalid function name, already recorded.
		case !conditionFunctions[name]:
			p.issue(n.tok, "The function is not allowed in a condition expression; function: "+name)
		case top && name == "size", !top && name != "size":
			p.issue(n.tok, "The function is not allowed to be used this way in an expression; function: "+name)
		}
		for _, a := range n.args {
			p.misplacedInCondition(a, false)
		}
	}
}

// Eval reports whether item satisfies the condition. item may be nil,
// meaning the item does not exist. Eval does not modify item and does not
// allocate for the common comparisons.
func (c *Condition) Eval(item Item) bool {
	return c.root.eval(item)
}

func (c *cond) eval(item Item) bool {
	switch c.op {
	case cAnd:
		return c.kids[0].eval(item) && c.kids[1].eval(item)
	case cOr:
		return c.kids[0].eval(item) || c.kids[1].eval(item)
	case cNot:
		return !c.kids[0].eval(item)
	case cCompare:
		a, b := c.args[0].eval(item), c.args[1].eval(item)
		switch c.cmp {
		case tEQ:
			return equalVals(a, b)
		case tNE:
			return !equalVals(a, b)
		}
		r, ok := compareVals(a, b)
		if !ok {
			return false
		}
		switch c.cmp {
		case tLT:
			return r < 0
		case tLE:
			return r <= 0
		case tGT:
			return r > 0
		}
		return r >= 0
	case cBetween:
		x := c.args[0].eval(item)
		lo, ok := compareVals(c.args[1].eval(item), x)
		if !ok || lo > 0 {
			return false
		}
		hi, ok := compareVals(x, c.args[2].eval(item))
		return ok && hi <= 0
	case cIn:
		x := c.args[0].eval(item)
		for i := 1; i < len(c.args); i++ {
			if equalVals(x, c.args[i].eval(item)) {
				return true
			}
		}
		return false
	case cExists:
		return c.args[0].path.get(item) != nil
	case cNotExists:
		return c.args[0].path.get(item) == nil
	case cType:
		v := c.args[0].eval(item)
		return v.ok() && v.typ() == c.typ
	case cBeginsWith:
		return beginsWith(c.args[0].eval(item), c.args[1].eval(item))
	case cContains:
		return containsVal(c.args[0].eval(item), c.args[1].eval(item))
	case cTrue:
		return true
	}
	return false
}

// conditionFunctions are the functions allowed in conditions.
var conditionFunctions = map[string]bool{
	"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
	"begins_with": true, "contains": true, "size": true,
}

var comparatorText = map[tokKind]string{tEQ: "=", tNE: "<>", tLT: "<", tLE: "<=", tGT: ">", tGE: ">="}

// validTypes is DynamoDB Local's list in the message for an unknown type
// name given to attribute_type.
const validTypes = "{N,BS,L,B,NULL,M,S,SS,NS,BOOL}"

// cond checks a condition tree and compiles it.
func (k *checker) cond(n *node) (*cond, error) {
	switch n.kind {
	case nAnd, nOr:
		a, err := k.cond(n.args[0])
		if err != nil {
			return nil, err
		}
		b, err := k.cond(n.args[1])
		if err != nil {
			return nil, err
		}
		op := cAnd
		if n.kind == nOr {
			op = cOr
		}
		return &cond{op: op, kids: []*cond{a, b}}, nil
	case nNot:
		a, err := k.cond(n.args[0])
		if err != nil {
			return nil, err
		}
		return &cond{op: cNot, kids: []*cond{a}}, nil
	case nCompare:
		name := comparatorText[n.op]
		args, err := k.operands(name, n.args, n.op != tEQ && n.op != tNE)
		if err != nil {
			return nil, err
		}
		return &cond{op: cCompare, cmp: n.op, args: args}, nil
	case nBetween:
		args, err := k.operands("BETWEEN", n.args, true)
		if err != nil {
			return nil, err
		}
		if lo, hi := args[1], args[2]; lo.kind == oValue && hi.kind == oValue {
			if value.TypeOf(lo.val) != value.TypeOf(hi.val) {
				return nil, k.errorf("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
					describe(lo.val), describe(hi.val))
			}
			if r, _ := compareVals(val{av: lo.val}, val{av: hi.val}); r > 0 {
				return nil, k.errorf("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
					describe(lo.val), describe(hi.val))
			}
		}
		return &cond{op: cBetween, args: args}, nil
	case nIn:
		args, err := k.operands("IN", n.args, false)
		if err != nil {
			return nil, err
		}
		if len(n.args)-1 > 100 {
			return nil, k.errorf("The IN operator is provided with too many operands; number of operands: %d", len(n.args)-1)
		}
		return &cond{op: cIn, args: args}, nil
	case nFunc:
		return k.funcCond(n)
	}
	// Bare operands are rejected by the parser.
	return nil, k.errorf("Syntax error")
}

// operands compiles the operands of a comparison, BETWEEN or IN, then
// checks constant types (ordered requires N, S or B) and that the first
// operand, when a path, does not appear again: as DynamoDB, it validates
// all operands before the operator.
func (k *checker) operands(op string, ns []*node, ordered bool) ([]operand, error) {
	args := make([]operand, len(ns))
	for i, n := range ns {
		o, err := k.operand(n)
		if err != nil {
			return nil, err
		}
		args[i] = o
	}
	for _, o := range args {
		if ordered && o.kind == oValue {
			if t := value.TypeOf(o.val); t != value.N && t != value.S && t != value.B {
				return nil, k.errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, t)
			}
		}
	}
	if err := k.distinct(op, args); err != nil {
		return nil, err
	}
	return args, nil
}

func (k *checker) distinct(op string, args []operand) error {
	if args[0].kind != oPath {
		return nil
	}
	for _, a := range args[1:] {
		if a.kind == oPath && a.path.equal(args[0].path) {
			return k.errorf("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, args[0].path)
		}
	}
	return nil
}

// operand compiles an operand of a condition: a path, a value, or size()
// (the only function begin lets through as an operand).
func (k *checker) operand(n *node) (operand, error) {
	switch n.kind {
	case nPath:
		p, err := k.path(n)
		return operand{kind: oPath, path: p}, err
	case nValue:
		v, err := k.value(n)
		return operand{kind: oValue, val: v}, err
	case nFunc:
		name := k.funcName(n)
		if name != "size" {
			return operand{}, k.errorf("The function is not allowed to be used this way in an expression; function: %s", name)
		}
		var a operand
		for _, an := range n.args {
			o, err := k.operand(an)
			if err != nil {
				return operand{}, err
			}
			a = o
		}
		if len(n.args) != 1 {
			return operand{}, k.errorf("Incorrect number of operands for operator or function; operator or function: size, number of operands: %d", len(n.args))
		}
		switch a.kind {
		case oSize:
			return operand{}, k.errorf("Incorrect operand type for operator or function; operator or function: size, operand type: N")
		case oValue:
			size, ok := sizeOf(a.val)
			if !ok {
				return operand{}, k.errorf("Incorrect operand type for operator or function; operator or function: size, operand type: %s", value.TypeOf(a.val))
			}
			return operand{kind: oValue, val: &types.AttributeValueMemberN{Value: itoa(size)}}, nil
		}
		return operand{kind: oSize, path: a.path}, nil
	}
	return operand{}, k.errorf("Syntax error")
}

// funcCond compiles a function used as a condition (begin lets only
// condition functions other than size through): its operands first, then
// the function's own checks.
func (k *checker) funcCond(n *node) (*cond, error) {
	name := k.funcName(n)
	args := make([]operand, len(n.args))
	for i, a := range n.args {
		o, err := k.operand(a)
		if err != nil {
			return nil, err
		}
		args[i] = o
	}
	want := 2
	switch name {
	case "attribute_exists", "attribute_not_exists":
		want = 1
	}
	if len(n.args) != want {
		return nil, k.errorf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", name, len(n.args))
	}
	switch name {
	case "attribute_exists", "attribute_not_exists":
		if args[0].kind != oPath {
			return nil, k.errorf("Operator or function requires a document path; operator or function: %s", name)
		}
		op := cExists
		if name == "attribute_not_exists" {
			op = cNotExists
		}
		return &cond{op: op, args: args}, nil
	case "attribute_type":
		t := args[1]
		if t.kind == oSize {
			return nil, k.errorf("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N")
		}
		if t.kind != oValue {
			return nil, k.errorf("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {HD,INTSET,NULL,BOOL,N,NS,S,DECIMALSET,DOUBLE,FLOAT,SS,L,M,INT,DOUBLESET,HDS,DICT,BS,FS,DECIMAL,B}")
		}
		s, ok := t.val.(*types.AttributeValueMemberS)
		if !ok {
			return nil, k.errorf("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: %s", value.TypeOf(t.val))
		}
		ty := value.ParseType(s.Value)
		if ty == value.None {
			return nil, k.errorf("Invalid attribute type name found; type: %s, valid types: %s", s.Value, validTypes)
		}
		return &cond{op: cType, args: args[:1], typ: ty}, nil
	case "begins_with":
		for _, a := range args {
			t := value.N
			if a.kind == oValue {
				t = value.TypeOf(a.val)
			} else if a.kind == oPath {
				continue
			}
			if t != value.S && t != value.B {
				return nil, k.errorf("Incorrect operand type for operator or function; operator or function: begins_with, operand type: %s", t)
			}
		}
		if err := k.distinct("begins_with", args); err != nil {
			return nil, err
		}
		return &cond{op: cBeginsWith, args: args}, nil
	}
	// contains
	if err := k.distinct("contains", args); err != nil {
		return nil, err
	}
	return &cond{op: cContains, args: args}, nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
