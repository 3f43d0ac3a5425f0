package design

import "fmt"

// Design is a DynamoDB table design as data: the table and its indexes, the
// kinds of item (entities) stored in it with the templates their keys are
// built from, and the queries (access patterns) the application runs.
//
// A Design is plain data: build it as a literal, check it with Validate and
// render it with Markdown, Chart or Matrix. Its methods never modify it and
// are safe for concurrent use as long as nobody modifies it.
type Design struct {
	// Name titles the rendered document ("Web analytics").
	Name string
	// Description is a paragraph of markdown under the title.
	Description string
	// Table describes the table, its key schema and its indexes.
	Table Table
	// Entities are the kinds of item in the table, in the order the
	// documents list them.
	Entities []Entity
	// AccessPatterns are the reads the application performs, in the order
	// the documents list them.
	AccessPatterns []AccessPattern
}

// Table is a table's key schema, secondary indexes and TTL attribute.
type Table struct {
	// Name is the table name.
	Name string
	// PartitionKey is the table's partition (hash) key.
	PartitionKey Key
	// SortKey is the table's sort (range) key; a zero Key means none.
	SortKey Key
	// Indexes are the global and local secondary indexes.
	Indexes []Index
	// TTL is the name of the table's time-to-live attribute, "" if TTL is
	// not enabled. An entity that expires sets it (Entity.TTL).
	TTL string
}

// Key is a key attribute: its name and scalar type.
type Key struct {
	Name string
	// Type is the attribute's DynamoDB scalar type; "" means String.
	Type ScalarType
}

// IsZero reports whether k names no attribute.
func (k Key) IsZero() bool { return k.Name == "" }

func (k Key) typ() ScalarType {
	if k.Type == "" {
		return String
	}
	return k.Type
}

// ScalarType is the type of a key attribute.
type ScalarType string

// The scalar types a key attribute can have.
const (
	String ScalarType = "S"
	Number ScalarType = "N"
	Binary ScalarType = "B"
)

// Index is a global or local secondary index.
type Index struct {
	// Name is the index name used in queries (IndexName).
	Name string
	// Local marks a local secondary index; false means global.
	Local bool
	// PartitionKey is the index's partition key. A local index shares the
	// table's partition key; a zero Key there means the table's.
	PartitionKey Key
	// SortKey is the index's sort key; a zero Key means none (global
	// indexes only).
	SortKey Key
	// MorePartitionKeys and MoreSortKeys make a global index's key
	// multi-attribute: the partition key attributes after PartitionKey and
	// the sort key attributes after SortKey, in key schema order. DynamoDB
	// allows up to four of each (so up to three more), on global indexes
	// only; MoreSortKeys needs a SortKey. Nil means a single attribute, as
	// before. An item appears in such an index only if it has every one of
	// its key attributes, and a query gives an equality on each partition
	// attribute and conditions on the sort attributes from the left:
	// equalities on the first ones, then at most one range condition
	// (<, <=, >, >=, BETWEEN, begins_with), and nothing after it:
	//
	//	siteId = {siteId} AND kind = day AND day BETWEEN {from} AND {to}
	//
	// Table.KeySchema returns all of an index's key attributes in order.
	MorePartitionKeys []Key
	MoreSortKeys      []Key
	// Projection lists the attributes copied into the index.
	Projection Projection
	// Description says what the index is for.
	Description string
}

// Projection is the set of attributes an index holds besides the keys.
type Projection struct {
	// Type is ALL (the zero value), KEYS_ONLY or INCLUDE.
	Type ProjectionType
	// NonKeyAttributes lists the attributes an INCLUDE projection copies.
	NonKeyAttributes []string
}

// ProjectionType is an index projection's type.
type ProjectionType string

// The projection types.
const (
	ProjectAll      ProjectionType = "ALL"
	ProjectKeysOnly ProjectionType = "KEYS_ONLY"
	ProjectInclude  ProjectionType = "INCLUDE"
)

