package local

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

// Multi-attribute keys of global secondary indexes: a GSI's partition key
// may be made of up to four attributes and its sort key of up to four more.
// An item is in the index only when it has all of them; the entry's
// partition is the list of partition attribute values and entries sort by
// the sort attribute values in turn, each in DynamoDB's order for its type.
// docs/format/engine.md gives the encoding.

const (
	maxGSIHashAttrs  = 4
	maxGSIRangeAttrs = 4
)

// gsiKeySchema checks the key schema of a global secondary index against
// the attribute definitions and returns its partition and sort key
// attributes, in key schema order. The checks and their order are DynamoDB
// Local's: size, duplicate names, a partition key, HASH before RANGE, the
// per-kind limits, then each attribute's definition and name length.
func gsiKeySchema(ks []types.KeySchemaElement, defs map[string]string) (hashes, ranges []attrDef, err error) {
	if len(ks) == 0 {
		return nil, nil, validationError("No defined key schema.  A key schema containing at least a hash key must be defined for all tables")
	}
	if len(ks) > maxGSIHashAttrs+maxGSIRangeAttrs {
		return nil, nil, validationError("Key Schema too big.  Key Schema must at most consist of the hash and range key of a table")
	}
	for i, e := range ks {
		for _, f := range ks[:i] {
			if aws.ToString(e.AttributeName) == aws.ToString(f.AttributeName) {
				return nil, nil, validationError("Two keys can not have the same name")
			}
		}
	}
	nh, nr := 0, 0
	for _, e := range ks {
		switch e.KeyType {
		case types.KeyTypeHash:
			nh++
		case types.KeyTypeRange:
			nr++
		}
	}
	if nh == 0 {
		return nil, nil, validationError("No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key")
	}
	for i, e := range ks {
		if e.KeyType == types.KeyTypeHash && (i == 0 || ks[i-1].KeyType == types.KeyTypeHash) {
			continue
		}
		if e.KeyType == types.KeyTypeHash || i == 0 {
			return nil, nil, validationError("Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second")
		}
		if e.KeyType != types.KeyTypeRange {
			// DynamoDB refuses the value at the protocol level; DynamoDB
			// Local accepts it and describes it back (docs/compat.md).
			return nil, nil, validationf("Value '%s' at 'keySchema.%d.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]", e.KeyType, i+1)
		}
	}
	if nh > maxGSIHashAttrs {
		return nil, nil, validationf("Too many partition keys. GSI can have at most %d partition keys", maxGSIHashAttrs)
	}
	if nr > maxGSIRangeAttrs {
		return nil, nil, validationf("Too many sort keys. GSI can have at most %d sort keys", maxGSIRangeAttrs)
	}
	for _, e := range ks {
		n := aws.ToString(e.AttributeName)
		t, ok := defs[n]
		if !ok {
			return nil, nil, validationf("Attribute %s is not defined in AttributeDefinitions", n)
		}
		if len(n) == 0 || len(n) > 255 {
			return nil, nil, validationError("Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive")
		}
		if e.KeyType == types.KeyTypeHash {
			hashes = append(hashes, attrDef{Name: n, Type: t})
		} else {
			ranges = append(ranges, attrDef{Name: n, Type: t})
		}
	}
	return hashes, ranges, nil
}

// setKeys sets the key attributes of ix: the first partition and sort
// attributes in Hash and Range (as single-attribute keys were always
// stored), the others in MoreHash and MoreRange (nil when there are none,
// so that single-attribute keys are stored as before).
func (ix *indexMeta) setKeys(hashes, ranges []attrDef) {
	ix.Hash, ix.HashType = hashes[0].Name, hashes[0].Type
	ix.MoreHash = append([]attrDef(nil), hashes[1:]...)
	ix.Range, ix.RangeType, ix.MoreRange = "", "", nil
	if len(ranges) > 0 {
		ix.Range, ix.RangeType = ranges[0].Name, ranges[0].Type
		ix.MoreRange = append([]attrDef(nil), ranges[1:]...)
	}
}

// prepareKeys computes the derived key attribute lists of ix.
func (ix *indexMeta) prepareKeys() {
	ix.hashes = append([]attrDef{{Name: ix.Hash, Type: ix.HashType}}, ix.MoreHash...)
	ix.ranges = nil
	if ix.Range != "" {
		ix.ranges = append([]attrDef{{Name: ix.Range, Type: ix.RangeType}}, ix.MoreRange...)
	}
	ix.all = append(slices.Clone(ix.hashes), ix.ranges...)
	ix.keyNames = make([]string, len(ix.all))
	for i, a := range ix.all {
		ix.keyNames[i] = a.Name
	}
}

// multi reports whether ix has a multi-attribute partition or sort key.
func (ix *indexMeta) multi() bool { return len(ix.hashes) > 1 || len(ix.ranges) > 1 }

// keySchemaOf returns the key schema of ix, partition attributes first,
// each kind in the order of its definition.
func keySchemaOf(ix *indexMeta) []types.KeySchemaElement {
	ks := make([]types.KeySchemaElement, 0, len(ix.keyNames))
	for _, a := range ix.hashes {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a.Name), KeyType: types.KeyTypeHash})
	}
	for _, a := range ix.ranges {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a.Name), KeyType: types.KeyTypeRange})
	}
	return ks
}

// namesOf lists the names of attrs joined by ", ", as DynamoDB's key
// condition errors do.
func namesOf(attrs []attrDef) string {
	var b strings.Builder
	for i, a := range attrs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Name)
	}
	return b.String()
}

// keyAttrs returns the partition key attributes of ix followed by its sort
// key attributes. The caller must not modify the slice.
func (ix *indexMeta) keyAttrs() []attrDef { return ix.all }

// checkIndexKeySums returns DynamoDB's error when the index key attributes
// of a new item exceed, together, the size limit of a partition key (for
// the partition attributes of an index) or of a sort key (for its sort
// attributes). Absent attributes count for nothing. Each attribute's own
// limit is checkIndexKeys's. DynamoDB Local checks the sums on puts
// (single, batch and transactional) and not on updates.
func (m *tableMeta) checkIndexKeySums(item Item) error {
	for _, ix := range m.checked {
		if !ix.multi() {
			continue
		}
		for _, part := range []struct {
			kind  string
			attrs []attrDef
			limit int
		}{{"HASH", ix.hashes, maxHashKey}, {"RANGE", ix.ranges, maxRangeKey}} {
			size := 0
			var present []attrDef
			for _, a := range part.attrs {
				if v, ok := item[a.Name]; ok {
					size += keyBytesLen(v)
					present = append(present, a)
				}
			}
			if size > part.limit {
				return validationf("Aggregate size for %s key attributes %s of index %s has exceeded limit %d bytes, with actual size %d bytes",
					part.kind, namesOf(present), ix.Name, part.limit, size)
			}
		}
	}
	return nil
}

// checkStartKey checks the index key attributes of an ExclusiveStartKey
// for ix, as DynamoDB Local checks them for an index with multi-attribute
// keys: a type that differs from the definition is "Type mismatch for
// attribute to update", an empty value names the attribute; sizes are not
// checked (a start key beyond the limits matches no key condition).
func (ix *indexMeta) checkStartKey(esk Item) error {
	for _, a := range ix.all {
		v := esk[a.Name]
		if value.TypeOf(v).String() != a.Type {
			return validationError("Type mismatch for attribute to update")
		}
	}
	for _, a := range ix.all {
		if kind, empty := isEmptyKeyValue(esk[a.Name]); empty {
			return validationf("The provided starting key is invalid: One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, ix.Name, a.Name)
		}
	}
	return nil
}
