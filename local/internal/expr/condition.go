package expr

// Condition is a compiled ConditionExpression or FilterExpression. It is
// immutable and safe for concurrent use.
type Condition struct {
	root *cond
}

type cond struct{}

// Condition compiles a ConditionExpression.
func (c *Compiler) Condition(s string) (*Condition, error) {
	return nil, errorf("expr: not implemented")
}

// Filter compiles a FilterExpression; it differs from Condition only in the
// messages of its errors.
func (c *Compiler) Filter(s string) (*Condition, error) {
	return nil, errorf("expr: not implemented")
}

// Eval reports whether item satisfies the condition. item may be nil, meaning
// the item does not exist. Eval does not modify item.
func (c *Condition) Eval(item Item) bool {
	return false
}
