package design

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Code names a kind of mistake Validate finds.
type Code string

// The kinds of mistake.
const (
	// CodeInvalid: a missing or repeated name, a bad type, a limit of
	// DynamoDB exceeded.
	CodeInvalid Code = "invalid"
	// CodeSyntax: a key template that does not parse, or has two adjacent
	// placeholders that no parser can tell apart.
	CodeSyntax Code = "syntax"
	// CodeKeyCondition: a key condition that does not parse or that
	// DynamoDB refuses (IN, OR, a range on the partition key, ...).
	CodeKeyCondition Code = "key-condition"
	// CodeUnknownIndex: an access pattern names an index the table lacks.
	CodeUnknownIndex Code = "unknown-index"
	// CodeUnknownEntity: an access pattern returns an entity the design
	// lacks.
	CodeUnknownEntity Code = "unknown-entity"
	// CodeUnknownAttribute: a template placeholder that names no attribute
	// of its entity (or parameter of its access pattern).
	CodeUnknownAttribute Code = "unknown-attribute"
	// CodeKeySchema: an entity's keys do not fit the key schema: a missing
	// table key, an attribute that is no key, some of a global index's key
	// attributes but not all (when one it sets serves no other key), a key
	// of type N or B built from text.
	CodeKeySchema Code = "key-schema"
	// CodeKeyMismatch: an access pattern's condition names other keys than
	// its index has, or cannot select the entities it returns.
	CodeKeyMismatch Code = "key-mismatch"
	// CodeDuplicateKey: two entities whose primary keys can be equal, so
	// that one overwrites the other.
	CodeDuplicateKey Code = "duplicate-key"
	// CodeSortOrder: two entities in one partition whose sort keys
	// interleave with formats that do not sort alike, such as the hour
	// bucket 2024-12-01-14 and the timestamp 2024-12-01T14:30:00.000Z
	// ('-' sorts before 'T').
	CodeSortOrder Code = "sort-order"
	// CodeFormat: a time layout that does not sort as time does, or an
	// example value that does not fit its layout.
	CodeFormat Code = "format"
	// CodeUnboundedRange: a range condition bounded on one side only (such
	// as sk >= REALTIME#{start}) that runs on into the items of other
	// entities of the partition.
	CodeUnboundedRange Code = "unbounded-range"
	// CodeSelectsOthers: a condition that also selects items of entities
	// the access pattern does not return.
	CodeSelectsOthers Code = "selects-others"
	// CodeCoarseBound: an inclusive upper bound of a coarser time format
	// than the keys it bounds, which leaves out the keys of its last period
	// (sk <= PV#2024-01-31 misses PV#2024-01-31T10:00:00.000Z).
	CodeCoarseBound Code = "coarse-bound"
	// CodeOperation: an operation used with a condition it cannot take
	// (GetItem on an index or without the full key, Scan with a key
	// condition).
	CodeOperation Code = "operation"
	// CodeTTL: an entity's TTL attribute is not the table's, or not a
	// number.
	CodeTTL Code = "ttl"
	// CodeKeyCount: an index with more than four partition key attributes
	// or more than four sort key attributes (see Index.MorePartitionKeys).
	CodeKeyCount Code = "key-count"
	// CodeLocalKeys: a local index with a multi-attribute key; only global
	// indexes can have one.
	CodeLocalKeys Code = "local-keys"
	// CodeRepeatedKey: an attribute named twice in one index's key schema.
	CodeRepeatedKey Code = "repeated-key"
	// CodeKeyType: an entity attribute of one type that is also a key
	// attribute of another type; an item has one type per attribute, and
	// DynamoDB refuses a write whose key attribute has the wrong type.
	CodeKeyType Code = "key-type"
	// CodePartitionKeys: a condition on a multi-attribute index without an
	// equality on each of its partition key attributes.
	CodePartitionKeys Code = "partition-keys"
	// CodeSortKeyGap: a condition on a multi-attribute index's sort key
	// attributes that leaves one out before a later one; conditions go
	// from the left.
	CodeSortKeyGap Code = "sort-key-gap"
	// CodeAfterRange: a condition on a multi-attribute index's sort key
	// attribute after the one with a range condition (<, <=, >, >=,
	// BETWEEN, begins_with); the range must be on the last one given.
	CodeAfterRange Code = "after-range"
)

// Problem is one mistake in a Design.
type Problem struct {
	Code Code
	// Where names the part of the design: "table", "index GSI1", "entity
	// PageView", "access pattern Realtime visitors".
	Where string
	Msg   string
}

func (p *Problem) Error() string { return "design: " + p.Where + ": " + p.Msg }

// Problems is the error Validate returns: every mistake found, in the order
// of the design's parts.
type Problems []*Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Has reports whether one of ps is of kind code.
func (ps Problems) Has(code Code) bool {
	return slices.ContainsFunc(ps, func(p *Problem) bool { return p.Code == code })
}

// DynamoDB's limits on secondary indexes per table, and on the key
// attributes of a global index's partition and sort keys.
const (
	maxGSIs     = 20
	maxLSIs     = 5
	maxKeyAttrs = 4
)

