package local

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// tableMeta is the persistent description of a table, stored as JSON under
// its catalog key. It is immutable once published: changes make a copy.
type tableMeta struct {
	Name        string       `json:"name"`
	ID          uint32       `json:"id"`
	Attrs       []attrDef    `json:"attrs"`
	Hash        string       `json:"hash"`
	HashType    string       `json:"hashType"`
	Range       string       `json:"range,omitempty"`
	RangeType   string       `json:"rangeType,omitempty"`
	Indexes     []*indexMeta `json:"indexes,omitempty"`
	BillingMode string       `json:"billingMode"`
	RCU         int64        `json:"rcu,omitempty"`
	WCU         int64        `json:"wcu,omitempty"`
	Created     time.Time    `json:"created"`
	TTLAttr     string       `json:"ttlAttr,omitempty"` // TTL enabled on this attribute when non-empty
	NextIndexID uint32       `json:"nextIndexID"`
	Protected   bool         `json:"deletionProtection,omitempty"`
	Tags        []tag        `json:"tags,omitempty"` // sorted by key (tags.go)

	// TTLPending is set while UpdateTimeToLive is enabling TTL on a table
	// whose existing items have not yet been entered in the TTL queue.
	TTLPending bool `json:"ttlPending,omitempty"`

	// Stream is the table's latest stream (stream.go), nil if it never
	// had one.
	Stream *tableStream `json:"stream,omitempty"`

	keys []keyAttr // key attributes of the table and its indexes, in keyAttrOrder
	// checked are the indexes in the order in which DynamoDB Local checks
	// the index keys of a new item: local ones, then global ones, each in
	// the order of a Java hash map of their names.
	checked []*indexMeta
	// hashes and ranges are the table's key attributes as lists, as an
	// index's (ranges is nil without a sort key).
	hashes, ranges []attrDef
}

type attrDef struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// indexMeta describes a secondary index.
type indexMeta struct {
	Name       string    `json:"name"`
	ID         uint32    `json:"id"`
	Global     bool      `json:"global"`
	Hash       string    `json:"hash"`
	HashType   string    `json:"hashType"`
	Range      string    `json:"range,omitempty"`
	RangeType  string    `json:"rangeType,omitempty"`
	Projection string    `json:"projection"` // ALL, KEYS_ONLY or INCLUDE
	NonKey     []string  `json:"nonKey,omitempty"`
	RCU        int64     `json:"rcu,omitempty"`
	WCU        int64     `json:"wcu,omitempty"`
	Created    time.Time `json:"created"`

	// MoreHash and MoreRange are the partition and sort key attributes
	// after the first (Hash, Range) of a global secondary index with
	// multi-attribute keys, in key schema order. They are absent for
	// single-attribute keys, so descriptions written before multi-attribute
	// keys existed decode unchanged.
	MoreHash  []attrDef `json:"moreHash,omitempty"`
	MoreRange []attrDef `json:"moreRange,omitempty"`

	include map[string]bool // attributes projected (INCLUDE and KEYS_ONLY): keys and NonKey

	// Derived by prepareKeys.
	hashes   []attrDef // all partition key attributes, in order
	ranges   []attrDef // all sort key attributes, in order; nil without a sort key
	all      []attrDef // hashes then ranges
	keyNames []string  // names of all
}

func (m *tableMeta) index(name string) *indexMeta {
	for _, ix := range m.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// prepare computes the derived fields of a meta after decoding or building.
func (m *tableMeta) prepare() {
	for _, ix := range m.Indexes {
		ix.prepareKeys()
		ix.include = map[string]bool{m.Hash: true}
		if m.Range != "" {
			ix.include[m.Range] = true
		}
		for _, a := range ix.keyNames {
			ix.include[a] = true
		}
		for _, a := range ix.NonKey {
			ix.include[a] = true
		}
	}
	m.keys = m.keyAttrOrder()
	m.checked = m.indexCheckOrder()
	m.hashes, m.ranges = []attrDef{{Name: m.Hash, Type: m.HashType}}, nil
	if m.Range != "" {
		m.ranges = []attrDef{{Name: m.Range, Type: m.RangeType}}
	}
}

func (m *tableMeta) clone() *tableMeta {
	c := *m
	c.Attrs = slices.Clone(m.Attrs)
	c.Tags = slices.Clone(m.Tags)
	c.Indexes = make([]*indexMeta, len(m.Indexes))
	for i, ix := range m.Indexes {
		cx := *ix
		cx.NonKey = slices.Clone(ix.NonKey)
		cx.MoreHash, cx.MoreRange = slices.Clone(ix.MoreHash), slices.Clone(ix.MoreRange)
		c.Indexes[i] = &cx
	}
	c.prepare()
	return &c
}

// table is the in-memory handle of a table.
type table struct {
	// mu is held shared by item writes and exclusively by operations that
	// change the table's structure (UpdateTable, DeleteTable,
	// UpdateTimeToLive), so that those see no write in flight.
	mu      sync.RWMutex
	meta    atomic.Pointer[tableMeta]
	dropped bool // set under mu (exclusive) by DeleteTable
}

func (t *table) m() *tableMeta { return t.meta.Load() }

// loadCatalog reads all table descriptions.
func (db *DB) loadCatalog() error {
	v, closer, err := db.pdb.Get(keyNextTableID)
	switch err {
	case nil:
		if len(v) == 4 {
			db.nextID = binary.BigEndian.Uint32(v)
		}
		closer.Close()
	case pebble.ErrNotFound:
		db.nextID = 1
	default:
		return fmt.Errorf("local: cannot read catalog: %w", err)
	}
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: catalogTables, UpperBound: keyEnd(catalogTables)})
	if err != nil {
		return fmt.Errorf("local: cannot read catalog: %w", err)
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		m := new(tableMeta)
		if err := json.Unmarshal(it.Value(), m); err != nil {
			return fmt.Errorf("local: cannot decode table description %q: %w", it.Key(), err)
		}
		m.prepare()
		t := &table{}
		t.meta.Store(m)
		db.tables[m.Name] = t
	}
	return it.Error()
}

