package local

import (
	"bytes"
	"math"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/value"
)

// stage adds to b the writes that replace item old by item new under key k:
// the item itself, its index entries and its TTL queue entry. new == nil
// deletes the item; old == nil means it did not exist. It returns the
// capacity the write consumes. new must already be validated.
// newSize is itemSize(new) when the caller knows it, otherwise -1.
func (db *DB) stage(b *pebble.Batch, m *tableMeta, k *primaryKey, old, new Item, newSize int, u *usage) error {
	oldSize := 0
	if old != nil {
		oldSize = itemSize(old)
	}
	if new != nil {
		if newSize < 0 {
			newSize = itemSize(new)
		}
		if err := setItem(b, k.key, new, newSize+len(new)*4+8); err != nil {
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
			if err := setEntry(b, ok.key, ok.proj); err != nil {
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
				if err := setEntry(b, ok.key, ok.proj); err != nil {
					return err
				}
				u.addIndex(ix.Name, ix.Global, writeUnits(itemSize(ok.proj)))
			}
		default:
			if err := b.Delete(op.key, nil); err != nil {
				return err
			}
			if err := setEntry(b, ok.key, ok.proj); err != nil {
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

func setEntry(b *pebble.Batch, key []byte, proj Item) error {
	return setItem(b, key, proj, 0)
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
