package design

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

// siteStats is a small valid design with a multi-attribute global index:
// byDay is keyed by siteId + kind and sorted by day, then path, attributes
// the items store anyway; bySite holds every item of a site.
func siteStats() *Design {
	site := Attribute{Name: "siteId"}
	day := Attribute{Name: "day", Format: LayoutDay}
	return &Design{
		Name: "Site stats",
		Table: Table{
			Name: "stats", PartitionKey: Key{Name: "pk"}, SortKey: Key{Name: "sk"},
			Indexes: []Index{
				{
					Name:         "byDay",
					PartitionKey: Key{Name: "siteId"}, MorePartitionKeys: []Key{{Name: "kind"}},
					SortKey: Key{Name: "day"}, MoreSortKeys: []Key{{Name: "path"}},
					Description: "A site's stats of one kind, by day and path.",
				},
				{Name: "bySite", PartitionKey: Key{Name: "siteId"}, Projection: Projection{Type: ProjectKeysOnly}},
			},
		},
		Entities: []Entity{
			{
				Name: "PathStats",
				Keys: map[string]Template{
					"pk": "SITE#{siteId}", "sk": "STATS#{day}#{path}",
					"siteId": "{siteId}", "kind": "day", "day": "{day}", "path": "{path}",
				},
				Attributes: []Attribute{site, day, {Name: "path"}, {Name: "views", Type: "N"}},
				Example:    map[string]string{"siteId": "s1", "day": "2024-01-15", "path": "/docs", "views": "42"},
			},
			{
				Name:       "Site",
				Keys:       map[string]Template{"pk": "SITE#{siteId}", "sk": "META", "siteId": "{siteId}"},
				Attributes: []Attribute{site, {Name: "domain"}},
				Example:    map[string]string{"siteId": "s1", "domain": "example.com"},
			},
		},
		AccessPatterns: []AccessPattern{
			{
				Name: "Days of a site", Index: "byDay", Returns: []string{"PathStats"},
				Key:    "siteId = {siteId} AND kind = day AND day BETWEEN {from} AND {to}",
				Params: []Attribute{{Name: "from", Format: LayoutDay}, {Name: "to", Format: LayoutDay}},
			},
			{
				Name: "Paths of a day", Index: "byDay", Returns: []string{"PathStats"},
				Key:    "begins_with(path, {prefix}) AND day = {day} AND kind = day AND siteId = {siteId}",
				Params: []Attribute{{Name: "prefix"}},
			},
			{Name: "Site", Op: GetItem, Key: "pk = SITE#{siteId} AND sk = META", Returns: []string{"Site"}},
			{Name: "Items of a site", Index: "bySite", Key: "siteId = {siteId}", Returns: []string{"Site", "PathStats"}},
		},
	}
}

func TestTable_KeySchema(t *testing.T) {
	d := siteStats()
	pks, sks, ok := d.Table.KeySchema("byDay")
	if !ok || !slices.Equal(pks, []Key{{Name: "siteId"}, {Name: "kind"}}) || !slices.Equal(sks, []Key{{Name: "day"}, {Name: "path"}}) {
		t.Errorf("byDay: %v %v %v", pks, sks, ok)
	}
	pks, sks, ok = d.Table.KeySchema("bySite")
	if !ok || len(pks) != 1 || sks != nil {
		t.Errorf("bySite: %v %v %v", pks, sks, ok)
	}
	if _, _, ok := d.Table.KeySchema("nope"); ok {
		t.Error("an unknown index has a key schema")
	}
	if !d.Entity("PathStats").InIndex(&d.Table, "byDay") || d.Entity("Site").InIndex(&d.Table, "byDay") {
		t.Error("InIndex: an item is in byDay only with all four key attributes")
	}
}