// Validate checks the design and returns nil, or Problems listing every
// mistake found. Besides names, types and references, it catches the traps
// of single-table designs: sort keys of two formats interleaving in one
// partition, range conditions that run into other entities' items, key
// conditions DynamoDB refuses, and inclusive upper bounds coarser than the
// keys they bound.
func (d *Design) Validate() error {
	v := &validator{d: d}
	v.table()
	for i := range d.Entities {
		v.entity(&d.Entities[i])
	}
	v.partitions()
	for i := range d.AccessPatterns {
		v.pattern(&d.AccessPatterns[i])
	}
	if len(v.ps) == 0 {
		return nil
	}
	return v.ps
}

type validator struct {
	d  *Design
	ps Problems
}

func (v *validator) add(code Code, where, format string, args ...any) {
	v.ps = append(v.ps, &Problem{Code: code, Where: where, Msg: fmt.Sprintf(format, args...)})
}

func validScalar(t ScalarType) bool { return t == "" || t == String || t == Number || t == Binary }

var attrTypes = []string{"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// indexNames returns "" (the table) and the name of every index.
func (v *validator) indexNames() []string {
	names := []string{""}
	for _, ix := range v.d.Table.Indexes {
		if ix.Name != "" {
			names = append(names, ix.Name)
		}
	}
	return names
}

func indexWhere(name string) string {
	if name == "" {
		return "table"
	}
	return "index " + name
}

func (v *validator) table() {
	t := &v.d.Table
	if t.Name == "" {
		v.add(CodeInvalid, "table", "no table name")
	}
	if t.PartitionKey.IsZero() {
		v.add(CodeInvalid, "table", "no partition key")
	}
	keyTypes := map[string]ScalarType{}
	checkKey := func(where string, k Key) {
		if k.IsZero() {
			return
		}
		if !validScalar(k.Type) {
			v.add(CodeInvalid, where, "key %s has type %q; a key is S, N or B", k.Name, k.Type)
			return
		}
		if prev, ok := keyTypes[k.Name]; ok && prev != k.typ() {
			v.add(CodeInvalid, where, "key %s has type %s here and %s elsewhere", k.Name, k.typ(), prev)
		}
		keyTypes[k.Name] = k.typ()
	}
	checkKey("table", t.PartitionKey)
	checkKey("table", t.SortKey)
	if t.SortKey.Name != "" && t.SortKey.Name == t.PartitionKey.Name {
		v.add(CodeInvalid, "table", "the partition and sort keys are both %s", t.SortKey.Name)
	}
	seen := map[string]bool{}
	var gsis, lsis int
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		where := indexWhere(ix.Name)
		if ix.Name == "" {
			v.add(CodeInvalid, "table", "index %d has no name", i+1)
			where = fmt.Sprintf("index %d", i+1)
		} else if seen[ix.Name] {
			v.add(CodeInvalid, where, "two indexes named %s", ix.Name)
		}
		seen[ix.Name] = true
		pk, sk, _ := t.keysOf(ix.Name)
		if ix.Local {
			lsis++
			if pk.Name != t.PartitionKey.Name {
				v.add(CodeInvalid, where, "a local index has the table's partition key %s, not %s", t.PartitionKey.Name, pk.Name)
			}
			if t.SortKey.IsZero() {
				v.add(CodeInvalid, where, "a local index needs a table with a sort key")
			}
			if sk.IsZero() {
				v.add(CodeInvalid, where, "a local index needs a sort key")
			}
		} else {
			gsis++
			if pk.IsZero() {
				v.add(CodeInvalid, where, "no partition key")
			}
		}
		checkKey(where, pk)
		checkKey(where, sk)
		v.multiKey(where, ix, checkKey)
		switch ix.Projection.typ() {
		case ProjectInclude:
			if len(ix.Projection.NonKeyAttributes) == 0 {
				v.add(CodeInvalid, where, "an INCLUDE projection lists no attributes")
			}
		case ProjectAll, ProjectKeysOnly:
			if len(ix.Projection.NonKeyAttributes) > 0 {
				v.add(CodeInvalid, where, "a %s projection takes no attribute list", ix.Projection.typ())
			}
		default:
			v.add(CodeInvalid, where, "unknown projection %q", ix.Projection.Type)
		}
	}
	if gsis > maxGSIs {
		v.add(CodeInvalid, "table", "%d global indexes; DynamoDB allows %d", gsis, maxGSIs)
	}
	if lsis > maxLSIs {
		v.add(CodeInvalid, "table", "%d local indexes; DynamoDB allows %d", lsis, maxLSIs)
	}
	if _, ok := keyTypes[t.TTL]; ok && t.TTL != "" {
		v.add(CodeTTL, "table", "the TTL attribute %s is a key attribute", t.TTL)
	}
}

