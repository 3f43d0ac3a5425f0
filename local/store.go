package local

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/codec"
)

// getRaw reads the stored item at key; nil when absent.
func (db *DB) getRaw(key []byte) (Item, error) { return readItem(db.pdb, key) }

// readItem reads the stored item at key from r (the database, or a
// snapshot of it); nil when absent.
func readItem(r pebble.Reader, key []byte) (Item, error) {
	v, closer, err := r.Get(key)
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

// encBufs hold scratch buffers for item encodings: Batch.Set copies the
// value, so the encoding need not outlive the call.
var encBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledEnc is the largest scratch buffer kept for reuse.
const maxPooledEnc = 64 << 10

// setItem adds the encoding of item under key to b. sizeHint, when known,
// is a capacity that likely holds the encoding.
func setItem(b *pebble.Batch, key []byte, item Item, sizeHint int) error {
	bp := encBufs.Get().(*[]byte)
	if cap(*bp) < sizeHint {
		*bp = make([]byte, 0, sizeHint)
	}
	v, err := encodeItem((*bp)[:0], item)
	if err == nil {
		err = b.Set(key, v, nil)
		if cap(v) <= maxPooledEnc {
			*bp = v[:0]
		}
	}
	encBufs.Put(bp)
	return err
}

func setEntry(b *pebble.Batch, key []byte, proj Item) error {
	return setItem(b, key, proj, 0)
}

func decodeItem(b []byte) (Item, error) {
	return decodeItemWith(nil, b)
}

// decodeItemWith is decodeItem with the item's values taken from dec's
// blocks, for a read of many items (nil: allocated one by one).
func decodeItemWith(dec *codec.Decoder, b []byte) (Item, error) {
	var it Item
	var err error
	if dec != nil {
		it, err = dec.DecodeItem(b)
	} else {
		it, err = codec.DecodeItem(b)
	}
	if err != nil {
		return nil, fmt.Errorf("local: cannot decode stored item: %w", err)
	}
	return it, nil
}

func encodeItem(dst []byte, item Item) ([]byte, error) {
	b, err := codec.AppendItem(dst, item)
	if err != nil {
		return nil, validationError(err.Error())
	}
	return b, nil
}

// forEachItem calls fn with the storage key and the item of every item of
// table m, in key order, and stops at the first error. key is valid only
// during the call.
func (db *DB) forEachItem(m *tableMeta, fn func(key []byte, item Item) error) error {
	p := appendDataPrefix(nil, m.ID, baseIndex)
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: keyEnd(p)})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		item, err := decodeItem(it.Value())
		if err != nil {
			return err
		}
		if err := fn(it.Key(), item); err != nil {
			return err
		}
	}
	return it.Error()
}
