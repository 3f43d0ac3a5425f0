package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/value"
)

// Event names of stream records, as stored.
const (
	eventInsert byte = 1
	eventModify byte = 2
	eventRemove byte = 3
)

// Flags of a stored stream record.
const (
	recordTTL    byte = 1 << 0 // a deletion by TTL
	recordHasNew byte = 1 << 1
	recordHasOld byte = 1 << 2
)

// streamChange is a stream record staged with a write, waiting for its
// sequence number and time, which commitBatch gives it.
type streamChange struct {
	stream   uint32
	event    byte
	ttl      bool
	keys     Item
	old, new Item // as the view type holds them; nil when it holds none
}

// writeBatch is a Pebble batch of item writes with the stream records they
// make, which commitBatch adds when it commits.
type writeBatch struct {
	*pebble.Batch
	changes []streamChange
}

func (db *DB) newWriteBatch() *writeBatch { return &writeBatch{Batch: db.pdb.NewBatch()} }

// streamed reports whether the table m records its changes in a stream.
func (m *tableMeta) streamed() bool { return m.Stream != nil && m.Stream.View != "" }

// stageChange adds to b the stream record of the change of the item under
// k from old to new, if the table has an enabled stream and the change
// alters the item.
func (b *writeBatch) stageChange(m *tableMeta, k *primaryKey, old, new Item) {
	if !m.streamed() {
		return
	}
	c := streamChange{stream: m.Stream.ID, keys: k.keyMap(m)}
	switch {
	case old == nil && new == nil:
		return
	case old == nil:
		c.event = eventInsert
	case new == nil:
		c.event = eventRemove
	default:
		if value.EqualItems(old, new) {
			return
		}
		c.event = eventModify
	}
	switch types.StreamViewType(m.Stream.View) {
	case types.StreamViewTypeNewImage:
		c.new = new
	case types.StreamViewTypeOldImage:
		c.old = old
	case types.StreamViewTypeNewAndOldImages:
		c.new, c.old = new, old
	}
	b.changes = append(b.changes, c)
}

// commitBatch commits b with wo. When b holds stream changes, they are
// numbered and committed by commitNumbered, without a sync, which is made
// afterwards, outside seqMu, so that concurrent writers share it.
func (db *DB) commitBatch(b *writeBatch, wo *pebble.WriteOptions) error {
	if len(b.changes) == 0 {
		return db.commit(b, wo)
	}
	if err := db.commitNumbered(b); err != nil {
		return err
	}
	if wo.Sync {
		return db.syncLog()
	}
	return nil
}

// commitNumbered gives b's stream changes the next sequence numbers and
// the current time, adds their records to b and commits it unsynced, all
// under seqMu, so that records commit in the order of their sequence
// numbers.
func (db *DB) commitNumbered(b *writeBatch) error {
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	now := db.now()
	seq := db.nextSeq
	var buf []byte
	for i := range b.changes {
		v, err := appendRecord(buf[:0], &b.changes[i], now)
		if err != nil {
			return err
		}
		if err := b.Set(recordKey(b.changes[i].stream, seq), v, nil); err != nil {
			return err
		}
		buf = v
		seq++
	}
	if err := b.Set(keyNextSeq, binary.BigEndian.AppendUint64(nil, seq), nil); err != nil {
		return err
	}
	if err := db.commit(b, pebble.NoSync); err != nil {
		return err
	}
	db.nextSeq = seq
	return nil
}

// recordKey is the key of a stream record: space, stream id, sequence
// number.
func recordKey(stream uint32, seq uint64) []byte {
	k := make([]byte, 0, 13)
	k = append(k, spaceStream)
	k = binary.BigEndian.AppendUint32(k, stream)
	return binary.BigEndian.AppendUint64(k, seq)
}

func streamPrefix(stream uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceStream}, stream)
}

// appendRecord appends the stored form of a stream record: event name,
// flags, the time in milliseconds since the epoch (uvarint), then the keys,
// and the new and old images that the flags say are present, each an
// encoded item preceded by its length (uvarint).
func appendRecord(dst []byte, c *streamChange, now time.Time) ([]byte, error) {
	flags := byte(0)
	if c.ttl {
		flags |= recordTTL
	}
	if c.new != nil {
		flags |= recordHasNew
	}
	if c.old != nil {
		flags |= recordHasOld
	}
	dst = append(dst, c.event, flags)
	dst = binary.AppendUvarint(dst, uint64(now.UnixMilli()))
	for _, it := range [3]Item{c.keys, c.new, c.old} {
		if it == nil {
			continue
		}
		enc, err := codec.AppendItem(nil, it)
		if err != nil {
			return nil, fmt.Errorf("local: cannot encode stream record: %w", err)
		}
		dst = binary.AppendUvarint(dst, uint64(len(enc)))
		dst = append(dst, enc...)
	}
	return dst, nil
}

// storedRecord is a decoded stream record.
type storedRecord struct {
	seq      uint64
	event    byte
	ttl      bool
	ms       int64
	keys     Item
	new, old Item
}

var errBadRecord = errors.New("local: corrupt stream record")

// decodeRecord decodes a stored stream record.
func decodeRecord(seq uint64, v []byte) (*storedRecord, error) {
	if len(v) < 3 {
		return nil, errBadRecord
	}
	r := &storedRecord{seq: seq, event: v[0], ttl: v[1]&recordTTL != 0}
	if r.event < eventInsert || r.event > eventRemove {
		return nil, errBadRecord
	}
	flags := v[1]
	ms, n := binary.Uvarint(v[2:])
	if n <= 0 || ms > 1<<62 {
		return nil, errBadRecord
	}
	r.ms = int64(ms)
	rest := v[2+n:]
	next := func() (Item, error) {
		l, n := binary.Uvarint(rest)
		if n <= 0 || l > uint64(len(rest)-n) {
			return nil, errBadRecord
		}
		it, err := codec.DecodeItem(rest[n : n+int(l)])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errBadRecord, err)
		}
		rest = rest[n+int(l):]
		return it, nil
	}
	var err error
	if r.keys, err = next(); err != nil {
		return nil, err
	}
	if flags&recordHasNew != 0 {
		if r.new, err = next(); err != nil {
			return nil, err
		}
	}
	if flags&recordHasOld != 0 {
		if r.old, err = next(); err != nil {
			return nil, err
		}
	}
	if len(rest) != 0 {
		return nil, errBadRecord
	}
	return r, nil
}

// lastRecord returns the sequence number of the last record of a stream, or
// 0 when it has none.
func (db *DB) lastRecord(stream uint32) (uint64, error) {
	p := streamPrefix(stream)
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: keyEnd(p)})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if !it.Last() {
		return 0, it.Error()
	}
	return binary.BigEndian.Uint64(it.Key()[5:]), nil
}
