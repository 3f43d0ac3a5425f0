package local

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// The legacy (pre-expression) parameters Expected, AttributeUpdates,
// KeyConditions, QueryFilter and ScanFilter are translated into expressions
// with generated placeholders and compiled by package expr, so both forms
// share one evaluator.

type legacyBuilder struct {
	names  map[string]string
	values map[string]types.AttributeValue
}

func newLegacyBuilder() *legacyBuilder {
	return &legacyBuilder{names: map[string]string{}, values: map[string]types.AttributeValue{}}
}

func (b *legacyBuilder) name(n string) string {
	p := fmt.Sprintf("#l%d", len(b.names))
	b.names[p] = n
	return p
}

func (b *legacyBuilder) value(v types.AttributeValue) string {
	p := fmt.Sprintf(":l%d", len(b.values))
	b.values[p] = v
	return p
}

// sortedKeys gives the legacy maps a deterministic order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// comparison translates one ComparisonOperator condition.
func (b *legacyBuilder) comparison(attr string, op types.ComparisonOperator, vals []types.AttributeValue) (string, error) {
	n := b.name(attr)
	want := func(k int) error {
		if len(vals) != k {
			return validationf("One or more parameter values were invalid: Invalid number of argument(s) for the %s ComparisonOperator", op)
		}
		return nil
	}
	switch op {
	case types.ComparisonOperatorEq, types.ComparisonOperatorNe, types.ComparisonOperatorLe, types.ComparisonOperatorLt,
		types.ComparisonOperatorGe, types.ComparisonOperatorGt:
		if err := want(1); err != nil {
			return "", err
		}
		sym := map[types.ComparisonOperator]string{"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}[op]
		return n + " " + sym + " " + b.value(vals[0]), nil
	case types.ComparisonOperatorNotNull:
		if err := want(0); err != nil {
			return "", err
		}
		return "attribute_exists(" + n + ")", nil
	case types.ComparisonOperatorNull:
		if err := want(0); err != nil {
			return "", err
		}
		return "attribute_not_exists(" + n + ")", nil
	case types.ComparisonOperatorContains:
		if err := want(1); err != nil {
			return "", err
		}
		return "contains(" + n + ", " + b.value(vals[0]) + ")", nil
	case types.ComparisonOperatorNotContains:
		if err := want(1); err != nil {
			return "", err
		}
		return "NOT contains(" + n + ", " + b.value(vals[0]) + ")", nil
	case types.ComparisonOperatorBeginsWith:
		if err := want(1); err != nil {
			return "", err
		}
		return "begins_with(" + n + ", " + b.value(vals[0]) + ")", nil
	case types.ComparisonOperatorBetween:
		if err := want(2); err != nil {
			return "", err
		}
		return n + " BETWEEN " + b.value(vals[0]) + " AND " + b.value(vals[1]), nil
	case types.ComparisonOperatorIn:
		if len(vals) == 0 {
			return "", want(1)
		}
		ps := make([]string, len(vals))
		for i, v := range vals {
			ps[i] = b.value(v)
		}
		return n + " IN (" + strings.Join(ps, ", ") + ")", nil
	}
	return "", validationf("1 validation error detected: Value '%s' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]", op)
}

func joiner(op types.ConditionalOperator) (string, error) {
	switch op {
	case "", types.ConditionalOperatorAnd:
		return " AND ", nil
	case types.ConditionalOperatorOr:
		return " OR ", nil
	}
	return "", validationf("1 validation error detected: Value '%s' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]", op)
}

// legacyExpected compiles the Expected parameter.
func legacyExpected(expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator) (*expr.Condition, error) {
	j, err := joiner(op)
	if err != nil {
		return nil, err
	}
	b := newLegacyBuilder()
	var parts []string
	for _, attr := range sortedKeys(expected) {
		e := expected[attr]
		var s string
		switch {
		case e.ComparisonOperator != "":
			if e.Value != nil || e.Exists != nil {
				return nil, validationf("One or more parameter values were invalid: Value or Exists cannot be used with ComparisonOperator for Attribute: %s", attr)
			}
			if s, err = b.comparison(attr, e.ComparisonOperator, e.AttributeValueList); err != nil {
				return nil, err
			}
		case e.Exists != nil && !*e.Exists:
			if e.Value != nil {
				return nil, validationf("One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: %s", attr)
			}
			s = "attribute_not_exists(" + b.name(attr) + ")"
		default:
			if e.Value == nil {
				return nil, validationf("One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: %s", attr)
			}
			s = b.name(attr) + " = " + b.value(e.Value)
		}
		parts = append(parts, s)
	}
	return b.compileCondition(strings.Join(parts, j), false)
}

// legacyFilter compiles QueryFilter or ScanFilter.
func legacyFilter(filter map[string]types.Condition, op types.ConditionalOperator) (*expr.Condition, error) {
	j, err := joiner(op)
	if err != nil {
		return nil, err
	}
	b := newLegacyBuilder()
	var parts []string
	for _, attr := range sortedKeys(filter) {
		c := filter[attr]
		s, err := b.comparison(attr, c.ComparisonOperator, c.AttributeValueList)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	return b.compileCondition(strings.Join(parts, j), true)
}

func (b *legacyBuilder) compileCondition(s string, filter bool) (*expr.Condition, error) {
	c := expr.NewCompiler(b.names, b.values)
	if filter {
		return c.Filter(s)
	}
	return c.Condition(s)
}

// legacyKeyConditions compiles the KeyConditions parameter of Query.
func legacyKeyConditions(kc map[string]types.Condition) (*expr.KeyCondition, error) {
	b := newLegacyBuilder()
	var parts []string
	for _, attr := range sortedKeys(kc) {
		c := kc[attr]
		switch c.ComparisonOperator {
		case types.ComparisonOperatorEq, types.ComparisonOperatorLe, types.ComparisonOperatorLt, types.ComparisonOperatorGe,
			types.ComparisonOperatorGt, types.ComparisonOperatorBeginsWith, types.ComparisonOperatorBetween:
		default:
			return nil, validationf("Unsupported operator on KeyCondition: %s", c.ComparisonOperator)
		}
		s, err := b.comparison(attr, c.ComparisonOperator, c.AttributeValueList)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	c := expr.NewCompiler(b.names, b.values)
	return c.KeyCondition(strings.Join(parts, " AND "))
}

// legacyAttributeUpdates compiles the AttributeUpdates parameter of
// UpdateItem.
func legacyAttributeUpdates(au map[string]types.AttributeValueUpdate) (*expr.Update, error) {
	b := newLegacyBuilder()
	var set, remove, add, del []string
	for _, attr := range sortedKeys(au) {
		u := au[attr]
		n := b.name(attr)
		switch u.Action {
		case "", types.AttributeActionPut:
			if u.Value == nil {
				return nil, validationf("One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified")
			}
			set = append(set, n+" = "+b.value(u.Value))
		case types.AttributeActionDelete:
			if u.Value == nil {
				remove = append(remove, n)
			} else {
				del = append(del, n+" "+b.value(u.Value))
			}
		case types.AttributeActionAdd:
			if u.Value == nil {
				return nil, validationf("One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified")
			}
			add = append(add, n+" "+b.value(u.Value))
		default:
			return nil, validationf("1 validation error detected: Value '%s' at 'attributeUpdates.%s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]", u.Action, attr)
		}
	}
	var parts []string
	if len(set) > 0 {
		parts = append(parts, "SET "+strings.Join(set, ", "))
	}
	if len(remove) > 0 {
		parts = append(parts, "REMOVE "+strings.Join(remove, ", "))
	}
	if len(add) > 0 {
		parts = append(parts, "ADD "+strings.Join(add, ", "))
	}
	if len(del) > 0 {
		parts = append(parts, "DELETE "+strings.Join(del, ", "))
	}
	c := expr.NewCompiler(b.names, b.values)
	return c.Update(strings.Join(parts, " "))
}
