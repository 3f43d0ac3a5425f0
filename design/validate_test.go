package design

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// sensors is a small valid design: readings and hourly aggregates of a
// sensor behind their own prefixes, a metadata item, and a metric index.
func sensors() *Design {
	id := Attribute{Name: "id"}
	ts := Attribute{Name: "timestamp", Format: LayoutTimestamp}
	return &Design{
		Name: "Sensors",
		Table: Table{
			Name: "sensors", PartitionKey: Key{Name: "pk"}, SortKey: Key{Name: "sk"}, TTL: "ttl",
			Indexes: []Index{{Name: "metric", PartitionKey: Key{Name: "gsi1pk"}, SortKey: Key{Name: "gsi1sk"}, Projection: Projection{Type: ProjectKeysOnly}}},
		},
		Entities: []Entity{
			{
				Name:       "Reading",
				Keys:       map[string]Template{"pk": "SENSOR#{id}", "sk": "R#{timestamp}", "gsi1pk": "METRIC#{metric}", "gsi1sk": "{timestamp}"},
				Attributes: []Attribute{id, ts, {Name: "metric"}, {Name: "value", Type: "N"}, {Name: "ttl", Type: "N"}},
				Example:    map[string]string{"id": "7", "timestamp": "2024-12-01T14:30:00.000Z", "metric": "temp"},
				TTL:        "ttl",
			},
			{
				Name:       "Hourly",
				Keys:       map[string]Template{"pk": "SENSOR#{id}", "sk": "H#{hour}"},
				Attributes: []Attribute{id, {Name: "hour", Format: LayoutHour}, {Name: "sum", Type: "N"}, {Name: "count", Type: "N"}},
			},
			{
				Name:       "Sensor",
				Keys:       map[string]Template{"pk": "SENSOR#{id}", "sk": "META"},
				Attributes: []Attribute{id, {Name: "name"}},
			},
		},
		AccessPatterns: []AccessPattern{
			{Name: "Latest reading", Key: "pk = SENSOR#{id} AND begins_with(sk, R#)", Reverse: true, Limit: 1, Returns: []string{"Reading"}},
			{
				Name: "Readings in a range", Key: "pk = SENSOR#{id} AND sk BETWEEN R#{from} AND R#{to}", Returns: []string{"Reading"},
				Params: []Attribute{{Name: "from", Format: LayoutTimestamp}, {Name: "to", Format: LayoutTimestamp}},
			},
			{
				Name: "Hourly in a range", Key: "pk = SENSOR#{id} AND sk BETWEEN H#{from} AND H#{to}", Returns: []string{"Hourly"},
				Params: []Attribute{{Name: "from", Format: LayoutHour}, {Name: "to", Format: LayoutHour}},
			},
			{
				Name: "Metric across sensors", Index: "metric", Key: "gsi1pk = METRIC#{metric} AND gsi1sk BETWEEN {from} AND {to}", Returns: []string{"Reading"},
				Params: []Attribute{{Name: "from", Format: LayoutTimestamp}, {Name: "to", Format: LayoutTimestamp}},
			},
			{Name: "Sensor", Op: GetItem, Key: "pk = SENSOR#{id} AND sk = META", Returns: []string{"Sensor"}},
		},
	}
}

func problems(t *testing.T, d *Design) Problems {
	t.Helper()
	err := d.Validate()
	if err == nil {
		return nil
	}
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Validate returned %T %v, not Problems", err, err)
	}
	return ps
}

func codes(ps Problems) []Code {
	var cs []Code
	for _, p := range ps {
		if !slices.Contains(cs, p.Code) {
			cs = append(cs, p.Code)
		}
	}
	slices.Sort(cs)
	return cs
}