// putMeta adds the write of a table description to b.
func putMeta(b *pebble.Batch, m *tableMeta) error {
	v, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("local: cannot encode table description: %w", err)
	}
	return b.Set(tableCatalogKey(m.Name), v, nil)
}

// table returns the table named name, or a ResourceNotFoundException.
func (db *DB) table(name string) (*table, error) {
	db.catMu.RLock()
	t := db.tables[name]
	db.catMu.RUnlock()
	if t == nil {
		return nil, notFound(msgTableNotFound)
	}
	return t, nil
}

// namedTable returns the table a request names, checking the name first as
// DynamoDB does: an invalid name is a ValidationException, the name of no
// table a ResourceNotFoundException.
func (db *DB) namedTable(name *string) (*table, error) {
	if err := checkTableName(name); err != nil {
		return nil, err
	}
	return db.table(*name)
}

// lock locks t exclusively, to change its definition or drop it, and
// returns its description; the caller must call t.mu.Unlock. A table
// dropped meanwhile is a ResourceNotFoundException, and is not left locked.
func (t *table) lock() (*tableMeta, error) {
	t.mu.Lock()
	if t.dropped {
		t.mu.Unlock()
		return nil, notFound(msgTableNotFound)
	}
	return t.m(), nil
}

// lockForWrite checks that the database takes writes and then locks t
// exclusively, as lock does: on success the caller unlocks t.mu; on an
// error (the database's own, or the table's being dropped) t is not
// locked.
func (db *DB) lockForWrite(t *table) (*tableMeta, error) {
	if err := db.writable(); err != nil {
		return nil, err
	}
	return t.lock()
}

// commitMeta adds the new description nm of table t to b, commits b and
// makes nm the table's description. t must be locked exclusively.
func (db *DB) commitMeta(b *pebble.Batch, t *table, nm *tableMeta) error {
	if err := putMeta(b, nm); err != nil {
		return err
	}
	if err := db.commit(b, db.wo); err != nil {
		return err
	}
	t.meta.Store(nm)
	return nil
}

// tableForWrite returns the table named name with its lock held shared; the
// caller must call t.mu.RUnlock.
func (db *DB) tableForWrite(name string) (*table, *tableMeta, error) {
	t, err := db.table(name)
	if err != nil {
		return nil, nil, err
	}
	t.mu.RLock()
	if t.dropped {
		t.mu.RUnlock()
		return nil, nil, notFound(msgTableNotFound)
	}
	return t, t.m(), nil
}

// lockExisting locks those of the named tables that exist shared, in name
// order, and returns their descriptions (absent for the others) with the
// function that unlocks them.
func (db *DB) lockExisting(names []string) (map[string]*tableMeta, func()) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	ms := map[string]*tableMeta{}
	var locked []*table
	for _, name := range sorted {
		if _, ok := ms[name]; ok {
			continue
		}
		t, m, err := db.tableForWrite(name)
		if err != nil {
			ms[name] = nil
			continue
		}
		locked = append(locked, t)
		ms[name] = m
	}
	return ms, func() {
		for i := len(locked) - 1; i >= 0; i-- {
			locked[i].mu.RUnlock()
		}
	}
}

// lockTables locks the named tables shared, in name order, and returns
// their handles and descriptions with the function that unlocks them.
func (db *DB) lockTables(names []string) (map[string]*table, map[string]*tableMeta, func(), error) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	ts := map[string]*table{}
	ms := map[string]*tableMeta{}
	var locked []*table
	unlock := func() {
		for i := len(locked) - 1; i >= 0; i-- {
			locked[i].mu.RUnlock()
		}
	}
	for _, name := range sorted {
		if _, ok := ts[name]; ok {
			continue
		}
		t, m, err := db.tableForWrite(name)
		if err != nil {
			unlock()
			return nil, nil, nil, err
		}
		locked = append(locked, t)
		ts[name], ms[name] = t, m
	}
	return ts, ms, unlock, nil
}
