package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/expr"
	"github.com/timetable-db/timetable/local/internal/value"
)

// The write pipeline
//
// PutItem, DeleteItem and UpdateItem (put.go, delete.go, update.go) each
// validate their request into an itemWrite against the table (preparePut,
// prepareDelete, prepareUpdate). A single write then goes through writeOne
// or commitOne: lock the item's stripe, read the old item when needsOld
// says so, apply (condition, then update), and stage the new item, its
// index entries and its TTL queue entry in one Pebble batch. BatchWriteItem
// and TransactWriteItems run many itemWrites through commitMany or their own
// loop and commitWrites, so all of them commit in one batch or none does.

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
	// absent marks a put whose item the caller says is not stored (see
	// timetable.WithNewItems): where trustsAbsent, the old item is taken
	// as none without a read.
	absent bool
}

// writeOne runs the put, delete or update that prepare validates on the
// table named, under the item's lock, and returns what the operation's
// output holds: the attributes asked for by rv (see returnedAttributes) and
// the capacity asked for by rcc.
func (db *DB) writeOne(ctx context.Context, table *string, rv types.ReturnValue, rcc types.ReturnConsumedCapacity,
	prepare func(m *tableMeta) (*itemWrite, error)) (Item, *types.ConsumedCapacity, error) {
	attrs, u, err := db.writeUsage(ctx, table, rv, rcc, prepare)
	if err != nil {
		return nil, nil, err
	}
	return attrs, u.consumed(rcc), nil
}