func TestValidate(t *testing.T) {
	noPatterns := func(d *Design) { d.AccessPatterns = nil }
	pattern := func(d *Design, name string) *AccessPattern { return d.AccessPattern(name) }
	for _, c := range []struct {
		name   string
		mutate func(d *Design)
		want   []Code
		msg    string // a problem's message contains it
	}{
		{name: "valid", mutate: func(*Design) {}},
		{
			// Reference 000: hour buckets and ISO readings in one partition.
			name: "sort order: hour bucket and timestamp in one partition",
			mutate: func(d *Design) {
				noPatterns(d)
				d.Entity("Reading").Keys["sk"] = "{timestamp}"
				d.Entity("Hourly").Keys["sk"] = "{hour}"
			},
			want: []Code{CodeSortOrder},
			msg:  "Hourly's key 2024-12-01-14 (14:30) sorts before Reading's key 2024-12-01T00:00:00.000Z",
		},
		{
			name: "sort order: a day and a timestamp sort alike",
			mutate: func(d *Design) {
				noPatterns(d)
				d.Entity("Reading").Keys["sk"] = "{timestamp}"
				d.Entity("Hourly").Keys["sk"] = "{hour}"
				d.Entity("Hourly").Attributes[1].Format = LayoutDay
			},
		},
		{
			name: "sort order: times against opaque values",
			mutate: func(d *Design) {
				noPatterns(d)
				d.Entity("Reading").Keys["sk"] = "X#{timestamp}"
				d.Entity("Sensor").Keys["sk"] = "X#{name}"
			},
			want: []Code{CodeSortOrder},
			msg:  "interleave with the times",
		},
		{
			name: "sort order: also inside an index",
			mutate: func(d *Design) {
				noPatterns(d)
				h := d.Entity("Hourly")
				h.Keys["gsi1pk"] = "METRIC#{metric}"
				h.Keys["gsi1sk"] = "{hour}"
				h.Attributes = append(h.Attributes, Attribute{Name: "metric"})
			},
			want: []Code{CodeSortOrder},
			msg:  "in index metric",
		},
		{
			// The REALTIME trap of reference 001's code.
			name: "unbounded range: >= runs on into later entities",
			mutate: func(d *Design) {
				p := pattern(d, "Hourly in a range")
				p.Key = "pk = SENSOR#{id} AND sk >= H#{from}"
				p.Reverse, p.Limit = true, 5
			},
			want: []Code{CodeUnboundedRange},
			msg:  "runs on into the Reading, Sensor items",
		},
		{
			name:   "unbounded range: <= runs back into earlier entities",
			mutate: func(d *Design) { pattern(d, "Readings in a range").Key = "pk = SENSOR#{id} AND sk <= R#{to}" },
			want:   []Code{CodeUnboundedRange},
			msg:    "runs back into the Hourly, Sensor items",
		},
		{
			name:   "unbounded range: > with nothing after it is fine",
			mutate: func(d *Design) { pattern(d, "Readings in a range").Key = "pk = SENSOR#{id} AND sk > R#{from}" },
		},
		{
			name:   "selects others: the whole partition",
			mutate: func(d *Design) { pattern(d, "Latest reading").Key = "pk = SENSOR#{id}" },
			want:   []Code{CodeSelectsOthers},
			msg:    "reads the whole partition, which also holds Hourly, Sensor items",
		},
		{
			name: "selects others: unless a filter drops them",
			mutate: func(d *Design) {
				p := pattern(d, "Latest reading")
				p.Key, p.Filter = "pk = SENSOR#{id}", "begins_with(sk, R#)"
			},
		},
		{
			name: "selects others: returning several entities is fine",
			mutate: func(d *Design) {
				p := pattern(d, "Latest reading")
				p.Key, p.Returns = "pk = SENSOR#{id}", []string{"Reading", "Hourly", "Sensor"}
			},
		},
		{
			name:   "unknown index",
			mutate: func(d *Design) { pattern(d, "Metric across sensors").Index = "GSI9" },
			want:   []Code{CodeUnknownIndex},
		},
		{
			name:   "unknown entity",
			mutate: func(d *Design) { pattern(d, "Sensor").Returns = []string{"Sensors"} },
			want:   []Code{CodeUnknownEntity},
		},
		{
			name:   "no entity returned",
			mutate: func(d *Design) { pattern(d, "Sensor").Returns = nil },
			want:   []Code{CodeUnknownEntity},
		},
		{
			name:   "key template names a missing attribute",
			mutate: func(d *Design) { d.Entity("Hourly").Keys["sk"] = "H#{bucket}" },
			want:   []Code{CodeUnknownAttribute},
			msg:    "uses {bucket}, which is not an attribute of Hourly",
		},
		{
			name:   "condition names an undeclared value",
			mutate: func(d *Design) { pattern(d, "Readings in a range").Params = nil },
			want:   []Code{CodeUnknownAttribute},
			msg:    "{from} is neither a parameter",
		},
		{
			name:   "key condition with IN",
			mutate: func(d *Design) { pattern(d, "Hourly in a range").Key = "pk = SENSOR#{id} AND sk IN ({a}, {b})" },
			want:   []Code{CodeKeyCondition},
			msg:    "IN is not allowed",
		},
		{
			name:   "condition on another index's keys",
			mutate: func(d *Design) { pattern(d, "Latest reading").Key = "gsi1pk = METRIC#{metric}" },
			want:   []Code{CodeKeyMismatch},
		},
		{
			name:   "sort condition on the wrong attribute",
			mutate: func(d *Design) { pattern(d, "Latest reading").Key = "pk = SENSOR#{id} AND begins_with(gsi1sk, R#)" },
			want:   []Code{CodeKeyMismatch},
		},
		{
			name:   "entity not in the index",
			mutate: func(d *Design) { pattern(d, "Metric across sensors").Returns = []string{"Hourly"} },
			want:   []Code{CodeKeyMismatch},
			msg:    "not in index metric",
		},
		{
			name:   "other partition",
			mutate: func(d *Design) { pattern(d, "Latest reading").Key = "pk = DEVICE#{id} AND begins_with(sk, R#)" },
			want:   []Code{CodeKeyMismatch},
		},
		{
			name:   "range that never selects what it returns",
			mutate: func(d *Design) { pattern(d, "Hourly in a range").Returns = []string{"Reading"} },
			want:   []Code{CodeKeyMismatch, CodeSelectsOthers},
			msg:    "never selects Reading's items",
		},
		{
			name:   "coarse upper bound",
			mutate: func(d *Design) { pattern(d, "Readings in a range").Params[1].Format = LayoutDay },
			want:   []Code{CodeCoarseBound},
			msg:    "2024-01-31T10:00:00.000Z sorts after 2024-01-31",
		},
		{
			name: "upper bound ending before the key",
			mutate: func(d *Design) {
				r := d.Entity("Reading")
				r.Keys["sk"] = "R#{timestamp}#{seq}"
				r.Attributes = append(r.Attributes, Attribute{Name: "seq"})
				r.Example["seq"] = "1"
			},
			want: []Code{CodeCoarseBound},
			msg:  "(R#{to}~)",
		},
		{
			name: "upper bound ending before the key, fixed",
			mutate: func(d *Design) {
				r := d.Entity("Reading")
				r.Keys["sk"] = "R#{timestamp}#{seq}"
				r.Attributes = append(r.Attributes, Attribute{Name: "seq"})
				r.Example["seq"] = "1"
				pattern(d, "Readings in a range").Key = "pk = SENSOR#{id} AND sk BETWEEN R#{from} AND R#{to}~"
			},
		},
		{
			name: "duplicate primary key",
			mutate: func(d *Design) {
				noPatterns(d)
				d.Entities = append(d.Entities, Entity{Name: "Config", Keys: map[string]Template{"pk": "SENSOR#{sensor}", "sk": "META"}, Attributes: []Attribute{{Name: "sensor"}}})
			},
			want: []Code{CodeDuplicateKey},
		},
		{
			name:   "missing sort key",
			mutate: func(d *Design) { delete(d.Entity("Sensor").Keys, "sk"); pattern(d, "Sensor").Op = Query },
			want:   []Code{CodeKeySchema, CodeKeyMismatch},
		},
		{
			name:   "half of an index's keys",
			mutate: func(d *Design) { delete(d.Entity("Reading").Keys, "gsi1sk") },
			want:   []Code{CodeKeySchema, CodeKeyMismatch},
			msg:    "sets gsi1pk but not gsi1sk",
		},
		{
			name:   "key attribute of no index",
			mutate: func(d *Design) { d.Entity("Sensor").Keys["gsi9pk"] = "X" },
			want:   []Code{CodeKeySchema},
		},
		{
			name: "number key built from text",
			mutate: func(d *Design) {
				noPatterns(d)
				d.Table.SortKey.Type = Number
				for i := range d.Entities {
					d.Entities[i].Keys["sk"] = "{n}"
					d.Entities[i].Attributes = append(d.Entities[i].Attributes, Attribute{Name: "n", Type: "N"})
				}
				d.Entity("Reading").Example["n"] = "1"
				d.Entity("Sensor").Keys["sk"] = "0"
				d.Entity("Hourly").Attributes[len(d.Entity("Hourly").Attributes)-1].Type = "S"
			},
			want: []Code{CodeKeySchema, CodeDuplicateKey},
			msg:  "its template must be one placeholder",
		},
		{
			name:   "layout that does not sort",
			mutate: func(d *Design) { d.Entity("Hourly").Attributes[1].Format = "15 02-01-2006" },
			want:   []Code{CodeFormat},
		},
		{
			name:   "example that does not fit its layout",
			mutate: func(d *Design) { d.Entity("Reading").Example["timestamp"] = "2024-12-01 14:30" },
			want:   []Code{CodeFormat},
		},
		{
			name:   "example missing a placeholder",
			mutate: func(d *Design) { delete(d.Entity("Reading").Example, "metric") },
			want:   []Code{CodeInvalid},
		},
		{
			name:   "TTL attribute not the table's",
			mutate: func(d *Design) { d.Entity("Reading").TTL = "expires" },
			want:   []Code{CodeTTL},
		},
		{
			name:   "TTL attribute not a number",
			mutate: func(d *Design) { d.Entity("Reading").Attributes[4].Type = "S" },
			want:   []Code{CodeTTL},
		},
		{
			name:   "GetItem on an index",
			mutate: func(d *Design) { pattern(d, "Metric across sensors").Op = GetItem },
			want:   []Code{CodeOperation},
		},
		{
			name:   "GetItem without the sort key",
			mutate: func(d *Design) { pattern(d, "Sensor").Key = "pk = SENSOR#{id}" },
			want:   []Code{CodeOperation},
		},
		{
			name:   "Scan with a key condition",
			mutate: func(d *Design) { pattern(d, "Sensor").Op = Scan },
			want:   []Code{CodeOperation},
		},
		{
			name:   "adjacent placeholders",
			mutate: func(d *Design) { d.Entity("Hourly").Keys["sk"] = "H#{id}{hour}" },
			want:   []Code{CodeSyntax},
		},
		{
			name:   "template that does not parse",
			mutate: func(d *Design) { d.Entity("Hourly").Keys["sk"] = "H#{hour" },
			want:   []Code{CodeSyntax},
		},
		{
			name: "names, types and limits",
			mutate: func(d *Design) {
				noPatterns(d)
				d.Table.Name = ""
				d.Entities = append(d.Entities, d.Entities[2])
				d.Table.Indexes = append(d.Table.Indexes,
					Index{Name: "metric", PartitionKey: Key{Name: "gsi1pk", Type: Number}, SortKey: Key{Name: "x"}},
					Index{Name: "lsi", Local: true, PartitionKey: Key{Name: "other"}, SortKey: Key{Name: "y"}},
					Index{Name: "inc", PartitionKey: Key{Name: "z"}, Projection: Projection{Type: ProjectInclude}},
				)
			},
			want: []Code{CodeInvalid},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := sensors()
			c.mutate(d)
			wantProblems(t, d, c.want, c.msg)
		})
	}
}

