package local

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/cockroachdb/pebble/v2"
)

// Streams
//
// A table whose StreamSpecification enables it has a stream: a log of its
// item changes, one record per change that alters an item (a put or update
// that leaves the item as it was, and a delete of an absent item, write
// none, as in DynamoDB). The record is staged with the change in the same
// Pebble batch (stage), under a sequence number that the batch takes when
// it commits (commitBatch), so a change and its record are durable together
// and records appear in sequence order. A stream's description lives in the
// catalog, apart from its table's: disabling the stream (UpdateTable) or
// deleting the table closes it, and it stays readable, DISABLED, for
// streamRetention; re-enabling makes a new stream with a new ARN. Records
// older than streamRetention are trimmed by the sweeper and before every
// read of the stream.
//
// A stream's records are split into shards by sequence number, one after
// the other. As DynamoDB rolls a shard over about every four hours, the
// open shard is closed once it is older than Options.StreamShardLifetime
// and holds a record, and a child shard takes the records that follow
// (rollShard, before every read of the stream and by the sweeper). A
// closed shard stays listed while its records are kept, and a reader of it
// gets no NextShardIterator past its last record: it goes on with the
// child, which names the closed shard its parent.

// streamRetention is how long stream records, and disabled streams, are
// kept: 24 hours, as in DynamoDB.
const streamRetention = 24 * time.Hour

// defaultShardLifetime is how long a shard takes records before it is
// rolled over, by default: DynamoDB's about four hours.
const defaultShardLifetime = 4 * time.Hour

// iteratorLifetime is how long a shard iterator is valid: 15 minutes.
const iteratorLifetime = 15 * time.Minute

// tableStream is the stream of a table, as its description holds it. It is
// never changed once published: a change makes a new one.
type tableStream struct {
	ID    uint32 `json:"id"`
	Label string `json:"label"`
	View  string `json:"view,omitempty"` // empty when the stream is disabled
}

// streamMeta is the persistent description of a stream, stored as JSON
// under its catalog key. It is immutable once published.
type streamMeta struct {
	ID       uint32    `json:"id"`
	Table    string    `json:"table"`
	Label    string    `json:"label"`
	View     string    `json:"view"`
	Hash     string    `json:"hash"`
	Range    string    `json:"range,omitempty"`
	Created  time.Time `json:"created"`
	Start    uint64    `json:"start"`             // first sequence number of the first shard
	Disabled time.Time `json:"disabled,omitzero"` // when the stream was closed
	End      uint64    `json:"end,omitempty"`     // last sequence number, once closed
	Trimmed  uint64    `json:"trimmed,omitempty"` // records up to this one are trimmed
	// Shards are the stream's shards still listed, oldest first; the last
	// takes the new records while the stream is enabled. A description
	// written before shards rolled over has none: its one shard is
	// made from Created and Start when it is loaded (withShards).
	Shards []shardMeta `json:"shards,omitempty"`
}

// shardMeta describes a shard of a stream.
type shardMeta struct {
	ID      string    `json:"id"`
	Parent  string    `json:"parent,omitempty"`
	Created time.Time `json:"created"`
	Start   uint64    `json:"start"`         // first sequence number it may hold
	End     uint64    `json:"end,omitempty"` // its last record's, once rolled over
}

func (s *streamMeta) arn() string { return arnPrefix + s.Table + "/stream/" + s.Label }

func (s *streamMeta) enabled() bool { return s.Disabled.IsZero() }

// newShardID returns the id of a shard of the stream made at created, in
// DynamoDB's form: "shardId-", the creation time in milliseconds in 20
// digits, a dash and eight hexadecimal digits. The first shard's digits
// are a checksum of the stream's ARN, a later one's of the ARN and the time.
func (s *streamMeta) newShardID(created time.Time, first bool) string {
	sum := s.arn()
	if !first {
		sum += "/" + strconv.FormatInt(created.UnixMilli(), 10)
	}
	return fmt.Sprintf("shardId-%020d-%08x", created.UnixMilli(), crc32.ChecksumIEEE([]byte(sum)))
}

