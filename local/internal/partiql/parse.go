package partiql

import (
	"fmt"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of a statement's expression trees, and
// maxRecursion the parser's recursion (a level of the tree costs at most
// three when printed), so that no input can exhaust the stack.
const (
	maxDepth     = 64
	maxRecursion = 4*maxDepth + 8
)

// maxParams bounds the ? placeholders of a statement.
const maxParams = 1 << 16

// SyntaxError is the error of a statement that does not parse.
type SyntaxError struct {
	Pos int    // byte offset of the offending token
	Msg string // what was wrong, for logs; DynamoDB reports none of it
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("partiql: %s at offset %d", e.Msg, e.Pos) }

type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // bare identifier or keyword
	tQuoted          // "identifier"
	tString          // 'string'
	tNumber          // 12, 1.5, 1e3
	tPunct           // operators and brackets; text says which
	tInvalid         // a character that starts no token
)

type token struct {
	kind tokKind
	text string // for tQuoted and tString, the unescaped value
	pos  int
}

// lex splits s into tokens, ending with tEOF; an unterminated quote or an
// unknown character gives tInvalid, and then tEOF.
func lex(s string) []token {
	var toks []token
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return append(toks, token{kind: tEOF, pos: i})
		}
		start := i
		c := s[i]
		switch {
		case isLetter(c) || c == '_':
			for i < len(s) && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '_') {
				i++
			}
			toks = append(toks, token{kind: tIdent, text: s[start:i], pos: start})
		case isDigit(c):
			i = lexNumber(s, i)
			toks = append(toks, token{kind: tNumber, text: s[start:i], pos: start})
		case c == '\'' || c == '"':
			v, end, ok := lexQuoted(s, i)
			if !ok {
				return append(toks, token{kind: tInvalid, pos: start}, token{kind: tEOF, pos: len(s)})
			}
			kind := tString
			if c == '"' {
				kind = tQuoted
			}
			toks = append(toks, token{kind: kind, text: v, pos: start})
			i = end
		default:
			n := punct(s[i:])
			if n == 0 {
				return append(toks, token{kind: tInvalid, pos: start}, token{kind: tEOF, pos: len(s)})
			}
			toks = append(toks, token{kind: tPunct, text: s[i : i+n], pos: start})
			i += n
		}
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

func lexNumber(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// lexQuoted reads the quoted text starting at s[i], where a doubled quote
// stands for itself.
func lexQuoted(s string, i int) (string, int, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", 0, false
}

var puncts = []string{"<<", ">>", "<>", "!=", "<=", ">=", "=", "<", ">", "(", ")", "[", "]", "{", "}", ",", ".", ":", "*", "+", "-", "?", ";"}

func punct(s string) int {
	for _, p := range puncts {
		if strings.HasPrefix(s, p) {
			return len(p)
		}
	}
	return 0
}

// keywords cannot be bare names; quoted, they can.
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "IN": true,
	"BETWEEN": true, "IS": true, "NULL": true, "MISSING": true, "TRUE": true, "FALSE": true,
	"INSERT": true, "INTO": true, "VALUE": true, "UPDATE": true, "SET": true, "REMOVE": true,
	"DELETE": true, "RETURNING": true, "ORDER": true, "BY": true, "EXISTS": true,
}

type parser struct {
	toks   []token
	pos    int
	depth  int
	params int
	err    *SyntaxError
}

// Parse parses one statement. A trailing semicolon is allowed. The error is
// a *SyntaxError.
func Parse(s string) (Statement, error) {
	p := &parser{toks: lex(s)}
	st := p.statement()
	if p.err == nil {
		p.accept(";")
		if p.peek().kind != tEOF {
			p.fail("unexpected token")
		}
	}
	if p.err == nil && stmtDepth(st) > maxDepth {
		p.err = &SyntaxError{Msg: "nested too deeply"}
	}
	if p.err != nil {
		return nil, p.err
	}
	return st, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) fail(msg string) {
	if p.err == nil {
		p.err = &SyntaxError{Pos: p.peek().pos, Msg: msg}
	}
	// Stop consuming: every further step sees EOF.
	p.pos = len(p.toks) - 1
}

// isWord reports whether the next token is the keyword w (any case).
func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, w)
}