func (p Projection) typ() ProjectionType {
	if p.Type == "" {
		return ProjectAll
	}
	return p.Type
}

// Entity is one kind of item stored in the table.
type Entity struct {
	// Name names the entity ("PageView").
	Name string
	// Description says what an item of this kind holds.
	Description string
	// Keys maps each key attribute the item sets (the table's keys and the
	// keys of the indexes it appears in) to the template of its value,
	// such as "pk": "SITE#{siteId}". An item appears in a secondary index
	// only if it sets all that index's key attributes (a sparse index).
	Keys map[string]Template
	// Attributes lists the values the key templates are built from and the
	// other attributes the item stores. Every placeholder of Keys must name
	// one of them.
	Attributes []Attribute
	// Example gives an example value to each placeholder of Keys (and to
	// any other attribute), for the rendered documents. It may be nil.
	Example map[string]string
	// TTL is the time-to-live attribute the item sets, "" if it never
	// expires. It must be the table's TTL attribute.
	TTL string
	// Retention says in words how long an item lives ("30 days from the
	// event's time").
	Retention string
}

// Attribute is a named value of an entity.
type Attribute struct {
	Name string
	// Type is the attribute's DynamoDB type: S, N, B, BOOL, NULL, M, L,
	// SS, NS or BS. "" means S.
	Type string
	// Format is the Go time layout of a time value used in a key, such as
	// LayoutTimestamp; "" for values that are not times. Validate checks
	// that the layout sorts in time order and that two time values which
	// share a sort-key range in one partition have compatible layouts.
	// A value may also be a prefix of the layout (a coarser period, such
	// as "2024-01" for "2006-01-02"), which sorts before every finer value
	// of that period.
	Format string
	// Derived says how a value used only in keys is computed from other
	// attributes ("the UTC date of timestamp"); such a value is not
	// stored on its own.
	Derived string
	// Description says what the attribute holds.
	Description string
}

func (a Attribute) typ() string {
	if a.Type == "" {
		return "S"
	}
	return a.Type
}

// AccessPattern is one read the application performs.
type AccessPattern struct {
	// Name names the pattern ("Page views of a day").
	Name string
	// Description says what the pattern is for.
	Description string
	// Op is the DynamoDB operation; the zero value is Query.
	Op Operation
	// Index is the name of the secondary index queried; "" means the
	// table.
	Index string
	// Key is the key condition as a template, in DynamoDB's syntax with
	// placeholders in place of values:
	//
	//	pk = SENSOR#{id}
	//	pk = SENSOR#{id} AND sk = {timestamp}
	//	pk = SENSOR#{id} AND sk BETWEEN {from} AND {to}
	//	pk = SENSOR#{id} AND sk >= {from}       (also >, <, <=)
	//	gsi1pk = SITE#{siteId} AND begins_with(gsi1sk, PERIOD#day#)
	//
	// On an index with a multi-attribute key, an equality on each partition
	// attribute and conditions on sort attributes from the left, in any
	// order (see Index.MorePartitionKeys):
	//
	//	siteId = {siteId} AND kind = day AND day BETWEEN {from} AND {to}
	//
	// GetItem and BatchGetItem give the full primary key with "=". Scan
	// has no key condition.
	Key string
	// Filter describes a filter expression applied after the key
	// condition, "" for none. It is documentation only.
	Filter string
	// Returns names the entities the pattern reads. Validate reports a key
	// condition that can also select items of other entities.
	Returns []string
	// Params declares placeholders of Key that are not attributes of the
	// returned entities, such as {from} and {to}, with their formats.
	Params []Attribute
	// Reverse reads in descending key order (ScanIndexForward false).
	Reverse bool
	// Limit is the Limit of the request; 0 means none.
	Limit int
	// Frequency says how often the pattern runs ("every dashboard load",
	// "1,000/s"). It is documentation only; a Workload carries the rates
	// the cost model uses.
	Frequency string
}

