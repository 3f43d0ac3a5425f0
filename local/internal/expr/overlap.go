package expr

// DynamoDB Local checks the paths of a projection or an update expression by
// building a tree of them, in which each node keeps its children in a
// java.util.HashMap, and refuses a path that ends where another goes on, or
// goes on where another ends (overlap), or that selects a list element
// where another selects a map key or the reverse (conflict). The paths are
// added in the reverse of their order in the expression. The message names
// the path being added and the first path found below the node where the
// problem is, taking at each level the first child in the HashMap's order.
// That order also decides the order in which an update applies its actions,
// and so which of several failing actions reports its error.

// pathTree is a node of that tree: its children in order of insertion.
type pathTree struct {
	kids []treeKid
}

// treeKid is a child of a pathTree node: the step to it, the subtree below
// it (nil when a path ends there) and, for updates, the action whose path
// goes through it.
type treeKid struct {
	key    step
	tree   *pathTree
	action int
}

// stepHash is the hashCode of DynamoDB Local's element for s: a commons-lang
// HashCodeBuilder(8191, 127) over the field name or the list index.
func stepHash(s step) int32 {
	const seed = 8191 * 127
	if s.index >= 0 {
		return seed + int32(s.index)
	}
	return seed + javaHash(s.name)
}

func (t *pathTree) find(s step) int {
	for i := range t.kids {
		if t.kids[i].key == s {
			return i
		}
	}
	return -1
}

// before reports whether child i comes before child j in the HashMap's
// iteration order (by bucket, then in order of insertion) when the node
// has capacity n.
func (t *pathTree) before(i, j, n int) bool {
	bi, bj := javaBucket(stepHash(t.kids[i].key), n), javaBucket(stepHash(t.kids[j].key), n)
	return bi < bj || bi == bj && i < j
}

// first returns the index of t's first child in iteration order.
func (t *pathTree) first() int {
	n := javaCapacity(len(t.kids))
	best := 0
	for i := 1; i < len(t.kids); i++ {
		if t.before(i, best, n) {
			best = i
		}
	}
	return best
}

// add adds path p (of action action) to the tree rooted at t, or returns
// DynamoDB's error for the expression kind when it overlaps or conflicts
// with a path already there.
func (t *pathTree) add(kind string, p path, action int) error {
	node := t
	for depth, s := range p {
		i := node.find(s)
		if i < 0 {
			if len(node.kids) > 0 && (node.kids[node.first()].key.index >= 0) != (s.index >= 0) {
				return pathsError(kind, "conflict", p, node.leafPath(p, depth))
			}
			node.kids = append(node.kids, treeKid{key: s, tree: chain(p[depth+1:], action), action: action})
			return nil
		}
		if kid := node.kids[i].tree; kid != nil && depth+1 < len(p) {
			node = kid
			continue
		}
		return pathsError(kind, "overlap", p, node.leafPath(p, depth))
	}
	return nil
}

// chain returns the subtree of the steps rest of a path, nil when empty.
func chain(rest path, action int) *pathTree {
	if len(rest) == 0 {
		return nil
	}
	return &pathTree{kids: []treeKid{{key: rest[0], tree: chain(rest[1:], action), action: action}}}
}

// leafPath is the path DynamoDB names second: p's first depth steps, then
// the first key at each level below node down to where a path ends.
func (t *pathTree) leafPath(p path, depth int) path {
	out := append(path(nil), p[:depth]...)
	node := t
	for node != nil && len(node.kids) > 0 {
		i := node.first()
		out = append(out, node.kids[i].key)
		node = node.kids[i].tree
	}
	return out
}

func pathsError(kind, rel string, one, two path) error {
	return errorf("Invalid %s: Two document paths %s with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
		kind, rel, one, two)
}

// appendLeaves appends the actions of the paths in t in the order of a
// depth-first walk in iteration order, the order in which DynamoDB Local
// applies an update's actions.
func (t *pathTree) appendLeaves(out []int) []int {
	n := javaCapacity(len(t.kids))
	var small [64]bool // children already walked
	done := small[:]
	if len(t.kids) > len(small) {
		done = make([]bool, len(t.kids))
	}
	for range t.kids {
		next := -1
		for i := range t.kids {
			if !done[i] && (next < 0 || t.before(i, next, n)) {
				next = i
			}
		}
		done[next] = true
		if k := t.kids[next]; k.tree == nil {
			out = append(out, k.action)
		} else {
			out = k.tree.appendLeaves(out)
		}
	}
	return out
}

// overlapFree reports whether no path of paths is a prefix of another or
// addresses an element another addresses as the other kind of collection;
// it does not allocate, so that the tree is built only when needed.
func overlapFree(paths []path) bool {
	for j := 1; j < len(paths); j++ {
		for i := 0; i < j; i++ {
			a, b := paths[i], paths[j]
			n := min(len(a), len(b))
			clash := true
			for s := 0; s < n; s++ {
				if (a[s].index >= 0) != (b[s].index >= 0) || a[s] != b[s] {
					clash = (a[s].index >= 0) != (b[s].index >= 0)
					break
				}
			}
			if clash {
				return false
			}
		}
	}
	return true
}