func (p *parser) acceptWord(w string) bool {
	if p.isWord(w) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectWord(w string) {
	if !p.acceptWord(w) {
		p.fail("expected " + w)
	}
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) accept(s string) bool {
	if p.isPunct(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(s string) {
	if !p.accept(s) {
		p.fail("expected " + s)
	}
}

func (p *parser) statement() Statement {
	switch {
	case p.acceptWord("SELECT"):
		return p.selectRest()
	case p.acceptWord("INSERT"):
		p.expectWord("INTO")
		st := &Insert{}
		st.Table, st.Index = p.target()
		p.expectWord("VALUE")
		st.Value = p.expr()
		return st
	case p.acceptWord("UPDATE"):
		return p.updateRest()
	case p.acceptWord("DELETE"):
		p.expectWord("FROM")
		st := &Delete{}
		st.Table, st.Index = p.target()
		p.expectWord("WHERE")
		st.Where = p.expr()
		st.Returning = p.returning()
		return st
	case p.acceptWord("EXISTS"):
		p.expect("(")
		p.expectWord("SELECT")
		sel := p.selectRest()
		p.expect(")")
		return &Exists{Select: sel}
	}
	p.fail("expected a statement")
	return nil
}

func (p *parser) selectRest() *Select {
	st := &Select{}
	if !p.accept("*") {
		st.Projection = []*Path{p.path()}
		for p.accept(",") {
			st.Projection = append(st.Projection, p.path())
		}
	}
	p.expectWord("FROM")
	st.Table, st.Index = p.target()
	if p.acceptWord("WHERE") {
		st.Where = p.expr()
	}
	if p.acceptWord("ORDER") {
		p.expectWord("BY")
		for {
			o := Order{Path: p.path()}
			if p.acceptWord("DESC") {
				o.Desc = true
			} else {
				p.acceptWord("ASC")
			}
			st.OrderBy = append(st.OrderBy, o)
			if !p.accept(",") {
				break
			}
		}
	}
	return st
}

func (p *parser) updateRest() *Update {
	st := &Update{}
	st.Table, st.Index = p.target()
	for {
		switch {
		case p.acceptWord("SET"):
			for {
				path := p.path()
				p.expect("=")
				st.Actions = append(st.Actions, Action{Path: path, Value: p.expr()})
				if !p.accept(",") {
					break
				}
			}
			continue
		case p.acceptWord("REMOVE"):
			for {
				st.Actions = append(st.Actions, Action{Path: p.path()})
				if !p.accept(",") {
					break
				}
			}
			continue
		}
		break
	}
	if len(st.Actions) == 0 {
		p.fail("expected SET or REMOVE")
	}
	p.expectWord("WHERE")
	st.Where = p.expr()
	st.Returning = p.returning()
	return st
}

func (p *parser) returning() Returning {
	if !p.acceptWord("RETURNING") {
		return ""
	}
	var which, age string
	switch {
	case p.acceptWord("ALL"):
		which = "ALL"
	case p.acceptWord("MODIFIED"):
		which = "MODIFIED"
	default:
		p.fail("expected ALL or MODIFIED")
	}
	switch {
	case p.acceptWord("OLD"):
		age = "OLD"
	case p.acceptWord("NEW"):
		age = "NEW"
	default:
		p.fail("expected OLD or NEW")
	}
	p.expect("*")
	return Returning(which + " " + age)
}

// target reads a table name, and an index name after a dot.
func (p *parser) target() (table, index string) {
	table = p.name()
	if p.accept(".") {
		index = p.name()
	}
	return table, index
}

// name reads a table, index or attribute name: a bare identifier that is
// not a keyword, or a quoted one.
func (p *parser) name() string {
	t := p.peek()
	switch {
	case t.kind == tQuoted:
		p.pos++
		return t.text
	case t.kind == tIdent && !keywords[strings.ToUpper(t.text)]:
		p.pos++
		return t.text
	}
	p.fail("expected a name")
	return ""
}

func (p *parser) path() *Path {
	path := &Path{Steps: []Step{{Name: p.name()}}}
	p.pathSteps(path)
	return path
}

func (p *parser) pathSteps(path *Path) {
	for p.err == nil {
		switch {
		case p.accept("."):
			path.Steps = append(path.Steps, Step{Name: p.name()})
		case p.accept("["):
			t := p.next()
			n, err := strconv.Atoi(t.text)
			if t.kind != tNumber || err != nil || n < 0 || strconv.Itoa(n) != t.text {
				p.fail("expected a list index")
				return
			}
			path.Steps = append(path.Steps, Step{Index: n, IsIndex: true})
			p.expect("]")
		default:
			return
		}
	}
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxRecursion {
		p.fail("nested too deeply")
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// expr parses an expression: OR binds loosest, then AND, NOT, the
// comparisons and predicates, + and -.
func (p *parser) expr() Expr {
	if !p.enter() {
		return &Null{}
	}
	defer p.leave()
	l := p.and()
	for p.acceptWord("OR") {
		l = &Binary{Op: "OR", L: l, R: p.and()}
	}
	return l
}

func (p *parser) and() Expr {
	l := p.not()
	for p.acceptWord("AND") {
		l = &Binary{Op: "AND", L: l, R: p.not()}
	}
	return l
}

func (p *parser) not() Expr {
	if p.acceptWord("NOT") {
		if !p.enter() {
			return &Null{}
		}
		defer p.leave()
		return &Not{X: p.not()}
	}
	return p.predicate()
}

var comparisons = []string{"=", "<>", "!=", "<", "<=", ">", ">="}

func (p *parser) predicate() Expr {
	l := p.additive()
	t := p.peek()
	if t.kind == tPunct {
		for _, c := range comparisons {
			if t.text == c {
				p.pos++
				op := c
				if op == "!=" {
					op = "<>"
				}
				return &Binary{Op: op, L: l, R: p.additive()}
			}
		}
	}
	switch {
	case p.acceptWord("BETWEEN"):
		lo := p.additive()
		p.expectWord("AND")
		return &Between{X: l, Lo: lo, Hi: p.additive()}
	case p.acceptWord("IN"):
		var list []Expr
		switch {
		case p.accept("["):
			list = p.exprList("]")
		case p.accept("("):
			list = p.exprList(")")
		default:
			p.fail("expected a list after IN")
		}
		return &In{X: l, List: list}
	case p.acceptWord("IS"):
		is := &Is{X: l, Not: p.acceptWord("NOT")}
		switch {
		case p.acceptWord("NULL"):
			is.What = "NULL"
		case p.acceptWord("MISSING"):
			is.What = "MISSING"
		default:
			p.fail("expected NULL or MISSING")
		}
		return is
	}
	return l
}

func (p *parser) additive() Expr {
	l := p.primary()
	for p.err == nil && (p.isPunct("+") || p.isPunct("-")) {
		op := p.next().text
		l = &Binary{Op: op, L: l, R: p.primary()}
	}
	return l
}

// exprList reads expressions separated by commas up to close, which may
// follow at once.
func (p *parser) exprList(close string) []Expr {
	list := []Expr{}
	if p.accept(close) {
		return list
	}
	for {
		list = append(list, p.expr())
		if !p.accept(",") {
			break
		}
	}
	p.expect(close)
	return list
}

func (p *parser) primary() Expr {
	if !p.enter() {
		return &Null{}
	}
	defer p.leave()
	t := p.peek()
	switch t.kind {
	case tString:
		p.pos++
		return &String{V: t.text}
	case tNumber:
		p.pos++
		return &Number{V: t.text}
	case tQuoted:
		return p.path()
	case tIdent:
		switch strings.ToUpper(t.text) {
		case "TRUE", "FALSE":
			p.pos++
			return &Bool{V: strings.EqualFold(t.text, "TRUE")}
		case "NULL":
			p.pos++
			return &Null{}
		case "MISSING":
			p.pos++
			return &Missing{}
		}
		if p.toks[p.pos+1].kind == tPunct && p.toks[p.pos+1].text == "(" &&
			(!keywords[strings.ToUpper(t.text)] || strings.EqualFold(t.text, "EXISTS")) {
			p.pos += 2
			return &Call{Name: strings.ToLower(t.text), Args: p.exprList(")")}
		}
		return p.path()
	case tPunct:
		switch t.text {
		case "?":
			p.pos++
			if p.params >= maxParams {
				p.fail("too many parameters")
			}
			p.params++
			return &Param{N: p.params - 1}
		case "-":
			if n := p.toks[p.pos+1]; n.kind == tNumber {
				p.pos += 2
				return &Number{V: "-" + n.text}
			}
		case "(":
			p.pos++
			e := p.expr()
			p.expect(")")
			return e
		case "[":
			p.pos++
			return &List{Elems: p.exprList("]")}
		case "<<":
			p.pos++
			return &Set{Elems: p.exprList(">>")}
		case "{":
			p.pos++
			return p.mapRest()
		}
	}
	p.fail("expected an expression")
	return &Null{}
}

func (p *parser) mapRest() *Map {
	m := &Map{Entries: []Entry{}}
	if p.accept("}") {
		return m
	}
	for {
		t := p.next()
		if t.kind != tString {
			p.fail("expected a string key")
			return m
		}
		p.expect(":")
		m.Entries = append(m.Entries, Entry{Key: t.text, Value: p.expr()})
		if !p.accept(",") {
			break
		}
	}
	p.expect("}")
	return m
}

// stmtDepth is the depth of the deepest expression tree of st.
func stmtDepth(st Statement) int {
	switch s := st.(type) {
	case *Select:
		return depth(s.Where)
	case *Insert:
		return depth(s.Value)
	case *Update:
		d := depth(s.Where)
		for _, a := range s.Actions {
			d = max(d, depth(a.Value))
		}
		return d
	case *Delete:
		return depth(s.Where)
	case *Exists:
		return depth(s.Select.Where)
	}
	return 0
}

// depth is the height of the tree e (0 for nil).
func depth(e Expr) int {
	list := func(es []Expr) int {
		d := 0
		for _, x := range es {
			d = max(d, depth(x))
		}
		return d
	}
	switch x := e.(type) {
	case nil:
		return 0
	case *List:
		return 1 + list(x.Elems)
	case *Set:
		return 1 + list(x.Elems)
	case *Map:
		d := 0
		for _, en := range x.Entries {
			d = max(d, depth(en.Value))
		}
		return 1 + d
	case *Binary:
		return 1 + max(depth(x.L), depth(x.R))
	case *Not:
		return 1 + depth(x.X)
	case *Between:
		return 1 + max(depth(x.X), depth(x.Lo), depth(x.Hi))
	case *In:
		return 1 + max(depth(x.X), list(x.List))
	case *Is:
		return 1 + depth(x.X)
	case *Call:
		return 1 + list(x.Args)
	}
	return 1
}
