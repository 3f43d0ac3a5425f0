package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type opKind uint8

const (
	opSet opKind = iota
	opSetIfNotExists
	opRemove
	opAdd
	opDelete
	opAppend
	opMin
	opMax
)

type updateOp struct {
	kind opKind
	path string
	v    types.AttributeValue
}

// Update is a list of typed update operations on one item. Build it with
// NewUpdate and chained calls; the zero Update (no operations) is valid.
// Paths are document paths ("a.b[2]") except for Min and Max, which take a
// top-level attribute name. Values are marshalled with
// attributevalue.Marshal (a types.AttributeValue is used as is); a value
// that cannot be marshalled makes the whole update fail when used.
//
// An Update is not safe for concurrent modification; once built it may be
// used by any number of concurrent calls.
type Update struct {
	ops []updateOp
	err error
}

// NewUpdate returns an empty Update.
func NewUpdate() *Update { return &Update{} }

func (u *Update) add(kind opKind, path string, v any) *Update {
	var av types.AttributeValue
	if kind != opRemove {
		var err error
		if av, err = marshalValue(v); err != nil {
			if u.err == nil {
				u.err = fmt.Errorf("table: cannot marshal the value for %s: %w", path, err)
			}
			return u
		}
	}
	u.ops = append(u.ops, updateOp{kind: kind, path: path, v: av})
	return u
}

// Set sets path to v: "SET p = v".
func (u *Update) Set(path string, v any) *Update { return u.add(opSet, path, v) }

// SetIfNotExists sets path to v unless it has a value: "SET p =
// if_not_exists(p, v)".
func (u *Update) SetIfNotExists(path string, v any) *Update {
	return u.add(opSetIfNotExists, path, v)
}

// Remove removes path: "REMOVE p".
func (u *Update) Remove(path string) *Update { return u.add(opRemove, path, nil) }

// Add adds v to path: "ADD p v". A number is added to a number attribute
// (an absent one counts as 0); a set's elements are added to a set
// attribute.
func (u *Update) Add(path string, v any) *Update { return u.add(opAdd, path, v) }

// Increment adds the number n to path, an absent attribute counting as 0:
// "ADD p n". Use a negative n to decrement.
func (u *Update) Increment(path string, n any) *Update { return u.add(opAdd, path, n) }

// Delete removes the elements of the set v from the set at path: "DELETE p v".
func (u *Update) Delete(path string, set any) *Update { return u.add(opDelete, path, set) }

// Append appends vs to the list at path, creating it if absent:
// "SET p = list_append(if_not_exists(p, []), [vs...])".
func (u *Update) Append(path string, vs ...any) *Update {
	l := &types.AttributeValueMemberL{Value: make([]types.AttributeValue, 0, len(vs))}
	for _, v := range vs {
		av, err := marshalValue(v)
		if err != nil {
			if u.err == nil {
				u.err = fmt.Errorf("table: cannot marshal a value to append to %s: %w", path, err)
			}
			return u
		}
		l.Value = append(l.Value, av)
	}
	return u.add(opAppend, path, l)
}

// Min sets the top-level attribute name to v if it is absent or greater
// than v. v must be a number, a string or a binary, compared as DynamoDB
// compares them; an existing value of another type makes the update fail.
// DynamoDB has no such operation: the update is sent with the condition
// "attribute_not_exists(name) OR name > v" and, when that fails because a
// smaller value is there, sent again without setting name (guarded by
// "name <= v"), so that concurrent updates never lose the minimum.
func (u *Update) Min(name string, v any) *Update { return u.add(opMin, name, v) }

// Max is Min for the maximum: name is set to v if absent or less than v.
func (u *Update) Max(name string, v any) *Update { return u.add(opMax, name, v) }

// hasMinMax reports whether u holds a Min or Max.
func (u *Update) hasMinMax() bool {
	for _, op := range u.ops {
		if op.kind == opMin || op.kind == opMax {
			return true
		}
	}
	return false
}

