package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// getRaw reads the stored item at key; nil when absent.
func (db *DB) getRaw(key []byte) (Item, error) {
	v, closer, err := db.pdb.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return decodeItem(v)
}

// itemReader reads the stored items that the writes of one batch or
// transaction replace. DB.Get builds an iterator over every level of the
// LSM (each L0 sublevel, each level) for each key, and it skips the bloom
// filters of L6: an absent key, the common case of a batch of new items,
// costs a seek in each level's index. An itemReader reads such keys through
// one Pebble iterator, made on first use, with the bloom filters of every
// level. That iterator seeks every level for each key, though, while Get
// stops at the newest version: an item overwritten recently (found in the
// memtable) costs less through Get. So the reader reads the first key with
// Get and predicts each next key from the one before: after a key found it
// uses Get, after an absent one the iterator.
//
// The iterator sees the database as of its first use, so the caller must
// hold the locks of all the keys it reads from before the first read until
// close. The zero value with db set is ready to use.
type itemReader struct {
	db      *DB
	iter    *pebble.Iterator
	useIter bool // the previous key was absent
}

// get returns the stored item at key, nil when absent. Reading keys in
// increasing order lets the iterator step instead of seeking.
func (r *itemReader) get(key []byte) (Item, error) {
	if !r.useIter {
		it, err := r.db.getRaw(key)
		r.useIter = it == nil
		return it, err
	}
	if r.iter == nil {
		it, err := r.db.pdb.NewIter(&pebble.IterOptions{UseL6Filters: true})
		if err != nil {
			return nil, err
		}
		r.iter = it
	}
	if !r.iter.SeekPrefixGE(key) || !bytes.Equal(r.iter.Key(), key) {
		return nil, r.iter.Error()
	}
	r.useIter = false
	v, err := r.iter.ValueAndErr()
	if err != nil {
		return nil, err
	}
	return decodeItem(v)
}

// close releases the iterator, if one was made.
func (r *itemReader) close() error {
	if r.iter == nil {
		return nil
	}
	err := r.iter.Close()
	r.iter = nil
	return err
}

func checkReturnValues(rv types.ReturnValue, allowed ...types.ReturnValue) error {
	if rv == "" {
		return nil
	}
	for _, a := range allowed {
		if rv == a {
			return nil
		}
	}
	return validationError(msgReturnValues)
}

