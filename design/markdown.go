package design

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Markdown writes d as a design document in GitHub-flavoured markdown: the
// table, its indexes, the entity chart (every key template of every
// entity), each entity's attributes and example keys, the access-pattern
// matrix with each pattern's details, and the single-table chart. It renders
// d as it is, valid or not; the output depends only on d.
func (d *Design) Markdown(w io.Writer) error {
	var b strings.Builder
	title := d.Name
	if title == "" {
		title = d.Table.Name
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if d.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", d.Description)
	}
	d.writeTable(&b)
	d.writeIndexes(&b)
	b.WriteString("## Entities\n\n")
	d.writeEntityChart(&b)
	for i := range d.Entities {
		d.writeEntity(&b, &d.Entities[i])
	}
	b.WriteString("## Access patterns\n\n")
	d.writeMatrix(&b)
	for i := range d.AccessPatterns {
		d.writePattern(&b, i)
	}
	b.WriteString("## Single-table chart\n\n")
	b.WriteString("Example items in the order DynamoDB keeps them: by partition key, then by the bytes of the sort key.\n\n")
	d.writeChart(&b, 3)
	_, err := io.WriteString(w, b.String())
	return err
}

// Matrix writes the access-pattern matrix as a markdown table: a row per
// access pattern, a column for the table and for each index, the key
// condition in the cell of the one it reads, then the operation, order,
// limit and frequency.
func (d *Design) Matrix(w io.Writer) error {
	var b strings.Builder
	d.writeMatrix(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// Chart writes the single-table chart: the entities' example items (their
// templates filled with Entity.Example, placeholders without an example
// left as they are) as markdown tables, one for the table and one for each
// index, sorted as DynamoDB stores them, the partition key shown once per
// partition.
func (d *Design) Chart(w io.Writer) error {
	var b strings.Builder
	d.writeChart(&b, 2)
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes s for a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// code returns s as inline code in a table cell, "" for "".
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + cell(s) + "`"
}

func row(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(c)
		if c != "" {
			b.WriteString(" ")
		}
		b.WriteString("|")
	}
	b.WriteString("\n")
}

func header(b *strings.Builder, cells ...string) {
	row(b, cells...)
	b.WriteString("|")
	for range cells {
		b.WriteString("---|")
	}
	b.WriteString("\n")
}

func keyCell(k Key) string {
	if k.IsZero() {
		return ""
	}
	return code(k.Name) + " (" + string(k.typ()) + ")"
}

// keysCell shows the attributes of a key, a multi-attribute key's joined
// by "+" in key schema order: "`siteId` (S) + `kind` (S)".
func keysCell(ks []Key) string {
	cells := make([]string, 0, len(ks))
	for _, k := range ks {
		if c := keyCell(k); c != "" {
			cells = append(cells, c)
		}
	}
	return strings.Join(cells, " + ")
}

func (d *Design) writeTable(b *strings.Builder) {
	t := &d.Table
	b.WriteString("## Table\n\n")
	header(b, "Table", "Partition key", "Sort key", "Time to live")
	ttl := code(t.TTL)
	if ttl == "" {
		ttl = "off"
	}
	row(b, code(t.Name), keyCell(t.PartitionKey), keyCell(t.SortKey), ttl)
	b.WriteString("\n")
}

func (d *Design) writeIndexes(b *strings.Builder) {
	t := &d.Table
	if len(t.Indexes) == 0 {
		return
	}
	b.WriteString("## Indexes\n\n")
	header(b, "Index", "Kind", "Partition key", "Sort key", "Projection", "Entities", "Purpose")
	for _, ix := range t.Indexes {
		kind := "global"
		if ix.Local {
			kind = "local"
		}
		pks, sks, _ := t.KeySchema(ix.Name)
		proj := string(ix.Projection.typ())
		if len(ix.Projection.NonKeyAttributes) > 0 {
			proj += ": " + strings.Join(ix.Projection.NonKeyAttributes, ", ")
		}
		var ents []string
		for i := range d.Entities {
			if d.Entities[i].InIndex(t, ix.Name) {
				ents = append(ents, d.Entities[i].Name)
			}
		}
		row(b, code(ix.Name), kind, keysCell(pks), keysCell(sks), cell(proj), cell(strings.Join(ents, ", ")), cell(ix.Description))
	}
	b.WriteString("\n")
}

// keyColumns returns the key attribute names in the order of the charts:
// the table's keys, then each index's.
func (d *Design) keyColumns() []string {
	t := &d.Table
	var cols []string
	add := func(k Key) {
		if !k.IsZero() && !slices.Contains(cols, k.Name) {
			cols = append(cols, k.Name)
		}
	}
	add(t.PartitionKey)
	add(t.SortKey)
	for _, ix := range t.Indexes {
		pks, sks, _ := t.KeySchema(ix.Name)
		for _, k := range append(pks, sks...) {
			add(k)
		}
	}
	return cols
}

func (d *Design) writeEntityChart(b *strings.Builder) {
	cols := d.keyColumns()
	head := append([]string{"Entity"}, cols...)
	head = append(head, "TTL")
	header(b, head...)
	for _, e := range d.Entities {
		cells := []string{cell(e.Name)}
		for _, c := range cols {
			cells = append(cells, code(string(e.Keys[c])))
		}
		cells = append(cells, code(e.TTL))
		row(b, cells...)
	}
	b.WriteString("\n")
}

func (d *Design) writeEntity(b *strings.Builder, e *Entity) {
	fmt.Fprintf(b, "### %s\n\n", e.Name)
	if e.Description != "" {
		fmt.Fprintf(b, "%s\n\n", e.Description)
	}
	var keys []string
	for _, c := range d.keyColumns() {
		if t, ok := e.Keys[c]; ok {
			keys = append(keys, fmt.Sprintf("`%s = %s`", c, t))
		}
	}
	fmt.Fprintf(b, "Keys: %s.\n\n", strings.Join(keys, ", "))
	if len(e.Example) > 0 {
		var ex []string
		for _, c := range d.keyColumns() {
			if t, ok := e.Keys[c]; ok {
				ex = append(ex, fmt.Sprintf("`%s = %s`", c, fillPartial(t, e.Example)))
			}
		}
		fmt.Fprintf(b, "Example: %s.\n\n", strings.Join(ex, ", "))
	}
	if e.Retention != "" {
		fmt.Fprintf(b, "Retention: %s\n\n", e.Retention)
	}
	if len(e.Attributes) > 0 {
		header(b, "Attribute", "Type", "Format", "Description")
		for _, a := range e.Attributes {
			desc := a.Description
			if a.Derived != "" {
				desc = strings.TrimSpace("Derived: " + a.Derived + ". " + desc)
			}
			row(b, code(a.Name), a.typ(), code(a.Format), cell(desc))
		}
		b.WriteString("\n")
	}
}

// fillPartial fills the placeholders of t that have a value and leaves the
// others as they are. A template that does not parse is returned as is.
func fillPartial(t Template, values map[string]string) string {
	segs, err := t.parse()
	if err != nil {
		return string(t)
	}
	var b strings.Builder
	for _, s := range segs {
		switch v, ok := values[s.name]; {
		case !s.placeholder():
			b.WriteString(s.lit)
		case ok:
			b.WriteString(v)
		default:
			b.WriteString("{" + s.name + "}")
		}
	}
	return b.String()
}

func (p *AccessPattern) order() string {
	if p.op() != Query {
		return ""
	}
	if p.Reverse {
		return "descending"
	}
	return "ascending"
}

func (d *Design) writeMatrix(b *strings.Builder) {
	cols := []string{"Table " + code(d.Table.Name)}
	if d.Table.Name == "" {
		cols[0] = "Table"
	}
	for _, ix := range d.Table.Indexes {
		cols = append(cols, code(ix.Name))
	}
	head := append([]string{"#", "Access pattern", "Operation"}, cols...)
	head = append(head, "Order", "Limit", "Frequency")
	header(b, head...)
	for i := range d.AccessPatterns {
		p := &d.AccessPatterns[i]
		cells := []string{strconv.Itoa(i + 1), cell(p.Name), string(p.op())}
		key := code(p.Key)
		if key == "" && p.op() == Scan {
			key = "(scan)"
		}
		cells = append(cells, d.matrixCell(p, "", key))
		for _, ix := range d.Table.Indexes {
			cells = append(cells, d.matrixCell(p, ix.Name, key))
		}
		limit := ""
		if p.Limit > 0 {
			limit = strconv.Itoa(p.Limit)
		}
		cells = append(cells, p.order(), limit, cell(p.Frequency))
		row(b, cells...)
	}
	b.WriteString("\n")
}

func (d *Design) matrixCell(p *AccessPattern, index, key string) string {
	if p.Index != index {
		return ""
	}
	return key
}

func (d *Design) writePattern(b *strings.Builder, i int) {
	p := &d.AccessPatterns[i]
	fmt.Fprintf(b, "### %d. %s\n\n", i+1, p.Name)
	if p.Description != "" {
		fmt.Fprintf(b, "%s\n\n", p.Description)
	}
	where := "the table"
	if p.Index != "" {
		where = "index `" + p.Index + "`"
	}
	fmt.Fprintf(b, "- %s on %s", p.op(), where)
	if p.Key != "" {
		fmt.Fprintf(b, ": `%s`", p.Key)
	}
	b.WriteString("\n")
	if p.op() == Query {
		fmt.Fprintf(b, "- Order: %s", p.order())
		if p.Limit > 0 {
			fmt.Fprintf(b, ", limit %d", p.Limit)
		}
		b.WriteString("\n")
	}
	if p.Filter != "" {
		fmt.Fprintf(b, "- Filter: %s\n", p.Filter)
	}
	if len(p.Returns) > 0 {
		fmt.Fprintf(b, "- Returns: %s\n", strings.Join(p.Returns, ", "))
	}
	for _, a := range p.Params {
		fmt.Fprintf(b, "- `{%s}`", a.Name)
		if a.Format != "" {
			fmt.Fprintf(b, " (`%s`)", a.Format)
		}
		if a.Description != "" {
			fmt.Fprintf(b, ": %s", a.Description)
		}
		b.WriteString("\n")
	}
	if p.Frequency != "" {
		fmt.Fprintf(b, "- Frequency: %s\n", p.Frequency)
	}
	b.WriteString("\n")
}

// chartItem is an entity's example item with its key values.
type chartItem struct {
	e    *Entity
	keys map[string]string
}

func (d *Design) writeChart(b *strings.Builder, level int) {
	t := &d.Table
	items := make([]chartItem, 0, len(d.Entities))
	for i := range d.Entities {
		e := &d.Entities[i]
		keys := make(map[string]string, len(e.Keys))
		for name, tmpl := range e.Keys {
			keys[name] = fillPartial(tmpl, e.Example)
		}
		items = append(items, chartItem{e: e, keys: keys})
	}
	hashes := strings.Repeat("#", level)
	for _, index := range append([]string{""}, indexNamesOf(t)...) {
		pks, sks, _ := t.KeySchema(index)
		keys := append(slices.Clone(pks), sks...)
		isKey := func(name string) bool {
			return slices.ContainsFunc(keys, func(k Key) bool { return k.Name == name })
		}
		var in []chartItem
		for _, it := range items {
			if it.e.InIndex(t, index) {
				in = append(in, it)
			}
		}
		// By partition, then by sort key: a multi-attribute key's
		// attributes compare in key schema order.
		slices.SortStableFunc(in, func(a, c chartItem) int {
			for _, k := range keys {
				if x := strings.Compare(a.keys[k.Name], c.keys[k.Name]); x != 0 {
					return x
				}
			}
			return 0
		})
		partition := func(it chartItem) string {
			var parts []string
			for _, k := range pks {
				parts = append(parts, it.keys[k.Name])
			}
			return strings.Join(parts, "\x00")
		}
		if index == "" {
			fmt.Fprintf(b, "%s Table %s\n\n", hashes, code(t.Name))
		} else {
			fmt.Fprintf(b, "%s Index %s\n\n", hashes, code(index))
		}
		if len(in) == 0 {
			b.WriteString("No entity has items here.\n\n")
			continue
		}
		// The table chart shows every index key; an index chart shows the
		// table's keys, which every index holds.
		var cols []string
		for _, c := range d.keyColumns() {
			if isKey(c) {
				continue
			}
			if index != "" && c != t.PartitionKey.Name && c != t.SortKey.Name {
				continue
			}
			cols = append(cols, c)
		}
		var proj *Projection
		if ix := t.Index(index); ix != nil {
			proj = &ix.Projection
		}
		var head []string
		for _, k := range keys {
			head = append(head, code(k.Name))
		}
		head = append(head, "Entity")
		for _, c := range cols {
			head = append(head, code(c))
		}
		head = append(head, "Attributes")
		header(b, head...)
		prev := ""
		for i, it := range in {
			pv := partition(it)
			var cells []string
			for _, k := range pks {
				if i > 0 && pv == prev {
					cells = append(cells, "")
				} else {
					cells = append(cells, code(it.keys[k.Name]))
				}
			}
			prev = pv
			for _, k := range sks {
				cells = append(cells, code(it.keys[k.Name]))
			}
			cells = append(cells, cell(it.e.Name))
			for _, c := range cols {
				cells = append(cells, code(it.keys[c]))
			}
			cells = append(cells, cell(chartAttributes(it.e, proj)))
			row(b, cells...)
		}
		b.WriteString("\n")
	}
}

func indexNamesOf(t *Table) []string {
	var names []string
	for _, ix := range t.Indexes {
		names = append(names, ix.Name)
	}
	return names
}

// chartAttributes lists the attributes of e that are not used only in its
// keys, with their example values where e has them; in an index (proj not
// nil), only those it projects.
func chartAttributes(e *Entity, proj *Projection) string {
	if proj != nil && proj.typ() == ProjectKeysOnly {
		return ""
	}
	inKeys := map[string]bool{}
	for _, t := range e.Keys {
		for _, p := range t.Placeholders() {
			inKeys[p] = true
		}
	}
	var parts []string
	for _, a := range e.Attributes {
		if inKeys[a.Name] || a.Derived != "" {
			continue
		}
		if proj != nil && proj.typ() == ProjectInclude && !slices.Contains(proj.NonKeyAttributes, a.Name) {
			continue
		}
		if v, ok := e.Example[a.Name]; ok {
			parts = append(parts, a.Name+"="+v)
		} else {
			parts = append(parts, a.Name)
		}
	}
	return strings.Join(parts, ", ")
}
