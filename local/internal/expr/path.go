package expr

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// step is one step of a document path: a map key, or a list index when
// index >= 0.
type step struct {
	name  string
	index int
}

// path is a resolved document path; the first step is always a name.
type path []step

// get returns the value at p in item, or nil when there is none.
func (p path) get(item Item) types.AttributeValue {
	v := item[p[0].name]
	for _, s := range p[1:] {
		if v == nil {
			return nil
		}
		v = child(v, s)
	}
	return v
}

// child returns the element of v that s selects, or nil.
func child(v types.AttributeValue, s step) types.AttributeValue {
	if s.index >= 0 {
		l, ok := v.(*types.AttributeValueMemberL)
		if !ok || s.index >= len(l.Value) {
			return nil
		}
		return l.Value[s.index]
	}
	m, ok := v.(*types.AttributeValueMemberM)
	if !ok {
		return nil
	}
	return m.Value[s.name]
}

// addNested appends p's top-level name to names when p is nested (more
// than one step) and the name is not there yet.
func (p path) addNested(names []string) []string {
	if len(p) > 1 && !slices.Contains(names, p[0].name) {
		names = append(names, p[0].name)
	}
	return names
}

func (p path) equal(q path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// String formats p as DynamoDB does in messages: [a, [0], b].
func (p path) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if s.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		} else {
			b.WriteString(s.name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// HashSetOrder returns the distinct names of names in the order in which a
// java.util.HashSet iterates them after they were added in that order:
// the order of some lists in DynamoDB Local's messages.
func HashSetOrder(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	n := javaCapacity(len(out))
	slices.SortStableFunc(out, func(a, b string) int {
		return javaBucket(javaHash(a), n) - javaBucket(javaHash(b), n)
	})
	return out
}

// JavaOrder returns keys in the order in which a java.util.HashMap holding
// exactly them iterates, the order in which DynamoDB Local visits names it
// keeps in such maps (placeholders, index names). keys is not modified.
func JavaOrder(keys []string) []string { return javaOrder(keys, len(keys)) }

// javaOrder sorts keys in the order a java.util.HashMap holding total
// entries iterates them, which is the order DynamoDB lists keys in its
// messages. Keys of one bucket are sorted shortest first, then bytewise, as
// their order of insertion is not known.
func javaOrder(keys []string, total int) []string {
	n := 16
	for total > n*3/4 {
		n *= 2
	}
	bucket := func(s string) int { return javaBucket(javaHash(s), n) }
	out := append([]string(nil), keys...)
	bs := make(map[string]int, len(out))
	for _, k := range out {
		bs[k] = bucket(k)
	}
	sortFunc(out, func(a, b string) bool {
		if bs[a] != bs[b] {
			return bs[a] < bs[b]
		}
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	return out
}

// javaHash is Java's String.hashCode of s (over UTF-16 code units).
func javaHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// javaBucket is the bucket of a java.util.HashMap of capacity n (a power
// of two) that holds a key whose hashCode is h.
func javaBucket(h int32, n int) int {
	u := uint32(h)
	return int((u ^ u>>16) & uint32(n-1))
}

// javaCapacity is the capacity of a java.util.HashMap of default initial
// capacity once it holds size entries.
func javaCapacity(size int) int {
	n := 16
	for size > n*3/4 {
		n *= 2
	}
	return n
}