// multiKey checks the key schema of an index beyond its first partition
// and sort key attributes: the number of attributes, their names and
// types, and that only a global index has more than one of each.
func (v *validator) multiKey(where string, ix *Index, checkKey func(string, Key)) {
	pks, sks, _ := v.d.Table.KeySchema(ix.Name)
	if ix.Local && len(ix.MorePartitionKeys)+len(ix.MoreSortKeys) > 0 {
		v.add(CodeLocalKeys, where, "a local index has one partition and one sort key attribute, not %s; only a global index can have more", keyList(pks, sks))
	}
	if len(pks) > maxKeyAttrs {
		v.add(CodeKeyCount, where, "%d partition key attributes; DynamoDB allows %d", len(pks), maxKeyAttrs)
	}
	if len(sks) > maxKeyAttrs {
		v.add(CodeKeyCount, where, "%d sort key attributes; DynamoDB allows %d", len(sks), maxKeyAttrs)
	}
	if ix.SortKey.IsZero() && len(ix.MoreSortKeys) > 0 {
		v.add(CodeInvalid, where, "more sort key attributes but no sort key")
	}
	if slices.ContainsFunc(ix.MorePartitionKeys, Key.IsZero) {
		v.add(CodeInvalid, where, "a further partition key attribute has no name")
	}
	if slices.ContainsFunc(ix.MoreSortKeys, Key.IsZero) {
		v.add(CodeInvalid, where, "a further sort key attribute has no name")
	}
	seen := map[string]bool{}
	for _, k := range append(pks, sks...) {
		if k.IsZero() {
			continue
		}
		if seen[k.Name] {
			v.add(CodeRepeatedKey, where, "%s is twice in the key schema %s; each key attribute appears once", k.Name, keyList(pks, sks))
		}
		seen[k.Name] = true
	}
	for _, k := range ix.MorePartitionKeys {
		checkKey(where, k)
	}
	for _, k := range ix.MoreSortKeys {
		checkKey(where, k)
	}
}

// keyList writes a key schema as its partition key attributes joined by
// "+", then "/" and its sort key attributes: "siteId + kind / day".
func keyList(pks, sks []Key) string {
	s := keyNamesJoin(pks, " + ")
	if len(sks) > 0 {
		s += " / " + keyNamesJoin(sks, " + ")
	}
	return s
}

func keyNamesJoin(ks []Key, sep string) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, sep)
}

// andList joins names as "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// keyType returns the type of the key attribute named name, and whether
// the table or an index has one.
func (t *Table) keyType(name string) (ScalarType, bool) {
	for _, k := range []Key{t.PartitionKey, t.SortKey} {
		if k.Name == name && name != "" {
			return k.typ(), true
		}
	}
	for _, ix := range t.Indexes {
		pks, sks, _ := t.KeySchema(ix.Name)
		for _, k := range append(pks, sks...) {
			if k.Name == name && name != "" {
				return k.typ(), true
			}
		}
	}
	return "", false
}

// servesKey reports whether the key attribute name, which e sets, is a key
// of the table or of an index other than except that e's items are in.
func (e *Entity) servesKey(t *Table, name, except string) bool {
	for _, index := range append([]string{""}, indexNamesOf(t)...) {
		if index == except || !e.InIndex(t, index) {
			continue
		}
		pks, sks, _ := t.KeySchema(index)
		if slices.ContainsFunc(append(pks, sks...), func(k Key) bool { return k.Name == name }) {
			return true
		}
	}
	return false
}

