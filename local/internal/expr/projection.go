package expr

// Projection is a compiled ProjectionExpression (or AttributesToGet).
type Projection struct{}

// Projection compiles a ProjectionExpression.
func (c *Compiler) Projection(s string) (*Projection, error) {
	return nil, errorf("expr: not implemented")
}

// Apply returns a new item holding only the projected parts of item. Values
// are shared with item, not copied. item may be nil; the result is then nil.
func (p *Projection) Apply(item Item) Item {
	return nil
}

// TopLevel returns the top-level attribute names the projection reads, in
// order of first appearance. The caller must not modify the slice.
func (p *Projection) TopLevel() []string {
	return nil
}
