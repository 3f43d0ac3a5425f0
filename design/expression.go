package design

import (
	"fmt"
	"strconv"
	"strings"
)

// Expression is an access pattern's key condition ready for a Query or the
// Key of a GetItem: the expression with name and value placeholders, and
// what each stands for.
type Expression struct {
	// KeyCondition is the condition in DynamoDB's syntax, such as
	// "#k0 = :v0 AND #k1 BETWEEN :v1 AND :v2".
	KeyCondition string
	// Names maps each name placeholder (#k0, #k1) to its attribute.
	Names map[string]string
	// Values maps each value placeholder (:v0, :v1, ...) to its value, as
	// text: a string for S keys, the decimal digits for N keys.
	Values map[string]string
	// Key maps each key attribute compared with "=" to its value: the
	// primary key of a GetItem or BatchGetItem.
	Key map[string]string
	// Attrs maps each value placeholder to the key attribute it is
	// compared with, whose type (Table.KeySchema) the value takes.
	Attrs map[string]string
}

// Expression fills the pattern's key condition with values (one for each
// placeholder) and returns it with placeholders for names and values, so
// that the code runs exactly the query the design documents. The partition
// term comes first; the terms of a condition of more than two (on a
// multi-attribute key) come in the order written: Design.Expression puts
// them in key schema order and checks them against it. It fails if the
// pattern has no key condition, the condition does not parse, or a
// placeholder has no value. The maps are the caller's.
func (p *AccessPattern) Expression(values map[string]string) (*Expression, error) {
	if p.Key == "" {
		return nil, fmt.Errorf("design: access pattern %s has no key condition", p.Name)
	}
	kc, err := ParseKeyCondition(p.Key)
	if err != nil {
		return nil, err
	}
	terms := kc.Terms
	if len(terms) <= 2 {
		terms = []Term{kc.Partition}
		if kc.Sort != nil {
			terms = append(terms, *kc.Sort)
		}
	}
	return p.expression(terms, values)
}

// Expression is AccessPattern.Expression for d's access pattern named
// pattern, checked against the key schema of the table or index it reads:
// the terms come in key schema order (the partition key attributes, then
// the sort key attributes), joined by AND. It fails, with ErrKeyCondition,
// if the condition does not fit the key schema: it names an attribute
// that is no key, lacks an equality on a partition key attribute, or its
// sort conditions do not go from the left (equalities, then at most one
// range condition, then nothing), as DynamoDB would refuse it.
func (d *Design) Expression(pattern string, values map[string]string) (*Expression, error) {
	p := d.AccessPattern(pattern)
	if p == nil {
		return nil, fmt.Errorf("design: no access pattern %s", pattern)
	}
	if p.Key == "" {
		return nil, fmt.Errorf("design: access pattern %s has no key condition", p.Name)
	}
	kc, err := ParseKeyCondition(p.Key)
	if err != nil {
		return nil, err
	}
	pks, sks, ok := d.Table.KeySchema(p.Index)
	if !ok {
		return nil, fmt.Errorf("design: access pattern %s: the table has no index %s", p.Name, p.Index)
	}
	part, sort, _, err := schemaTerms(kc, pks, sks, indexWhere(p.Index))
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrKeyCondition, p.Key, err)
	}
	return p.expression(append(part, sort...), values)
}

// expression fills terms with values and joins them by AND.
func (p *AccessPattern) expression(terms []Term, values map[string]string) (*Expression, error) {
	x := &Expression{Names: map[string]string{}, Values: map[string]string{}, Key: map[string]string{}, Attrs: map[string]string{}}
	var parts []string
	for i, t := range terms {
		name := "#k" + strconv.Itoa(i)
		x.Names[name] = t.Attr
		vals := make([]string, len(t.Values))
		for j, tm := range t.Values {
			v, err := tm.Fill(values)
			if err != nil {
				return nil, fmt.Errorf("design: access pattern %s: %w", p.Name, err)
			}
			ph := ":v" + strconv.Itoa(len(x.Values))
			x.Values[ph] = v
			x.Attrs[ph] = t.Attr
			vals[j] = ph
			if t.Op == OpEq {
				x.Key[t.Attr] = v
			}
		}
		switch t.Op {
		case OpBetween:
			parts = append(parts, fmt.Sprintf("%s BETWEEN %s AND %s", name, vals[0], vals[1]))
		case OpBeginsWith:
			parts = append(parts, fmt.Sprintf("begins_with(%s, %s)", name, vals[0]))
		default:
			parts = append(parts, fmt.Sprintf("%s %s %s", name, t.Op, vals[0]))
		}
	}
	x.KeyCondition = strings.Join(parts, " AND ")
	return x, nil
}
