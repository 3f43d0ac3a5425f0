package local

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Key spaces of the Pebble database; docs/format/engine.md describes them.
const (
	spaceCatalog = 0x01 // catalog: table descriptions and counters
	spaceData    = 0x02 // items and index entries
	spaceTTL     = 0x03 // TTL expiry queue
	spaceStream  = 0x04 // stream records
)

// Catalog keys.
var (
	keyNextTableID = []byte{spaceCatalog, 'n'}
	catalogTables  = []byte{spaceCatalog, 't'}
)

func tableCatalogKey(name string) []byte {
	k := make([]byte, 0, len(catalogTables)+len(name))
	k = append(k, catalogTables...)
	return append(k, name...)
}

// baseIndex is the index id of the table itself.
const baseIndex = 0

// dataPrefixLen is the length of the prefix that opens every data key:
// space, table id, index id.
const dataPrefixLen = 1 + 4 + 4

// appendDataPrefix appends the prefix of the entries of one index (baseIndex
// for the table itself) of one table.
func appendDataPrefix(dst []byte, tableID, indexID uint32) []byte {
	dst = append(dst, spaceData)
	dst = binary.BigEndian.AppendUint32(dst, tableID)
	return binary.BigEndian.AppendUint32(dst, indexID)
}

// tablePrefix returns the prefix of all data of a table, its indexes included.
func tablePrefix(tableID uint32) []byte {
	dst := []byte{spaceData}
	return binary.BigEndian.AppendUint32(dst, tableID)
}

// partitionHash is the hash that places a partition in the key space: the
// xxHash64 of its encoded partition key value. It is part of the on-disk
// format and must never change.
func partitionHash(encPK []byte) uint64 { return xxhash.Sum64(encPK) }

// appendPartition appends hash and encoded partition key to a data prefix.
func appendPartition(dst []byte, encPK []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, partitionHash(encPK))
	return append(dst, encPK...)
}

// segmentBound returns the first hash of segment i of n: floor(i*2^64/n).
// ok is false for i == n (the end of the hash space).
func segmentBound(i, n uint64) (h uint64, ok bool) {
	if i >= n {
		return 0, false
	}
	q, _ := bits.Div64(i, 0, n)
	return q, true
}

// appendTTLKey appends the TTL queue key of an item: space, table id,
// expiry (seconds since the epoch, offset so that unsigned order is time
// order), and the item's key after the data prefix (hash, partition key,
// sort key).
func appendTTLKey(dst []byte, tableID uint32, expiry int64, itemSuffix []byte) []byte {
	dst = append(dst, spaceTTL)
	dst = binary.BigEndian.AppendUint32(dst, tableID)
	dst = binary.BigEndian.AppendUint64(dst, uint64(expiry)^(1<<63))
	return append(dst, itemSuffix...)
}

func ttlPrefix(tableID uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceTTL}, tableID)
}

// ttlExpiry decodes the expiry of a TTL queue key.
func ttlExpiry(k []byte) (int64, []byte, bool) {
	if len(k) < 1+4+8 {
		return 0, nil, false
	}
	return int64(binary.BigEndian.Uint64(k[5:13]) ^ (1 << 63)), k[13:], true
}

// clampSeconds converts a float of epoch seconds to int64 without overflow.
func clampSeconds(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return math.MaxInt64
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(math.Floor(f))
}

// keyEnd returns the smallest key greater than every key with prefix p.
func keyEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xFF {
			end := make([]byte, i+1)
			copy(end, p)
			end[i]++
			return end
		}
	}
	return nil
}