// builder returns the update expression of u in which each Min or Max
// whose need is true sets its attribute, and the guards that make the
// result right: for each Min, "attribute_not_exists(a) OR a > v" where it
// sets a, "a <= v" where it does not (and the reverse for Max). need is
// indexed like u.ops; nil means every Min and Max sets.
func (u *Update) builder(need []bool) (*expression.UpdateBuilder, Cond) {
	var ub expression.UpdateBuilder
	n := 0
	var guards []Cond
	for i, op := range u.ops {
		name := expression.Name(op.path)
		val := expression.Value(op.v)
		switch op.kind {
		case opSet:
			ub = ub.Set(name, val)
		case opSetIfNotExists:
			ub = ub.Set(name, name.IfNotExists(val))
		case opRemove:
			ub = ub.Remove(name)
		case opAdd:
			ub = ub.Add(name, val)
		case opDelete:
			ub = ub.Delete(name, val)
		case opAppend:
			empty := expression.Value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}})
			ub = ub.Set(name, expression.ListAppend(expression.IfNotExists(name, empty), val))
		case opMin, opMax:
			a := AttrName(op.path)
			if need == nil || need[i] {
				ub = ub.Set(expression.NameNoDotSplit(op.path), val)
				if op.kind == opMin {
					guards = append(guards, Or(a.NotExists(), a.Gt(op.v)))
				} else {
					guards = append(guards, Or(a.NotExists(), a.Lt(op.v)))
				}
				n++
				continue
			}
			if op.kind == opMin {
				guards = append(guards, a.Lte(op.v))
			} else {
				guards = append(guards, a.Gte(op.v))
			}
			continue
		}
		n++
	}
	if n == 0 {
		return nil, And(guards...)
	}
	return &ub, And(guards...)
}

// UpdateOptions are the options of Update. The zero value is valid.
type UpdateOptions struct {
	// If is a condition the item must meet before the update; the zero
	// Cond means none.
	If Cond
	// Hint is the item as the caller last saw it (nil: unknown). Min and
	// Max plan their first request from it, which saves the failed
	// conditional request (billed on DynamoDB) that a first guess costs when
	// the value does not beat the current one. A stale Hint costs one more
	// request, never a wrong result.
	Hint Item
}

// Update applies u to the item with key k, creating it if absent (unless
// o.If requires it to exist), and returns the item as it is after the
// update. With a failed o.If it returns an error for which
// IsConditionFailed is true.
//
// With Min or Max, Update may send several conditional requests (see Min)
// and fails with an error if another writer keeps winning for
// Options.MaxConflicts attempts, or if the attribute holds a value of
// another type.
func (t *Table) Update(ctx context.Context, k Key, u *Update, o *UpdateOptions) (Item, error) {
	if u == nil {
		u = &Update{}
	}
	if u.err != nil {
		return nil, u.err
	}
	var opts UpdateOptions
	if o != nil {
		opts = *o
	}
	key, err := t.keyItem(k)
	if err != nil {
		return nil, err
	}
	if !u.hasMinMax() {
		ub, _ := u.builder(nil)
		return t.updateItem(ctx, key, ub, opts.If, false)
	}
	var need []bool // nil: every Min and Max sets
	if opts.Hint != nil {
		if need, err = u.plan(opts.Hint); err != nil {
			need = nil
		}
	}
	b := t.newBackoff()
	for attempt := 1; ; attempt++ {
		ub, guards := u.builder(need)
		item, err := t.updateItem(ctx, key, ub, And(opts.If, guards), true)
		var cf *types.ConditionalCheckFailedException
		if err == nil || !errors.As(err, &cf) {
			return item, err
		}
		failed := err
		old := cf.Item
		if old == nil {
			// No item in the error: absent, or a backend that does not
			// return it. Read it to know.
			if old, err = t.getItem(ctx, key, true); err != nil && !errors.Is(err, ErrNotFound) {
				return nil, err
			}
		}
		next, err := u.plan(old)
		if err != nil {
			return nil, err
		}
		if samePlan(need, next) && !opts.If.IsZero() {
			// Our guards held on the item the condition saw: o.If failed.
			return nil, failed
		}
		need = next
		if ub2, _ := u.builder(need); ub2 == nil && opts.If.IsZero() && old != nil {
			// Nothing to write: every Min and Max is already beaten.
			return old, nil
		}
		if attempt >= t.opts.MaxConflicts {
			return nil, fmt.Errorf("table: update of %v in %s: Min/Max still in conflict after %d attempts", k, t.schema.Name, attempt)
		}
		t.stats.retry("UpdateItem")
		if attempt > 3 { // a busy attribute: step back a little
			if ok, werr := b.wait(ctx); werr != nil {
				return nil, werr
			} else if !ok {
				return nil, fmt.Errorf("table: update of %v in %s: Min/Max still in conflict at the retry deadline", k, t.schema.Name)
			}
		}
	}
}