// withShards returns s with its first shard when its description has none.
func (s *streamMeta) withShards() *streamMeta {
	if len(s.Shards) > 0 {
		return s
	}
	c := *s
	c.Shards = []shardMeta{{ID: s.newShardID(s.Created, true), Created: s.Created, Start: s.Start}}
	return &c
}

// shard returns the shard of the stream whose id is id, and whether it
// is listed.
func (s *streamMeta) shard(id string) (shardMeta, bool) {
	for _, sh := range s.Shards {
		if sh.ID == id {
			return sh, true
		}
	}
	return shardMeta{}, false
}

// shardEnd returns the last sequence number sh may hold and true once it is
// closed (rolled over, or its stream disabled); false while it is open.
func (s *streamMeta) shardEnd(sh shardMeta) (uint64, bool) {
	if sh.ID != s.Shards[len(s.Shards)-1].ID {
		return sh.End, true
	}
	if !s.enabled() {
		return s.End, true
	}
	return 0, false
}

// expired reports whether a disabled stream has passed its retention.
func (s *streamMeta) expired(now time.Time) bool {
	return !s.enabled() && now.Sub(s.Disabled) > streamRetention
}

// horizon is the first sequence number of shard sh a reader may still read.
func (s *streamMeta) horizon(sh shardMeta) uint64 { return max(sh.Start, s.Trimmed+1) }

// trimmed reports whether the record at seq of shard sh has been trimmed.
func (s *streamMeta) trimmed(sh shardMeta, seq uint64) bool {
	return s.Trimmed != 0 && seq <= s.Trimmed && seq >= sh.Start
}

// stream is the in-memory handle of a stream.
type stream struct {
	meta atomic.Pointer[streamMeta]
}

func (s *stream) m() *streamMeta { return s.meta.Load() }

// streamSet holds the streams of a DB. Its mutexes are taken after a
// table's and after catMu, never before them, and metaMu before mu.
type streamSet struct {
	// metaMu is held to change the description of an existing stream
	// (trimming it; UpdateTable or DeleteTable closing it), from reading
	// it to publishing the new one.
	metaMu sync.Mutex
	mu     sync.RWMutex // guards the maps and nextID
	byID   map[uint32]*stream
	byARN  map[string]*stream
	nextID uint32
}

// Catalog keys of streams.
var (
	keyNextStreamID = []byte{spaceCatalog, 'm'}
	keyNextSeq      = []byte{spaceCatalog, 'q'}
	catalogStreams  = []byte{spaceCatalog, 's'}
)

func streamCatalogKey(id uint32) []byte {
	return binary.BigEndian.AppendUint32(slices.Clone(catalogStreams), id)
}

// putStreamMeta adds the write of a stream description to b.
func putStreamMeta(b *pebble.Batch, s *streamMeta) error {
	v, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("local: cannot encode stream description: %w", err)
	}
	return b.Set(streamCatalogKey(s.ID), v, nil)
}

// loadStreams reads the stream descriptions and the sequence counter.
func (db *DB) loadStreams() error {
	db.streams.byID = map[uint32]*stream{}
	db.streams.byARN = map[string]*stream{}
	db.streams.nextID = 1
	db.nextSeq = 1
	if v, closer, err := db.pdb.Get(keyNextStreamID); err == nil {
		if len(v) == 4 {
			db.streams.nextID = binary.BigEndian.Uint32(v)
		}
		closer.Close()
	} else if err != pebble.ErrNotFound {
		return fmt.Errorf("local: cannot read catalog: %w", err)
	}
	if v, closer, err := db.pdb.Get(keyNextSeq); err == nil {
		if len(v) == 8 {
			db.nextSeq = binary.BigEndian.Uint64(v)
		}
		closer.Close()
	} else if err != pebble.ErrNotFound {
		return fmt.Errorf("local: cannot read catalog: %w", err)
	}
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: catalogStreams, UpperBound: keyEnd(catalogStreams)})
	if err != nil {
		return fmt.Errorf("local: cannot read catalog: %w", err)
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		sm := new(streamMeta)
		if err := json.Unmarshal(it.Value(), sm); err != nil {
			return fmt.Errorf("local: cannot decode stream description %q: %w", it.Key(), err)
		}
		s := &stream{}
		sm = sm.withShards()
		s.meta.Store(sm)
		db.streams.byID[sm.ID] = s
		db.streams.byARN[sm.arn()] = s
	}
	return it.Error()
}

