package expr

// Update is a compiled UpdateExpression (or AttributeUpdates).
type Update struct{}

// Update compiles an UpdateExpression.
func (c *Compiler) Update(s string) (*Update, error) {
	return nil, errorf("expr: not implemented")
}

// Apply applies the update to item (nil when the item does not exist) and
// returns the new item. item itself is not modified; unchanged values are
// shared between item and the result. Runtime errors are *Error with
// DynamoDB's message.
func (u *Update) Apply(item Item) (Item, error) {
	return nil, errorf("expr: not implemented")
}

// TopLevel returns the top-level attribute names the update writes or
// removes, in order of first appearance. The caller must not modify the slice.
func (u *Update) TopLevel() []string {
	return nil
}
