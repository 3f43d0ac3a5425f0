package table

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// Item is one item: attribute names to values, the SDK's own type. Items
// returned by a Table are owned by the caller.
type Item = map[string]types.AttributeValue

// Schema describes a table: its name and the names of its key attributes
// and of its indexes' key attributes. KeyTypes and the index projections
// matter only to Create.
type Schema struct {
	// Name is the table name. Required.
	Name string
	// HashKey is the name of the partition key attribute. Required.
	HashKey string
	// RangeKey is the name of the sort key attribute, "" if the table has
	// none.
	RangeKey string
	// Indexes are the table's global and local secondary indexes.
	Indexes []Index
	// KeyTypes gives the type ("S", "N" or "B") of key attributes, table's
	// and indexes'; an attribute absent from it is a string ("S").
	KeyTypes map[string]types.ScalarAttributeType
}

// Index describes a secondary index.
type Index struct {
	// Name is the index name. Required.
	Name string
	// HashKey is the name of the index's partition key. For a local index it
	// must be the table's HashKey (or "", meaning the same).
	HashKey string
	// RangeKey is the name of the index's sort key, "" if none; required
	// for a local index.
	RangeKey string
	// Local makes it a local secondary index.
	Local bool
	// KeysOnly projects only the keys into the index; Include projects the
	// keys and these attributes. With neither, all attributes are projected.
	KeysOnly bool
	Include  []string
	// MoreHashKeys and MoreRangeKeys make a global index's key
	// multi-attribute (DynamoDB allows up to four partition and four sort
	// key attributes): the partition key attributes after HashKey and the
	// sort key attributes after RangeKey, in key schema order. A query of
	// such an index gives a value for each partition attribute
	// (Query.Hash, then Query.MoreHash) and conditions on the sort
	// attributes from the left (Query.RangePrefix, then Query.Range).
	MoreHashKeys  []string
	MoreRangeKeys []string
}

// hashKeys returns the partition key attributes of ix, in order.
func (ix Index) hashKeys() []string { return append([]string{ix.HashKey}, ix.MoreHashKeys...) }

// rangeKeys returns the sort key attributes of ix, in order.
func (ix Index) rangeKeys() []string {
	if ix.RangeKey == "" {
		return nil
	}
	return append([]string{ix.RangeKey}, ix.MoreRangeKeys...)
}

// Options configure a Table. A nil *Options and the zero value are valid;
// each field documents its default.
type Options struct {
	// RetryTimeout bounds how long one operation keeps retrying throttled,
	// failed (5xx) or unprocessed work, from its start. The context's
	// deadline, when earlier, wins. Default 1 minute.
	RetryTimeout time.Duration
	// MaxAttempts bounds the attempts of one call retried on throttling or
	// 5xx errors (batches retry unprocessed items until RetryTimeout
	// instead). Default 10. An SDK client retries on its own too (3
	// attempts by default), inside each of these.
	MaxAttempts int
	// BaseDelay is the first backoff delay; each retry doubles it up to
	// MaxDelay, and the actual sleep is drawn uniformly from [0, delay)
	// (full jitter). Defaults 25ms and 5s.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxConflicts bounds the conditional retries of an Update with Min or
	// Max when other writers keep changing the attribute. Default 100.
	MaxConflicts int
	// OnTableMissing, if set, is called when a call of an item operation
	// (GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan, the batch
	// and transaction calls: not CreateTable, DescribeTable, DeleteTable
	// nor the TTL calls) fails because the table does not exist
	// (IsTableMissing), with the operation's name and the error, before
	// the operation returns. It is called from the goroutine that made
	// the call, so it must be safe for concurrent use, and quick. Default
	// nil.
	OnTableMissing func(op string, err error)
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.RetryTimeout <= 0 {
		r.RetryTimeout = time.Minute
	}
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 10
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = 25 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 5 * time.Second
	}
	if r.MaxDelay < r.BaseDelay {
		r.MaxDelay = r.BaseDelay
	}
	if r.MaxConflicts <= 0 {
		r.MaxConflicts = 100
	}
	return r
}

