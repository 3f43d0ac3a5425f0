package expr

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

// The legacy (pre-expression) parameters are converted into the same
// compiled forms as expressions: Expected and QueryFilter/ScanFilter into a
// Condition, KeyConditions into a KeyCondition, AttributeUpdates into an
// Update, AttributesToGet into a Projection. Attribute names in them are
// literal: no placeholders, no reserved words. Mixing them with expressions
// in one request is an error the caller reports.

const msgInvalid = "One or more parameter values were invalid: "

// legacyArgs describes the operands a legacy ComparisonOperator takes: the
// number (-1: one or more) and whether each must be a scalar (S, N, B) or,
// for BEGINS_WITH, a string or binary.
var legacyArgs = map[types.ComparisonOperator]struct {
	n      int
	scalar bool
}{
	types.ComparisonOperatorEq: {1, false}, types.ComparisonOperatorNe: {1, false},
	types.ComparisonOperatorLt: {1, true}, types.ComparisonOperatorLe: {1, true},
	types.ComparisonOperatorGt: {1, true}, types.ComparisonOperatorGe: {1, true},
	types.ComparisonOperatorContains: {1, true}, types.ComparisonOperatorNotContains: {1, true},
	types.ComparisonOperatorBeginsWith: {1, true}, types.ComparisonOperatorIn: {-1, true},
	types.ComparisonOperatorBetween: {2, true}, types.ComparisonOperatorNull: {0, false},
	types.ComparisonOperatorNotNull: {0, false},
}

// legacyCompare are the legacy ComparisonOperators that are comparisons,
// with the comparison each stands for.
var legacyCompare = map[types.ComparisonOperator]tokKind{
	types.ComparisonOperatorEq: tEQ, types.ComparisonOperatorNe: tNE,
	types.ComparisonOperatorLt: tLT, types.ComparisonOperatorLe: tLE,
	types.ComparisonOperatorGt: tGT, types.ComparisonOperatorGe: tGE,
}

