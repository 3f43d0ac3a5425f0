package local

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/value"
)

// checkKeyValue checks the value of the key attribute name, of type typ, as
// DynamoDB checks table keys. limit is the size limit (2048 for a partition
// key, 1024 for a sort key).
func checkKeyValue(name, typ string, av types.AttributeValue, limit int) (types.AttributeValue, error) {
	nv, err := normalizeValue(av, 1)
	if err != nil {
		return nil, err
	}
	t := value.TypeOf(nv).String()
	if t != "S" && t != "N" && t != "B" {
		return nil, validationError("Invalid attribute value type")
	}
	if t != typ {
		return nil, validationError(msgKeyType)
	}
	if kind, empty := isEmptyKeyValue(nv); empty {
		return nil, validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s", kind, name)
	}
	if keyBytesLen(nv) > limit {
		return nil, validationError(msgKeySize)
	}
	return nv, nil
}

// primaryKey is an item's key: its attribute values and its storage key.
type primaryKey struct {
	hash, rng types.AttributeValue // rng is nil for tables without a sort key
	key       []byte               // data prefix, partition hash, encoded keys
}

// suffix returns the storage key after the data prefix.
func (k *primaryKey) suffix() []byte { return k.key[dataPrefixLen:] }

// lockKey is the key whose stripe guards the item.
func (k *primaryKey) lockKey() []byte { return k.key }

// keyMap returns the key as an attribute map.
func (k *primaryKey) keyMap(m *tableMeta) Item {
	it := Item{m.Hash: k.hash}
	if m.Range != "" {
		it[m.Range] = k.rng
	}
	return it
}

func (m *tableMeta) encodeKey(hash, rng types.AttributeValue) (*primaryKey, error) {
	k := &primaryKey{hash: hash, rng: rng}
	// Room for the encoded keys (a tag and a terminator more than their
	// size, unless they hold zero bytes), so that buf does not grow.
	n := dataPrefixLen + 8 + keyBytesLen(hash) + 4
	if rng != nil {
		n += keyBytesLen(rng) + 4
	}
	buf := make([]byte, 0, n)
	buf = appendDataPrefix(buf, m.ID, baseIndex)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0) // hash, filled below
	start := len(buf)
	buf, err := codec.AppendKey(buf, hash)
	if err != nil {
		return nil, validationError(err.Error())
	}
	h := partitionHash(buf[start:])
	putUint64(buf[dataPrefixLen:], h)
	if rng != nil {
		if buf, err = codec.AppendKey(buf, rng); err != nil {
			return nil, validationError(err.Error())
		}
	}
	k.key = buf
	return k, nil
}

func putUint64(b []byte, v uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

// keyFromMap validates the Key parameter of GetItem, DeleteItem, UpdateItem
// and their batch and transaction forms.
func (m *tableMeta) keyFromMap(key Item) (*primaryKey, error) {
	if err := nullAttr(key); err != nil {
		return nil, err
	}
	n := 1
	if m.Range != "" {
		n = 2
	}
	if len(key) != n {
		return nil, validationError(msgKeyCount)
	}
	return m.keyFromItem(key)
}

// keyFromItem extracts and validates the key of an item.
func (m *tableMeta) keyFromItem(item Item) (*primaryKey, error) {
	hv, ok := item[m.Hash]
	if !ok {
		return nil, validationError(msgMissingKey)
	}
	var rv types.AttributeValue
	if m.Range != "" {
		if rv, ok = item[m.Range]; !ok {
			return nil, validationError(msgMissingKey)
		}
	}
	hv, err := checkKeyValue(m.Hash, m.HashType, hv, maxHashKey)
	if err != nil {
		return nil, err
	}
	if rv != nil {
		if rv, err = checkKeyValue(m.Range, m.RangeType, rv, maxRangeKey); err != nil {
			return nil, err
		}
	}
	return m.encodeKey(hv, rv)
}

// checkIndexKeys checks the index key attributes present in a new item:
// their types must match the definitions, they may not be empty and they
// must respect the key size limits (each partition key attribute that of a
// partition key, each sort key attribute that of a sort key). Absent
// attributes are fine (the item is then not in that index).
func (m *tableMeta) checkIndexKeys(item Item) error {
	for _, ix := range m.checked {
		for i, a := range ix.keyAttrs() {
			v, ok := item[a.Name]
			if !ok {
				continue
			}
			t := value.TypeOf(v).String()
			if t != "S" && t != "N" && t != "B" {
				return validationError("Invalid attribute value type")
			}
			if t != a.Type {
				return validationError(msgIndexKeyType)
			}
			if kind, empty := isEmptyKeyValue(v); empty {
				return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, ix.Name, a.Name)
			}
			limit := maxHashKey
			if i >= len(ix.hashes) {
				limit = maxRangeKey
			}
			if keyBytesLen(v) > limit {
				return validationError("One or more parameter values were invalid: Size limit exceeded")
			}
		}
	}
	return nil
}

