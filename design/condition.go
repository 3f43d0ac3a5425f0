package design

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrKeyCondition reports a key condition template that cannot be parsed or
// that DynamoDB would refuse.
var ErrKeyCondition = errors.New("design: invalid key condition")

// The operators of a Term.
const (
	OpEq         = "="
	OpLt         = "<"
	OpLe         = "<="
	OpGt         = ">"
	OpGe         = ">="
	OpBetween    = "BETWEEN"
	OpBeginsWith = "begins_with"
)

// Term is one comparison of a key condition: an attribute, an operator (one
// of the Op constants) and one value, or two for BETWEEN.
type Term struct {
	Attr   string
	Op     string
	Values []Template
}

// String returns the term in key condition syntax. A term with fewer
// values than its operator takes shows them as "?".
func (t Term) String() string {
	v := func(i int) Template {
		if i < len(t.Values) {
			return t.Values[i]
		}
		return "?"
	}
	switch t.Op {
	case OpBetween:
		return fmt.Sprintf("%s BETWEEN %s AND %s", t.Attr, v(0), v(1))
	case OpBeginsWith:
		return fmt.Sprintf("begins_with(%s, %s)", t.Attr, v(0))
	}
	return fmt.Sprintf("%s %s %s", t.Attr, t.Op, v(0))
}

// KeyCondition is a parsed key condition template: an equality on the
// partition key and at most one condition on the sort key or, on an index
// with a multi-attribute key, an equality on each partition key attribute
// and conditions on sort key attributes.
type KeyCondition struct {
	// Partition is the equality on the partition key: of two terms, the
	// first equality; of more, the first term that is an equality. Only the
	// key schema tells which terms of a longer condition are on the
	// partition key (Table.KeySchema).
	Partition Term
	// Sort is the other term of a condition of two terms, nil for one term
	// or for more than two.
	Sort *Term
	// Terms are all the terms, in the order written.
	Terms []Term
}

// String returns the condition in key condition syntax: the partition
// term first, or the terms of a longer condition in the order written.
func (k *KeyCondition) String() string {
	if len(k.Terms) > 2 {
		parts := make([]string, len(k.Terms))
		for i, t := range k.Terms {
			parts[i] = t.String()
		}
		return strings.Join(parts, " AND ")
	}
	if k.Sort == nil {
		return k.Partition.String()
	}
	return k.Partition.String() + " AND " + k.Sort.String()
}

// maxTerms is the most terms a key condition can have: one for each of
// four partition and four sort key attributes.
const maxTerms = 8

// ParseKeyCondition parses a key condition template (see
// AccessPattern.Key). The partition term is the equality: with two
// equalities it is the first one. A condition on a multi-attribute key has
// up to eight terms (see Index.MorePartitionKeys), at least one of them an
// equality; whether they fit the key schema is Validate's and
// Design.Expression's to check. Values are templates; they must not contain
// spaces, parentheses or commas. IN, OR, NOT, <> and functions other than
// begins_with are refused with the reason, as DynamoDB refuses them in a
// KeyConditionExpression. Two conditions on one attribute are refused.
func ParseKeyCondition(s string) (*KeyCondition, error) {
	toks := lexCondition(s)
	p := &condParser{src: s, toks: toks}
	var terms []Term
	for {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
		if p.done() {
			break
		}
		tok := p.next()
		if !strings.EqualFold(tok, "AND") {
			if strings.EqualFold(tok, "OR") {
				return nil, p.errorf("OR is not allowed in a key condition")
			}
			return nil, p.errorf("expected AND, found %q", tok)
		}
	}
	switch len(terms) {
	case 1:
		if terms[0].Op != OpEq {
			return nil, p.errorf("the partition key needs an equality (=), found %s", terms[0])
		}
		return &KeyCondition{Partition: terms[0], Terms: terms}, nil
	case 2:
		a, b := terms[0], terms[1]
		if a.Op != OpEq {
			a, b = b, a
		}
		if a.Op != OpEq {
			return nil, p.errorf("the partition key needs an equality (=); neither %s nor %s is one", terms[0], terms[1])
		}
		if a.Attr == b.Attr {
			return nil, p.errorf("two conditions on %s", a.Attr)
		}
		return &KeyCondition{Partition: a, Sort: &b, Terms: terms}, nil
	}
	if len(terms) > maxTerms {
		return nil, p.errorf("a key condition has at most %d terms (four partition and four sort key attributes), found %d", maxTerms, len(terms))
	}
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t.Attr] {
			return nil, p.errorf("two conditions on %s", t.Attr)
		}
		seen[t.Attr] = true
	}
	i := slices.IndexFunc(terms, func(t Term) bool { return t.Op == OpEq })
	if i < 0 {
		return nil, p.errorf("the partition key needs an equality (=); no term of %d is one", len(terms))
	}
	return &KeyCondition{Partition: terms[i], Terms: terms}, nil
}

