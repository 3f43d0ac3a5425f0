package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exprBuilder writes the expressions of one request and collects their
// ExpressionAttributeNames and ExpressionAttributeValues, so that every
// placeholder it defines is used (unless it plants an unused one on purpose).
type exprBuilder struct {
	g      *Generator
	r      *rand.Rand
	names  map[string]string // placeholder -> attribute name
	byName map[string]string // attribute name -> placeholder
	values map[string]types.AttributeValue
	nv     int
}

func (g *Generator) newExpr() *exprBuilder {
	return &exprBuilder{g: g, r: g.r, names: map[string]string{}, byName: map[string]string{}, values: map[string]types.AttributeValue{}}
}

// plainOK are attribute names that may appear in expressions as they are:
// not reserved words, no special characters.
var plainOK = map[string]bool{"pk": true, "sk": true, "a": true, "b": true, "c": true, "m": true, "lst": true,
	"ss": true, "ns": true, "bs": true, "f": true, "z": true, "bin": true, "g": true, "gn": true, "lk": true,
	"x": true, "y": true}

// name returns how an expression spells attribute name n: as is, or through
// a placeholder. Reserved words ("status") and names with dots always use a
// placeholder, except rarely, to exercise the errors.
func (b *exprBuilder) name(n string) string {
	if plainOK[n] && chance(b.r, 0.5) {
		return n
	}
	if n == "status" && chance(b.r, 0.02) {
		return n // ValidationException: reserved keyword
	}
	if p, ok := b.byName[n]; ok && chance(b.r, 0.8) {
		return p
	}
	p := fmt.Sprintf("#n%d", len(b.names))
	b.names[p] = n
	b.byName[n] = p
	return p
}

// value returns a new value placeholder for v.
func (b *exprBuilder) value(v types.AttributeValue) string {
	p := fmt.Sprintf(":v%d", b.nv)
	b.nv++
	b.values[p] = v
	return p
}

// maps returns the placeholder maps of the request, nil when empty. Rarely
// it adds a placeholder that no expression uses, which DynamoDB refuses.
func (b *exprBuilder) maps() (map[string]string, map[string]types.AttributeValue) {
	if chance(b.r, 0.004) {
		b.names["#unused"] = "a"
	}
	if chance(b.r, 0.004) {
		b.values[":unused"] = nv("1")
	}
	var names map[string]string
	var values map[string]types.AttributeValue
	if len(b.names) > 0 {
		names = b.names
	}
	if len(b.values) > 0 {
		values = b.values
	}
	return names, values
}

// kw spells a keyword, now and then in lower case (keywords are case
// insensitive).
func (b *exprBuilder) kw(k string) string {
	if chance(b.r, 0.1) {
		return strings.ToLower(k)
	}
	return k
}

// condAttrs are the attributes conditions and filters talk about, weighted
// by repetition.
var condAttrs = []string{"a", "a", "a", "b", "b", "c", "m", "m", "lst", "lst", "ss", "ns", "bs", "f", "z",
	"bin", "g", "gn", "lk", "status", "x.y", "nope"}

// path returns a document path: mostly a top-level attribute from attrs,
// sometimes a nested map member or list element. It returns the path and
// the top-level attribute it starts with.
func (b *exprBuilder) path(attrs []string) (string, string) {
	top := pick(b.r, attrs)
	return b.pathAt(top, 0.6), top
}

// pathAt returns a path that starts at attribute top and, with probability
// nest when top is a map or list, goes into it.
func (b *exprBuilder) pathAt(top string, nest float64) string {
	p := b.name(top)
	switch top {
	case "m":
		if chance(b.r, nest) {
			p += "." + b.name(pick(b.r, mapKeys))
			if chance(b.r, 0.15) {
				p += "." + b.name(pick(b.r, mapKeys))
			} else if chance(b.r, 0.1) {
				p += fmt.Sprintf("[%d]", b.r.IntN(3))
			}
		}
	case "lst":
		if chance(b.r, nest) {
			p += fmt.Sprintf("[%d]", b.r.IntN(4))
			if chance(b.r, 0.15) {
				p += "." + b.name(pick(b.r, mapKeys))
			}
		}
	default:
		if chance(b.r, 0.03*nest) { // a path into a scalar: never matches
			p += "." + b.name("x")
		}
	}
	return p
}

