package expr

import (
	"fmt"
	"strconv"
)

// maxExprLen is the longest expression accepted, DynamoDB's limit of 4 KB.
const maxExprLen = 4096

// maxDepth bounds the nesting of parentheses, functions and NOT. Inputs are
// at most maxExprLen bytes, so it only guards against misuse.
const maxDepth = maxExprLen + 1

// Limits of DynamoDB checked while parsing.
const (
	maxOperators = 300 // operators and functions in a condition
	maxPathDepth = 32  // elements of a document path
)

// nkind is the kind of a syntax tree node.
type nkind uint8

const (
	nPath    nkind = iota // document path
	nValue                // :value placeholder
	nFunc                 // name(args...)
	nCompare              // args[0] op args[1]
	nBetween              // args[0] BETWEEN args[1] AND args[2]
	nIn                   // args[0] IN (args[1:]...)
	nAnd                  // args[0] AND args[1]
	nOr                   // args[0] OR args[1]
	nNot                  // NOT args[0]
	nPlus                 // args[0] + args[1] (update values)
	nMinus                // args[0] - args[1] (update values)
)

// node is a node of the syntax tree. Names and placeholders are kept as
// token indexes until they are resolved.
type node struct {
	kind   nkind
	op     tokKind // comparator of nCompare
	tok    int     // function name, placeholder, or operator token
	args   []*node
	path   []pathTok // nPath
	parens int       // parentheses directly around the node
	bare   bool      // an operand standing alone inside parentheses
}

// pathTok is one element of a path as written: a name, a #placeholder or a
// list index.
type pathTok struct {
	tok   int
	index bool
}

// clause is one clause of an update expression.
type clause struct {
	kind    tokKind // tSet, tRemove, tAdd, tDelete
	actions []action
}

// action is one action of an update clause: the path and, for SET, ADD and
// DELETE, the value.
type action struct {
	path *node
	val  *node
}

// syntaxError is the position of the first syntax error.
type syntaxError struct {
	tok int
}

// parser is a recursive descent parser of all expression kinds. The first
// syntax error stops it. Problems found while building the tree that are
// not syntax errors are recorded and reported, in DynamoDB's order, only if
// the whole expression parses: redundant parentheses first, then, by
// position, invalid function names and list indexes out of range (with
// reserved words and functions out of place, found afterwards), then a
// repeated update clause.
type parser struct {
	src       string
	toks      []token
	pos       int
	depth     int
	err       *syntaxError
	issues    []issue // problems found at a token, reported first by position
	parens    bool    // redundant parentheses
	clauseErr string  // an update clause used twice
	ops       int     // operators and functions of conditions
}

// issue is a problem found at a token.
type issue struct {
	tok int
	msg string
}

// op counts an operator or function of a condition.
func (p *parser) op() { p.ops++ }

func newParser(src string) *parser {
	p := &parser{src: src}
	p.toks = lex(src, make([]token, 0, len(src)/3+2))
	return p
}

func (p *parser) text(i int) string {
	t := p.toks[i]
	return p.src[t.start:t.end]
}

func (p *parser) peek() tokKind { return p.toks[p.pos].kind }

func (p *parser) next() int {
	i := p.pos
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return i
}

// fail records a syntax error at the current token.
func (p *parser) fail() {
	if p.err == nil {
		p.err = &syntaxError{tok: p.pos}
	}
}

func (p *parser) expect(k tokKind) bool {
	if p.err != nil {
		return false
	}
	if p.peek() != k {
		p.fail()
		return false
	}
	p.next()
	return true
}

// issue records a problem found at token tok.
func (p *parser) issue(tok int, msg string) {
	p.issues = append(p.issues, issue{tok: tok, msg: msg})
}

// syntaxMessage formats a syntax error as DynamoDB does: the offending token
// and the input from the start of the token before it to the end of the
// token after it.
func (p *parser) syntaxMessage() string {
	i := p.err.tok
	t := p.toks[i]
	text := "<EOF>"
	if t.kind != tEOF {
		text = p.src[t.start:t.end]
	}
	start := 0
	if i > 0 {
		start = p.toks[i-1].start
	}
	end := len(p.src)
	if t.kind != tEOF && i+1 < len(p.toks) && p.toks[i+1].kind != tEOF {
		end = p.toks[i+1].end
	}
	return "Syntax error; token: \"" + text + "\", near: \"" + p.src[start:end] + "\""
}