func checkReturnOnFailure(rv types.ReturnValuesOnConditionCheckFailure) error {
	switch rv {
	case "", types.ReturnValuesOnConditionCheckFailureNone, types.ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", rv)
}

// GetItem reads one item. An absent item yields an output whose Item is nil.
// Reads are always strongly consistent; ConsistentRead only changes the
// capacity reported. Items whose TTL has passed are returned until the
// sweeper deletes them, as in DynamoDB.
func (db *DB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return operation(db, "GetItem", func() (*dynamodb.GetItemOutput, error) {
		return db.getItem(in)
	})
}

func (db *DB) getItem(in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t, err := db.table(*in.TableName)
	if err != nil {
		return nil, err
	}
	m := t.m()
	proj, err := readProjection(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames, nil)
	if err != nil {
		return nil, err
	}
	if err := m.checkNested(projNested(proj)); err != nil {
		return nil, err
	}
	k, err := m.keyFromMap(in.Key)
	if err != nil {
		return nil, err
	}
	item, err := db.getRaw(k.key)
	if err != nil {
		return nil, err
	}
	out := &dynamodb.GetItemOutput{}
	u := &usage{table: m.Name, read: true}
	size := 0
	if item != nil {
		size = itemSize(item)
		out.Item = proj.apply(item)
	}
	u.units = readUnits(size, aws.ToBool(in.ConsistentRead))
	out.ConsumedCapacity = u.consumed(in.ReturnConsumedCapacity)
	return out, nil
}

// projector applies a ProjectionExpression or AttributesToGet; the zero
// value returns items whole.
type projector struct {
	p     *expr.Projection
	names []string
}

func (p projector) apply(item Item) Item {
	switch {
	case p.p != nil:
		r := p.p.Apply(item)
		if r == nil {
			r = Item{}
		}
		return r
	case p.names != nil:
		r := Item{}
		for _, n := range p.names {
			if v, ok := item[n]; ok {
				r[n] = v
			}
		}
		return r
	}
	return item
}

func (p projector) set() bool { return p.p != nil || p.names != nil }

// topLevel returns the top-level attributes the projection reads.
func (p projector) topLevel() []string {
	if p.p != nil {
		return p.p.TopLevel()
	}
	return p.names
}

// readParams checks the parameters of a single-item read that do not need
// compiling: expression and legacy parameters mixed, placeholder names
// without an expression.
func readParams(pe *string, atg []string, names map[string]string) error {
	if pe != nil && len(atg) > 0 {
		return validationError("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	}
	if pe == nil && len(names) > 0 {
		return validationError("ExpressionAttributeNames can only be specified when using expressions")
	}
	return nil
}

// readProjection compiles the projection of a single-item read.
func readProjection(pe *string, atg []string, names map[string]string, values Item) (projector, error) {
	if err := readParams(pe, atg, names); err != nil {
		return projector{}, err
	}
	if pe == nil {
		return attributesToGet(atg)
	}
	c := expr.NewCompiler(names, values)
	p, err := c.Projection(*pe)
	if err != nil {
		return projector{}, err
	}
	if err := c.FinishNames(); err != nil {
		return projector{}, err
	}
	return projector{p: p}, nil
}

func attributesToGet(atg []string) (projector, error) {
	if len(atg) == 0 {
		return projector{}, nil
	}
	p, err := expr.AttributesToGet(atg)
	if err != nil {
		return projector{}, err
	}
	return projector{p: p, names: atg}, nil
}

// writeCondition compiles the condition of a write (ConditionExpression or
// the legacy Expected) and checks the placeholder maps. update is the
// UpdateExpression of UpdateItem, nil for other writes; its compiled form is
// returned too.
type writeExprs struct {
	cond   *expr.Condition
	update *expr.Update
}

// writeParams makes the checks of a write's parameters that DynamoDB makes
// before those of its item or key: expression and legacy parameters mixed,
// placeholders without expressions. compileWrite makes them too.
func writeParams(cond *string, expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator,
	update *string, attrUpdates map[string]types.AttributeValueUpdate,
	names map[string]string, values Item, isUpdate bool) error {
	if len(expected) == 0 && len(attrUpdates) == 0 && op == "" && (cond != nil || update != nil) {
		return nil // the usual case
	}
	_, err := compileParams(cond, expected, op, update, attrUpdates, names, values, isUpdate)
	return err
}

// compileParams checks the parameters of a write and reports whether it
// uses expressions.
func compileParams(cond *string, expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator,
	update *string, attrUpdates map[string]types.AttributeValueUpdate,
	names map[string]string, values Item, isUpdate bool) (bool, error) {
	var legacy, exprs []string
	if len(expected) > 0 {
		legacy = append(legacy, "Expected")
	}
	if len(attrUpdates) > 0 {
		legacy = append(legacy, "AttributeUpdates")
	}
	if op != "" {
		legacy = append(legacy, "ConditionalOperator")
	}
	if cond != nil {
		exprs = append(exprs, "ConditionExpression")
	}
	if update != nil {
		exprs = append(exprs, "UpdateExpression")
	}
	if err := mixedParams(legacy, exprs); err != nil {
		return false, err
	}
	if len(exprs) == 0 {
		if len(names) > 0 {
			return false, validationError("ExpressionAttributeNames can only be specified when using expressions")
		}
		if len(values) > 0 {
			if isUpdate {
				return false, validationError("ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null")
			}
			return false, validationError("ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
		}
	}
	return len(exprs) > 0, nil
}

func compileWrite(cond *string, expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator,
	update *string, attrUpdates map[string]types.AttributeValueUpdate,
	names map[string]string, values Item, isUpdate bool) (writeExprs, error) {
	var w writeExprs
	useExprs, err := compileParams(cond, expected, op, update, attrUpdates, names, values, isUpdate)
	if err != nil {
		return w, err
	}
	if useExprs {
		c := expr.NewCompiler(names, values)
		if update != nil {
			if w.update, err = c.Update(*update); err != nil {
				return w, err
			}
		}
		if cond != nil {
			if w.cond, err = c.Condition(*cond); err != nil {
				return w, err
			}
		}
		if err := c.Finish(); err != nil {
			return w, err
		}
		return w, nil
	}
	if len(expected) > 0 {
		if w.cond, err = expr.Expected(expected, op); err != nil {
			return w, err
		}
	} else if op != "" {
		return w, validationError("ConditionalOperator cannot be used without Filter or Expected")
	}
	if len(attrUpdates) > 0 {
		if w.update, err = expr.AttributeUpdates(attrUpdates); err != nil {
			return w, err
		}
	}
	return w, nil
}

// PutItem creates or replaces an item, subject to its condition.
func (db *DB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return operation(db, "PutItem", func() (*dynamodb.PutItemOutput, error) {
		return db.putItem(in, db.writeOptions(ctx))
	})
}

func (db *DB) putItem(in *dynamodb.PutItemInput, wo *pebble.WriteOptions) (*dynamodb.PutItemOutput, error) {
	old, consumed, err := db.writeOne(in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, wo, func(m *tableMeta) (*itemWrite, error) {
		return db.preparePut(m, in.Item, in.ConditionExpression, in.Expected, in.ConditionalOperator,
			in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure)
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.PutItemOutput{Attributes: old, ConsumedCapacity: consumed}, nil
}

// writeOne runs the put or delete that prepare validates on the table
// named, under the item's lock. It returns the old item when rv is
// ALL_OLD and there was one, and the consumed capacity asked for by rcc.
func (db *DB) writeOne(table *string, rv types.ReturnValue, rcc types.ReturnConsumedCapacity, wo *pebble.WriteOptions,
	prepare func(m *tableMeta) (*itemWrite, error)) (Item, *types.ConsumedCapacity, error) {
	if err := checkTableName(table); err != nil {
		return nil, nil, err
	}
	t, m, err := db.tableForWrite(*table)
	if err != nil {
		return nil, nil, err
	}
	defer t.mu.RUnlock()
	w, err := prepare(m)
	if err != nil {
		return nil, nil, err
	}
	w.blind = noReturn(rv, rcc)
	unlock := db.locks.lock(w.key.lockKey())
	defer unlock()
	u := &usage{table: m.Name}
	old, err := db.commitOne(m, w, u, wo)
	if err != nil {
		return nil, nil, err
	}
	if rv != types.ReturnValueAllOld {
		old = nil
	}
	return old, u.consumed(rcc), nil
}

// itemWrite is one validated single-item write: a put (item set), an update
// (exprs.update set), a delete (neither) or a condition check (check set).
type itemWrite struct {
	key      *primaryKey
	item     Item // put: the new item
	exprs    writeExprs
	del      bool
	check    bool // condition check only (transactions)
	onFail   types.ReturnValuesOnConditionCheckFailure
	keyAttrs Item // update: the key attributes to start a new item from
	blind    bool // the caller needs neither the old item nor capacity
	size     int  // itemSize of the new item of a put or update, once known
}

func (db *DB) preparePut(m *tableMeta, item Item, cond *string, expected map[string]types.ExpectedAttributeValue,
	cop types.ConditionalOperator, names map[string]string, values Item, rv types.ReturnValue,
	onFail types.ReturnValuesOnConditionCheckFailure) (*itemWrite, error) {
	if err := checkReturnValues(rv, types.ReturnValueNone, types.ReturnValueAllOld); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(onFail); err != nil {
		return nil, err
	}
	if err := writeParams(cond, expected, cop, nil, nil, names, values, false); err != nil {
		return nil, err
	}
	item, err := normalizeItem(item)
	if err != nil {
		return nil, err
	}
	k, err := m.keyFromItem(item)
	if err != nil {
		return nil, err
	}
	// Store the key values in canonical form.
	if item[m.Hash] != k.hash || (m.Range != "" && item[m.Range] != k.rng) {
		item = copyItem(item)
		item[m.Hash] = k.hash
		if m.Range != "" {
			item[m.Range] = k.rng
		}
	}
	if err := m.checkIndexKeys(item); err != nil {
		return nil, err
	}
	size := itemSize(item)
	if size > maxItemSize {
		return nil, validationError(msgItemSize)
	}
	w, err := compileWrite(cond, expected, cop, nil, nil, names, values, false)
	if err != nil {
		return nil, err
	}
	return &itemWrite{key: k, item: item, exprs: w, onFail: onFail, size: size}, nil
}

// needsOld reports whether a write must read the item it replaces: for its
// condition, update, return values or capacity, or to maintain indexes and
// the TTL queue. Other puts and deletes are blind writes.
func (m *tableMeta) needsOld(w *itemWrite) bool {
	return !w.blind || len(m.Indexes) > 0 || m.TTLAttr != "" || w.exprs.cond != nil || w.exprs.update != nil ||
		w.check || (!w.del && w.item == nil)
}

func noReturn(rv types.ReturnValue, rcc types.ReturnConsumedCapacity) bool {
	return (rv == "" || rv == types.ReturnValueNone) && (rcc == "" || rcc == types.ReturnConsumedCapacityNone)
}

// errCondition carries a failed condition out of commitOne: old is the item
// the condition was evaluated on.
type errCondition struct{ old Item }

func (e *errCondition) Error() string { return msgConditionFailed }

// newSizeOf returns the known size of the new item of w, or -1.
func newSizeOf(w *itemWrite, nu Item) int {
	if nu == nil || w.del || w.check || (w.item == nil && w.exprs.update == nil) {
		return -1
	}
	return w.size
}

// errFatal marks an error of a write that fails a transaction as a plain
// error (DynamoDB Local reports runtime errors of update expressions so).
type errFatal struct{ err error }

func (e *errFatal) Error() string { return e.err.Error() }
func (e *errFatal) Unwrap() error { return e.err }

// errAlone marks an error that cancels a transaction with this write's
// reason alone.
type errAlone struct{ err error }

func (e *errAlone) Error() string { return e.err.Error() }
func (e *errAlone) Unwrap() error { return e.err }

// unwrapWriteErr removes the transaction markers from an error.
func unwrapWriteErr(err error) error {
	switch e := err.(type) {
	case *errFatal:
		return e.err
	case *errAlone:
		return e.err
	}
	return err
}

// apply computes the new item of a write from the old one, checking its
// condition. It returns errCondition when the condition fails.
func (m *tableMeta) apply(w *itemWrite, old Item) (Item, error) {
	if w.exprs.cond != nil {
		// DynamoDB Local does not check the conditions of a
		// transaction's ConditionCheck for nested key paths.
		if !w.check {
			if err := m.checkNested(w.exprs.cond.Nested()); err != nil {
				return nil, &errFatal{err}
			}
		}
		if !w.exprs.cond.Eval(old) {
			return nil, &errCondition{old: old}
		}
	}
	switch {
	case w.check:
		return old, nil
	case w.del:
		return nil, nil
	case w.item != nil:
		return w.item, nil
	}
	// Update.
	base := old
	if base == nil {
		base = w.keyAttrs
	}
	if w.exprs.update == nil {
		if old == nil {
			return copyItem(w.keyAttrs), nil
		}
		return old, nil
	}
	// Key attributes in the order of the key schema, as DynamoDB Local.
	for _, name := range [2]string{m.Hash, m.Range} {
		if name != "" && slices.Contains(w.exprs.update.TopLevel(), name) {
			return nil, &errAlone{validationf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", name)}
		}
	}
	if err := m.checkNested(w.exprs.update.Nested()); err != nil {
		return nil, &errFatal{err}
	}
	nu, err := w.exprs.update.Apply(base)
	if err != nil {
		return nil, &errFatal{err}
	}
	// DynamoDB Local checks the index keys of the new item for empty
	// values, then the item's size, then the keys' types.
	if err := m.checkEmptyIndexKeys(nu); err != nil {
		return nil, &errFatal{err}
	}
	if w.size = itemSize(nu); w.size > maxItemSize {
		return nil, validationError(msgUpdateItemSize)
	}
	if err := m.checkIndexKeys(nu); err != nil {
		var ae interface{ ErrorMessage() string }
		if errors.As(err, &ae) && ae.ErrorMessage() == "Invalid attribute value type" {
			return nil, &errFatal{err}
		}
		return nil, err
	}
	return nu, nil
}

// commitOne performs a single-item write with the item's stripe locked by
// the caller: it reads the current item, applies w and commits. It returns
// the old item.
func (db *DB) commitOne(m *tableMeta, w *itemWrite, u *usage, wo *pebble.WriteOptions) (Item, error) {
	var old Item
	var err error
	readOld := m.needsOld(w)
	if readOld {
		if old, err = db.getRaw(w.key.key); err != nil {
			return nil, err
		}
	}
	nu, err := m.apply(w, old)
	if err != nil {
		var ec *errCondition
		if errors.As(err, &ec) {
			// DynamoDB charges a failed conditional write as a write.
			var item Item
			if w.onFail == types.ReturnValuesOnConditionCheckFailureAllOld {
				item = ec.old
			}
			return nil, conditionFailed(item)
		}
		return nil, unwrapWriteErr(err)
	}
	if w.del && old == nil && readOld {
		u.units += writeUnits(0)
		return nil, nil
	}
	b := db.pdb.NewBatch()
	defer b.Close()
	if err := db.stage(b, m, w.key, old, nu, newSizeOf(w, nu), u); err != nil {
		return nil, err
	}
	if err := b.Commit(wo); err != nil {
		return nil, fmt.Errorf("local: cannot commit: %w", err)
	}
	w.item = nu
	return old, nil
}

// DeleteItem deletes an item, subject to its condition. Deleting an absent
// item succeeds (unless a condition fails).
func (db *DB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return operation(db, "DeleteItem", func() (*dynamodb.DeleteItemOutput, error) {
		return db.deleteItem(in, db.writeOptions(ctx))
	})
}

func (db *DB) deleteItem(in *dynamodb.DeleteItemInput, wo *pebble.WriteOptions) (*dynamodb.DeleteItemOutput, error) {
	old, consumed, err := db.writeOne(in.TableName, in.ReturnValues, in.ReturnConsumedCapacity, wo, func(m *tableMeta) (*itemWrite, error) {
		return db.prepareDelete(m, in.Key, in.ConditionExpression, in.Expected, in.ConditionalOperator,
			in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure)
	})
	if err != nil {
		return nil, err
	}
	return &dynamodb.DeleteItemOutput{Attributes: old, ConsumedCapacity: consumed}, nil
}

func (db *DB) prepareDelete(m *tableMeta, key Item, cond *string, expected map[string]types.ExpectedAttributeValue,
	cop types.ConditionalOperator, names map[string]string, values Item, rv types.ReturnValue,
	onFail types.ReturnValuesOnConditionCheckFailure) (*itemWrite, error) {
	if err := checkReturnValues(rv, types.ReturnValueNone, types.ReturnValueAllOld); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(onFail); err != nil {
		return nil, err
	}
	if err := writeParams(cond, expected, cop, nil, nil, names, values, false); err != nil {
		return nil, err
	}
	k, err := m.keyFromMap(key)
	if err != nil {
		return nil, err
	}
	w, err := compileWrite(cond, expected, cop, nil, nil, names, values, false)
	if err != nil {
		return nil, err
	}
	return &itemWrite{key: k, del: true, exprs: w, onFail: onFail}, nil
}

// UpdateItem edits an item's attributes, creating the item if it does not
// exist, subject to its condition.
func (db *DB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return operation(db, "UpdateItem", func() (*dynamodb.UpdateItemOutput, error) {
		return db.updateItem(in, db.writeOptions(ctx))
	})
}

func (db *DB) updateItem(in *dynamodb.UpdateItemInput, wo *pebble.WriteOptions) (*dynamodb.UpdateItemOutput, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t, m, err := db.tableForWrite(*in.TableName)
	if err != nil {
		return nil, err
	}
	defer t.mu.RUnlock()
	w, err := db.prepareUpdate(m, in.Key, in.UpdateExpression, in.AttributeUpdates, in.ConditionExpression, in.Expected,
		in.ConditionalOperator, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues,
		in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	unlock := db.locks.lock(w.key.lockKey())
	defer unlock()
	u := &usage{table: m.Name}
	old, err := db.commitOne(m, w, u, wo)
	if err != nil {
		return nil, err
	}
	out := &dynamodb.UpdateItemOutput{ConsumedCapacity: u.consumed(in.ReturnConsumedCapacity)}
	out.Attributes = returnedAttributes(in.ReturnValues, w.exprs.update, old, w.item)
	return out, nil
}

func (db *DB) prepareUpdate(m *tableMeta, key Item, update *string, attrUpdates map[string]types.AttributeValueUpdate,
	cond *string, expected map[string]types.ExpectedAttributeValue, cop types.ConditionalOperator,
	names map[string]string, values Item, rv types.ReturnValue,
	onFail types.ReturnValuesOnConditionCheckFailure) (*itemWrite, error) {
	if err := checkReturnValues(rv, types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllNew,
		types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(onFail); err != nil {
		return nil, err
	}
	if err := writeParams(cond, expected, cop, update, attrUpdates, names, values, true); err != nil {
		return nil, err
	}
	k, err := m.keyFromMap(key)
	if err != nil {
		return nil, err
	}
	w, err := compileWrite(cond, expected, cop, update, attrUpdates, names, values, true)
	if err != nil {
		return nil, err
	}
	// Updates of key attributes are rejected when the update is applied,
	// after the condition, as DynamoDB Local does.
	return &itemWrite{key: k, exprs: w, onFail: onFail, keyAttrs: k.keyMap(m)}, nil
}

// returnedAttributes computes UpdateItem's Attributes for ReturnValues.
// UPDATED_OLD and UPDATED_NEW return, whole, the top-level attributes under
// which a path the update names exists in the old or new item, as DynamoDB
// Local does.
func returnedAttributes(rv types.ReturnValue, u *expr.Update, old, nu Item) Item {
	switch rv {
	case types.ReturnValueAllOld:
		if old == nil {
			return nil
		}
		return old
	case types.ReturnValueAllNew:
		return nu
	case types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew:
		src := old
		if rv == types.ReturnValueUpdatedNew {
			src = nu
		}
		if u == nil || src == nil {
			return nil
		}
		names := u.UpdatedIn(src)
		if len(names) == 0 {
			return nil
		}
		r := make(Item, len(names))
		for _, name := range names {
			r[name] = src[name]
		}
		return r
	}
	return nil
}