// samePlan reports whether the plans a and b set the same attributes; nil
// stands for "all".
func samePlan(a, b []bool) bool {
	for i := range max(len(a), len(b)) {
		x := a == nil || a[i]
		y := b == nil || b[i]
		if x != y {
			return false
		}
	}
	return true
}

// plan returns, for each Min and Max of u, whether it must set its
// attribute given the item old (nil if absent).
func (u *Update) plan(old Item) ([]bool, error) {
	need := make([]bool, len(u.ops))
	for i, op := range u.ops {
		if op.kind != opMin && op.kind != opMax {
			continue
		}
		cur, ok := old[op.path]
		if !ok {
			need[i] = true
			continue
		}
		c, ok := compareValues(op.v, cur)
		if !ok {
			return nil, fmt.Errorf("table: cannot apply Min/Max to %s: it holds a %s, the value is a %s",
				op.path, typeName(cur), typeName(op.v))
		}
		need[i] = op.kind == opMin && c < 0 || op.kind == opMax && c > 0
	}
	return need, nil
}

// compareValues compares two scalar values of one type as DynamoDB does:
// numbers by value, strings and binaries by bytes. ok is false for values
// of different or non-scalar types.
func compareValues(a, b types.AttributeValue) (int, bool) {
	switch x := a.(type) {
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return 0, false
		}
		var rx, ry big.Rat
		if _, ok := rx.SetString(x.Value); !ok {
			return 0, false
		}
		if _, ok := ry.SetString(y.Value); !ok {
			return 0, false
		}
		return rx.Cmp(&ry), true
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		if !ok {
			return 0, false
		}
		switch {
		case x.Value < y.Value:
			return -1, true
		case x.Value > y.Value:
			return 1, true
		}
		return 0, true
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		if !ok {
			return 0, false
		}
		return bytes.Compare(x.Value, y.Value), true
	}
	return 0, false
}

func typeName(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "string"
	case *types.AttributeValueMemberN:
		return "number"
	case *types.AttributeValueMemberB:
		return "binary"
	}
	return fmt.Sprintf("%T", av)
}

// updateItem sends one UpdateItem returning ALL_NEW; with returnOld it
// asks for the item on a failed condition.
func (t *Table) updateItem(ctx context.Context, key Item, ub *expression.UpdateBuilder, c Cond, returnOld bool) (Item, error) {
	x, err := exprs{cond: c, update: ub}.build()
	if err != nil {
		return nil, fmt.Errorf("table: cannot build update expression: %w", err)
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(t.schema.Name),
		Key:                       key,
		UpdateExpression:          x.update,
		ConditionExpression:       x.cond,
		ExpressionAttributeNames:  x.names,
		ExpressionAttributeValues: x.values,
		ReturnValues:              types.ReturnValueAllNew,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if returnOld {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	out, err := send(ctx, t, "UpdateItem", t.api.UpdateItem, in)
	if err != nil {
		return nil, err
	}
	t.stats.consumed("UpdateItem", out.ConsumedCapacity)
	return out.Attributes, nil
}