// Table is a client for one table over an API. It is safe for concurrent
// use.
type Table struct {
	api    timetable.API
	schema Schema
	opts   Options
	stats  stats
}

// tableOps are the operations on the table itself, which
// Options.OnTableMissing does not watch.
var tableOps = map[string]bool{"CreateTable": true, "DescribeTable": true, "DeleteTable": true,
	"DescribeTimeToLive": true, "UpdateTimeToLive": true}

// called records the outcome of one call of operation op in the stats and
// tells Options.OnTableMissing of a missing table.
func (t *Table) called(op string, err error) {
	t.stats.call(op, err)
	if err != nil && t.opts.OnTableMissing != nil && !tableOps[op] && IsTableMissing(err) {
		t.opts.OnTableMissing(op, err)
	}
}

// New returns a Table for the table that s describes, over api. It checks
// the schema (names present, index names unique, local indexes with a
// range key on a table with one) but does not contact the backend; see
// Create.
func New(api timetable.API, s Schema, o *Options) (*Table, error) {
	if api == nil {
		return nil, errors.New("table: nil API")
	}
	if s.Name == "" || s.HashKey == "" {
		return nil, fmt.Errorf("table: schema of table %q: Name and HashKey are required", s.Name)
	}
	seen := map[string]bool{}
	s.Indexes = append([]Index(nil), s.Indexes...)
	for i := range s.Indexes {
		ix := &s.Indexes[i]
		if ix.Name == "" || seen[ix.Name] {
			return nil, fmt.Errorf("table: schema of table %q: index %d has an empty or repeated name %q", s.Name, i, ix.Name)
		}
		seen[ix.Name] = true
		if ix.Local {
			if ix.HashKey == "" {
				ix.HashKey = s.HashKey
			}
			if ix.HashKey != s.HashKey || ix.RangeKey == "" || s.RangeKey == "" {
				return nil, fmt.Errorf("table: schema of table %q: local index %q needs the table's hash key, a range key, and a table with a range key", s.Name, ix.Name)
			}
		} else if ix.HashKey == "" {
			return nil, fmt.Errorf("table: schema of table %q: index %q has no HashKey", s.Name, ix.Name)
		}
		if (ix.Local || ix.RangeKey == "") && len(ix.MoreRangeKeys) > 0 || ix.Local && len(ix.MoreHashKeys) > 0 {
			return nil, fmt.Errorf("table: schema of table %q: index %q: only a global index has more key attributes, and MoreRangeKeys need a RangeKey", s.Name, ix.Name)
		}
		if len(ix.MoreHashKeys) > 3 || len(ix.MoreRangeKeys) > 3 || slices.Contains(ix.MoreHashKeys, "") || slices.Contains(ix.MoreRangeKeys, "") {
			return nil, fmt.Errorf("table: schema of table %q: index %q: at most three more (non-empty) hash and three more range keys", s.Name, ix.Name)
		}
	}
	return &Table{api: api, schema: s, opts: o.withDefaults()}, nil
}

// Name returns the table name.
func (t *Table) Name() string { return t.schema.Name }

// Schema returns the schema the Table was created with.
func (t *Table) Schema() Schema { return t.schema }

// API returns the backend the Table calls.
func (t *Table) API() timetable.API { return t.api }

// index returns the description of the index named name, or the table's
// own keys as an Index for "".
func (t *Table) index(name string) (Index, error) {
	if name == "" {
		return Index{HashKey: t.schema.HashKey, RangeKey: t.schema.RangeKey}, nil
	}
	for _, ix := range t.schema.Indexes {
		if ix.Name == name {
			return ix, nil
		}
	}
	return Index{}, fmt.Errorf("table: table %q has no index %q", t.schema.Name, name)
}

