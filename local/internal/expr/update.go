package expr

import (
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/number"
	"github.com/timetable-db/timetable/local/internal/value"
)

// Runtime errors of updates, DynamoDB's texts.
const (
	msgBadType     = "An operand in the update expression has an incorrect data type"
	msgBadPath     = "The document path provided in the update expression is invalid for update"
	msgMissingAttr = "The provided expression refers to an attribute that does not exist in the item"
)

// Update is a compiled UpdateExpression (or legacy AttributeUpdates). It is
// immutable and safe for concurrent use.
type Update struct {
	actions []uaction
	order   []int // the order in which to apply actions; nil: as written
	top     []string
	nested  []string
	legacy  bool // from AttributeUpdates: other type error message, ADD appends lists
}

// uaction is one action of an update, in the order written.
type uaction struct {
	kind tokKind // tSet, tRemove, tAdd, tDelete
	path path
	val  *uexpr               // SET
	arg  types.AttributeValue // ADD, DELETE
}

// uexpr kinds
const (
	uPath uint8 = iota
	uValue
	uPlus
	uMinus
	uIfNotExists
	uListAppend
)

// uexpr is a compiled SET value.
type uexpr struct {
	kind uint8
	path path
	val  types.AttributeValue
	a, b *uexpr
}

// Update compiles an UpdateExpression. As DynamoDB, after the checks of
// begin it takes the actions in reverse order twice: first their paths
// (depth, placeholders, overlaps), then their values (placeholders, paths,
// operand types) and the operand types of ADD and DELETE.
func (c *Compiler) Update(s string) (*Update, error) {
	var clauses []clause
	p, err := c.begin(kindUpdate, s, func(p *parser) {
		clauses = p.parseUpdate()
	}, func(p *parser) {
		for _, cl := range clauses {
			if cl.kind == tSet {
				for _, a := range cl.actions {
					p.misplacedInSet(a.val, true)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	k := &checker{c: c, p: p, kind: kindUpdate}
	var acts []action
	var kinds []tokKind
	var nodes []*node
	for _, cl := range clauses {
		for _, a := range cl.actions {
			acts = append(acts, a)
			kinds = append(kinds, cl.kind)
			nodes = append(nodes, a.path)
		}
	}
	paths, err := k.treePaths(nodes)
	if err != nil {
		return nil, err
	}
	u := &Update{actions: make([]uaction, len(acts))}
	for i := len(acts) - 1; i >= 0; i-- {
		ua := uaction{kind: kinds[i], path: paths[i]}
		switch ua.kind {
		case tSet:
			if ua.val, err = k.setValue(acts[i].val); err != nil {
				return nil, err
			}
		case tAdd, tDelete:
			if ua.arg, err = k.value(acts[i].val); err != nil {
				return nil, err
			}
			t := value.TypeOf(ua.arg)
			if ua.kind == tAdd && t != value.N && t != value.SS && t != value.NS && t != value.BS {
				return nil, k.errorf("Incorrect operand type for operator or function; operator: ADD, operand type: %s, typeSet: ALLOWED_FOR_ADD_OPERAND", t.LongName())
			}
			if ua.kind == tDelete && t != value.SS && t != value.NS && t != value.BS {
				return nil, k.errorf("Incorrect operand type for operator or function; operator: DELETE, operand type: %s, typeSet: ALLOWED_FOR_DELETE_OPERAND", t.LongName())
			}
		}
		u.actions[i] = ua
	}
	if len(paths) > 1 {
		u.order = applyOrder(paths)
	}
	u.setTop()
	return u, nil
}

// applyOrder returns the order in which DynamoDB Local applies actions with
// these paths (see pathTree), which decides which of several failing
// actions reports its error.
func applyOrder(paths []path) []int {
	t := &pathTree{kids: make([]treeKid, 0, len(paths))}
	for i := len(paths) - 1; i >= 0; i-- {
		_ = t.add(kindUpdate, paths[i], i) // no overlaps: checked
	}
	return t.appendLeaves(make([]int, 0, len(paths)))
}

// misplacedInSet records the functions of a SET value used where they are
// not allowed: functions of conditions anywhere, list_append inside another
// operand. top is true for the value itself and false for operands.
func (p *parser) misplacedInSet(n *node, top bool) {
	switch n.kind {
	case nPlus, nMinus:
		for _, a := range n.args {
			p.misplacedInSet(a, false)
		}
	case nFunc:
		name := p.text(n.tok)
		switch {
		case !knownFunctions[name], name == "if_not_exists":
		case name == "list_append":
			if !top {
				p.issue(n.tok, "The function is not allowed to be used this way in an expression; function: list_append")
			}
		default:
			p.issue(n.tok, "The function is not allowed in an update expression; function: "+name)
		}
		for _, a := range n.args {
			p.misplacedInSet(a, false)
		}
	}
}

func (u *Update) setTop() {
	for _, a := range u.actions {
		if !slices.Contains(u.top, a.path[0].name) {
			u.top = append(u.top, a.path[0].name)
		}
		u.nested = a.path.addNested(u.nested)
		u.nested = a.val.nestedNames(u.nested)
	}
}

// nestedNames appends the top-level names of the nested paths e reads to
// names; e may be nil.
func (e *uexpr) nestedNames(names []string) []string {
	if e == nil {
		return names
	}
	if e.kind == uPath {
		return e.path.addNested(names)
	}
	return e.b.nestedNames(e.a.nestedNames(names))
}

// Nested returns the top-level attribute names of the nested document
// paths (a.b, a[0]) the update writes, removes or reads, in order of first
// appearance, or nil (see Condition.Nested). The caller must not modify the
// slice.
func (u *Update) Nested() []string {
	return u.nested
}

// setValue checks and compiles the value of a SET action as DynamoDB
// validates it: operands first, then the operator or function. begin has
// already refused functions out of place.
func (k *checker) setValue(n *node) (*uexpr, error) {
	switch n.kind {
	case nPath:
		p, err := k.path(n)
		return &uexpr{kind: uPath, path: p}, err
	case nValue:
		v, err := k.value(n)
		return &uexpr{kind: uValue, val: v}, err
	}
	args := make([]*uexpr, len(n.args))
	for i, a := range n.args {
		e, err := k.setValue(a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	switch n.kind {
	case nPlus, nMinus:
		op, kind := "+", uPlus
		if n.kind == nMinus {
			op, kind = "-", uMinus
		}
		if err := k.operandTypes(op, args, value.N); err != nil {
			return nil, err
		}
		return &uexpr{kind: kind, a: args[0], b: args[1]}, nil
	case nFunc:
		name := k.funcName(n)
		if len(args) != 2 {
			return nil, k.errorf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", name, len(args))
		}
		switch name {
		case "if_not_exists":
			if args[0].kind != uPath {
				return nil, k.errorf("Operator or function requires a document path; operator or function: if_not_exists")
			}
			if args[1].kind == uPath && args[1].path.equal(args[0].path) {
				return nil, k.errorf("The first operand must be distinct from the remaining operands for this operator or function; operator: if_not_exists, first operand: %s", args[0].path)
			}
			return &uexpr{kind: uIfNotExists, a: args[0], b: args[1]}, nil
		case "list_append":
			if err := k.operandTypes(name, args, value.L); err != nil {
				return nil, err
			}
			return &uexpr{kind: uListAppend, a: args[0], b: args[1]}, nil
		}
		return nil, k.errorf("The function is not allowed in an update expression; function: %s", name)
	}
	return nil, k.errorf("Syntax error")
}

// operandTypes checks that the constant operands of op are of type want.
func (k *checker) operandTypes(op string, args []*uexpr, want value.Type) error {
	for _, e := range args {
		if e.kind == uValue {
			if t := value.TypeOf(e.val); t != want {
				return k.errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, t)
			}
		}
	}
	return nil
}

// UpdatedIn returns the top-level attributes of item under which one of
// the paths the update writes or removes exists, in order of first
// appearance: what DynamoDB returns, whole, for ReturnValues UPDATED_OLD
// (item before the update) and UPDATED_NEW (item after it). So a removed
// path is not in UPDATED_NEW, a path the update creates not in UPDATED_OLD,
// and a list element appended past the end is in neither unless it lands
// at its index. item may be nil.
func (u *Update) UpdatedIn(item Item) []string {
	var names []string
	for i := range u.actions {
		p := u.actions[i].path
		if !slices.Contains(names, p[0].name) && p.get(item) != nil {
			names = append(names, p[0].name)
		}
	}
	return names
}

// DeletesOnly reports whether every action of u removes: REMOVE, or
// DELETE of set elements. DynamoDB creates no item from such an update of
// an item that does not exist.
func (u *Update) DeletesOnly() bool {
	for _, a := range u.actions {
		if a.kind != tRemove && a.kind != tDelete {
			return false
		}
	}
	return len(u.actions) > 0
}

// TopLevel returns the top-level attribute names the update writes or
// removes, in order of first appearance. The caller must not modify the
// slice.
func (u *Update) TopLevel() []string {
	return u.top
}

// eval computes a SET value against the item before the update; an absent
// value is an error.
func (e *uexpr) eval(item Item) (types.AttributeValue, error) {
	v, err := e.value(item)
	if err == nil && v == nil {
		err = errorf(msgMissingAttr)
	}
	return v, err
}

// value computes e against item as DynamoDB Local does: the operands of an
// operator or function first, in order (an absent path is nil, not an
// error), then, operand by operand, whether it is present and of the right
// type.
func (e *uexpr) value(item Item) (types.AttributeValue, error) {
	switch e.kind {
	case uValue:
		return e.val, nil
	case uPath:
		return e.path.get(item), nil
	}
	a, err := e.a.value(item)
	if err != nil {
		return nil, err
	}
	b, err := e.b.value(item)
	if err != nil {
		return nil, err
	}
	switch e.kind {
	case uIfNotExists:
		if b == nil {
			return nil, errorf(msgMissingAttr)
		}
		if a != nil {
			return a, nil
		}
		return b, nil
	case uListAppend:
		la, lb, err := operandsOf[*types.AttributeValueMemberL](a, b)
		if err != nil {
			return nil, err
		}
		out := make([]types.AttributeValue, 0, len(la.Value)+len(lb.Value))
		out = append(append(out, la.Value...), lb.Value...)
		return &types.AttributeValueMemberL{Value: out}, nil
	}
	na, nb, err := operandsOf[*types.AttributeValueMemberN](a, b)
	if err != nil {
		return nil, err
	}
	return arith(na.Value, nb.Value, e.kind == uMinus)
}

// operandsOf returns a and b as operands of type T, or DynamoDB's error
// for the first that is absent or of another type.
func operandsOf[T types.AttributeValue](a, b types.AttributeValue) (T, T, error) {
	x, err := operandOf[T](a)
	if err != nil {
		return x, x, err
	}
	y, err := operandOf[T](b)
	return x, y, err
}

// operandOf returns v as an operand of type T, or DynamoDB's error when it
// is absent or of another type.
func operandOf[T types.AttributeValue](v types.AttributeValue) (T, error) {
	var zero T
	if v == nil {
		return zero, errorf(msgMissingAttr)
	}
	t, ok := v.(T)
	if !ok {
		return zero, errorf(msgBadType)
	}
	return t, nil
}

func arith(a, b string, sub bool) (types.AttributeValue, error) {
	x, err := number.Parse(a)
	if err != nil {
		return nil, errorf(msgBadType)
	}
	y, err := number.Parse(b)
	if err != nil {
		return nil, errorf(msgBadType)
	}
	var r number.Number
	if sub {
		r, err = number.Sub(x, y)
	} else {
		r, err = number.Add(x, y)
	}
	if err != nil {
		if errors.Is(err, number.ErrPrecision) {
			return nil, errorf(value.MsgPrecision)
		}
		return nil, &Error{Msg: err.Error()}
	}
	return &types.AttributeValueMemberN{Value: r.String()}, nil
}

// listEdit collects the changes to one list that take effect after the
// other actions: removals by original index, and appends past the end.
type listEdit struct {
	list    *types.AttributeValueMemberL
	origLen int
	removes []int
	appends []listAppend
}

type listAppend struct {
	index int
	val   types.AttributeValue
}

// Apply applies the update to item (nil when the item does not exist) and
// returns the new item. item itself is not modified; values that the
// update does not change are shared between item and the result. SET
// values are computed from item as it was before the update, as DynamoDB
// does. Runtime errors are *Error with DynamoDB's message; when several
// actions fail, the one DynamoDB Local applies first reports its error.
func (u *Update) Apply(item Item) (Item, error) {
	out := make(Item, len(item)+len(u.actions))
	for k, v := range item {
		out[k] = v
	}
	// Containers on the way to nested paths are copied before they change.
	cloned := map[string]bool{}
	for _, a := range u.actions {
		name := a.path[0].name
		if len(a.path) > 1 && !cloned[name] {
			cloned[name] = true
			if v, ok := out[name]; ok {
				out[name] = cloneContainers(v)
			}
		}
	}
	var edits []*listEdit
	edit := func(l *types.AttributeValueMemberL) *listEdit {
		for _, e := range edits {
			if e.list == l {
				return e
			}
		}
		e := &listEdit{list: l, origLen: len(l.Value)}
		edits = append(edits, e)
		return e
	}
	// Actions apply in DynamoDB Local's order, which decides which of
	// several failing actions reports its error. Paths do not overlap, so
	// the order changes nothing else: SET values are computed from item,
	// and list elements are removed and appended after all actions.
	for n := range u.actions {
		i := n
		if u.order != nil {
			i = u.order[n]
		}
		a := &u.actions[i]
		switch a.kind {
		case tSet:
			if len(a.path) > 1 {
				if _, err := parentOf(out, a.path); err != nil {
					return nil, err
				}
			}
			v, err := a.val.eval(item)
			if err != nil {
				return nil, err
			}
			if err := put(out, a.path, v, edit); err != nil {
				return nil, err
			}
		case tRemove:
			if err := remove(out, a.path, edit); err != nil {
				return nil, err
			}
		case tAdd, tDelete:
			cur, err := lookupForUpdate(out, a.path)
			if err != nil {
				return nil, err
			}
			var nv types.AttributeValue
			if a.kind == tAdd {
				nv, err = add(cur, a.arg)
			} else {
				nv, err = del(cur, a.arg)
			}
			if err != nil {
				if u.legacy && err.(*Error).Msg == msgBadType {
					err = errorf("Type mismatch for attribute to update")
				}
				return nil, err
			}
			switch {
			case nv == nil && cur != nil:
				if err := remove(out, a.path, edit); err != nil {
					return nil, err
				}
			case nv != nil:
				if err := put(out, a.path, nv, edit); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, e := range edits {
		vals := e.list.Value
		slices.Sort(e.removes)
		for j := len(e.removes) - 1; j >= 0; j-- {
			i := e.removes[j]
			if j+1 < len(e.removes) && e.removes[j+1] == i {
				continue
			}
			vals = slices.Delete(vals, i, i+1)
		}
		slices.SortStableFunc(e.appends, func(x, y listAppend) int { return x.index - y.index })
		for _, ap := range e.appends {
			vals = append(vals, ap.val)
		}
		e.list.Value = vals
	}
	return out, nil
}

// parentOf returns the container holding the last step of p in out, or an
// error when it is absent or of the wrong kind.
func parentOf(out Item, p path) (types.AttributeValue, error) {
	v := out[p[0].name]
	for _, s := range p[1 : len(p)-1] {
		if v == nil {
			break
		}
		v = child(v, s)
	}
	last := p[len(p)-1]
	if last.index >= 0 {
		if _, ok := v.(*types.AttributeValueMemberL); ok {
			return v, nil
		}
	} else if _, ok := v.(*types.AttributeValueMemberM); ok {
		return v, nil
	}
	return nil, errorf(msgBadPath)
}

// lookupForUpdate returns the current value at p for ADD and DELETE (nil
// when absent), or an error when its parent does not exist.
func lookupForUpdate(out Item, p path) (types.AttributeValue, error) {
	if len(p) == 1 {
		return out[p[0].name], nil
	}
	parent, err := parentOf(out, p)
	if err != nil {
		return nil, err
	}
	return child(parent, p[len(p)-1]), nil
}

func put(out Item, p path, v types.AttributeValue, edit func(*types.AttributeValueMemberL) *listEdit) error {
	return atLast(out, p, func(m Item, name string) { m[name] = v }, func(l *types.AttributeValueMemberL, i int) {
		e := edit(l)
		if i < e.origLen {
			l.Value[i] = v
			return
		}
		e.appends = append(e.appends, listAppend{index: i, val: v})
	})
}

func remove(out Item, p path, edit func(*types.AttributeValueMemberL) *listEdit) error {
	return atLast(out, p, func(m Item, name string) { delete(m, name) }, func(l *types.AttributeValueMemberL, i int) {
		if e := edit(l); i < e.origLen {
			e.removes = append(e.removes, i)
		}
	})
}

// atLast finds where the last step of p is in out: it calls inMap with the
// map that holds it (out itself for a top-level attribute) and its name, or
// inList with the list and its index; an error when the parent is absent or
// of the wrong kind.
func atLast(out Item, p path, inMap func(Item, string), inList func(*types.AttributeValueMemberL, int)) error {
	last := p[len(p)-1]
	if len(p) == 1 {
		inMap(out, last.name)
		return nil
	}
	parent, err := parentOf(out, p)
	if err != nil {
		return err
	}
	if last.index < 0 {
		inMap(parent.(*types.AttributeValueMemberM).Value, last.name)
	} else {
		inList(parent.(*types.AttributeValueMemberL), last.index)
	}
	return nil
}

// add implements ADD: numbers are summed, sets united; cur is nil when the
// attribute is absent.
func add(cur, arg types.AttributeValue) (types.AttributeValue, error) {
	if cur == nil {
		return arg, nil
	}
	if value.TypeOf(cur) != value.TypeOf(arg) {
		return nil, errorf(msgBadType)
	}
	switch a := arg.(type) {
	case *types.AttributeValueMemberN:
		return arith(cur.(*types.AttributeValueMemberN).Value, a.Value, false)
	case *types.AttributeValueMemberL: // AttributeUpdates only
		c := cur.(*types.AttributeValueMemberL)
		out := make([]types.AttributeValue, 0, len(c.Value)+len(a.Value))
		return &types.AttributeValueMemberL{Value: append(append(out, c.Value...), a.Value...)}, nil
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: unionStrings(cur.(*types.AttributeValueMemberSS).Value, a.Value)}, nil
	case *types.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: union(cur.(*types.AttributeValueMemberNS).Value, a.Value, value.HasNumber)}, nil
	case *types.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: union(cur.(*types.AttributeValueMemberBS).Value, a.Value, value.HasBinary)}, nil
	}
	return nil, errorf(msgBadType)
}

// del implements DELETE: the elements of arg are removed from the set cur;
// nil (remove the attribute) when nothing is left or cur is absent.
func del(cur, arg types.AttributeValue) (types.AttributeValue, error) {
	if cur == nil {
		return nil, nil
	}
	if value.TypeOf(cur) != value.TypeOf(arg) {
		return nil, errorf(msgBadType)
	}
	var (
		left types.AttributeValue
		n    int // elements left
	)
	switch a := arg.(type) {
	case *types.AttributeValueMemberSS:
		out := difference(cur.(*types.AttributeValueMemberSS).Value, a.Value, value.HasString)
		left, n = &types.AttributeValueMemberSS{Value: out}, len(out)
	case *types.AttributeValueMemberNS:
		out := difference(cur.(*types.AttributeValueMemberNS).Value, a.Value, value.HasNumber)
		left, n = &types.AttributeValueMemberNS{Value: out}, len(out)
	case *types.AttributeValueMemberBS:
		out := difference(cur.(*types.AttributeValueMemberBS).Value, a.Value, value.HasBinary)
		left, n = &types.AttributeValueMemberBS{Value: out}, len(out)
	default:
		return nil, errorf(msgBadType)
	}
	if n == 0 {
		return nil, nil
	}
	return left, nil
}

// union returns a copy of set with the elements of more it does not hold
// appended, in order; has tells whether a set holds an element (numbers
// compare by value).
func union[T any](set, more []T, has func([]T, T) bool) []T {
	out := slices.Clone(set)
	for _, e := range more {
		if !has(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// unionStrings is union for string sets: with a map when both are large,
// since union compares every pair (an ADD of thousands of strings to a set
// of thousands took milliseconds).
func unionStrings(set, more []string) []string {
	if len(set)*len(more) <= 4096 {
		return union(set, more, value.HasString)
	}
	seen := make(map[string]struct{}, len(set)+len(more))
	for _, e := range set {
		seen[e] = struct{}{}
	}
	out := slices.Grow(slices.Clone(set), len(more))
	for _, e := range more {
		if _, ok := seen[e]; !ok {
			seen[e] = struct{}{}
			out = append(out, e)
		}
	}
	return out
}

// difference returns the elements of set that less does not hold, in
// order.
func difference[T any](set, less []T, has func([]T, T) bool) []T {
	out := make([]T, 0, len(set))
	for _, e := range set {
		if !has(less, e) {
			out = append(out, e)
		}
	}
	return out
}

// cloneContainers copies the maps and lists of v, recursively, so that
// they can be changed; scalars and sets are shared.
func cloneContainers(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberM:
		m := make(map[string]types.AttributeValue, len(v.Value))
		for k, e := range v.Value {
			m[k] = cloneContainers(e)
		}
		return &types.AttributeValueMemberM{Value: m}
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = cloneContainers(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	}
	return v
}