// Operation is the DynamoDB operation an access pattern uses.
type Operation string

// The operations of access patterns.
const (
	Query        Operation = "Query"
	GetItem      Operation = "GetItem"
	BatchGetItem Operation = "BatchGetItem"
	Scan         Operation = "Scan"
)

func (p *AccessPattern) op() Operation {
	if p.Op == "" {
		return Query
	}
	return p.Op
}

// Index returns the index named name, or nil if the table has none.
func (t *Table) Index(name string) *Index {
	for i := range t.Indexes {
		if t.Indexes[i].Name == name {
			return &t.Indexes[i]
		}
	}
	return nil
}

// KeySchema returns the key attributes of the table (index "") or of the
// named index in key schema order: the partition key attributes, then the
// sort key attributes (none if it has no sort key). A local index's zero
// partition key is the table's. ok is false if there is no such index. The
// slices are the caller's.
func (t *Table) KeySchema(index string) (partition, sort []Key, ok bool) {
	pk, sk, ok := t.keysOf(index)
	if !ok {
		return nil, nil, false
	}
	partition = []Key{pk}
	if !sk.IsZero() {
		sort = []Key{sk}
	}
	if ix := t.Index(index); ix != nil && index != "" {
		partition = append(partition, ix.MorePartitionKeys...)
		sort = append(sort, ix.MoreSortKeys...)
	}
	return partition, sort, true
}

// multiKey reports whether the named index has a multi-attribute key.
func (t *Table) multiKey(index string) bool {
	ix := t.Index(index)
	return index != "" && ix != nil && len(ix.MorePartitionKeys)+len(ix.MoreSortKeys) > 0
}

// keysOf returns the first partition and sort key attributes of the table
// (index "") or of the named index, and false if there is no such index. An
// LSI's zero partition key is the table's.
func (t *Table) keysOf(index string) (pk, sk Key, ok bool) {
	if index == "" {
		return t.PartitionKey, t.SortKey, true
	}
	ix := t.Index(index)
	if ix == nil {
		return Key{}, Key{}, false
	}
	pk = ix.PartitionKey
	if ix.Local && pk.IsZero() {
		pk = t.PartitionKey
	}
	return pk, ix.SortKey, true
}

// Entity returns the entity named name, or nil.
func (d *Design) Entity(name string) *Entity {
	for i := range d.Entities {
		if d.Entities[i].Name == name {
			return &d.Entities[i]
		}
	}
	return nil
}

// AccessPattern returns the access pattern named name, or nil.
func (d *Design) AccessPattern(name string) *AccessPattern {
	for i := range d.AccessPatterns {
		if d.AccessPatterns[i].Name == name {
			return &d.AccessPatterns[i]
		}
	}
	return nil
}

// Attribute returns the attribute named name, or nil.
func (e *Entity) Attribute(name string) *Attribute {
	for i := range e.Attributes {
		if e.Attributes[i].Name == name {
			return &e.Attributes[i]
		}
	}
	return nil
}

// InIndex reports whether items of e appear in the index of the table t
// named index ("" for the table itself): whether e sets every key attribute
// of the index, all of a multi-attribute key's. An entity that sets only
// some of them is not in the index (Validate reports it when an attribute it
// sets serves no other key).
func (e *Entity) InIndex(t *Table, index string) bool {
	pks, sks, ok := t.KeySchema(index)
	if !ok {
		return false
	}
	for _, k := range append(pks, sks...) {
		if _, ok := e.Keys[k.Name]; !ok {
			return false
		}
	}
	return true
}

// KeyValues fills e's key templates with values and returns each key
// attribute's value. It fails if a placeholder has no value. The map is the
// caller's.
func (e *Entity) KeyValues(values map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(e.Keys))
	for name, t := range e.Keys {
		v, err := t.Fill(values)
		if err != nil {
			return nil, fmt.Errorf("design: cannot build key %s of %s: %w", name, e.Name, err)
		}
		out[name] = v
	}
	return out, nil
}