// checkEmptyIndexKeys returns DynamoDB's error for an update that leaves an
// index key attribute of item empty (a string or binary of no bytes).
func (m *tableMeta) checkEmptyIndexKeys(item Item) error {
	for _, ix := range m.Indexes {
		for _, a := range ix.keyNames {
			if v, ok := item[a]; ok {
				if kind, empty := isEmptyKeyValue(v); empty {
					return validationf("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty %s value.", kind)
				}
			}
		}
	}
	return nil
}

// indexEntry returns the storage key and the projected item of item in
// index ix, or ok == false when item lacks an index key attribute (indexes
// are sparse: an item is in an index with multi-attribute keys only when
// it has all of them). base is the item's primary key.
func (m *tableMeta) indexEntry(ix *indexMeta, item Item, base *primaryKey) (key []byte, proj Item, ok bool) {
	if item == nil {
		return nil, nil, false
	}
	for _, a := range ix.keyNames {
		if _, ok := item[a]; !ok {
			return nil, nil, false
		}
	}
	buf := make([]byte, 0, dataPrefixLen+8+len(base.key)+16*len(ix.keyNames))
	buf = appendDataPrefix(buf, m.ID, ix.ID)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	start := len(buf)
	var err error
	for i, a := range ix.keyNames {
		if i == len(ix.hashes) {
			putUint64(buf[dataPrefixLen:], partitionHash(buf[start:]))
		}
		if buf, err = codec.AppendKey(buf, item[a]); err != nil {
			return nil, nil, false
		}
	}
	if len(ix.ranges) == 0 {
		putUint64(buf[dataPrefixLen:], partitionHash(buf[start:]))
	}
	buf = append(buf, base.suffix()[8:]...) // base partition and sort keys
	return buf, m.project(ix, item), true
}

// project returns the attributes of item that index ix holds.
func (m *tableMeta) project(ix *indexMeta, item Item) Item {
	if ix.Projection == "ALL" {
		return item
	}
	p := make(Item, len(ix.include))
	for name := range ix.include {
		if v, ok := item[name]; ok {
			p[name] = v
		}
	}
	return p
}

// baseKeyOfEntry returns the storage key of the table item an index entry
// points to.
func (m *tableMeta) baseKeyOfEntry(ix *indexMeta, entryKey []byte) ([]byte, error) {
	rest := entryKey[dataPrefixLen+8:]
	for range ix.keyNames {
		n, err := codec.SplitKey(rest)
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	// rest is the base partition key followed by the base sort key.
	n, err := codec.SplitKey(rest)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, dataPrefixLen+8+len(rest))
	buf = appendDataPrefix(buf, m.ID, baseIndex)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	putUint64(buf[dataPrefixLen:], partitionHash(rest[:n]))
	return append(buf, rest...), nil
}
