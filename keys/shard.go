package keys

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// MaxShards is the largest shard count Shard accepts.
const MaxShards = 10000

// ShardIndex returns the shard, in [0, n), that id belongs to among n
// shards: the 32-bit FNV-1a hash of id's bytes, modulo n. The result
// depends only on id and n, never on the process, platform or version, so
// writers and readers agree forever; changing n moves most ids. n is
// clamped to [1, MaxShards].
func ShardIndex(id string, n int) int {
	n = clampShards(n)
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// Shard returns the shard suffix of id among n shards: "S" and ShardIndex
// in decimal, zero-padded to ShardWidth(n) digits ("S07" for n up to 100).
// Suffixes of one n have one width and sort in shard order. n is clamped to
// [1, MaxShards].
func Shard(id string, n int) string {
	return ShardSuffix(ShardIndex(id, n), n)
}

// ShardWidth returns the number of digits of the shard suffixes of n
// shards: 2 up to 100 shards, 3 up to 1000, 4 up to MaxShards.
func ShardWidth(n int) int {
	n = clampShards(n)
	w := 2
	for lim := 100; n > lim; lim *= 10 {
		w++
	}
	return w
}

// ShardSuffix returns the suffix of shard i among n shards, such as
// ShardSuffix(7, 16) = "S07". i is clamped to [0, n).
func ShardSuffix(i, n int) string {
	n = clampShards(n)
	i = max(0, min(i, n-1))
	return string(appendDigits([]byte("S"), i, ShardWidth(n)))
}

// Shards returns the suffixes of all n shards in order, for scatter-gather
// reads. The slice is newly allocated.
func Shards(n int) []string {
	n = clampShards(n)
	out := make([]string, n)
	for i := range out {
		out[i] = ShardSuffix(i, n)
	}
	return out
}

// ParseShard parses a shard suffix "S" followed by at least two decimal
// digits and returns the shard index. It returns an error wrapping
// ErrSyntax for anything else.
func ParseShard(s string) (int, error) {
	if len(s) < 3 || len(s) > 5 || s[0] != 'S' {
		return 0, fmt.Errorf("cannot parse shard suffix %q: want S and 2 to 4 digits: %w", s, ErrSyntax)
	}
	i, ok := digits(s, 1, len(s)-1)
	if !ok {
		return 0, fmt.Errorf("cannot parse shard suffix %q: want S and 2 to 4 digits: %w", s, ErrSyntax)
	}
	return i, nil
}

// ShardedEntity returns Entity(typ, id) followed by '#' and Shard(id, n):
// ShardedEntity("SENSOR", "123", 16) = "SENSOR#123#S11". It is the partition
// key of one shard of a hot series; readers query every suffix of Shards(n)
// and merge.
func ShardedEntity(typ, id string, n int) string {
	return Entity(typ, id) + Sep + Shard(id, n)
}

// ParseShardedEntity splits a key made by ShardedEntity into its type, id
// and shard index: the type ends at the first '#', the shard is after the
// last. It returns an error wrapping ErrSyntax if the key does not have
// that shape.
func ParseShardedEntity(s string) (typ, id string, shard int, err error) {
	i := strings.LastIndex(s, Sep)
	if i < 0 {
		return "", "", 0, fmt.Errorf("cannot parse sharded entity key %q: want TYPE#ID#Snn: %w", s, ErrSyntax)
	}
	shard, err = ParseShard(s[i+1:])
	if err != nil {
		return "", "", 0, fmt.Errorf("cannot parse sharded entity key %q: want TYPE#ID#Snn: %w", s, ErrSyntax)
	}
	typ, id, err = ParseEntity(s[:i])
	if err != nil {
		return "", "", 0, fmt.Errorf("cannot parse sharded entity key %q: want TYPE#ID#Snn: %w", s, ErrSyntax)
	}
	return typ, id, shard, nil
}

func clampShards(n int) int { return max(1, min(n, MaxShards)) }