// The series layouts of the time-series layer fit the design API: one
// design per layout, each valid.
func TestValidate_SeriesLayouts(t *testing.T) {
	id := Attribute{Name: "id"}
	table := Table{Name: "series", PartitionKey: Key{Name: "pk"}, SortKey: Key{Name: "sk"}, TTL: "ttl"}
	ttl := Attribute{Name: "ttl", Type: "N"}
	rng := []Attribute{{Name: "from", Format: LayoutTimestamp}, {Name: "to", Format: LayoutTimestamp}}
	for _, d := range []*Design{
		{
			Name: "Item per reading", Table: table,
			Entities: []Entity{{Name: "Reading", TTL: "ttl", Keys: map[string]Template{"pk": "SENSOR#{id}", "sk": "{timestamp}"},
				Attributes: []Attribute{id, {Name: "timestamp", Format: LayoutTimestamp}, ttl}}},
			AccessPatterns: []AccessPattern{
				{Name: "Latest", Key: "pk = SENSOR#{id}", Reverse: true, Limit: 1, Returns: []string{"Reading"}},
				{Name: "Range", Key: "pk = SENSOR#{id} AND sk BETWEEN {from} AND {to}", Params: rng, Returns: []string{"Reading"}},
			},
		},
		{
			Name: "Day partitions", Table: table,
			Entities: []Entity{{Name: "Reading", TTL: "ttl", Keys: map[string]Template{"pk": "SENSOR#{id}#{day}", "sk": "{time}"},
				Attributes: []Attribute{id, {Name: "day", Format: LayoutDay}, {Name: "time", Format: LayoutTimeOfDay}, ttl}}},
			AccessPatterns: []AccessPattern{
				{Name: "Day", Key: "pk = SENSOR#{id}#{day}", Returns: []string{"Reading"}},
				{Name: "Since", Key: "pk = SENSOR#{id}#{day} AND sk >= {since}", Params: []Attribute{{Name: "since", Format: LayoutTimeOfDay}}, Returns: []string{"Reading"}},
			},
		},
		{
			Name: "Buckets", Table: table,
			Entities: []Entity{
				{Name: "Bucket", TTL: "ttl", Keys: map[string]Template{"pk": "SENSOR#{id}", "sk": "B#{hour}"},
					Attributes: []Attribute{id, {Name: "hour", Format: LayoutHour}, {Name: "readings", Type: "L"}, {Name: "count", Type: "N"}, {Name: "sum", Type: "N"}, ttl}},
				{Name: "Daily", TTL: "ttl", Keys: map[string]Template{"pk": "SENSOR#{id}", "sk": "D#{day}"},
					Attributes: []Attribute{id, {Name: "day", Format: LayoutDay}, ttl}},
			},
			AccessPatterns: []AccessPattern{
				{Name: "Hours", Key: "pk = SENSOR#{id} AND sk BETWEEN B#{from} AND B#{to}", Params: []Attribute{{Name: "from", Format: LayoutHour}, {Name: "to", Format: LayoutHour}}, Returns: []string{"Bucket"}},
				{Name: "Days of a month", Key: "pk = SENSOR#{id} AND begins_with(sk, D#{month})", Params: []Attribute{{Name: "month", Format: LayoutMonth}}, Returns: []string{"Daily"}},
			},
		},
		{
			Name: "Chunks", Table: table,
			Entities: []Entity{
				{Name: "Chunk", TTL: "ttl", Keys: map[string]Template{"pk": "SENSOR#{id}", "sk": "C#{start}"},
					Attributes: []Attribute{id, {Name: "start", Format: LayoutTimestamp}, {Name: "data", Type: "B"}, ttl}},
				{Name: "Latest", Keys: map[string]Template{"pk": "SENSOR#{id}", "sk": "LATEST"}, Attributes: []Attribute{id}},
			},
			AccessPatterns: []AccessPattern{
				{Name: "Chunks of a range", Key: "pk = SENSOR#{id} AND sk BETWEEN C#{from} AND C#{to}", Params: rng, Returns: []string{"Chunk"}},
				{Name: "Latest of many", Op: BatchGetItem, Key: "pk = SENSOR#{id} AND sk = LATEST", Returns: []string{"Latest"}},
			},
		},
	} {
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
}

func TestTerm_String(t *testing.T) {
	if got := (Term{Attr: "sk", Op: OpBetween}).String(); got != "sk BETWEEN ? AND ?" {
		t.Errorf("String = %q", got)
	}
}

// Validate and the renderers never panic, whatever the templates and
// conditions.
func FuzzValidate(f *testing.F) {
	f.Add("SENSOR#{id}", "{timestamp}", "{hour}", "pk = SENSOR#{id} AND sk >= {from}", "2006-01-02T15")
	f.Add("SITE#{siteId}", "REALTIME#{minute}", "STATS#{period}#{start}", "pk = SITE#{siteId} AND sk BETWEEN REALTIME#{a} AND REALTIME#{b}", "")
	f.Add("{", "}", "{a}{b}", "pk IN (x)", "Jan")
	f.Fuzz(func(t *testing.T, pk, sk1, sk2, cond, layout string) {
		attrs := func(ts ...Template) []Attribute {
			var as []Attribute
			for _, tm := range ts {
				for _, n := range tm.Placeholders() {
					as = append(as, Attribute{Name: n, Format: layout})
				}
			}
			return as
		}
		d := &Design{
			Table: Table{Name: "t", PartitionKey: Key{Name: "pk"}, SortKey: Key{Name: "sk"},
				Indexes: []Index{{Name: "g", PartitionKey: Key{Name: "sk"}, SortKey: Key{Name: "pk"}}}},
			Entities: []Entity{
				{Name: "A", Keys: map[string]Template{"pk": Template(pk), "sk": Template(sk1)}, Attributes: attrs(Template(pk), Template(sk1))},
				{Name: "B", Keys: map[string]Template{"pk": Template(pk), "sk": Template(sk2)}, Attributes: attrs(Template(pk), Template(sk2))},
			},
			AccessPatterns: []AccessPattern{
				{Name: "q", Key: cond, Returns: []string{"A"}, Params: []Attribute{{Name: "from", Format: layout}}},
				{Name: "g", Index: "g", Key: cond, Returns: []string{"B"}},
			},
		}
		_ = d.Validate()
		var b strings.Builder
		if err := d.Markdown(&b); err != nil {
			t.Fatal(err)
		}
	})
}

func TestValidate_ParamFormat(t *testing.T) {
	d := sensors()
	d.AccessPattern("Readings in a range").Params[0].Format = "2006-1-2"
	if ps := problems(t, d); !slices.Equal(codes(ps), []Code{CodeFormat}) {
		t.Errorf("problems: %v", ps)
	}
}

// wantProblems checks that Validate finds in d problems of exactly the
// codes want and, if msg is set, that one of them says msg.
func wantProblems(t *testing.T, d *Design, want []Code, msg string) {
	t.Helper()
	ps := problems(t, d)
	slices.Sort(want)
	if got := codes(ps); !slices.Equal(got, want) {
		t.Fatalf("codes %v, want %v:\n%v", got, want, ps)
	}
	if msg != "" && !strings.Contains(ps.Error(), msg) {
		t.Errorf("no problem says %q:\n%v", msg, ps)
	}
}