// streamSpec validates a StreamSpecification: it returns the view type to
// enable, or "" to disable.
func streamSpec(spec *types.StreamSpecification) (string, error) {
	if spec.StreamEnabled == nil {
		return "", validationError("Stream StreamEnabled was null")
	}
	view := string(spec.StreamViewType)
	if !*spec.StreamEnabled {
		if view != "" {
			return "", validationError("Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.")
		}
		return "", nil
	}
	switch spec.StreamViewType {
	case "":
		return "", validationError("Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.")
	case types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeNewAndOldImages, types.StreamViewTypeKeysOnly:
		return view, nil
	}
	return "", validationf("1 validation error detected: Value '%s' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]", view)
}

// updateStream applies a StreamSpecification of UpdateTable to nm, the new
// description of the table, and returns the stream descriptions to write
// with it (a new stream, a closed one). The table must be locked
// exclusively.
func (db *DB) updateStream(nm *tableMeta, spec *types.StreamSpecification) ([]*streamMeta, error) {
	view, err := streamSpec(spec)
	if err != nil {
		return nil, err
	}
	on := nm.Stream != nil && nm.Stream.View != ""
	switch {
	case view != "" && on:
		return nil, validationError("Table already has an enabled stream")
	case view == "" && !on:
		return nil, validationError("Table has no stream to disable")
	case view == "":
		closed, err := db.closeStream(nm)
		if err != nil {
			return nil, err
		}
		return []*streamMeta{closed}, nil
	}
	return []*streamMeta{db.newStream(nm, view)}, nil
}

// newStream makes a new stream of view type view for the table nm, which
// it updates to point to it. The stream is registered when its
// description is committed (publishStreams).
func (db *DB) newStream(nm *tableMeta, view string) *streamMeta {
	db.streams.mu.Lock()
	id := db.streams.nextID
	db.streams.nextID++
	created := db.now().UTC().Truncate(time.Millisecond)
	sm := &streamMeta{ID: id, Table: nm.Name, View: view, Hash: nm.Hash, Range: nm.Range}
	for {
		sm.Created = created
		sm.Label = created.Format("2006-01-02T15:04:05.000")
		if db.streams.byARN[sm.arn()] == nil {
			break
		}
		created = created.Add(time.Millisecond)
	}
	db.streams.mu.Unlock()
	db.seqMu.Lock()
	sm.Start = db.nextSeq
	db.seqMu.Unlock()
	sm = sm.withShards()
	nm.Stream = &tableStream{ID: id, Label: sm.Label, View: view}
	return sm
}

// closeStream closes the enabled stream of the table nm, which it updates,
// and returns the stream's new description. No write to the table may be
// in flight, and the caller holds db.streams.metaMu until it publishes the
// description.
func (db *DB) closeStream(nm *tableMeta) (*streamMeta, error) {
	s := db.streamByID(nm.Stream.ID)
	if s == nil {
		return nil, fmt.Errorf("local: stream %d of table %q is missing", nm.Stream.ID, nm.Name)
	}
	c := *s.m()
	last, err := db.lastRecord(c.ID)
	if err != nil {
		return nil, err
	}
	c.Disabled = db.now()
	c.End = last
	ts := *nm.Stream
	ts.View = ""
	nm.Stream = &ts
	return &c, nil
}

// writeStreams adds the stream descriptions sms to b, with the stream id
// counter.
func (db *DB) writeStreams(b *pebble.Batch, sms []*streamMeta) error {
	for _, sm := range sms {
		if err := putStreamMeta(b, sm); err != nil {
			return err
		}
	}
	db.streams.mu.RLock()
	next := db.streams.nextID
	db.streams.mu.RUnlock()
	return b.Set(keyNextStreamID, binary.BigEndian.AppendUint32(nil, next), nil)
}