// operandValue returns a value to compare with attribute top with = or <>:
// mostly of the type the attribute usually has, so comparisons are true as
// often as false.
func (b *exprBuilder) operandValue(top string) types.AttributeValue {
	if chance(b.r, 0.75) {
		return b.g.attrValue(top)
	}
	return b.g.vg.scalar()
}

// orderedValue returns a value to compare with attribute top with <, <=,
// >, >= or BETWEEN: a string, number or binary, mostly of the type the
// attribute usually has (other types are a ValidationException).
func (b *exprBuilder) orderedValue(top string) types.AttributeValue {
	if chance(b.r, 0.03) {
		return b.g.vg.any(1)
	}
	if chance(b.r, 0.85) {
		switch top {
		case "a", "gn", "ns":
			return nv(pick(b.r, nums))
		case "b", "g", "lk", "status", "x.y", "ss", "pk":
			return sv(pick(b.r, strs))
		case "bin", "bs":
			return bv(pick(b.r, bins))
		case "sk":
			return b.g.attrValue("sk")
		}
	}
	switch b.r.IntN(3) {
	case 0:
		return sv(pick(b.r, strs))
	case 1:
		return nv(pick(b.r, nums))
	default:
		return bv(pick(b.r, bins))
	}
}

var cmpOps = []string{"=", "<>", "<", "<=", ">", ">="}

// cond returns a condition (or filter) expression over attrs, nesting
// logical operators up to depth.
func (b *exprBuilder) cond(attrs []string, depth int) string {
	if depth > 0 && chance(b.r, 0.35) {
		switch b.r.IntN(4) {
		case 0:
			return b.kw("NOT") + " " + b.cond(attrs, depth-1)
		case 1:
			return b.cond(attrs, depth-1) + " " + b.kw("AND") + " " + b.cond(attrs, depth-1)
		case 2:
			return b.cond(attrs, depth-1) + " " + b.kw("OR") + " " + b.cond(attrs, depth-1)
		default:
			return "(" + b.cond(attrs, depth-1) + ")"
		}
	}
	p, top := b.path(attrs)
	switch b.r.IntN(11) {
	case 0:
		return "attribute_exists(" + p + ")"
	case 1:
		return "attribute_not_exists(" + p + ")"
	case 2:
		t := pick(b.r, typeNames)
		if chance(b.r, 0.02) {
			t = "X"
		}
		return "attribute_type(" + p + ", " + b.value(sv(t)) + ")"
	case 3:
		var v types.AttributeValue = sv(pick(b.r, []string{"a", "ab", "x", "", "b", "1"}))
		if chance(b.r, 0.2) {
			v = bv(pick(b.r, bins))
		} else if chance(b.r, 0.03) {
			v = nv("1")
		}
		return "begins_with(" + p + ", " + b.value(v) + ")"
	case 4:
		var v types.AttributeValue
		switch top {
		case "ss", "b", "g", "lk":
			v = sv(pick(b.r, setStrs))
		case "ns":
			v = nv(pick(b.r, setNums))
		case "bs":
			v = bv(pick(b.r, setBins))
		default:
			v = b.g.vg.scalar()
		}
		if chance(b.r, 0.1) {
			q, _ := b.path(attrs)
			return "contains(" + p + ", " + q + ")"
		}
		return "contains(" + p + ", " + b.value(v) + ")"
	case 5:
		return "size(" + p + ") " + pick(b.r, cmpOps) + " " + b.value(nv(fmt.Sprint(b.r.IntN(5))))
	case 6, 7:
		op := pick(b.r, cmpOps)
		v := b.operandValue(top)
		if op != "=" && op != "<>" {
			v = b.orderedValue(top)
		}
		if chance(b.r, 0.1) {
			return b.value(v) + " " + op + " " + p
		}
		return p + " " + op + " " + b.value(v)
	case 8:
		q, _ := b.path(attrs)
		return p + " " + pick(b.r, cmpOps) + " " + q
	case 9:
		lo, hi := b.orderedValue(top), b.orderedValue(top)
		if less(hi, lo) && chance(b.r, 0.8) {
			lo, hi = hi, lo
		}
		return p + " " + b.kw("BETWEEN") + " " + b.value(lo) + " " + b.kw("AND") + " " + b.value(hi)
	default:
		n := 1 + b.r.IntN(4)
		vs := make([]string, n)
		for i := range vs {
			vs[i] = b.value(b.operandValue(top))
		}
		return p + " " + b.kw("IN") + " (" + strings.Join(vs, ", ") + ")"
	}
}