// legacyCond converts one legacy condition on attribute name.
func legacyCond(name string, op types.ComparisonOperator, list []types.AttributeValue) (*cond, error) {
	spec, ok := legacyArgs[op]
	if !ok {
		return nil, errorf("Comparison type does not exist in DynamoDB")
	}
	if spec.n >= 0 && len(list) != spec.n || spec.n < 0 && len(list) == 0 {
		return nil, errorf(msgInvalid+"Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	for _, v := range list {
		if p := ValidateValue(v); p != "" {
			return nil, errorf("%s", p)
		}
	}
	for _, v := range list {
		t := value.TypeOf(v)
		bad := spec.scalar && t != value.S && t != value.N && t != value.B
		if op == types.ComparisonOperatorBeginsWith && t == value.N {
			bad = true
		}
		if bad {
			return nil, errorf(msgInvalid+"ComparisonOperator %s is not valid for %s AttributeValue type", op, t)
		}
	}
	if op == types.ComparisonOperatorIn {
		for _, v := range list[1:] {
			if value.TypeOf(v) != value.TypeOf(list[0]) {
				return nil, errorf(msgInvalid + "AttributeValues inside AttributeValueList must be of same type")
			}
		}
	}
	if op == types.ComparisonOperatorBetween {
		if value.TypeOf(list[0]) != value.TypeOf(list[1]) {
			return nil, errorf(msgInvalid + "AttributeValues inside AttributeValueList must be of same type")
		}
		if c, _ := compareVals(val{av: list[0]}, val{av: list[1]}); c > 0 {
			return nil, errorf("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	attr := operand{kind: oPath, path: path{{name: name, index: -1}}}
	args := []operand{attr}
	for _, v := range list {
		args = append(args, operand{kind: oValue, val: v})
	}
	if k, ok := legacyCompare[op]; ok {
		return &cond{op: cCompare, cmp: k, args: args}, nil
	}
	switch op {
	case types.ComparisonOperatorContains:
		return &cond{op: cContains, args: args}, nil
	case types.ComparisonOperatorNotContains:
		// Unlike NOT contains(), NOT_CONTAINS is false for an absent attribute.
		return &cond{op: cAnd, kids: []*cond{
			{op: cExists, args: args[:1]},
			{op: cNot, kids: []*cond{{op: cContains, args: args}}},
		}}, nil
	case types.ComparisonOperatorBeginsWith:
		return &cond{op: cBeginsWith, args: args}, nil
	case types.ComparisonOperatorIn:
		return &cond{op: cIn, args: args}, nil
	case types.ComparisonOperatorBetween:
		return &cond{op: cBetween, args: args}, nil
	case types.ComparisonOperatorNull:
		return &cond{op: cNotExists, args: args}, nil
	}
	return &cond{op: cExists, args: args}, nil
}

// combine joins conditions with the ConditionalOperator (AND when empty).
func combine(conds []*cond, op types.ConditionalOperator) (*Condition, error) {
	if op != "" && op != types.ConditionalOperatorAnd && op != types.ConditionalOperatorOr {
		return nil, errorf("1 validation error detected: Value '%s' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]", op)
	}
	if len(conds) == 0 {
		if op != "" {
			return nil, errorf("ConditionalOperator cannot be used without Filter or Expected")
		}
		return newCondition(&cond{op: cTrue}), nil
	}
	if len(conds) == 1 && op != "" {
		return nil, errorf("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	kind := cAnd
	if op == types.ConditionalOperatorOr {
		kind = cOr
	}
	root := conds[0]
	for _, c := range conds[1:] {
		root = &cond{op: kind, kids: []*cond{root, c}}
	}
	return newCondition(root), nil
}

// Expected converts the legacy Expected parameter of PutItem, UpdateItem
// and DeleteItem, joined by ConditionalOperator op ("" means AND), into a
// Condition, with DynamoDB's validation errors.
func Expected(expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator) (*Condition, error) {
	var conds []*cond
	for _, name := range javaOrder(keysOf(expected), len(expected)) {
		e := expected[name]
		var c *cond
		var err error
		switch {
		case e.Value != nil && len(e.AttributeValueList) > 0:
			return nil, errorf(msgInvalid+"Value and AttributeValueList cannot be used together for Attribute: %s", name)
		case e.Exists != nil && e.ComparisonOperator != "":
			return nil, errorf(msgInvalid+"Exists and ComparisonOperator cannot be used together for Attribute: %s", name)
		case e.ComparisonOperator != "":
			list := e.AttributeValueList
			if e.Value != nil {
				list = []types.AttributeValue{e.Value}
			}
			// A missing list is worded apart from an empty one, and
			// before an unknown operator, as DynamoDB Local does.
			if spec, ok := legacyArgs[e.ComparisonOperator]; (!ok || spec.n != 0) && list == nil {
				return nil, errorf(msgInvalid+"Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", e.ComparisonOperator, name)
			}
			c, err = legacyCond(name, e.ComparisonOperator, list)
		case e.Exists != nil && !*e.Exists:
			if e.Value != nil {
				return nil, errorf(msgInvalid+"Value cannot be used when Exists is false for Attribute: %s", name)
			}
			c, err = legacyCond(name, types.ComparisonOperatorNull, nil)
		default:
			if e.Value == nil {
				state := "null"
				if e.Exists != nil {
					state = "true"
				}
				return nil, errorf(msgInvalid+"Value must be provided when Exists is %s for Attribute: %s", state, name)
			}
			c, err = legacyCond(name, types.ComparisonOperatorEq, []types.AttributeValue{e.Value})
		}
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return combine(conds, op)
}

// LegacyFilter converts a QueryFilter or ScanFilter, joined by
// ConditionalOperator op ("" means AND), into a Condition.
func LegacyFilter(filter map[string]types.Condition, op types.ConditionalOperator) (*Condition, error) {
	var conds []*cond
	for _, name := range javaOrder(keysOf(filter), len(filter)) {
		f := filter[name]
		c, err := legacyCond(name, f.ComparisonOperator, f.AttributeValueList)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return combine(conds, op)
}

// legacyKeyOps are the legacy ComparisonOperators a key condition can use,
// with the RangeOp each stands for.
var legacyKeyOps = map[types.ComparisonOperator]RangeOp{
	types.ComparisonOperatorEq: EQ, types.ComparisonOperatorLt: LT, types.ComparisonOperatorLe: LE,
	types.ComparisonOperatorGt: GT, types.ComparisonOperatorGe: GE,
	types.ComparisonOperatorBetween: Between, types.ComparisonOperatorBeginsWith: BeginsWith,
}

// KeyConditions converts the legacy KeyConditions parameter of Query into a
// KeyCondition; Resolve makes the checks that need the key schema.
func KeyConditions(conds map[string]types.Condition) (*KeyCondition, error) {
	k := &KeyCondition{legacy: []keyTerm{}}
	if len(conds) == 0 {
		k.err = errorf("Conditions must be at least length 1")
		return k, nil
	}
	for _, name := range javaOrder(keysOf(conds), len(conds)) {
		c := conds[name]
		if _, err := legacyCond(name, c.ComparisonOperator, c.AttributeValueList); err != nil {
			return nil, err
		}
		t := keyTerm{attr: name, values: c.AttributeValueList}
		op, ok := legacyKeyOps[c.ComparisonOperator]
		switch {
		case ok:
			t.op = op
		case c.ComparisonOperator == types.ComparisonOperatorNull, c.ComparisonOperator == types.ComparisonOperatorNotNull:
			t.op, t.unusable = -1, "Only scalar types can be used as Hash Key values"
		default:
			t.op = -1
		}
		k.legacy = append(k.legacy, t)
	}
	return k, nil
}

// AttributeUpdates converts the legacy AttributeUpdates parameter of
// UpdateItem into an Update. Its runtime type errors read "Type mismatch
// for attribute to update", as DynamoDB's do for this parameter. An empty
// Action means PUT, as DynamoDB documents (DynamoDB Local ignores such
// updates).
func AttributeUpdates(updates map[string]types.AttributeValueUpdate) (*Update, error) {
	u := &Update{legacy: true}
	for _, name := range javaOrder(keysOf(updates), len(updates)) {
		au := updates[name]
		p := path{{name: name, index: -1}}
		switch au.Action {
		case "", types.AttributeActionPut, types.AttributeActionAdd, types.AttributeActionDelete:
		default:
			return nil, errorf("1 validation error detected: Value '%s' at 'attributeUpdates.%s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, DELETE, PUT]", au.Action, name)
		}
		if au.Value == nil {
			if au.Action != types.AttributeActionDelete {
				return nil, errorf(msgInvalid + "Only DELETE action is allowed when no attribute value is specified")
			}
			u.actions = append(u.actions, uaction{kind: tRemove, path: p})
			continue
		}
		if pr := ValidateValue(au.Value); pr != "" {
			return nil, errorf("%s", pr)
		}
		t := value.TypeOf(au.Value)
		switch au.Action {
		case "", types.AttributeActionPut:
			u.actions = append(u.actions, uaction{kind: tSet, path: p, val: &uexpr{kind: uValue, val: au.Value}})
		case types.AttributeActionAdd:
			switch t {
			case value.N, value.SS, value.NS, value.BS, value.L:
			default:
				return nil, errorf(msgInvalid+"ADD action is not supported for the type %s", t.LongName())
			}
			u.actions = append(u.actions, uaction{kind: tAdd, path: p, arg: au.Value})
		default:
			switch t {
			case value.SS, value.NS, value.BS:
			default:
				return nil, errorf(msgInvalid+"DELETE action with value is not supported for the type %s", t.LongName())
			}
			u.actions = append(u.actions, uaction{kind: tDelete, path: p, arg: au.Value})
		}
	}
	u.setTop()
	return u, nil
}
