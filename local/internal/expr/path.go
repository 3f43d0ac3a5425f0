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

// checkOverlap reports the first pair of paths of which one is a prefix of
// the other (overlap) or which address the same element once as a map key
// and once as a list index (conflict), in DynamoDB's words.
func checkOverlap(kind string, paths []path) error {
	for j := 1; j < len(paths); j++ {
		for i := 0; i < j; i++ {
			a, b := paths[i], paths[j]
			n := min(len(a), len(b))
			rel := "overlap"
			for s := 0; s < n; s++ {
				if (a[s].index >= 0) != (b[s].index >= 0) {
					rel = "conflict"
					break
				}
				if a[s] != b[s] {
					rel = ""
					break
				}
			}
			if rel != "" {
				return errorf("Invalid %s: Two document paths %s with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
					kind, rel, a, b)
			}
		}
	}
	return nil
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
	bucket := func(s string) int {
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
		u := uint32(h)
		return int((u ^ u>>16) & uint32(n-1))
	}
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