// projAttrs are the attributes projections name.
var projAttrs = []string{"pk", "sk", "a", "b", "c", "m", "lst", "ss", "g", "gn", "lk", "status", "nope"}

// projection returns a projection expression of 1 to 4 paths over attrs
// (projAttrs when nil), on distinct attributes (rarely overlapping ones, an
// error).
func (b *exprBuilder) projection(attrs []string) string {
	if attrs == nil {
		attrs = projAttrs
	}
	n := 1 + b.r.IntN(4)
	var ps []string
	used := map[string]bool{}
	for range n {
		top := pick(b.r, attrs)
		if used[top] && !chance(b.r, 0.03) {
			continue
		}
		used[top] = true
		ps = append(ps, b.pathAt(top, 0.4))
	}
	return strings.Join(ps, ", ")
}

// updAttrs are the attributes updates write; keys rarely (an error).
var updAttrs = []string{"a", "a", "a", "b", "c", "m", "m", "lst", "lst", "ss", "ns", "bs", "f", "z", "bin",
	"g", "gn", "lk", "status", "new"}

// update returns an update expression of 1 to 3 actions on distinct
// top-level attributes (rarely overlapping ones, an error).
func (b *exprBuilder) update() string {
	n := 1 + b.r.IntN(3)
	used := map[string]bool{}
	sections := map[string][]string{}
	for range n {
		var top string
		for try := 0; ; try++ {
			attrs := updAttrs
			if chance(b.r, 0.01) {
				attrs = []string{"pk", "sk"}
			}
			top = pick(b.r, attrs)
			if !used[top] || try > 4 || chance(b.r, 0.02) {
				break
			}
		}
		used[top] = true
		var kind, action string
		if top == "lk" {
			// The LSI sort key, S: only a string or REMOVE. DynamoDB Local's
			// UpdateItem does not check the type of an LSI key attribute
			// (FINDINGS.md, F11) and would store a number there.
			if chance(b.r, 0.7) {
				kind, action = "SET", b.name(top)+" = "+b.value(sv(pick(b.r, lkVals)))
			} else {
				kind, action = "REMOVE", b.name(top)
			}
			sections[kind] = append(sections[kind], action)
			continue
		}
		p := b.pathAt(top, 0.2)
		switch k := b.r.IntN(20); {
		case k < 11:
			kind, action = "SET", p+" = "+b.setValue(p, top)
		case k < 15:
			kind, action = "REMOVE", p
		case k < 18:
			kind, action = "ADD", p+" "+b.value(b.addValue(top))
		default:
			kind, action = "DELETE", p+" "+b.value(b.setOf(top))
		}
		sections[kind] = append(sections[kind], action)
	}
	if len(sections["SET"]) == 0 && len(sections["ADD"]) == 0 {
		// An update that only removes creates no missing item on Amazon
		// DynamoDB, the engine's rule, but a key-only item on DynamoDB
		// Local (docs/compat.md): every update generated also writes.
		for _, a := range []string{"new", "z", "f"} {
			if !used[a] {
				sections["SET"] = append(sections["SET"], b.name(a)+" = "+b.value(b.g.attrValue(a)))
				break
			}
		}
	}
	var out []string
	for _, i := range b.r.Perm(4) {
		kind := []string{"SET", "REMOVE", "ADD", "DELETE"}[i]
		if acts := sections[kind]; len(acts) > 0 {
			out = append(out, b.kw(kind)+" "+strings.Join(acts, ", "))
		}
	}
	return strings.Join(out, " ")
}

