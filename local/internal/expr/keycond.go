package expr

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// RangeOp is the condition a key condition puts on the range key.
type RangeOp int

// Range key conditions.
const (
	None       RangeOp = iota // no condition on the range key
	EQ                        // sk = v
	LT                        // sk < v
	LE                        // sk <= v
	GT                        // sk > v
	GE                        // sk >= v
	Between                   // sk BETWEEN v0 AND v1
	BeginsWith                // begins_with(sk, v)
)

var rangeOpNames = [...]string{"None", "EQ", "LT", "LE", "GT", "GE", "BETWEEN", "BEGINS_WITH"}

func (o RangeOp) String() string {
	if o < 0 || int(o) >= len(rangeOpNames) {
		return "RangeOp(?)"
	}
	return rangeOpNames[o]
}

// KeyCondition is a compiled KeyConditionExpression (or legacy
// KeyConditions), not yet checked against a key schema. It is immutable and
// safe for concurrent use.
type KeyCondition struct {
	root *cond
	// legacy conditions, already split by attribute.
	legacy []keyTerm
	// err is a structural error found when the legacy form was converted.
	err error
	// nested: see Nested.
	nested []string
}

// KeyRange is a key condition resolved against a key schema: the partition
// key's value and the condition on the sort key. Values holds one value for
// EQ, LT, LE, GT, GE and BeginsWith, two for Between and none for None.
// The values are shared with the request.
//
// For a key schema with multi-attribute keys (ResolveMulti), HashValues
// holds the value of each partition key attribute in key schema order,
// Prefix the values of the leading sort key attributes that the condition
// fixes by equality, and Op and Values the condition on the sort key
// attribute after them (None when there is none). Resolve sets HashValues
// to the one HashValue and leaves Prefix empty.
type KeyRange struct {
	HashValue  types.AttributeValue
	Op         RangeOp
	Values     []types.AttributeValue
	HashValues []types.AttributeValue
	Prefix     []types.AttributeValue
}

// keyTerm is one condition of a key condition: attr op values.
type keyTerm struct {
	attr   string
	op     RangeOp // -1: a legacy operator no key can use
	values []types.AttributeValue
	// unusable is the error for a legacy operator the hash key cannot use
	// ("" when the generic one applies).
	unusable string
}

// KeyCondition compiles a KeyConditionExpression. Checks that need the key
// schema are made by Resolve.
func (c *Compiler) KeyCondition(s string) (*KeyCondition, error) {
	root, err := c.parseCondition(kindKey, s)
	if err != nil {
		return nil, err
	}
	return &KeyCondition{root: root, nested: root.nestedNames(nil)}, nil
}

// Nested returns the top-level attribute names of the nested document
// paths (a.b, a[0]) the key condition uses, in order of first appearance,
// or nil (see Condition.Nested). Nested paths into key attributes are the
// caller's to refuse, before Resolve; Resolve refuses the others ("cannot
// have conditions on nested attributes"). The caller must not modify the
// slice.
func (k *KeyCondition) Nested() []string {
	return k.nested
}

var keyOpNames = map[cop]string{cOr: "OR", cNot: "NOT", cIn: "IN", cExists: "attribute_exists",
	cNotExists: "attribute_not_exists", cType: "attribute_type", cContains: "contains"}

// Resolve checks the key condition against the key schema of the table or
// index queried (rangeKey is "" when it has none) and returns the range to
// read, with DynamoDB's errors for conditions it cannot serve. It does not
// check the types of the values against the attribute definitions ("One or
// more parameter values were invalid: Condition parameter type does not
// match schema type"); the caller does, on the returned values.
func (k *KeyCondition) Resolve(hashKey, rangeKey string) (*KeyRange, error) {
	terms, err := k.terms()
	if err != nil {
		return nil, err
	}
	if len(terms) > 2 {
		return nil, errorf("Conditions can be of length 1 or 2 only")
	}
	r := &KeyRange{}
	var hash, rng *keyTerm
	for i := range terms {
		switch terms[i].attr {
		case hashKey:
			hash = &terms[i]
		case rangeKey:
			if rangeKey != "" {
				rng = &terms[i]
			}
		}
	}
	if hash == nil || (len(terms) == 2 && rng == nil) {
		if hash != nil && rangeKey == "" {
			return nil, errorf("Query key condition not supported")
		}
		return nil, errorf("Query condition missed key schema element")
	}
	if hash.op != EQ {
		if hash.unusable != "" {
			return nil, errorf("%s", hash.unusable)
		}
		return nil, errorf("Query key condition not supported")
	}
	r.HashValue = hash.values[0]
	r.HashValues = []types.AttributeValue{r.HashValue}
	if rng != nil {
		if rng.op < 0 {
			if rng.unusable != "" {
				// NULL and NOT_NULL, which DynamoDB words as for a
				// hash key (see KeyConditions).
				return nil, errorf("Only scalar types can be used as Range Key values")
			}
			return nil, errorf("Attempted conditional constraint is not an indexable operation")
		}
		r.Op = rng.op
		r.Values = rng.values
	}
	return r, nil
}

// checkKeyOps rejects operators a key condition cannot use.
func checkKeyOps(c *cond) error {
	switch c.op {
	case cAnd:
		if err := checkKeyOps(c.kids[0]); err != nil {
			return err
		}
		return checkKeyOps(c.kids[1])
	case cCompare:
		if c.cmp == tNE {
			return errorf("Invalid operator used in KeyConditionExpression: <>")
		}
	case cBetween, cBeginsWith:
	default:
		return errorf("Invalid operator used in KeyConditionExpression: %s", keyOpNames[c.op])
	}
	return nil
}

