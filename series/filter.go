package series

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Filter is a condition on a field or tag of a reading, for Query.Filter.
// Make one with Field or Tag:
//
//	series.Field("temperature").Gt(30)
//	series.Tag("level").Eq("ERROR")
type Filter struct {
	name   string
	tag    bool
	op     filterOp
	lo, hi float64
	strs   []string
}

type filterOp uint8

const (
	opEq filterOp = iota + 1
	opNe
	opLt
	opLte
	opGt
	opGte
	opBetween
	opExists
	opAbsent
	opIn
	opPrefix
)

// FieldRef names a float field in a Filter.
type FieldRef struct{ name string }

// Field returns a reference to the float field name, to build a Filter.
func Field(name string) FieldRef { return FieldRef{name} }

func (f FieldRef) cmp(op filterOp, lo, hi float64) Filter {
	return Filter{name: f.name, op: op, lo: lo, hi: hi}
}

// Eq keeps readings whose field equals v.
func (f FieldRef) Eq(v float64) Filter { return f.cmp(opEq, v, 0) }

// Ne keeps readings whose field is present and differs from v.
func (f FieldRef) Ne(v float64) Filter { return f.cmp(opNe, v, 0) }

// Lt keeps readings whose field is less than v.
func (f FieldRef) Lt(v float64) Filter { return f.cmp(opLt, v, 0) }

// Lte keeps readings whose field is at most v.
func (f FieldRef) Lte(v float64) Filter { return f.cmp(opLte, v, 0) }

// Gt keeps readings whose field is greater than v.
func (f FieldRef) Gt(v float64) Filter { return f.cmp(opGt, v, 0) }

// Gte keeps readings whose field is at least v.
func (f FieldRef) Gte(v float64) Filter { return f.cmp(opGte, v, 0) }

// Between keeps readings whose field is in [lo, hi].
func (f FieldRef) Between(lo, hi float64) Filter { return f.cmp(opBetween, lo, hi) }

// Exists keeps readings that have the field (not NaN).
func (f FieldRef) Exists() Filter { return f.cmp(opExists, 0, 0) }

// Absent keeps readings that lack the field (NaN).
func (f FieldRef) Absent() Filter { return f.cmp(opAbsent, 0, 0) }

// TagRef names a string tag in a Filter.
type TagRef struct{ name string }

// Tag returns a reference to the tag name, to build a Filter.
func Tag(name string) TagRef { return TagRef{name} }

// Eq keeps readings whose tag is s.
func (t TagRef) Eq(s string) Filter {
	return Filter{name: t.name, tag: true, op: opEq, strs: []string{s}}
}

// Ne keeps readings whose tag is not s.
func (t TagRef) Ne(s string) Filter {
	return Filter{name: t.name, tag: true, op: opNe, strs: []string{s}}
}

// In keeps readings whose tag is one of ss.
func (t TagRef) In(ss ...string) Filter {
	return Filter{name: t.name, tag: true, op: opIn, strs: slices.Clone(ss)}
}

// Prefix keeps readings whose tag starts with p.
func (t TagRef) Prefix(p string) Filter {
	return Filter{name: t.name, tag: true, op: opPrefix, strs: []string{p}}
}

// Exists keeps readings that have the tag (not "").
func (t TagRef) Exists() Filter { return Filter{name: t.name, tag: true, op: opExists} }

// compiled is a Filter resolved against a schema.
type compiled struct {
	Filter
	idx int
}

func (k *Kind) compileFilters(fs []Filter) ([]compiled, error) {
	out := make([]compiled, 0, len(fs))
	for _, f := range fs {
		if f.op == 0 {
			return nil, fmt.Errorf("series: empty filter")
		}
		idx := k.s.FieldIndex(f.name)
		if f.tag {
			idx = k.s.TagIndex(f.name)
		}
		if idx < 0 {
			what := "field"
			if f.tag {
				what = "tag"
			}
			return nil, fmt.Errorf("series: filter on %q: kind %s has no such %s", f.name, k.s.Name, what)
		}
		out = append(out, compiled{Filter: f, idx: idx})
	}
	return out, nil
}

func (it *Iter) match(r *rec) bool {
	for i := range it.filters {
		if !it.filters[i].match(r) {
			return false
		}
	}
	return true
}

func (c *compiled) match(r *rec) bool {
	if c.tag {
		s := ""
		if c.idx < len(r.tags) {
			s = r.tags[c.idx]
		}
		switch c.op {
		case opEq:
			return s == c.strs[0]
		case opNe:
			return s != c.strs[0]
		case opIn:
			return slices.Contains(c.strs, s)
		case opPrefix:
			return strings.HasPrefix(s, c.strs[0])
		case opExists:
			return s != ""
		}
		return false
	}
	v := math.NaN()
	if c.idx < len(r.vals) {
		v = r.vals[c.idx]
	}
	if c.op == opAbsent {
		return math.IsNaN(v)
	}
	if math.IsNaN(v) {
		return false
	}
	switch c.op {
	case opEq:
		return v == c.lo
	case opNe:
		return v != c.lo
	case opLt:
		return v < c.lo
	case opLte:
		return v <= c.lo
	case opGt:
		return v > c.lo
	case opGte:
		return v >= c.lo
	case opBetween:
		return v >= c.lo && v <= c.hi
	case opExists:
		return true
	}
	return false
}