// lexCondition splits s into words and the punctuation ( ) , = < > <= >= <>.
func lexCondition(s string) []string {
	var toks []string
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == ',':
			toks = append(toks, s[i:i+1])
			i++
		case c == '<' || c == '>' || c == '=':
			j := i + 1
			if j < len(s) && (s[j] == '=' || c == '<' && s[j] == '>') {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r(),<>=", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

type condParser struct {
	src  string
	toks []string
	i    int
}

func (p *condParser) done() bool { return p.i >= len(p.toks) }

func (p *condParser) next() string {
	if p.done() {
		return ""
	}
	t := p.toks[p.i]
	p.i++
	return t
}

func (p *condParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrKeyCondition, p.src, fmt.Sprintf(format, args...))
}

func (p *condParser) expect(want string) error {
	if got := p.next(); got != want {
		if got == "" {
			return p.errorf("expected %q at the end", want)
		}
		return p.errorf("expected %q, found %q", want, got)
	}
	return nil
}

// value reads a template value.
func (p *condParser) value() (Template, error) {
	tok := p.next()
	switch {
	case tok == "":
		return "", p.errorf("missing value at the end")
	case strings.ContainsAny(tok, "(),<>=") || isKeyword(tok):
		return "", p.errorf("expected a value, found %q", tok)
	}
	t := Template(tok)
	if err := t.Check(); err != nil {
		return "", fmt.Errorf("%w %q: %w", ErrKeyCondition, p.src, err)
	}
	return t, nil
}

func isKeyword(s string) bool {
	for _, k := range []string{"AND", "OR", "NOT", "BETWEEN", "IN"} {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

// name reads an attribute name.
func (p *condParser) name() (string, error) {
	tok := p.next()
	if tok == "" {
		return "", p.errorf("missing attribute name at the end")
	}
	if strings.ContainsAny(tok, "(),<>={}") || isKeyword(tok) {
		return "", p.errorf("expected an attribute name, found %q", tok)
	}
	return tok, nil
}

func (p *condParser) term() (Term, error) {
	if p.done() {
		return Term{}, p.errorf("empty condition")
	}
	first := p.toks[p.i]
	if strings.EqualFold(first, "NOT") {
		return Term{}, p.errorf("NOT is not allowed in a key condition")
	}
	if p.i+1 < len(p.toks) && p.toks[p.i+1] == "(" {
		p.i += 2
		if first != OpBeginsWith {
			return Term{}, p.errorf("%s() is not allowed in a key condition; the only function is begins_with", first)
		}
		attr, err := p.name()
		if err != nil {
			return Term{}, err
		}
		if err := p.expect(","); err != nil {
			return Term{}, err
		}
		v, err := p.value()
		if err != nil {
			return Term{}, err
		}
		if err := p.expect(")"); err != nil {
			return Term{}, err
		}
		return Term{Attr: attr, Op: OpBeginsWith, Values: []Template{v}}, nil
	}
	attr, err := p.name()
	if err != nil {
		return Term{}, err
	}
	op := p.next()
	switch {
	case op == OpEq || op == OpLt || op == OpLe || op == OpGt || op == OpGe:
		v, err := p.value()
		if err != nil {
			return Term{}, err
		}
		return Term{Attr: attr, Op: op, Values: []Template{v}}, nil
	case strings.EqualFold(op, OpBetween):
		lo, err := p.value()
		if err != nil {
			return Term{}, err
		}
		if and := p.next(); !strings.EqualFold(and, "AND") {
			return Term{}, p.errorf("expected AND in BETWEEN, found %q", and)
		}
		hi, err := p.value()
		if err != nil {
			return Term{}, err
		}
		return Term{Attr: attr, Op: OpBetween, Values: []Template{lo, hi}}, nil
	case strings.EqualFold(op, "IN"):
		return Term{}, p.errorf("IN is not allowed in a key condition: read a set of sort keys with BETWEEN or begins_with, or with BatchGetItem")
	case op == "<>":
		return Term{}, p.errorf("<> is not allowed in a key condition")
	case op == "":
		return Term{}, p.errorf("missing operator after %s", attr)
	}
	return Term{}, p.errorf("unknown operator %q after %s", op, attr)
}
