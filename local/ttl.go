package local

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"
)

// TTL
//
// When TTL is enabled on a table, every item whose TTL attribute is a number
// has an entry in the table's TTL queue, keyed by expiry second; the entry is
// written in the same batch as the item. The sweeper reads the queue up to
// Options.Now and deletes the expired items with their index entries.
// Reads do not hide items that have expired but are not yet deleted, as in
// DynamoDB; filter on the TTL attribute to exclude them. As in DynamoDB,
// items whose TTL is more than five years in the past are never deleted.

// ttlHorizon is how far in the past a TTL may be and still expire an item.
const ttlHorizon = 5 * 365 * 24 * time.Hour

func (db *DB) sweeper() {
	defer db.wg.Done()
	tick := time.NewTicker(db.opts.TTLInterval)
	defer tick.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-tick.C:
			if db.writable() != nil {
				continue // its deletes would be refused too
			}
			if _, err := db.SweepExpired(); err != nil && !errors.Is(err, ErrClosed) {
				db.opts.Logger.Error("local: TTL sweep failed", "err", err)
			}
			if _, err := guard(db, func() (struct{}, error) { return struct{}{}, db.trimStreams() }); err != nil && !errors.Is(err, ErrClosed) {
				db.opts.Logger.Error("local: stream trim failed", "err", err)
			}
		}
	}
}

// SweepExpired deletes, in every table with TTL enabled, the items whose
// TTL attribute is at or before Options.Now (in seconds since the epoch),
// with their index entries, and returns how many it deleted. The background
// sweeper calls it every Options.TTLInterval; tests may call it directly.
func (db *DB) SweepExpired() (int, error) {
	return guard(db, db.sweepExpired)
}

func (db *DB) sweepExpired() (int, error) {
	defer db.sweeps.Add(1)
	db.catMu.RLock()
	var tables []*table
	for _, t := range db.tables {
		if t.m().TTLAttr != "" {
			tables = append(tables, t)
		}
	}
	db.catMu.RUnlock()
	now := db.now()
	total := 0
	for _, t := range tables {
		n, err := db.sweepTable(t, now)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (db *DB) sweepTable(t *table, now time.Time) (int, error) {
	m := t.m()
	nowSec := now.Unix()
	from := appendTTLKey(nil, m.ID, now.Add(-ttlHorizon).Unix(), nil)
	to := appendTTLKey(nil, m.ID, nowSec+1, nil)
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: from, UpperBound: to})
	if err != nil {
		return 0, err
	}
	var keys [][]byte
	for it.First(); it.Valid(); it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
		if len(keys) >= 10000 {
			break
		}
	}
	err = it.Error()
	it.Close()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, qk := range keys {
		ok, err := db.expire(t, qk, nowSec)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// expire deletes the item a TTL queue entry points to if it is still
// expired, and the entry.
func (db *DB) expire(t *table, qk []byte, nowSec int64) (bool, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.dropped {
		return false, nil
	}
	m := t.m()
	if m.TTLAttr == "" {
		return false, nil
	}
	exp, suffix, ok := ttlExpiry(qk)
	if !ok {
		return false, nil
	}
	key := append(appendDataPrefix(make([]byte, 0, dataPrefixLen+len(suffix)), m.ID, baseIndex), suffix...)
	unlock := db.locks.lock(key)
	defer unlock()
	item, err := db.getRaw(key)
	if err != nil {
		return false, err
	}
	b := db.newWriteBatch()
	defer b.Close()
	cur, has := expiryOf(item, m.TTLAttr)
	if item == nil || !has || cur != exp {
		// A stale queue entry; stage keeps the queue in step with items,
		// so this only follows an interrupted change.
		if err := b.Delete(qk, nil); err != nil {
			return false, err
		}
		return false, db.commit(b, pebble.NoSync)
	}
	if cur > nowSec {
		return false, nil
	}
	pk, err := m.primaryKeyOf(item, key)
	if err != nil {
		return false, err
	}
	if err := db.stage(b, m, pk, item, nil, -1, &usage{}); err != nil {
		return false, err
	}
	for i := range b.changes {
		b.changes[i].ttl = true // DynamoDB's userIdentity of a TTL deletion
	}
	// A lost TTL deletion is redone by the next sweep: no need to sync.
	return true, db.commitBatch(b, pebble.NoSync)
}

// primaryKeyOf builds the primaryKey of a stored item from its storage key.
func (m *tableMeta) primaryKeyOf(item Item, key []byte) (*primaryKey, error) {
	k := &primaryKey{hash: item[m.Hash], key: key}
	if m.Range != "" {
		k.rng = item[m.Range]
	}
	return k, nil
}

// expiryOf returns the TTL of an item: its attribute attr if it is a number
// (seconds since the epoch).
func expiryOf(item Item, attr string) (int64, bool) {
	if item == nil {
		return 0, false
	}
	n, ok := item[attr].(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return clampSeconds(f), true
}