// parsePath parses name ( '.' name | '[' int ']' )*.
func (p *parser) parsePath() *node {
	k := p.peek()
	if k != tName && k != tNameRef {
		p.fail()
		return nil
	}
	n := &node{kind: nPath, tok: p.pos}
	n.path = append(n.path, pathTok{tok: p.next()})
	for p.err == nil {
		switch p.peek() {
		case tDot:
			p.next()
			k := p.peek()
			if k != tName && k != tNameRef {
				p.fail()
				return nil
			}
			n.path = append(n.path, pathTok{tok: p.next()})
		case tLBracket:
			p.next()
			if p.peek() != tInt {
				p.fail()
				return nil
			}
			i := p.next()
			if _, err := strconv.ParseInt(p.text(i), 10, 32); err != nil {
				p.issue(i, "List index is not within the allowable range; index: ["+p.text(i)+"]")
			}
			n.path = append(n.path, pathTok{tok: i, index: true})
			if !p.expect(tRBracket) {
				return nil
			}
		default:
			return n
		}
	}
	return nil
}

// knownFunctions are the function names of the grammar; others are
// reported as invalid function names.
var knownFunctions = map[string]bool{
	"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
	"begins_with": true, "contains": true, "size": true,
	"if_not_exists": true, "list_append": true,
}

// parseOperand parses a path, a :value, a function call or, in update
// expressions, a parenthesized SET value.
func (p *parser) parseOperand(update bool) *node {
	if p.err != nil {
		return nil
	}
	switch p.peek() {
	case tValueRef:
		return &node{kind: nValue, tok: p.next()}
	case tNameRef:
		return p.parsePath()
	case tName:
		if p.toks[p.pos+1].kind == tLParen {
			return p.parseFunc(update)
		}
		return p.parsePath()
	case tLParen:
		return p.parenOperand(update)
	}
	p.fail()
	return nil
}

// parenOperand parses '(' operand ')'.
func (p *parser) parenOperand(update bool) *node {
	if !p.enter() {
		return nil
	}
	defer p.leave()
	p.next()
	n := p.parseOperand(update)
	if !p.expect(tRParen) {
		return nil
	}
	p.addParens(n)
	return n
}