// publishStreams makes committed stream descriptions current.
func (db *DB) publishStreams(sms []*streamMeta) {
	db.streams.mu.Lock()
	defer db.streams.mu.Unlock()
	for _, sm := range sms {
		s := db.streams.byID[sm.ID]
		if s == nil {
			s = &stream{}
			db.streams.byID[sm.ID] = s
			db.streams.byARN[sm.arn()] = s
		}
		s.meta.Store(sm)
	}
}

func (db *DB) streamByID(id uint32) *stream {
	db.streams.mu.RLock()
	defer db.streams.mu.RUnlock()
	return db.streams.byID[id]
}

// streamByARN returns the stream whose ARN is arn, or nil; a disabled stream
// past its retention is gone.
func (db *DB) streamByARN(arn string) *stream {
	db.streams.mu.RLock()
	s := db.streams.byARN[arn]
	db.streams.mu.RUnlock()
	if s == nil || s.m().expired(db.now()) {
		return nil
	}
	return s
}

// describeStream adds a table's stream settings to its description:
// StreamSpecification while its stream is enabled, and the ARN and label
// of its latest stream, enabled or not, as DynamoDB Local does.
func describeStream(d *types.TableDescription, m *tableMeta) {
	if m.Stream == nil {
		return
	}
	if m.Stream.View != "" {
		d.StreamSpecification = &types.StreamSpecification{
			StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(m.Stream.View),
		}
	}
	d.LatestStreamLabel = aws.String(m.Stream.Label)
	d.LatestStreamArn = aws.String(arnPrefix + m.Name + "/stream/" + m.Stream.Label)
}

// tableGone returns the new description of the stream of the table m,
// which DeleteTable is deleting, closed, or nil if the table has no enabled
// stream. Its records stay readable for streamRetention.
func (db *DB) tableGone(m *tableMeta) (*streamMeta, error) {
	if !m.streamed() {
		return nil, nil
	}
	return db.closeStream(m.clone())
}

// trimStream removes the records of a stream older than streamRetention,
// and the stream itself once it has been disabled for that long. A closed
// shard whose records are all trimmed leaves the list once it has been
// closed for streamRetention. Then the open shard is rolled over if it is
// due (rollShard).
func (db *DB) trimStream(s *stream) error {
	db.streams.metaMu.Lock()
	defer db.streams.metaMu.Unlock()
	sm := s.m()
	now := db.now()
	if sm.expired(now) {
		return db.dropStream(sm)
	}
	cutoff := now.Add(-streamRetention).UnixMilli()
	var last uint64
	err := db.scanRecords(sm.ID, sm.horizon(sm.Shards[0]), func(r *storedRecord) bool {
		if r.ms >= cutoff {
			return false
		}
		last = r.seq
		return true
	})
	if err != nil {
		return err
	}
	c := *sm
	if last != 0 {
		c.Trimmed = last
	}
	for len(c.Shards) > 1 && c.Shards[0].End <= c.Trimmed && now.Sub(c.Shards[1].Created) > streamRetention {
		c.Shards = c.Shards[1:]
	}
	if last != 0 || len(c.Shards) != len(sm.Shards) {
		b := db.pdb.NewBatch()
		defer b.Close()
		if last != 0 {
			if err := b.DeleteRange(recordKey(sm.ID, 0), recordKey(sm.ID, last+1), nil); err != nil {
				return err
			}
		}
		if err := putStreamMeta(b, &c); err != nil {
			return err
		}
		// A lost trim is redone by the next one: no need to sync.
		if err := db.commit(b, pebble.NoSync); err != nil {
			return err
		}
		s.meta.Store(&c)
	}
	return db.rollShard(s, now)
}

