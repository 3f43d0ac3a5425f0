package expr

import (
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Projection is a compiled ProjectionExpression (or AttributesToGet). It is
// immutable and safe for concurrent use.
type Projection struct {
	paths  []path
	top    []string
	nested []string
	root   *projNode
}

// projNode is a node of the tree of projected paths. A leaf takes the whole
// value; otherwise names (for maps) or indexes (for lists, sorted) select
// parts of it. Overlap checks guarantee a node is never both.
type projNode struct {
	leaf    bool
	names   map[string]*projNode
	indexes []int
	byIndex map[int]*projNode
}

// Projection compiles a ProjectionExpression.
func (c *Compiler) Projection(s string) (*Projection, error) {
	var nodes []*node
	p, err := c.begin(kindProjection, s, func(p *parser) {
		nodes = p.parseProjection()
	}, nil)
	if err != nil {
		return nil, err
	}
	k := &checker{c: c, p: p, kind: kindProjection}
	paths, err := k.treePaths(nodes)
	if err != nil {
		return nil, err
	}
	return newProjection(paths), nil
}

// treePaths resolves the paths of a projection or of an update's actions
// as DynamoDB Local adds them to its tree: in reverse order, each checked
// (depth, placeholders) and then added (overlaps and conflicts). The paths
// are returned in their order.
func (k *checker) treePaths(nodes []*node) ([]path, error) {
	paths := make([]path, len(nodes))
	var perr error
	from := 0 // paths[from:] are resolved
	for i := len(nodes) - 1; i >= 0; i-- {
		p, err := k.path(nodes[i])
		if err != nil {
			perr, from = err, i+1
			break
		}
		paths[i] = p
	}
	if resolved := paths[from:]; !overlapFree(resolved) {
		t := &pathTree{}
		for i := len(resolved) - 1; i >= 0; i-- {
			if err := t.add(k.kind, resolved[i], from+i); err != nil {
				return nil, err
			}
		}
	}
	return paths, perr
}

func newProjection(paths []path) *Projection {
	p := &Projection{paths: paths, root: &projNode{}}
	for _, pa := range paths {
		if !slices.Contains(p.top, pa[0].name) {
			p.top = append(p.top, pa[0].name)
		}
		p.nested = pa.addNested(p.nested)
		n := p.root
		for _, s := range pa {
			n = n.child(s)
		}
		n.leaf = true
	}
	return p
}

func (n *projNode) child(s step) *projNode {
	if s.index >= 0 {
		if c, ok := n.byIndex[s.index]; ok {
			return c
		}
		if n.byIndex == nil {
			n.byIndex = map[int]*projNode{}
		}
		c := &projNode{}
		n.byIndex[s.index] = c
		i, _ := slices.BinarySearch(n.indexes, s.index)
		n.indexes = slices.Insert(n.indexes, i, s.index)
		return c
	}
	if c, ok := n.names[s.name]; ok {
		return c
	}
	if n.names == nil {
		n.names = map[string]*projNode{}
	}
	c := &projNode{}
	n.names[s.name] = c
	return c
}

// AttributesToGet returns the projection of the legacy AttributesToGet
// parameter: the named top-level attributes. Duplicates are an error, worded
// as DynamoDB Local words it.
func AttributesToGet(names []string) (*Projection, error) {
	paths := make([]path, len(names))
	for i, n := range names {
		for _, m := range names[:i] {
			if m == n {
				return nil, errorf("Cannot have two attributes with the same name")
			}
		}
		paths[i] = path{{name: n, index: -1}}
	}
	return newProjection(paths), nil
}

// Apply returns a new item holding only the projected parts of item:
// nested maps keep only the selected keys, lists only the selected
// elements, compacted in index order; paths that are absent are left out.
// Values are shared with item, not copied. A nil item gives nil; otherwise
// the result is non-nil, possibly empty.
func (p *Projection) Apply(item Item) Item {
	if item == nil {
		return nil
	}
	out := make(Item, len(p.top))
	for name, n := range p.root.names {
		v, ok := item[name]
		if !ok || v == nil {
			continue
		}
		if pv := n.apply(v); pv != nil {
			out[name] = pv
		}
	}
	return out
}

func (n *projNode) apply(v types.AttributeValue) types.AttributeValue {
	if n.leaf {
		return v
	}
	if n.names != nil {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return nil
		}
		out := map[string]types.AttributeValue{}
		for name, c := range n.names {
			e, ok := m.Value[name]
			if !ok || e == nil {
				continue
			}
			if pe := c.apply(e); pe != nil {
				out[name] = pe
			}
		}
		if len(out) == 0 {
			return nil
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	l, ok := v.(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	var out []types.AttributeValue
	for _, i := range n.indexes {
		if i >= len(l.Value) {
			break
		}
		if pe := n.byIndex[i].apply(l.Value[i]); pe != nil {
			out = append(out, pe)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &types.AttributeValueMemberL{Value: out}
}

// TopLevel returns the top-level attribute names the projection reads, in
// order of first appearance. The caller must not modify the slice.
func (p *Projection) TopLevel() []string {
	return p.top
}

// TopLevelInTreeOrder returns the top-level attribute names of the
// projected paths in the order of the top level of DynamoDB Local's tree of
// the projection (see pathTree): the paths added from the last to the
// first, iterated in the order of a Java HashMap. DynamoDB Local lists
// attributes an index does not project after putting them, in this order,
// in a Java HashSet (see HashSetOrder).
func (p *Projection) TopLevelInTreeOrder() []string {
	var names []string
	for i := len(p.paths) - 1; i >= 0; i-- {
		if n := p.paths[i][0].name; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	n := javaCapacity(len(names))
	slices.SortStableFunc(names, func(a, b string) int {
		return javaBucket(stepHash(step{name: a, index: -1}), n) - javaBucket(stepHash(step{name: b, index: -1}), n)
	})
	return names
}

// Nested returns the top-level attribute names of the nested document
// paths (a.b, a[0]) the projection uses, in order of first appearance, or
// nil (see Condition.Nested). The caller must not modify the slice.
func (p *Projection) Nested() []string {
	return p.nested
}

// Paths returns the number of paths projected.
func (p *Projection) Paths() int { return len(p.paths) }