func TestValidate_MultiKey(t *testing.T) {
	byDay := func(d *Design) *Index { return d.Table.Index("byDay") }
	pattern := func(d *Design, name string) *AccessPattern { return d.AccessPattern(name) }
	for _, c := range []struct {
		name   string
		mutate func(d *Design)
		want   []Code
		msg    string // a problem's message contains it
	}{
		{name: "valid", mutate: func(*Design) {}},
		{
			name: "five partition key attributes",
			mutate: func(d *Design) {
				byDay(d).MorePartitionKeys = append(byDay(d).MorePartitionKeys, Key{Name: "a"}, Key{Name: "b"}, Key{Name: "c"})
				maps.Copy(d.Entity("PathStats").Keys, map[string]Template{"a": "A", "b": "B", "c": "C"})
				d.AccessPatterns = nil
			},
			want: []Code{CodeKeyCount},
			msg:  "5 partition key attributes; DynamoDB allows 4",
		},
		{
			name: "five sort key attributes",
			mutate: func(d *Design) {
				byDay(d).MoreSortKeys = append(byDay(d).MoreSortKeys, Key{Name: "a"}, Key{Name: "b"}, Key{Name: "c"})
				maps.Copy(d.Entity("PathStats").Keys, map[string]Template{"a": "A", "b": "B", "c": "C"})
				d.AccessPatterns = nil
			},
			want: []Code{CodeKeyCount},
			msg:  "5 sort key attributes",
		},
		{
			name: "multi-attribute key on a local index",
			mutate: func(d *Design) {
				d.Table.Indexes = append(d.Table.Indexes, Index{Name: "lsi", Local: true, SortKey: Key{Name: "day"}, MoreSortKeys: []Key{{Name: "path"}}})
			},
			want: []Code{CodeLocalKeys},
			msg:  "not pk / day + path",
		},
		{
			name:   "attribute twice in a key schema",
			mutate: func(d *Design) { byDay(d).MoreSortKeys = []Key{{Name: "path"}, {Name: "kind"}}; d.AccessPatterns = nil },
			want:   []Code{CodeRepeatedKey},
			msg:    "kind is twice in the key schema siteId + kind / day + path + kind",
		},
		{
			name:   "further key attribute without a name",
			mutate: func(d *Design) { byDay(d).MorePartitionKeys = append(byDay(d).MorePartitionKeys, Key{}) },
			// No item has the nameless attribute, so none is in the index.
			want: []Code{CodeInvalid, CodeKeyMismatch},
			msg:  "a further partition key attribute has no name",
		},
		{
			name: "further sort key attributes without a sort key",
			mutate: func(d *Design) {
				d.Table.Index("bySite").MoreSortKeys = []Key{{Name: "day"}}
				d.AccessPatterns = nil
			},
			// Site, which sets no day, falls out of bySite.
			want: []Code{CodeInvalid, CodeKeySchema},
			msg:  "more sort key attributes but no sort key",
		},
		{
			name: "key attribute of two types",
			mutate: func(d *Design) {
				byDay(d).MoreSortKeys = []Key{{Name: "path", Type: Number}}
				d.Table.Indexes = append(d.Table.Indexes, Index{Name: "byPath", PartitionKey: Key{Name: "path"}})
				d.AccessPatterns = nil
			},
			want: []Code{CodeInvalid, CodeKeySchema},
			msg:  "key path has type S here and N elsewhere",
		},
		{
			name:   "entity attribute of another type than its key",
			mutate: func(d *Design) { d.Entity("PathStats").Attributes[2].Type = "N" },
			want:   []Code{CodeKeyType},
			msg:    "attribute path is of type N, but the key attribute path is of type S",
		},
		{
			name: "number key from a text attribute: reported once",
			mutate: func(d *Design) {
				byDay(d).MoreSortKeys = []Key{{Name: "path", Type: Number}}
				d.AccessPatterns = d.AccessPatterns[:1]
			},
			want: []Code{CodeKeySchema},
			msg:  "key path is of type N but {path} is of type S",
		},
		{
			name:   "some of an index's key attributes",
			mutate: func(d *Design) { delete(d.Entity("PathStats").Keys, "path") },
			want:   []Code{CodeKeySchema, CodeKeyMismatch},
			msg:    "sets kind and day but not path, so its items never appear in byDay",
		},
		{
			name: "no equality on a partition key attribute",
			mutate: func(d *Design) {
				pattern(d, "Days of a site").Key = "siteId = {siteId} AND day BETWEEN {from} AND {to}"
			},
			want: []Code{CodePartitionKeys},
			msg:  "no equality on the partition key attribute kind; a query of index byDay gives one on each of siteId, kind",
		},
		{
			name: "range on a partition key attribute",
			mutate: func(d *Design) {
				pattern(d, "Days of a site").Key = "siteId = {siteId} AND kind >= day AND day = {from}"
			},
			want: []Code{CodePartitionKeys},
			msg:  "kind >= day: the partition key attribute kind needs an equality",
		},
		{
			name: "sort key attribute skipped",
			mutate: func(d *Design) {
				pattern(d, "Paths of a day").Key = "siteId = {siteId} AND kind = day AND path = {prefix}"
			},
			want: []Code{CodeSortKeyGap},
			msg:  "path = {prefix} skips the sort key attribute day",
		},
		{
			name: "condition after a range condition",
			mutate: func(d *Design) {
				pattern(d, "Paths of a day").Key = "siteId = {siteId} AND kind = day AND day >= {day} AND path = {prefix}"
			},
			want: []Code{CodeAfterRange},
			msg:  "path = {prefix} comes after the range condition day >= {day}",
		},
		{
			name:   "condition on an attribute that is no key of the index",
			mutate: func(d *Design) { pattern(d, "Days of a site").Key = "siteId = {siteId} AND kind = day AND sk = {from}" },
			want:   []Code{CodeKeyMismatch},
			msg:    "names sk, which is not a key attribute of index byDay (siteId + kind / day + path)",
		},
		{
			name:   "three terms on a single-attribute key",
			mutate: func(d *Design) { pattern(d, "Site").Key = "pk = SITE#{siteId} AND sk = META AND siteId = {siteId}" },
			want:   []Code{CodeKeyMismatch},
			msg:    "names siteId, which is not a key attribute of table (pk / sk)",
		},
		{
			name: "partition value no returned item has",
			mutate: func(d *Design) {
				pattern(d, "Days of a site").Key = "siteId = {siteId} AND kind = month AND day BETWEEN {from} AND {to}"
			},
			want: []Code{CodeKeyMismatch},
			msg:  "queries kind = month, but PathStats's items have kind = day",
		},
		{
			name: "unbounded range runs into another entity",
			mutate: func(d *Design) {
				d.Entities = append(d.Entities, Entity{
					Name:       "DayTotal",
					Keys:       map[string]Template{"pk": "SITE#{siteId}", "sk": "TOTAL#{day}", "siteId": "{siteId}", "kind": "day", "day": "{day}", "path": "~total"},
					Attributes: []Attribute{{Name: "siteId"}, {Name: "day", Format: LayoutDay}},
				})
				pattern(d, "Paths of a day").Key = "siteId = {siteId} AND kind = day AND day = {day} AND path >= {prefix}"
			},
			// The other patterns on the partition select DayTotal too.
			want: []Code{CodeUnboundedRange, CodeSelectsOthers},
			msg:  "path >= {prefix} has no upper bound, so it runs on into the DayTotal items",
		},
		{
			name:   "GetItem on a multi-attribute index",
			mutate: func(d *Design) { pattern(d, "Paths of a day").Op = GetItem },
			want:   []Code{CodeOperation},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := siteStats()
			c.mutate(d)
			wantProblems(t, d, c.want, c.msg)
		})
	}
}