// rollShard closes the open shard of the enabled stream s once it is older
// than Options.StreamShardLifetime and holds a record, and opens its child,
// which takes the records numbered after. The caller holds metaMu.
func (db *DB) rollShard(s *stream, now time.Time) error {
	sm := s.m()
	open := sm.Shards[len(sm.Shards)-1]
	life := db.opts.StreamShardLifetime
	if !sm.enabled() || life < 0 || now.Sub(open.Created) < life {
		return nil
	}
	// Under seqMu every record numbered is committed, and none is numbered
	// until the child is published: a record belongs to the last shard of
	// the description published before it was numbered. A reader that
	// loads the description after opening its Pebble iterator (getRecords)
	// sees the rollover of every record the iterator holds.
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	last, err := db.lastRecord(sm.ID)
	if err != nil || last < open.Start {
		return err // an empty shard stays open
	}
	c := *sm
	c.Shards = slices.Clone(sm.Shards)
	c.Shards[len(c.Shards)-1].End = last
	created := now.UTC().Truncate(time.Millisecond)
	if !created.After(open.Created) {
		created = open.Created.Add(time.Millisecond)
	}
	c.Shards = append(c.Shards, shardMeta{ID: c.newShardID(created, false), Parent: open.ID, Created: created, Start: db.nextSeq})
	b := db.pdb.NewBatch()
	defer b.Close()
	if err := putStreamMeta(b, &c); err != nil {
		return err
	}
	// Synced (unless writes are not): a reader may move on to the child
	// as soon as it is published, and it must still be there after a crash.
	if err := db.commit(b, db.wo); err != nil {
		return err
	}
	s.meta.Store(&c)
	return nil
}

// dropStream removes a stream past its retention and its records.
func (db *DB) dropStream(sm *streamMeta) error {
	b := db.pdb.NewBatch()
	defer b.Close()
	p := streamPrefix(sm.ID)
	if err := b.DeleteRange(p, keyEnd(p), nil); err != nil {
		return err
	}
	if err := b.Delete(streamCatalogKey(sm.ID), nil); err != nil {
		return err
	}
	if err := db.commit(b, pebble.NoSync); err != nil {
		return err
	}
	db.streams.mu.Lock()
	delete(db.streams.byID, sm.ID)
	delete(db.streams.byARN, sm.arn())
	db.streams.mu.Unlock()
	return nil
}

// trimStreams trims every stream (see trimStream); the sweeper calls it.
func (db *DB) trimStreams() error {
	db.streams.mu.RLock()
	all := make([]*stream, 0, len(db.streams.byID))
	for _, s := range db.streams.byID {
		all = append(all, s)
	}
	db.streams.mu.RUnlock()
	for _, s := range all {
		if err := db.trimStream(s); err != nil {
			return err
		}
	}
	return nil
}

// toStreamItem converts an item to the streams client's attribute values.
func toStreamItem(it Item) map[string]st.AttributeValue {
	if it == nil {
		return nil
	}
	m := make(map[string]st.AttributeValue, len(it))
	for k, v := range it {
		m[k] = toStreamValue(v)
	}
	return m
}

func toStreamValue(v types.AttributeValue) st.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &st.AttributeValueMemberS{Value: v.Value}
	case *types.AttributeValueMemberN:
		return &st.AttributeValueMemberN{Value: v.Value}
	case *types.AttributeValueMemberB:
		return &st.AttributeValueMemberB{Value: v.Value}
	case *types.AttributeValueMemberBOOL:
		return &st.AttributeValueMemberBOOL{Value: v.Value}
	case *types.AttributeValueMemberNULL:
		return &st.AttributeValueMemberNULL{Value: v.Value}
	case *types.AttributeValueMemberSS:
		return &st.AttributeValueMemberSS{Value: v.Value}
	case *types.AttributeValueMemberNS:
		return &st.AttributeValueMemberNS{Value: v.Value}
	case *types.AttributeValueMemberBS:
		return &st.AttributeValueMemberBS{Value: v.Value}
	case *types.AttributeValueMemberL:
		l := make([]st.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = toStreamValue(e)
		}
		return &st.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		return &st.AttributeValueMemberM{Value: toStreamItem(v.Value)}
	}
	return nil
}