// numAttrs are attributes that usually hold numbers, for arithmetic.
var numAttrs = []string{"a", "a", "a", "gn"}

func (b *exprBuilder) numOperand() string {
	switch b.r.IntN(6) {
	case 0:
		return b.pathAt(pick(b.r, numAttrs), 0.3)
	case 1, 2:
		return "if_not_exists(" + b.pathAt(pick(b.r, numAttrs), 0.3) + ", " + b.value(nv(pick(b.r, []string{"0", "1", "-5"}))) + ")"
	}
	return b.value(nv(b.g.vg.num()))
}

// setValue returns the right-hand side of a SET action on path p.
func (b *exprBuilder) setValue(p, top string) string {
	switch b.r.IntN(8) {
	case 0, 1, 2:
		return b.value(b.g.attrValue(top))
	case 3:
		op := pick(b.r, []string{" + ", " - "})
		return b.numOperand() + op + b.numOperand()
	case 4:
		q := p
		if chance(b.r, 0.3) {
			q = b.pathAt(pick(b.r, updAttrs), 0.3)
		}
		if (top == "a" || top == "gn") && chance(b.r, 0.5) {
			ine := "if_not_exists(" + q + ", " + b.value(nv(pick(b.r, []string{"0", "1", "-3"}))) + ")"
			return ine + " " + pick(b.r, []string{"+", "-"}) + " " + b.value(nv(pick(b.r, []string{"1", "-1", "2.5"})))
		}
		return "if_not_exists(" + q + ", " + b.value(b.g.attrValue(top)) + ")"
	case 5:
		var l types.AttributeValue = b.g.vg.list(1)
		if chance(b.r, 0.05) {
			l = b.g.vg.scalar()
		}
		q := b.name("lst")
		if chance(b.r, 0.6) {
			q = "if_not_exists(" + q + ", " + b.value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}}) + ")"
		}
		if chance(b.r, 0.5) {
			return "list_append(" + q + ", " + b.value(l) + ")"
		}
		return "list_append(" + b.value(l) + ", " + q + ")"
	case 6:
		if chance(b.r, 0.8) {
			return "if_not_exists(" + b.pathAt(pick(b.r, updAttrs), 0.3) + ", " + b.value(b.g.attrValue(top)) + ")"
		}
		return b.pathAt(pick(b.r, updAttrs), 0.3)
	default:
		return b.value(b.g.vg.any(2))
	}
}

// addValue returns the operand of ADD on attribute top.
func (b *exprBuilder) addValue(top string) types.AttributeValue {
	if chance(b.r, 0.1) {
		return b.g.vg.any(1)
	}
	switch top {
	case "ss", "b":
		return b.g.vg.ss()
	case "ns":
		return b.g.vg.ns()
	case "bs", "bin":
		return b.g.vg.bs()
	default:
		return nv(b.g.vg.num())
	}
}

// setOf returns the operand of DELETE on attribute top.
func (b *exprBuilder) setOf(top string) types.AttributeValue {
	if chance(b.r, 0.05) {
		return b.g.vg.scalar()
	}
	switch top {
	case "ns", "a", "gn":
		return b.g.vg.ns()
	case "bs", "bin":
		return b.g.vg.bs()
	default:
		return b.g.vg.ss()
	}
}