func (v *validator) entity(e *Entity) {
	where := "entity " + e.Name
	t := &v.d.Table
	if e.Name == "" {
		v.add(CodeInvalid, "design", "an entity has no name")
		where = "entity ?"
	} else if v.d.Entity(e.Name) != e {
		v.add(CodeInvalid, where, "two entities named %s", e.Name)
	}
	attrs := map[string]bool{}
	for _, a := range e.Attributes {
		switch {
		case a.Name == "":
			v.add(CodeInvalid, where, "an attribute has no name")
		case attrs[a.Name]:
			v.add(CodeInvalid, where, "two attributes named %s", a.Name)
		case !slices.Contains(attrTypes, a.typ()):
			v.add(CodeInvalid, where, "attribute %s has unknown type %q", a.Name, a.Type)
		}
		attrs[a.Name] = true
		if a.Format != "" {
			if why := checkLayout(a.Format); why != "" {
				v.add(CodeFormat, where, "attribute %s has format %q, which cannot order keys: %s", a.Name, a.Format, why)
			}
		}
	}
	if !t.PartitionKey.IsZero() {
		if _, ok := e.Keys[t.PartitionKey.Name]; !ok {
			v.add(CodeKeySchema, where, "no template for the partition key %s", t.PartitionKey.Name)
		}
	}
	if !t.SortKey.IsZero() {
		if _, ok := e.Keys[t.SortKey.Name]; !ok {
			v.add(CodeKeySchema, where, "no template for the sort key %s", t.SortKey.Name)
		}
	}
	for _, name := range sortedKeys(e.Keys) {
		tmpl := e.Keys[name]
		typ, ok := t.keyType(name)
		if !ok {
			v.add(CodeKeySchema, where, "%s is not a key of the table or of an index", name)
			continue
		}
		segs, err := tmpl.parse()
		if err != nil {
			v.add(CodeSyntax, where, "key %s: %v", name, err)
			continue
		}
		if tmpl == "" {
			v.add(CodeKeySchema, where, "key %s has an empty template; key values cannot be empty", name)
		}
		for i, s := range segs {
			if !s.placeholder() {
				continue
			}
			if i > 0 && segs[i-1].placeholder() {
				v.add(CodeSyntax, where, "key %s: {%s}{%s} are adjacent, so no parser can tell where one ends; put a separator between them", name, segs[i-1].name, s.name)
			}
			if !attrs[s.name] {
				v.add(CodeUnknownAttribute, where, "key %s = %s uses {%s}, which is not an attribute of %s", name, tmpl, s.name, e.Name)
			}
		}
		reported := false
		if typ != String {
			if len(segs) != 1 || !segs[0].placeholder() {
				v.add(CodeKeySchema, where, "key %s is of type %s; its template must be one placeholder, not %q", name, typ, tmpl)
			} else if a := e.Attribute(segs[0].name); a != nil && a.typ() != string(typ) {
				v.add(CodeKeySchema, where, "key %s is of type %s but {%s} is of type %s", name, typ, a.Name, a.typ())
				reported = a.Name == name
			}
		}
		if a := e.Attribute(name); a != nil && a.typ() != string(typ) && !reported {
			v.add(CodeKeyType, where, "attribute %s is of type %s, but the key attribute %s is of type %s; an item has one type per attribute", name, a.typ(), name, typ)
		}
	}
	// An entity that sets some of a global index's key attributes but not
	// all is not in the index. That is a mistake when an attribute it sets
	// serves no other key: the table's, or an index's it is in.
	for _, ix := range t.Indexes {
		if ix.Local {
			continue
		}
		pks, sks, _ := t.KeySchema(ix.Name)
		var have, lack []string
		for _, k := range append(pks, sks...) {
			if k.IsZero() {
				continue
			}
			if _, ok := e.Keys[k.Name]; ok {
				if !e.servesKey(t, k.Name, ix.Name) {
					have = append(have, k.Name)
				}
			} else {
				lack = append(lack, k.Name)
			}
		}
		if len(have) > 0 && len(lack) > 0 {
			v.add(CodeKeySchema, where, "sets %s but not %s, so its items never appear in %s", andList(have), andList(lack), ix.Name)
		}
	}
	for _, name := range sortedKeys(e.Example) {
		val := e.Example[name]
		a := e.Attribute(name)
		if a == nil {
			v.add(CodeUnknownAttribute, where, "example value for %s, which is not an attribute", name)
			continue
		}
		if a.Format != "" && checkLayout(a.Format) == "" && !parseTimeValue(a.Format, val) {
			v.add(CodeFormat, where, "example %s = %q does not fit its format %q", name, val, a.Format)
		}
	}
	if e.Example != nil {
		for _, name := range sortedKeys(e.Keys) {
			for _, p := range e.Keys[name].Placeholders() {
				if _, ok := e.Example[p]; !ok && attrs[p] {
					v.add(CodeInvalid, where, "no example value for {%s} of key %s", p, name)
				}
			}
		}
	}
	if e.TTL != "" {
		switch {
		case t.TTL == "":
			v.add(CodeTTL, where, "sets TTL attribute %s but the table has no TTL attribute", e.TTL)
		case e.TTL != t.TTL:
			v.add(CodeTTL, where, "sets TTL attribute %s but the table's is %s", e.TTL, t.TTL)
		}
		if a := e.Attribute(e.TTL); a == nil {
			v.add(CodeTTL, where, "TTL attribute %s is not among its attributes", e.TTL)
		} else if a.typ() != "N" {
			v.add(CodeTTL, where, "TTL attribute %s is of type %s; DynamoDB expires only numbers (epoch seconds)", e.TTL, a.typ())
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// partitions checks, in the table and in each index, the entities whose
// partition keys can be equal: their primary keys must differ (table only)
// and their sort keys must order alike.
func (v *validator) partitions() {
	t := &v.d.Table
	for _, index := range v.indexNames() {
		pks, sks, _ := t.KeySchema(index)
		var in []*Entity
	entities:
		for i := range v.d.Entities {
			e := &v.d.Entities[i]
			if !e.InIndex(t, index) {
				continue
			}
			for _, k := range pks {
				if e.Keys[k.Name].Check() != nil {
					continue entities
				}
			}
			in = append(in, e)
		}
		for i, a := range in {
			for _, b := range in[i+1:] {
				if a.Name == b.Name || !samePartitions(a, b, pks) {
					continue
				}
				if index == "" && (len(sks) == 0 || sameKeys(a, b, a.Keys[sks[0].Name], b.Keys[sks[0].Name])) {
					v.add(CodeDuplicateKey, "entity "+b.Name, "has the primary key of %s (%s), so one overwrites the other", a.Name, keyString(t, a))
					continue
				}
				// Items sort by the first sort key attribute, then by the
				// next: compare the first whose templates are not one
				// literal value.
				for _, sk := range sks {
					ta, tb := a.Keys[sk.Name], b.Keys[sk.Name]
					if ta == tb && ta.Literal() {
						continue
					}
					if sk.typ() != String {
						break
					}
					if msg := interleave(a, b, ta, tb); msg != "" {
						v.add(CodeSortOrder, "entity "+b.Name, "in %s, partition %s: %s; keep one sort-key format per partition, or put each behind its own prefix (H#, R#)", indexWhere(index), partitionString(a, pks), msg)
					}
					break
				}
			}
		}
	}
}

// samePartitions reports whether entities a and b can have items in one
// partition of a key schema whose partition key attributes are pks.
func samePartitions(a, b *Entity, pks []Key) bool {
	for _, k := range pks {
		if !samePartition(a.Keys[k.Name], b.Keys[k.Name]) {
			return false
		}
	}
	return true
}

// partitionString shows e's partition key: its template, or for a
// multi-attribute key each attribute's.
func partitionString(e *Entity, pks []Key) string {
	if len(pks) == 1 {
		return string(e.Keys[pks[0].Name])
	}
	parts := make([]string, len(pks))
	for i, k := range pks {
		parts[i] = k.Name + " = " + string(e.Keys[k.Name])
	}
	return strings.Join(parts, ", ")
}

func keyString(t *Table, e *Entity) string {
	s := t.PartitionKey.Name + " = " + string(e.Keys[t.PartitionKey.Name])
	if !t.SortKey.IsZero() {
		s += ", " + t.SortKey.Name + " = " + string(e.Keys[t.SortKey.Name])
	}
	return s
}

// samePartition reports whether two partition key templates can produce
// the same value: they have one shape, or one is a literal value of the
// other.
func samePartition(a, b Template) bool {
	if a.shape() == b.shape() {
		return true
	}
	if a.Literal() {
		_, ok := b.Match(string(a))
		return ok
	}
	if b.Literal() {
		_, ok := a.Match(string(b))
		return ok
	}
	return false
}

// sameKeys reports whether the sort-key templates of two entities can
// produce the same value: they have one shape and their placeholders, in
// order, have the same formats (values of two different time layouts never
// coincide; opaque values may).
func sameKeys(a, b *Entity, ta, tb Template) bool {
	if ta.shape() != tb.shape() {
		return false
	}
	pa, pb := ta.Placeholders(), tb.Placeholders()
	for i := range pa {
		if formatOf(pa[i], a.Attributes) != formatOf(pb[i], b.Attributes) {
			return false
		}
	}
	return true
}

// token is one byte of a template's literal text, or a placeholder.
type token struct {
	c    byte
	name string
}

func tokens(t Template) []token {
	segs, _ := t.parse()
	var ts []token
	for _, s := range segs {
		if s.placeholder() {
			ts = append(ts, token{name: s.name})
			continue
		}
		for i := 0; i < len(s.lit); i++ {
			ts = append(ts, token{c: s.lit[i]})
		}
	}
	return ts
}

// formatOf returns the time layout of the placeholder name, looked up in
// the attribute lists in order.
func formatOf(name string, lists ...[]Attribute) string {
	for _, l := range lists {
		for _, a := range l {
			if a.Name == name {
				return a.Format
			}
		}
	}
	return ""
}

// interleave compares the sort-key templates of two entities of one
// partition and describes how their keys fail to sort alike, or returns "".
// Templates that differ in a literal byte before any placeholder occupy
// disjoint ranges and never interleave.
func interleave(a, b *Entity, ta, tb Template) string {
	xa, xb := tokens(ta), tokens(tb)
	for i := 0; i < len(xa) && i < len(xb); i++ {
		p, q := xa[i], xb[i]
		if p.name == "" && q.name == "" {
			if p.c != q.c {
				return ""
			}
			continue
		}
		if p.name == "" || q.name == "" {
			return "" // a literal against a value: no claim
		}
		fa, fb := formatOf(p.name, a.Attributes), formatOf(q.name, b.Attributes)
		switch {
		case fa == "" && fb == "":
			return ""
		case fa == "" || fb == "":
			tv, ov := p.name, q.name
			te, oe := a.Name, b.Name
			if fa == "" {
				tv, ov, te, oe = q.name, p.name, b.Name, a.Name
			}
			return fmt.Sprintf("the values of {%s} (%s) interleave with the times of {%s} (%s) in one sort-key range", ov, oe, tv, te)
		case fa == fb:
			continue
		}
		if ok, _ := layoutsCompatible(fa, fb); ok {
			return ""
		}
		return inversion(a.Name, p.name, fa, b.Name, q.name, fb)
	}
	return ""
}

// inversion describes two incompatible layouts by a pair of keys that sort
// against time.
func inversion(ea, na, fa, eb, nb, fb string) string {
	_, at := layoutsCompatible(fa, fb)
	early := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
	late := time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC)
	msg := fmt.Sprintf("%s {%s} (%s) and %s {%s} (%s) differ at byte %d", ea, na, fa, eb, nb, fb, at+1)
	for _, c := range [][4]string{{ea, fa, eb, fb}, {eb, fb, ea, fa}} {
		kl, ke := late.Format(c[1]), early.Format(c[3])
		if kl < ke {
			return fmt.Sprintf("%s: %s's key %s (14:30) sorts before %s's key %s (00:00 the same day)", msg, c[0], kl, c[2], ke)
		}
	}
	return msg + ", so their keys do not sort in one time order"
}

// The byte 0xff never occurs in UTF-8, so s+"\xff" sorts after every string
// beginning with s; "\xff" alone stands for no upper bound.
const top = "\xff"

// span returns the range of strings t can produce, as far as its literal
// prefix tells: a literal is itself; otherwise [prefix, prefix+top].
func span(t Template) (lo, hi string) {
	if t.Literal() {
		return string(t), string(t)
	}
	p := t.Prefix()
	return p, p + top
}

// condRange returns the range of sort keys a sort term selects.
func condRange(s *Term) (lo, hi string) {
	switch s.Op {
	case OpEq:
		return span(s.Values[0])
	case OpLt, OpLe:
		_, hi = span(s.Values[0])
		return "", hi
	case OpGt, OpGe:
		lo, _ = span(s.Values[0])
		return lo, top
	case OpBetween:
		lo, _ = span(s.Values[0])
		_, hi = span(s.Values[1])
		return lo, hi
	case OpBeginsWith:
		p := s.Values[0].Prefix()
		return p, p + top
	}
	return "", top
}

func overlaps(alo, ahi, blo, bhi string) bool { return alo <= bhi && blo <= ahi }

func (v *validator) pattern(p *AccessPattern) {
	where := "access pattern " + p.Name
	d := v.d
	t := &d.Table
	if p.Name == "" {
		v.add(CodeInvalid, "design", "an access pattern has no name")
		where = "access pattern ?"
	} else if d.AccessPattern(p.Name) != p {
		v.add(CodeInvalid, where, "two access patterns named %s", p.Name)
	}
	if p.Limit < 0 {
		v.add(CodeInvalid, where, "negative limit %d", p.Limit)
	}
	for _, a := range p.Params {
		if a.Format != "" {
			if why := checkLayout(a.Format); why != "" {
				v.add(CodeFormat, where, "parameter %s has format %q, which cannot order keys: %s", a.Name, a.Format, why)
			}
		}
	}
	op := p.op()
	if !slices.Contains([]Operation{Query, GetItem, BatchGetItem, Scan}, op) {
		v.add(CodeInvalid, where, "unknown operation %q", p.Op)
		return
	}
	pk, sk, ok := t.keysOf(p.Index)
	if !ok {
		v.add(CodeUnknownIndex, where, "the table has no index %s", p.Index)
		return
	}
	var returns []*Entity
	if len(p.Returns) == 0 {
		v.add(CodeUnknownEntity, where, "names no entity it returns")
	}
	for _, name := range p.Returns {
		e := d.Entity(name)
		if e == nil {
			v.add(CodeUnknownEntity, where, "returns %s, which is not an entity of the design", name)
			continue
		}
		if !e.InIndex(t, p.Index) {
			v.add(CodeKeyMismatch, where, "returns %s, whose items are not in %s (it does not set %s)", name, indexWhere(p.Index), keyNames(t, p.Index))
			continue
		}
		returns = append(returns, e)
	}
	if len(returns) == 0 || len(returns) != len(p.Returns) {
		// What the pattern reads is unknown: the checks below would only
		// echo that.
		if op != Scan && p.Key != "" {
			if _, err := ParseKeyCondition(p.Key); err != nil {
				v.add(CodeKeyCondition, where, "%v", strings.TrimPrefix(err.Error(), "design: "))
			}
		}
		return
	}
	if op == Scan {
		if p.Key != "" {
			v.add(CodeOperation, where, "a Scan takes no key condition")
		}
		return
	}
	if p.Key == "" {
		v.add(CodeKeyCondition, where, "no key condition")
		return
	}
	kc, err := ParseKeyCondition(p.Key)
	if err != nil {
		v.add(CodeKeyCondition, where, "%v", strings.TrimPrefix(err.Error(), "design: "))
		return
	}
	if t.multiKey(p.Index) || len(kc.Terms) > 2 {
		v.multiPattern(where, p, kc, returns)
		return
	}
	if kc.Sort != nil && kc.Sort.Op == OpEq && kc.Partition.Attr == sk.Name && kc.Sort.Attr == pk.Name {
		kc.Partition, *kc.Sort = *kc.Sort, kc.Partition
	}
	if kc.Partition.Attr != pk.Name {
		v.add(CodeKeyMismatch, where, "the condition's partition key is %s; %s's is %s", kc.Partition.Attr, indexWhere(p.Index), pk.Name)
		return
	}
	if kc.Sort != nil && kc.Sort.Attr != sk.Name {
		if sk.IsZero() {
			v.add(CodeKeyMismatch, where, "%s has no sort key, but the condition names %s", indexWhere(p.Index), kc.Sort.Attr)
		} else {
			v.add(CodeKeyMismatch, where, "the condition's sort key is %s; %s's is %s", kc.Sort.Attr, indexWhere(p.Index), sk.Name)
		}
		return
	}
	if op == GetItem || op == BatchGetItem {
		if p.Index != "" {
			v.add(CodeOperation, where, "%s reads the table only; use Query on %s", op, p.Index)
			return
		}
		if !sk.IsZero() && (kc.Sort == nil || kc.Sort.Op != OpEq) {
			v.add(CodeOperation, where, "%s needs the full primary key: %s = ... AND %s = ...", op, pk.Name, sk.Name)
			return
		}
	}
	// Placeholders of the condition name parameters or returned attributes.
	var lists [][]Attribute
	lists = append(lists, p.Params)
	for _, e := range returns {
		lists = append(lists, e.Attributes)
	}
	terms := []Term{kc.Partition}
	if kc.Sort != nil {
		terms = append(terms, *kc.Sort)
	}
	for _, term := range terms {
		for _, val := range term.Values {
			for _, name := range val.Placeholders() {
				if !declared(name, lists) {
					v.add(CodeUnknownAttribute, where, "{%s} is neither a parameter of the pattern nor an attribute of %s", name, strings.Join(p.Returns, ", "))
				}
			}
		}
	}
	pkv := kc.Partition.Values[0]
	for _, e := range returns {
		if !samePartition(pkv, e.Keys[pk.Name]) {
			v.add(CodeKeyMismatch, where, "queries %s = %s, but %s's items have %s = %s", pk.Name, pkv, e.Name, pk.Name, e.Keys[pk.Name])
		}
	}
	if sk.typ() != String {
		return // N and B keys: no range analysis
	}
	lo, hi := "", top
	if kc.Sort != nil {
		lo, hi = condRange(kc.Sort)
	}
	for _, e := range returns {
		if sk.IsZero() || kc.Sort == nil {
			break
		}
		elo, ehi := span(e.Keys[sk.Name])
		if !overlaps(lo, hi, elo, ehi) {
			v.add(CodeKeyMismatch, where, "%s never selects %s's items (%s = %s)", kc.Sort, e.Name, sk.Name, e.Keys[sk.Name])
		}
	}
	if kc.Sort != nil {
		v.coarseBound(where, kc.Sort, p.Params, returns, sk.Name)
	}
	// Other entities of the partition that the range runs into.
	var others []string
	for i := range d.Entities {
		e := &d.Entities[i]
		if slices.Contains(p.Returns, e.Name) || !e.InIndex(t, p.Index) || !samePartition(pkv, e.Keys[pk.Name]) {
			continue
		}
		if !sk.IsZero() {
			elo, ehi := span(e.Keys[sk.Name])
			if !overlaps(lo, hi, elo, ehi) {
				continue
			}
		}
		others = append(others, e.Name)
	}
	v.selectsOthers(where, p, kc, kc.Sort, kc.Sort != nil, others)
}

// selectsOthers reports the other entities a key condition kc selects: rng
// is its range term (nil if none), sorted whether it has a sort condition.
func (v *validator) selectsOthers(where string, p *AccessPattern, kc *KeyCondition, rng *Term, sorted bool, others []string) {
	if len(others) == 0 {
		return
	}
	list := strings.Join(others, ", ")
	switch {
	case rng != nil && (rng.Op == OpGt || rng.Op == OpGe):
		first := ""
		if p.Reverse {
			first = " (and, read in reverse, come first)"
		}
		v.add(CodeUnboundedRange, where, "%s has no upper bound, so it runs on into the %s items of the partition, which sort after it%s; bound it on both sides with BETWEEN, or use begins_with", rng, list, first)
	case rng != nil && (rng.Op == OpLt || rng.Op == OpLe):
		first := ""
		if !p.Reverse {
			first = " (and come first)"
		}
		v.add(CodeUnboundedRange, where, "%s has no lower bound, so it runs back into the %s items of the partition, which sort before it%s; bound it on both sides with BETWEEN, or use begins_with", rng, list, first)
	case p.Filter != "":
		// The pattern filters the others out; they still cost read units.
	case !sorted:
		v.add(CodeSelectsOthers, where, "%s reads the whole partition, which also holds %s items; add a sort key condition, or say in Filter how they are dropped", kc, list)
	default:
		v.add(CodeSelectsOthers, where, "%s also selects %s items; give each entity its own sort-key prefix, or say in Filter how they are dropped", kc, list)
	}
}

// schemaTerms matches the terms of kc to the key schema pks, sks and
// returns the partition terms and the sort terms in key schema order,
// which are the terms of kc in the order DynamoDB applies them. It fails,
// with the code of the problem, if a term names no key attribute, a
// partition attribute has no equality, or the sort conditions do not go
// from the left with at most one range condition, the last.
func schemaTerms(kc *KeyCondition, pks, sks []Key, where string) (part, sort []Term, code Code, err error) {
	byAttr := map[string]Term{}
	for _, term := range kc.Terms {
		if !slices.ContainsFunc(append(pks, sks...), func(k Key) bool { return k.Name == term.Attr }) {
			return nil, nil, CodeKeyMismatch, fmt.Errorf("the condition names %s, which is not a key attribute of %s (%s)", term.Attr, where, keyList(pks, sks))
		}
		byAttr[term.Attr] = term
	}
	for _, k := range pks {
		term, ok := byAttr[k.Name]
		if !ok {
			return nil, nil, CodePartitionKeys, fmt.Errorf("the condition has no equality on the partition key attribute %s; a query of %s gives one on each of %s", k.Name, where, keyNamesJoin(pks, ", "))
		}
		if term.Op != OpEq {
			return nil, nil, CodePartitionKeys, fmt.Errorf("%s: the partition key attribute %s needs an equality (=)", term, k.Name)
		}
		part = append(part, term)
	}
	var rng *Term
	skipped := ""
	for _, k := range sks {
		term, ok := byAttr[k.Name]
		if !ok {
			if skipped == "" {
				skipped = k.Name
			}
			continue
		}
		switch {
		case rng != nil:
			return nil, nil, CodeAfterRange, fmt.Errorf("%s comes after the range condition %s; a range condition is on the last sort key attribute the condition gives", term, rng)
		case skipped != "":
			return nil, nil, CodeSortKeyGap, fmt.Errorf("%s skips the sort key attribute %s; conditions on %s go from the left, equalities first, with none left out", term, skipped, keyNamesJoin(sks, ", "))
		}
		sort = append(sort, term)
		if term.Op != OpEq {
			rng = &sort[len(sort)-1]
		}
	}
	return part, sort, "", nil
}

// multiPattern checks a Query on an index with a multi-attribute key, or a
// condition of more than two terms: the terms against the key schema, then
// as pattern does for one attribute each, the entities each selects.
func (v *validator) multiPattern(where string, p *AccessPattern, kc *KeyCondition, returns []*Entity) {
	t := &v.d.Table
	if op := p.op(); op == GetItem || op == BatchGetItem {
		if p.Index != "" {
			v.add(CodeOperation, where, "%s reads the table only; use Query on %s", op, p.Index)
			return
		}
	}
	pks, sks, _ := t.KeySchema(p.Index)
	part, sort, code, err := schemaTerms(kc, pks, sks, indexWhere(p.Index))
	if err != nil {
		v.add(code, where, "%v", err)
		return
	}
	var lists [][]Attribute
	lists = append(lists, p.Params)
	for _, e := range returns {
		lists = append(lists, e.Attributes)
	}
	for _, term := range kc.Terms {
		for _, val := range term.Values {
			for _, name := range val.Placeholders() {
				if !declared(name, lists) {
					v.add(CodeUnknownAttribute, where, "{%s} is neither a parameter of the pattern nor an attribute of %s", name, strings.Join(p.Returns, ", "))
				}
			}
		}
	}
	inPartition := func(e *Entity) bool {
		for _, term := range part {
			if !samePartition(term.Values[0], e.Keys[term.Attr]) {
				return false
			}
		}
		return true
	}
	for _, e := range returns {
		for _, term := range part {
			if !samePartition(term.Values[0], e.Keys[term.Attr]) {
				v.add(CodeKeyMismatch, where, "queries %s = %s, but %s's items have %s = %s", term.Attr, term.Values[0], e.Name, term.Attr, e.Keys[term.Attr])
			}
		}
	}
	// The sort terms select an entity's items if each overlaps the span of
	// its template; terms on N and B attributes are not analysed.
	selects := func(e *Entity) (bool, Term) {
		for _, term := range sort {
			if typ, _ := t.keyType(term.Attr); typ != String {
				continue
			}
			lo, hi := condRange(&term)
			elo, ehi := span(e.Keys[term.Attr])
			if !overlaps(lo, hi, elo, ehi) {
				return false, term
			}
		}
		return true, Term{}
	}
	for _, e := range returns {
		if ok, term := selects(e); !ok {
			v.add(CodeKeyMismatch, where, "%s never selects %s's items (%s = %s)", term, e.Name, term.Attr, e.Keys[term.Attr])
		}
	}
	var rng *Term
	if len(sort) > 0 && sort[len(sort)-1].Op != OpEq {
		rng = &sort[len(sort)-1]
		if typ, _ := t.keyType(rng.Attr); typ == String {
			v.coarseBound(where, rng, p.Params, returns, rng.Attr)
		}
	}
	var others []string
	for i := range v.d.Entities {
		e := &v.d.Entities[i]
		if slices.Contains(p.Returns, e.Name) || !e.InIndex(t, p.Index) || !inPartition(e) {
			continue
		}
		if ok, _ := selects(e); ok {
			others = append(others, e.Name)
		}
	}
	v.selectsOthers(where, p, kc, rng, len(sort) > 0, others)
}

// keyNames lists the key attributes of the table or an index: "pk and sk".
func keyNames(t *Table, index string) string {
	pks, sks, _ := t.KeySchema(index)
	var names []string
	for _, k := range append(pks, sks...) {
		names = append(names, k.Name)
	}
	return andList(names)
}

func declared(name string, lists [][]Attribute) bool {
	for _, l := range lists {
		for _, a := range l {
			if a.Name == name {
				return true
			}
		}
	}
	return false
}

// coarseBound reports an inclusive upper bound whose time value is coarser
// than the time in the keys it bounds.
func (v *validator) coarseBound(where string, s *Term, params []Attribute, returns []*Entity, skName string) {
	var upper Template
	switch s.Op {
	case OpLe:
		upper = s.Values[0]
	case OpBetween:
		upper = s.Values[1]
	default:
		return
	}
	for _, e := range returns {
		xu, xe := tokens(upper), tokens(e.Keys[skName])
		i := 0
	walk:
		for ; i < len(xu) && i < len(xe); i++ {
			p, q := xu[i], xe[i]
			switch {
			case p.name == "" && q.name == "":
				if p.c != q.c {
					break walk
				}
				continue
			case p.name == "" || q.name == "":
				break walk
			}
			fu := formatOf(p.name, params, e.Attributes)
			fe := formatOf(q.name, e.Attributes)
			if fu == "" || fe == "" {
				break
			}
			if fu == fe {
				continue
			}
			if ok, _ := layoutsCompatible(fu, fe); ok && len(fu) < len(fe) {
				ex := time.Date(2024, 1, 31, 10, 0, 0, 0, time.UTC)
				v.add(CodeCoarseBound, where, "the upper bound {%s} (%s) is coarser than %s's {%s} (%s), so %s leaves out the keys of its last period: %s sorts after %s; bound with < and the start of the next period, or give the bound full precision",
					p.name, fu, e.Name, q.name, fe, s, ex.Format(fe), ex.Format(fu))
			}
			break
		}
		if i == len(xu) && i < len(xe) {
			v.add(CodeCoarseBound, where, "the upper bound %s ends where %s's key %s goes on, so %s leaves out the keys that extend the bound's own value; append a byte that sorts after the rest (%s~), or bound with < on the next value",
				upper, e.Name, e.Keys[skName], s, upper)
		}
	}
}
