package expr

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is a DynamoDB item: attribute names to values.
type Item = map[string]types.AttributeValue

// Error is a validation error. Msg is DynamoDB's text for it; the engine
// returns it as a ValidationException.
type Error struct {
	Msg string
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Msg: format}
	}
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Expression kinds, as DynamoDB names them in messages.
const (
	kindCondition  = "ConditionExpression"
	kindFilter     = "FilterExpression"
	kindKey        = "KeyConditionExpression"
	kindProjection = "ProjectionExpression"
	kindUpdate     = "UpdateExpression"
)

// Compiler compiles the expressions of one request against its
// ExpressionAttributeNames and ExpressionAttributeValues and records which
// placeholders they use. A Compiler is not safe for concurrent use; the
// expressions it returns are.
//
// Validation happens in DynamoDB's order: the placeholder maps themselves
// (checked by the first method called), then each expression (size, syntax,
// function names, reserved words, undefined placeholders, operand types),
// then Finish for placeholders no expression used. Checks that need the key
// schema happen in KeyCondition.Resolve; checks that need the request as a
// whole (an ExpressionAttributeNames without any expression, legacy
// parameters mixed with expressions, updates of key attributes) are the
// caller's.
type Compiler struct {
	names      map[string]string
	values     map[string]types.AttributeValue
	usedNames  map[string]bool
	usedValues map[string]bool
	checked    bool
	mapErr     error
}

// NewCompiler returns a Compiler for the given placeholder maps, either of
// which may be nil (absent). A non-nil empty map is an error, as in
// DynamoDB. The maps are not modified and must not be modified while the
// Compiler and the expressions it compiles are in use (values are shared).
func NewCompiler(names map[string]string, values map[string]types.AttributeValue) *Compiler {
	return &Compiler{
		names:      names,
		values:     values,
		usedNames:  map[string]bool{},
		usedValues: map[string]bool{},
	}
}

// Check validates the placeholder maps: not empty when present, keys that
// are valid placeholders, non-empty names and valid attribute values. Every
// compile method calls it first; the error is remembered.
func (c *Compiler) Check() error {
	if c.checked {
		return c.mapErr
	}
	c.checked = true
	c.mapErr = c.check()
	return c.mapErr
}

// MaxNameBytes is the length of DynamoDB's longest attribute name: less
// than 64 KiB.
const MaxNameBytes = 65535

// maxPlaceholder is the longest placeholder DynamoDB accepts, # or :
// included.
const maxPlaceholder = 255

