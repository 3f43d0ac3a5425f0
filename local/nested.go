package local

import (
	"slices"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// keyAttr is a key attribute of a table or of one of its indexes.
type keyAttr struct {
	name  string
	index bool // a key of an index, not of the table
}

// keyAttrOrder lists the key attributes of m in the order in which
// DynamoDB Local looks for nested paths into them: the table's hash and
// range keys, then the keys of the local secondary indexes and then those
// of the global ones, each group in DynamoDB Local's order of index names
// (a Java hash map's), hash key before range key.
func (m *tableMeta) keyAttrOrder() []keyAttr {
	keys := []keyAttr{{name: m.Hash}}
	if m.Range != "" {
		keys = append(keys, keyAttr{name: m.Range})
	}
	for _, ix := range m.indexCheckOrder() {
		for _, a := range ix.keyNames {
			if !slices.ContainsFunc(keys, func(k keyAttr) bool { return k.name == a }) {
				keys = append(keys, keyAttr{name: a, index: true})
			}
		}
	}
	return keys
}

// indexCheckOrder returns the indexes of m in the order in which DynamoDB
// Local checks the index key attributes of a new item: local indexes, then
// global ones, each group in the order of a Java hash map of their names.
func (m *tableMeta) indexCheckOrder() []*indexMeta {
	var out []*indexMeta
	for _, global := range []bool{false, true} {
		var names []string
		for _, ix := range m.Indexes {
			if ix.Global == global {
				names = append(names, ix.Name)
			}
		}
		for _, name := range expr.JavaOrder(names) {
			out = append(out, m.index(name))
		}
	}
	return out
}

// checkNested returns DynamoDB's error when nested, the top-level names of
// the nested document paths (a.b, a[0]) of one expression, holds a key
// attribute of the table or of one of its indexes; DynamoDB reports the
// first in keyAttrOrder. nested is usually nil, which costs nothing.
func (m *tableMeta) checkNested(nested []string) error {
	if len(nested) == 0 {
		return nil
	}
	for _, k := range m.keys {
		if !slices.Contains(nested, k.name) {
			continue
		}
		what := "Key"
		if k.index {
			what = "IndexKey"
		}
		return validationf("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: %s: %s", what, k.name)
	}
	return nil
}

// condNested and projNested return the nested names of a compiled
// expression, nil when there is none.
func condNested(c *expr.Condition) []string {
	if c == nil {
		return nil
	}
	return c.Nested()
}

func projNested(p projector) []string {
	if p.p == nil {
		return nil
	}
	return p.p.Nested()
}