// writeUsage is writeOne returning the capacity the write consumed as a
// usage (counted in full only when rcc asks for capacity).
func (db *DB) writeUsage(ctx context.Context, table *string, rv types.ReturnValue, rcc types.ReturnConsumedCapacity,
	prepare func(m *tableMeta) (*itemWrite, error)) (Item, *usage, error) {
	if err := checkCapacityMode(rcc); err != nil {
		return nil, nil, err
	}
	if err := checkTableName(table); err != nil {
		return nil, nil, err
	}
	// Refused before any lock: a write stuck in Pebble after a failure
	// of its storage may hold them for good.
	if err := db.writable(); err != nil {
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
	old, err := db.commitOne(m, w, u, db.writeOptions(ctx))
	if err != nil {
		return nil, nil, err
	}
	return returnedAttributes(rv, w.exprs.update, old, w.item), u, nil
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
	b := db.newWriteBatch()
	defer b.Close()
	if err := db.stage(b, m, w.key, old, nu, newSizeOf(w, nu), u); err != nil {
		return nil, err
	}
	if err := db.commitBatch(b, wo); err != nil {
		return nil, fmt.Errorf("local: cannot commit: %w", err)
	}
	w.item = nu
	return old, nil
}

// needsOld reports whether a write must read the item it replaces: for its
// condition, update, return values or capacity, or to maintain indexes and
// the TTL queue and the stream. Other puts and deletes are blind writes,
// and so are unconditional puts of items said to be absent on a table
// that trustsAbsent: their old item is none.
func (m *tableMeta) needsOld(w *itemWrite) bool {
	if w.absent && w.item != nil && !w.del && !w.check && w.exprs.cond == nil && w.exprs.update == nil && m.trustsAbsent() {
		return false
	}
	return !w.blind || len(m.Indexes) > 0 || m.TTLAttr != "" || m.streamed() || w.exprs.cond != nil || w.exprs.update != nil ||
		w.check || (!w.del && w.item == nil)
}

// trustsAbsent reports whether a put said to replace no item may skip
// reading the item (itemWrite.absent): when the table has no index and no
// stream, nothing but the capacity follows the old item, so a put whose
// item was stored after all (the caller was wrong) still leaves the items
// right; it reports the new item's capacity, and may leave the old
// item's TTL queue entry, which the sweeper drops as stale.
func (m *tableMeta) trustsAbsent() bool {
	return len(m.Indexes) == 0 && !m.streamed()
}

// newSizeOf returns the known size of the new item of w, or -1.
func newSizeOf(w *itemWrite, nu Item) int {
	if nu == nil || w.del || w.check || (w.item == nil && w.exprs.update == nil) {
		return -1
	}
	return w.size
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
	if old == nil && w.exprs.update.DeletesOnly() {
		// Amazon DynamoDB leaves a missing item missing when an update
		// only removes; DynamoDB Local creates it with its key alone.
		return nil, nil
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

// tableWrite is one write of a batch or transaction.
type tableWrite struct {
	m       *tableMeta
	w       *itemWrite
	old     Item
	new     Item
	readOld bool
}

// commitMany performs several writes atomically: it locks their items,
// reads the current items, applies the writes (checking conditions) and
// commits one batch. Tables must be locked by the caller. If applying any
// write fails, nothing is written and the errors of all writes are returned
// (nil for those that succeeded) with errCanceled.
func (db *DB) commitMany(writes []*tableWrite, us *usageSet, wo *pebble.WriteOptions) ([]error, error) {
	keys := make([][]byte, len(writes))
	for i, tw := range writes {
		keys[i] = tw.w.key.key
	}
	if err := db.writable(); err != nil {
		return nil, err
	}
	unlock := db.locks.lockAll(keys)
	defer unlock()
	if err := db.readOld(writes); err != nil {
		return nil, err
	}
	var errs []error
	for i, tw := range writes {
		nu, err := tw.m.apply(tw.w, tw.old)
		if err != nil {
			if errs == nil {
				errs = make([]error, len(writes))
			}
			errs[i] = err
			continue
		}
		tw.new = nu
	}
	if errs != nil {
		return errs, errCanceled
	}
	return nil, db.commitWrites(writes, us, wo)
}

// readOld sets the readOld and old fields of writes: the items that the
// writes which need them replace, read through one itemReader in key order.
// The writes' items must be locked.
func (db *DB) readOld(writes []*tableWrite) (err error) {
	var need []*tableWrite
	for _, tw := range writes {
		tw.old = nil
		if tw.readOld = tw.m.needsOld(tw.w); tw.readOld {
			need = append(need, tw)
		}
	}
	if len(need) == 0 {
		return nil
	}
	slices.SortFunc(need, func(a, b *tableWrite) int { return bytes.Compare(a.w.key.key, b.w.key.key) })
	r := itemReader{db: db}
	defer func() {
		if cerr := r.close(); err == nil {
			err = cerr
		}
	}()
	for _, tw := range need {
		if tw.old, err = r.get(tw.w.key.key); err != nil {
			return err
		}
	}
	return nil
}

// commitWrites commits writes whose new items are computed (tw.old and
// tw.new set, items locked by the caller) in one batch, adding their
// capacity to us.
func (db *DB) commitWrites(writes []*tableWrite, us *usageSet, wo *pebble.WriteOptions) error {
	b := db.newWriteBatch()
	defer b.Close()
	for _, tw := range writes {
		u := us.get(tw.m.Name)
		switch {
		case tw.w.check:
			u.units += readUnits(itemSizeOrZero(tw.old), true)
			continue
		case tw.w.del && tw.old == nil && tw.readOld:
			u.units += writeUnits(0)
			continue
		}
		if err := db.stage(b, tw.m, tw.w.key, tw.old, tw.new, newSizeOf(tw.w, tw.new), u); err != nil {
			return err
		}
	}
	if b.Empty() {
		return nil
	}
	if err := db.commitBatch(b, wo); err != nil {
		return fmt.Errorf("local: cannot commit: %w", err)
	}
	return nil
}

func itemSizeOrZero(it Item) int {
	if it == nil {
		return 0
	}
	return itemSize(it)
}

// stage adds to b the writes that replace item old by item new under key k:
// the item itself, its index entries, its TTL queue entry and its stream
// record (see writeBatch). new == nil
// deletes the item; old == nil means it did not exist. It returns the
// capacity the write consumes. new must already be validated.
// newSize is itemSize(new) when the caller knows it, otherwise -1.
func (db *DB) stage(b *writeBatch, m *tableMeta, k *primaryKey, old, new Item, newSize int, u *usage) error {
	oldSize := 0
	if old != nil {
		oldSize = itemSize(old)
	}
	if new != nil {
		if newSize < 0 {
			newSize = itemSize(new)
		}
		if err := setItem(b.Batch, k.key, new, newSize+len(new)*4+8); err != nil {
			return err
		}
	} else if err := b.Delete(k.key, nil); err != nil {
		return err
	}
	u.units += writeUnits(max(oldSize, newSize))
	for _, ix := range m.Indexes {
		ok, op, okOld := m.indexEntryPair(ix, old, new, k)
		_ = okOld
		if ok.key == nil && op.key == nil {
			continue
		}
		switch {
		case op.key == nil: // new entry only
			if err := setEntry(b.Batch, ok.key, ok.proj); err != nil {
				return err
			}
			u.addIndex(ix.Name, ix.Global, writeUnits(itemSize(ok.proj)))
		case ok.key == nil: // old entry only
			if err := b.Delete(op.key, nil); err != nil {
				return err
			}
			u.addIndex(ix.Name, ix.Global, writeUnits(itemSize(op.proj)))
		case bytes.Equal(ok.key, op.key):
			if ix.Projection != "KEYS_ONLY" && !value.EqualItems(ok.proj, op.proj) {
				if err := setEntry(b.Batch, ok.key, ok.proj); err != nil {
					return err
				}
				u.addIndex(ix.Name, ix.Global, writeUnits(itemSize(ok.proj)))
			}
		default:
			if err := b.Delete(op.key, nil); err != nil {
				return err
			}
			if err := setEntry(b.Batch, ok.key, ok.proj); err != nil {
				return err
			}
			u.addIndex(ix.Name, ix.Global, writeUnits(itemSize(op.proj))+writeUnits(itemSize(ok.proj)))
		}
	}
	if m.TTLAttr != "" {
		oe, oOK := expiryOf(old, m.TTLAttr)
		ne, nOK := expiryOf(new, m.TTLAttr)
		if oOK && (!nOK || oe != ne) {
			if err := b.Delete(appendTTLKey(nil, m.ID, oe, k.suffix()), nil); err != nil {
				return err
			}
		}
		if nOK && (!oOK || oe != ne) {
			if err := b.Set(appendTTLKey(nil, m.ID, ne, k.suffix()), nil, nil); err != nil {
				return err
			}
		}
	}
	b.stageChange(m, k, old, new)
	return nil
}

type entryRef struct {
	key  []byte
	proj Item
}

// indexEntryPair returns the entries of new and old in index ix (zero when
// absent).
func (m *tableMeta) indexEntryPair(ix *indexMeta, old, new Item, k *primaryKey) (n, o entryRef, _ bool) {
	if key, proj, ok := m.indexEntry(ix, new, k); ok {
		n = entryRef{key, proj}
	}
	if key, proj, ok := m.indexEntry(ix, old, k); ok {
		o = entryRef{key, proj}
	}
	return n, o, true
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