// check makes DynamoDB's checks of the placeholder maps in its order: the
// names (not empty, keys not too long and valid), the values (the same,
// then valid values), then the names' values. DynamoDB checks the keys of
// a map in the order of the request, which a Go map does not keep; the
// first bad key in Java's hash order is reported.
func (c *Compiler) check() error {
	if c.names != nil && len(c.names) == 0 {
		return errorf("ExpressionAttributeNames must not be empty")
	}
	if k, ok := firstBad(c.names, func(k string) bool { return len(k) > maxPlaceholder || !validPlaceholder(k, '#') }); ok {
		if len(k) > maxPlaceholder {
			return errorf("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: %d", len(k))
		}
		return errorf("ExpressionAttributeNames contains invalid key: Syntax error; key: %q", k)
	}
	if c.values != nil && len(c.values) == 0 {
		return errorf("ExpressionAttributeValues must not be empty")
	}
	if k, ok := firstBad(c.values, func(k string) bool { return len(k) > maxPlaceholder || !validPlaceholder(k, ':') }); ok {
		if len(k) > maxPlaceholder {
			// DynamoDB Local gives no size for values.
			return errorf("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
		}
		return errorf("ExpressionAttributeValues contains invalid key: Syntax error; key: %q", k)
	}
	if k, ok := firstBad(c.values, func(k string) bool { return ValidateValue(c.values[k]) != "" }); ok {
		return errorf("ExpressionAttributeValues contains invalid value: %s for key %s", ValidateValue(c.values[k]), k)
	}
	if k, ok := firstBad(c.names, func(k string) bool { return c.names[k] == "" || len(c.names[k]) > MaxNameBytes }); ok {
		if c.names[k] == "" {
			return errorf("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s", k)
		}
		return errorf("ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than %d bytes for key %s", MaxNameBytes+1, k)
	}
	return nil
}

// firstBad returns the first key of m, in DynamoDB's order, for which bad
// is true.
func firstBad[V any](m map[string]V, bad func(k string) bool) (string, bool) {
	var found []string
	for k := range m {
		if bad(k) {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		return "", false
	}
	return javaOrder(found, len(m))[0], true
}

func keysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func validPlaceholder(k string, prefix byte) bool {
	if len(k) < 2 || k[0] != prefix {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isWordChar(k[i]) {
			return false
		}
	}
	return true
}

// Finish reports, after all expressions of the request have been compiled,
// the placeholders that none of them used, in DynamoDB's words: unused
// names first, then unused values.
func (c *Compiler) Finish() error {
	if err := c.Check(); err != nil {
		return err
	}
	if unused := c.unused(keysOf(c.names), c.usedNames); unused != "" {
		return errorf("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", unused)
	}
	if unused := c.unused(keysOf(c.values), c.usedValues); unused != "" {
		return errorf("Value provided in ExpressionAttributeValues unused in expressions: keys: {%s}", unused)
	}
	return nil
}

// FinishNames is Finish for requests whose only expression is a
// ProjectionExpression (GetItem, BatchGetItem, TransactGetItems): DynamoDB
// Local reports unused ExpressionAttributeNames there but accepts unused
// ExpressionAttributeValues.
func (c *Compiler) FinishNames() error {
	if err := c.Check(); err != nil {
		return err
	}
	if unused := c.unused(keysOf(c.names), c.usedNames); unused != "" {
		return errorf("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", unused)
	}
	return nil
}

func (c *Compiler) unused(keys []string, used map[string]bool) string {
	if len(used) == len(keys) {
		return ""
	}
	var out []string
	for _, k := range javaOrder(keys, len(keys)) {
		if !used[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// begin runs the checks common to all expression kinds and parses s with
// parse. It reports, as DynamoDB does: the placeholder maps, an empty or too
// long expression, syntax errors, redundant parentheses, then by position
// invalid function names, list indexes out of range, reserved words and
// functions used where they are not allowed (found by misplaced, which may
// be nil), then a repeated update clause. It returns the parser, whose tree
// the caller then validates by kind (placeholders, path depths, operand
// types) in DynamoDB's order.
func (c *Compiler) begin(kind, s string, parse func(p *parser), misplaced func(p *parser)) (*parser, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if s == "" {
		return nil, errorf("Invalid %s: The expression can not be empty;", kind)
	}
	if len(s) > maxExprLen {
		if kind == kindUpdate || kind == kindProjection {
			return nil, errorf("Invalid %s: Expression size has exceeded the maximum allowed size;", kind)
		}
		return nil, errorf("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d", kind, len(s))
	}
	p := newParser(s)
	parse(p)
	if p.err != nil {
		return nil, errorf("Invalid %s: %s", kind, p.syntaxMessage())
	}
	if p.parens {
		return nil, errorf("Invalid %s: The expression has redundant parentheses;", kind)
	}
	for i, t := range p.toks {
		if t.kind == tName && p.toks[i+1].kind != tLParen && isReserved(p.text(i)) {
			p.issue(i, "Attribute name is a reserved keyword; reserved keyword: "+p.text(i))
		}
	}
	if misplaced != nil {
		misplaced(p)
	}
	if len(p.issues) > 0 {
		first := p.issues[0]
		for _, is := range p.issues[1:] {
			if is.tok < first.tok {
				first = is
			}
		}
		return nil, errorf("Invalid %s: %s", kind, first.msg)
	}
	if p.clauseErr != "" {
		return nil, errorf("Invalid %s: %s", kind, p.clauseErr)
	}
	c.use(p)
	return p, nil
}

// use marks the placeholders of p's expression used: placeholders are used
// once they appear; undefined ones are reported when validation reaches
// them.
func (c *Compiler) use(p *parser) {
	for i, t := range p.toks {
		switch t.kind {
		case tNameRef:
			if name := p.text(i); hasKey(c.names, name) {
				c.usedNames[name] = true
			}
		case tValueRef:
			if name := p.text(i); hasKey(c.values, name) {
				c.usedValues[name] = true
			}
		}
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// checker turns a checked syntax tree into compiled form, reporting
// semantic errors with the expression kind.
type checker struct {
	c    *Compiler
	p    *parser
	kind string
}

func (k *checker) errorf(format string, args ...any) *Error {
	return &Error{Msg: "Invalid " + k.kind + ": " + fmt.Sprintf(format, args...)}
}

// path resolves a path node to its steps, checking its depth and that its
// name placeholders are defined, in that order, as DynamoDB does.
func (k *checker) path(n *node) (path, error) {
	if len(n.path) > maxPathDepth {
		return nil, k.errorf("The document path has too many nesting levels; nesting levels: %d", len(n.path))
	}
	steps := make(path, len(n.path))
	for i, e := range n.path {
		text := k.p.text(e.tok)
		switch {
		case e.index:
			idx, _ := parseIndex(text)
			steps[i] = step{index: idx}
		case text[0] == '#':
			name, ok := k.c.names[text]
			if !ok {
				return nil, k.errorf("An expression attribute name used in the document path is not defined; attribute name: %s", text)
			}
			steps[i] = step{name: name, index: -1}
		default:
			steps[i] = step{name: text, index: -1}
		}
	}
	return steps, nil
}

// value returns the value of a placeholder node, or DynamoDB's error when it
// is not defined.
func (k *checker) value(n *node) (types.AttributeValue, error) {
	v, ok := k.c.values[k.p.text(n.tok)]
	if !ok {
		return nil, k.errorf("An expression attribute value used in expression is not defined; attribute value: %s", k.p.text(n.tok))
	}
	return v, nil
}

func (k *checker) funcName(n *node) string { return k.p.text(n.tok) }

func parseIndex(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<31-1 {
			return 0, false
		}
	}
	return n, true
}