// keyTerms flattens the ANDs of a key condition into terms.
func keyTerms(c *cond, terms []keyTerm) ([]keyTerm, error) {
	if c.op == cAnd {
		terms, err := keyTerms(c.kids[0], terms)
		if err != nil {
			return nil, err
		}
		return keyTerms(c.kids[1], terms)
	}
	switch c.op {
	case cBetween, cBeginsWith:
		if c.args[0].kind != oPath && c.args[0].kind != oSize {
			name := "BETWEEN"
			if c.op == cBeginsWith {
				name = "begins_with"
			}
			return nil, errorf("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand", name)
		}
	}
	for i := range c.args {
		if c.args[i].kind == oSize {
			return nil, errorf("KeyConditionExpressions cannot contain nested operations")
		}
	}
	for i := range c.args {
		if c.args[i].kind == oPath && len(c.args[i].path) > 1 {
			return nil, errorf("KeyConditionExpressions cannot have conditions on nested attributes")
		}
	}
	var attr *operand
	var values []types.AttributeValue
	for i := range c.args {
		a := &c.args[i]
		switch a.kind {
		case oPath:
			if attr != nil {
				return nil, errorf("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
			}
			attr = a
		default:
			values = append(values, a.val)
		}
	}
	if attr == nil {
		return nil, errorf("Invalid condition in KeyConditionExpression: No key attribute specified")
	}
	t := keyTerm{attr: attr.path[0].name, values: values}
	switch c.op {
	case cBetween:
		t.op = Between
	case cBeginsWith:
		t.op = BeginsWith
	default:
		flip := c.args[0].kind != oPath // ":v < sk" is "sk > :v"
		switch c.cmp {
		case tEQ:
			t.op = EQ
		case tLT:
			t.op = pick(flip, GT, LT)
		case tLE:
			t.op = pick(flip, GE, LE)
		case tGT:
			t.op = pick(flip, LT, GT)
		case tGE:
			t.op = pick(flip, LE, GE)
		}
	}
	return append(terms, t), nil
}

func pick(flip bool, a, b RangeOp) RangeOp {
	if flip {
		return a
	}
	return b
}

// terms returns the conditions of k, one per attribute, with DynamoDB's
// errors for operators no key condition can use and for two conditions on
// one attribute.
func (k *KeyCondition) terms() ([]keyTerm, error) {
	terms := k.legacy
	if k.err != nil {
		return nil, k.err
	}
	if k.root != nil {
		if err := checkKeyOps(k.root); err != nil {
			return nil, err
		}
		var err error
		terms, err = keyTerms(k.root, nil)
		if err != nil {
			return nil, err
		}
	}
	for i := range terms {
		for j := 0; j < i; j++ {
			if terms[i].attr == terms[j].attr {
				return nil, errorf("KeyConditionExpressions must only contain one condition per key")
			}
		}
	}
	return terms, nil
}

// ResolveMulti checks the key condition against the key schema of a global
// secondary index with multi-attribute keys: hashKeys are its partition key
// attributes and rangeKeys its sort key attributes, each in key schema
// order. DynamoDB's rules for such keys: no more conditions than key
// attributes; every partition attribute has an equality condition; sort
// attributes are used left to right, each before the last one used with an
// equality condition, the last with any sort key condition (=, <, <=, >,
// >=, BETWEEN, begins_with); no other attribute.
// The errors and their order are DynamoDB Local's. As with Resolve, the
// values' types are the caller's to check.
func (k *KeyCondition) ResolveMulti(hashKeys, rangeKeys []string) (*KeyRange, error) {
	terms, err := k.terms()
	if err != nil {
		return nil, err
	}
	if len(terms) > len(hashKeys)+len(rangeKeys) {
		return nil, errorf("Query key condition not supported")
	}
	find := func(name string) *keyTerm {
		for i := range terms {
			if terms[i].attr == name {
				return &terms[i]
			}
		}
		return nil
	}
	r := &KeyRange{}
	var missing []string
	for _, h := range hashKeys {
		t := find(h)
		if t == nil || t.op != EQ {
			missing = append(missing, h)
			continue
		}
		r.HashValues = append(r.HashValues, t.values[0])
	}
	if len(missing) > 0 {
		return nil, errorf("HASH key attributes %s must have equality conditions specified in the query", strings.Join(missing, ", "))
	}
	r.HashValue = r.HashValues[0]
	rangeErr := func(missing []string, at string) error {
		return errorf("RANGE key attributes %s must have equality conditions specified in the query because a condition is present on key attribute %s", strings.Join(missing, ", "), at)
	}
	// First the gaps: the first sort attribute with a condition after
	// some without one, naming those; then the last with a condition,
	// naming those before it whose condition is not an equality.
	last := -1
	for i, a := range rangeKeys {
		if find(a) == nil {
			missing = append(missing, a)
			continue
		}
		if len(missing) > 0 {
			return nil, rangeErr(missing, a)
		}
		last = i
	}
	missing = nil
	for _, a := range rangeKeys[:max(last, 0)] {
		if find(a).op != EQ {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		return nil, rangeErr(missing, rangeKeys[last])
	}
	if len(terms) != len(hashKeys)+last+1 {
		return nil, errorf("Query condition missed key schema element")
	}
	if last < 0 {
		return r, nil
	}
	for _, a := range rangeKeys[:last] {
		r.Prefix = append(r.Prefix, find(a).values[0])
	}
	t := find(rangeKeys[last])
	if t.op < 0 {
		return nil, errorf("Attempted conditional constraint is not an indexable operation")
	}
	r.Op, r.Values = t.op, t.values
	return r, nil
}