// keyNames returns the names of the attributes that position an item in
// the table or in the index named index: the table's keys, then the
// index's keys not among them.
func (t *Table) keyNames(index string) ([]string, error) {
	names := []string{t.schema.HashKey}
	if t.schema.RangeKey != "" {
		names = append(names, t.schema.RangeKey)
	}
	if index == "" {
		return names, nil
	}
	ix, err := t.index(index)
	if err != nil {
		return nil, err
	}
	for _, n := range append(ix.hashKeys(), ix.rangeKeys()...) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// Key gives the values of an item's key attributes: Hash for the table's
// HashKey and Range for its RangeKey (nil if the table has none). Values
// are marshalled with attributevalue.Marshal, except a types.AttributeValue,
// used as is.
type Key struct {
	Hash  any
	Range any
}

// K returns Key{Hash: hash, Range: rng}.
func K(hash, rng any) Key { return Key{Hash: hash, Range: rng} }

// item returns the key as an Item of the table's key attributes.
func (t *Table) keyItem(k Key) (Item, error) {
	h, err := marshalValue(k.Hash)
	if err != nil {
		return nil, fmt.Errorf("table: cannot marshal %s of key: %w", t.schema.HashKey, err)
	}
	it := Item{t.schema.HashKey: h}
	switch {
	case t.schema.RangeKey == "" && k.Range != nil:
		return nil, fmt.Errorf("table: key has a range value but table %q has no range key", t.schema.Name)
	case t.schema.RangeKey != "" && k.Range == nil:
		return nil, fmt.Errorf("table: key has no value for the range key %s of table %q", t.schema.RangeKey, t.schema.Name)
	case t.schema.RangeKey != "":
		r, err := marshalValue(k.Range)
		if err != nil {
			return nil, fmt.Errorf("table: cannot marshal %s of key: %w", t.schema.RangeKey, err)
		}
		it[t.schema.RangeKey] = r
	}
	return it, nil
}

// KeyOf returns the key of item: the values of the table's key attributes
// as types.AttributeValue. The result's fields are nil where item lacks them.
func (t *Table) KeyOf(item Item) Key {
	var k Key
	if v, ok := item[t.schema.HashKey]; ok {
		k.Hash = v
	}
	if t.schema.RangeKey != "" {
		if v, ok := item[t.schema.RangeKey]; ok {
			k.Range = v
		}
	}
	return k
}

// Marshal converts v into an Item: an Item is returned as is, anything else
// goes through attributevalue.MarshalMap.
func Marshal(v any) (Item, error) {
	if it, ok := v.(Item); ok {
		return it, nil
	}
	it, err := attributevalue.MarshalMap(v)
	if err != nil {
		return nil, fmt.Errorf("table: cannot marshal %T: %w", v, err)
	}
	return it, nil
}

// Unmarshal decodes item into out (a pointer) with attributevalue.UnmarshalMap.
func Unmarshal(item Item, out any) error {
	if err := attributevalue.UnmarshalMap(item, out); err != nil {
		return fmt.Errorf("table: cannot unmarshal item into %T: %w", out, err)
	}
	return nil
}

// UnmarshalAll decodes items into out, a pointer to a slice, with
// attributevalue.UnmarshalListOfMaps.
func UnmarshalAll(items []Item, out any) error {
	if err := attributevalue.UnmarshalListOfMaps(items, out); err != nil {
		return fmt.Errorf("table: cannot unmarshal items into %T: %w", out, err)
	}
	return nil
}

// marshalValue converts one value: types.AttributeValue as is, anything
// else through attributevalue.Marshal.
func marshalValue(v any) (types.AttributeValue, error) {
	if av, ok := v.(types.AttributeValue); ok {
		if av == nil {
			return nil, errors.New("nil attribute value")
		}
		return av, nil
	}
	if v == nil {
		return nil, errors.New("nil value")
	}
	if s, ok := v.(string); ok && s != "" {
		return &types.AttributeValueMemberS{Value: s}, nil // as Marshal, without reflection
	}
	av, err := attributevalue.Marshal(v)
	if err == nil && av == nil {
		// attributevalue skips what it cannot represent (channels, funcs).
		err = fmt.Errorf("cannot represent a %T as an attribute value", v)
	}
	return av, err
}