func (p *parser) addParens(n *node) {
	n.parens++
	if n.parens > 1 {
		p.parens = true
	}
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.fail()
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

func (p *parser) parseFunc(update bool) *node {
	if !p.enter() {
		return nil
	}
	defer p.leave()
	n := &node{kind: nFunc, tok: p.next()}
	if !update {
		p.op()
	}
	if !knownFunctions[p.text(n.tok)] {
		p.issue(n.tok, "Invalid function name; function: "+p.text(n.tok))
	}
	p.next() // (
	return p.parseArgs(n, update)
}

// parseArgs parses operands separated by commas, up to and with the
// closing parenthesis, and appends them to n's args (update says whether
// they are update operands, as parseOperand takes it). It returns n, or
// nil once the parser has an error.
func (p *parser) parseArgs(n *node, update bool) *node {
	for {
		a := p.parseOperand(update)
		if p.err != nil {
			return nil
		}
		n.args = append(n.args, a)
		if p.peek() == tComma {
			p.next()
			continue
		}
		if !p.expect(tRParen) {
			return nil
		}
		return n
	}
}

func isComparator(k tokKind) bool {
	return k == tEQ || k == tNE || k == tLT || k == tLE || k == tGT || k == tGE
}

// parseCondition parses a condition: OR binds loosest, then AND, then NOT.
// allowBare lets a lone operand stand inside parentheses, so that "(a) = :v"
// can be told from "(a = :v)".
func (p *parser) parseCondition(allowBare bool) *node {
	left := p.parseAnd(allowBare)
	for p.err == nil && p.peek() == tOr {
		t := p.next()
		p.op()
		right := p.parseAnd(false)
		if p.err != nil {
			return nil
		}
		left = &node{kind: nOr, tok: t, args: []*node{left, right}}
	}
	return left
}

func (p *parser) parseAnd(allowBare bool) *node {
	left := p.parseNot(allowBare)
	for p.err == nil && p.peek() == tAnd {
		if left.bare {
			p.fail()
			return nil
		}
		t := p.next()
		p.op()
		right := p.parseNot(false)
		if p.err != nil {
			return nil
		}
		left = &node{kind: nAnd, tok: t, args: []*node{left, right}}
	}
	if left != nil && left.bare && p.peek() == tOr {
		p.fail()
		return nil
	}
	return left
}

func (p *parser) parseNot(allowBare bool) *node {
	if p.err != nil {
		return nil
	}
	if p.peek() == tNot {
		if !p.enter() {
			return nil
		}
		defer p.leave()
		t := p.next()
		p.op()
		x := p.parseNot(false)
		if p.err != nil {
			return nil
		}
		return &node{kind: nNot, tok: t, args: []*node{x}}
	}
	return p.parsePrimary(allowBare)
}

func (p *parser) parsePrimary(allowBare bool) *node {
	if p.err != nil {
		return nil
	}
	if p.peek() == tLParen {
		if !p.enter() {
			return nil
		}
		defer p.leave()
		p.next()
		inner := p.parseCondition(true)
		if !p.expect(tRParen) {
			return nil
		}
		p.addParens(inner)
		if inner.bare {
			inner.bare = false
			k := p.peek()
			if inner.kind == nFunc && !isComparator(k) && k != tBetween && k != tIn && !(allowBare && k == tRParen) {
				return inner
			}
			return p.afterOperand(inner, allowBare)
		}
		return inner
	}
	op := p.parseOperand(false)
	return p.afterOperand(op, allowBare)
}

// afterOperand parses what follows the first operand of a condition.
func (p *parser) afterOperand(op *node, allowBare bool) *node {
	if p.err != nil {
		return nil
	}
	k := p.peek()
	if isComparator(k) || k == tBetween || k == tIn {
		p.op()
	}
	switch {
	case isComparator(k):
		t := p.next()
		r := p.parseOperand(false)
		if p.err != nil {
			return nil
		}
		return &node{kind: nCompare, op: k, tok: t, args: []*node{op, r}}
	case k == tBetween:
		t := p.next()
		lo := p.parseOperand(false)
		if !p.expect(tAnd) {
			return nil
		}
		hi := p.parseOperand(false)
		if p.err != nil {
			return nil
		}
		return &node{kind: nBetween, tok: t, args: []*node{op, lo, hi}}
	case k == tIn:
		t := p.next()
		if !p.expect(tLParen) {
			return nil
		}
		return p.parseArgs(&node{kind: nIn, tok: t, args: []*node{op}}, false)
	}
	if allowBare && k == tRParen {
		op.bare = true
		return op
	}
	if op.kind == nFunc {
		return op
	}
	p.fail()
	return nil
}

// parseSetValue parses operand [ ('+' | '-') operand ] or '(' setValue ')'.
// A parenthesized sum cannot be followed by more, as in DynamoDB.
func (p *parser) parseSetValue() *node {
	var a *node
	if p.peek() == tLParen {
		if !p.enter() {
			return nil
		}
		p.next()
		a = p.parseSetValue()
		p.leave()
		if !p.expect(tRParen) {
			return nil
		}
		p.addParens(a)
		if a.kind == nPlus || a.kind == nMinus {
			return a
		}
	} else {
		a = p.parseOperand(true)
	}
	if p.err != nil {
		return nil
	}
	k := p.peek()
	if k != tPlus && k != tMinus {
		return a
	}
	t := p.next()
	b := p.parseOperand(true)
	if p.err != nil {
		return nil
	}
	kind := nPlus
	if k == tMinus {
		kind = nMinus
	}
	return &node{kind: kind, tok: t, args: []*node{a, b}}
}

// parseUpdate parses the clauses of an update expression.
func (p *parser) parseUpdate() []clause {
	var clauses []clause
	seen := map[tokKind]bool{}
	for p.err == nil && p.peek() != tEOF {
		k := p.peek()
		if k != tSet && k != tRemove && k != tAdd && k != tDelete {
			p.fail()
			return nil
		}
		if seen[k] && p.clauseErr == "" {
			p.clauseErr = fmt.Sprintf("The %q section can only be used once in an update expression;", clauseName(k))
		}
		seen[k] = true
		p.next()
		c := clause{kind: k}
		for p.err == nil {
			var a action
			a.path = p.parsePath()
			switch k {
			case tSet:
				p.expect(tEQ)
				a.val = p.parseSetValue()
			case tAdd, tDelete:
				if p.err == nil && p.peek() != tValueRef {
					p.fail()
				}
				if p.err == nil {
					a.val = &node{kind: nValue, tok: p.next()}
				}
			}
			if p.err != nil {
				return nil
			}
			c.actions = append(c.actions, a)
			if p.peek() != tComma {
				break
			}
			p.next()
		}
		clauses = append(clauses, c)
	}
	if p.err == nil && len(clauses) == 0 {
		p.fail()
	}
	return clauses
}

func clauseName(k tokKind) string {
	switch k {
	case tSet:
		return "SET"
	case tRemove:
		return "REMOVE"
	case tAdd:
		return "ADD"
	}
	return "DELETE"
}

// parseProjection parses path (',' path)*.
func (p *parser) parseProjection() []*node {
	var paths []*node
	for p.err == nil {
		n := p.parsePath()
		if p.err != nil {
			return nil
		}
		paths = append(paths, n)
		if p.peek() != tComma {
			break
		}
		p.next()
	}
	p.expect(tEOF)
	return paths
}