func TestDesign_Expression_MultiKey(t *testing.T) {
	d := siteStats()
	vals := map[string]string{"siteId": "s1", "day": "2024-01-15", "prefix": "/docs"}
	// Written sort term first, partition terms last: built in key schema
	// order.
	x, err := d.Expression("Paths of a day", vals)
	if err != nil {
		t.Fatal(err)
	}
	if want := "#k0 = :v0 AND #k1 = :v1 AND #k2 = :v2 AND begins_with(#k3, :v3)"; x.KeyCondition != want {
		t.Errorf("KeyCondition = %q, want %q", x.KeyCondition, want)
	}
	if want := map[string]string{"#k0": "siteId", "#k1": "kind", "#k2": "day", "#k3": "path"}; !maps.Equal(x.Names, want) {
		t.Errorf("Names = %v", x.Names)
	}
	if want := map[string]string{":v0": "s1", ":v1": "day", ":v2": "2024-01-15", ":v3": "/docs"}; !maps.Equal(x.Values, want) {
		t.Errorf("Values = %v", x.Values)
	}
	if want := map[string]string{"siteId": "s1", "kind": "day", "day": "2024-01-15"}; !maps.Equal(x.Key, want) {
		t.Errorf("Key = %v", x.Key)
	}
	if want := map[string]string{":v0": "siteId", ":v1": "kind", ":v2": "day", ":v3": "path"}; !maps.Equal(x.Attrs, want) {
		t.Errorf("Attrs = %v", x.Attrs)
	}

	x, err = d.Expression("Days of a site", map[string]string{"siteId": "s1", "from": "2024-01-01", "to": "2024-01-31"})
	if err != nil || x.KeyCondition != "#k0 = :v0 AND #k1 = :v1 AND #k2 BETWEEN :v2 AND :v3" || x.Values[":v3"] != "2024-01-31" {
		t.Errorf("BETWEEN: %+v, %v", x, err)
	}

	// A single-attribute pattern gives what AccessPattern.Expression gives.
	x, err = d.Expression("Site", map[string]string{"siteId": "s1"})
	y, _ := d.AccessPattern("Site").Expression(map[string]string{"siteId": "s1"})
	if err != nil || x.KeyCondition != y.KeyCondition || !maps.Equal(x.Values, y.Values) {
		t.Errorf("Site: %+v, %v; AccessPattern.Expression: %+v", x, err, y)
	}

	// AccessPattern.Expression keeps the order written.
	x, err = d.AccessPattern("Paths of a day").Expression(vals)
	if err != nil || x.Names["#k0"] != "path" || x.Names["#k3"] != "siteId" {
		t.Errorf("AccessPattern.Expression: %+v, %v", x, err)
	}

	for _, c := range []struct{ key, want string }{
		{"siteId = {siteId} AND day = {day}", "no equality on the partition key attribute kind"},
		{"siteId = {siteId} AND kind = day AND path = {prefix}", "skips the sort key attribute day"},
		{"siteId = {siteId} AND kind = day AND day > {day} AND path = {prefix}", "comes after the range condition"},
		{"siteId = {siteId} AND kind = day AND nope = {day}", "not a key attribute"},
	} {
		d.AccessPattern("Paths of a day").Key = c.key
		_, err := d.Expression("Paths of a day", vals)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "invalid key condition") {
			t.Errorf("%s: err = %v, want ErrKeyCondition saying %q", c.key, err, c.want)
		}
	}
	if _, err := d.Expression("nope", vals); err == nil {
		t.Error("no error for an unknown pattern")
	}
}

func TestMarkdown_MultiKey(t *testing.T) {
	d := siteStats()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	// Another partition of byDay: the same site, another kind.
	d.Entities = append(d.Entities, Entity{
		Name:       "DayTotal",
		Keys:       map[string]Template{"pk": "SITE#{siteId}", "sk": "TOTAL#{day}", "siteId": "{siteId}", "kind": "total", "day": "{day}", "path": "*"},
		Attributes: []Attribute{{Name: "siteId"}, {Name: "day", Format: LayoutDay}, {Name: "views", Type: "N"}},
		Example:    map[string]string{"siteId": "s1", "day": "2024-01-14", "views": "49"},
	})
	d.AccessPattern("Items of a site").Returns = append(d.AccessPattern("Items of a site").Returns, "DayTotal")
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	golden(t, "sitestats.md", render(t, func(b *bytes.Buffer) error { return d.Markdown(b) }))
}
