package series

import (
	"fmt"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
)

// Design returns the table design (package design) of a Store holding one
// kind of series with schema s, in the table DefaultTable: its keys, the
// metric index if s asks for it, one entity per kind of item the kind
// writes (raw items of its layout, latest reading, the rollup tiers it
// keeps, rollup and compaction markers), the access patterns of its reads,
// and retention from its normalized schema. It fails if s is invalid.
//
// The key templates come from the functions that build the keys of the
// items the Store writes, called with placeholders ("{id}") for values,
// and every entity's example is the key those functions give for the
// series "123" at 2024-12-01T14:30:00Z, matched against its templates: a
// format that changes on one side only makes Design fail (and its tests,
// which also match every item a Store writes against the design). Shards
// (Schema.Shards, Schema.IndexShards) add a suffix to partition keys that
// the templates leave out and the description states.
func Design(s Schema) (*design.Design, error) {
	n, err := s.normalize()
	if err != nil {
		return nil, err
	}
	return (&designer{s: n, k: newKind(nil, unsharded(n))}).build()
}

// Design returns the design of the kind's table (see the function Design),
// with the Store's table name.
func (k *Kind) Design() (*design.Design, error) {
	k = k.current()
	d, err := (&designer{s: k.s, k: newKind(nil, unsharded(k.s))}).build()
	if err != nil {
		return nil, err
	}
	d.Table.Name = k.st.opts.Table
	return d, nil
}

func unsharded(s Schema) Schema {
	s.Shards, s.IndexShards = 1, 1
	return s
}

// designExample is the instant of the designs' example keys; designID and
// designSeq are the series id and sequence number.
var designExample = time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC)

const (
	designID  = "123"
	designSeq = 42
)

// designer builds the design of one kind. k is the kind with one shard, whose
// key functions give the templates and example keys.
type designer struct {
	s Schema
	k *Kind
}

// Placeholders of the key templates.
const (
	phLabel = "{label}"
	phValue = "{value}"
	phID    = "{id}"
	phSeq   = "{seq}"
	phDay   = "{day}"
	phStart = "{start}"
)

// the attributes that are stored or key parts on every raw entity
var (
	idAttr  = design.Attribute{Name: "id", Description: "The series id, unique within the kind (no '#')."}
	seqAttr = design.Attribute{Name: "seq", Description: "Sequence number, 16 hex digits: keeps two readings of one instant apart and makes every write idempotent."}
	ttlAttr = design.Attribute{Name: attrTTL, Type: "N", Description: "Expiry in epoch seconds, from the event time and the tier's retention."}
	dayAttr = design.Attribute{Name: "day", Format: design.LayoutDay, Derived: "the UTC day of the data's first reading"}
)

func tsAttr(name, desc string) design.Attribute {
	return design.Attribute{Name: name, Format: design.LayoutTimestamp, Description: desc}
}

// layoutOf is the design layout of the key of a period of granularity g.
func layoutOf(g keys.Granularity) string {
	switch g {
	case keys.Hour:
		return design.LayoutHour
	case keys.Day:
		return design.LayoutDay
	case keys.Month:
		return design.LayoutMonth
	}
	return design.LayoutYear
}

func retentionText(d time.Duration) string {
	const year = 365 * 24 * time.Hour
	switch {
	case d == Forever:
		return "kept"
	case d%year == 0:
		return fmt.Sprintf("%d years", int(d/year))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}

// example sets e.Example from the keys the Store's key functions give for
// the example series (real, key attribute name to value): each key must
// match its template, and the values its placeholders take are the
// example. extra adds values of placeholders that no key uses.
func example(e *design.Entity, real map[string]string, extra ...string) error {
	ex := map[string]string{}
	for name, tmpl := range e.Keys {
		v, ok := real[name]
		if !ok {
			return fmt.Errorf("series: design of %s: no example for key %s", e.Name, name)
		}
		m, ok := tmpl.Match(v)
		if !ok {
			return fmt.Errorf("series: design of %s: key %s = %q does not match its template %q", e.Name, name, v, tmpl)
		}
		for p, pv := range m {
			ex[p] = pv
		}
	}
	for i := 0; i+1 < len(extra); i += 2 {
		ex[extra[i]] = extra[i+1]
	}
	e.Example = ex
	return nil
}

// metricKeys adds the metric index's keys of a raw item whose data starts
// at {start} (its templates, and the example's from ms and seq).
func (d *designer) metricKeys(tmpl map[string]design.Template, real map[string]string, start string, ms int64, seq uint64) {
	if !d.s.MetricIndex {
		return
	}
	tmpl[attrMPK] = design.Template(d.k.metricPK(phDay, 0))
	tmpl[attrMSK] = design.Template("{" + start + "}" + keys.Sep + phID + keys.Sep + phSeq)
	real[attrMPK] = d.k.metricPK(periodKey(ms, keys.Day), 0)
	real[attrMSK] = ts(ms) + keys.Sep + designID + keys.Sep + hex16(seq)
}

// rawDesign is what the design of a layout's raw items starts from (the
// designer, the example instant t and its hour, the attributes of values
// and aggregates, the raw retention's text, the raw partition key's
// template) and the access patterns it fills in.
type rawDesign struct {
	d                    *designer
	t, hour              int64
	values, aggs         []design.Attribute
	raw                  string
	rawPK                design.Template
	rangePattern, newest *design.AccessPattern
	patterns             []design.AccessPattern // more, of the layout's own items
}

func (d *designer) build() (*design.Design, error) {
	s, k := &d.s, d.k
	t := timeMs(designExample)
	hour := periodStart(t, keys.Hour)
	var values, aggs []design.Attribute
	for _, f := range s.Fields {
		values = append(values, design.Attribute{Name: f, Type: "N", Description: "Field " + f + "."})
		aggs = append(aggs, design.Attribute{Name: f, Type: "M", Description: "Aggregates of field " + f + ": count, sum, min, max, first, last, first_t, last_t."})
	}
	for _, g := range s.Tags {
		values = append(values, design.Attribute{Name: g, Description: "Tag " + g + "."})
	}
	raw := retentionText(s.Retention.Raw)
	rawPK := design.Template(k.rawPK(phID, 0))
	rangePattern := design.AccessPattern{
		Name: "Readings of a time range", Description: "Kind.Range, Iter and All: the readings of [from, to), oldest or newest first; a cursor resumes after the last reading returned.",
		Frequency: "every chart and export",
	}
	newest := design.AccessPattern{Name: "Newest readings", Description: "Kind.Range with Reverse and Limit: the newest N readings.", Reverse: true, Frequency: "every dashboard load"}
	rd := &rawDesign{d: d, t: t, hour: hour, values: values, aggs: aggs, raw: raw, rawPK: rawPK, rangePattern: &rangePattern, newest: &newest}
	raws, err := k.lay.describe(rd)
	if err != nil {
		return nil, err
	}

	latestPK := design.Template(k.latestPK(phID))
	latest := design.Entity{
		Name:        "Latest",
		Description: "The newest reading of a series, put by every flush under the condition that it is newer than the one stored (a late reading never replaces it).",
		Keys:        map[string]design.Template{attrPK: latestPK, attrSK: latestSK},
		Attributes: append(append([]design.Attribute{idAttr,
			tsAttr(attrTime, "Time of the reading."),
			{Name: attrSeq, Description: "Its rank among readings of its instant, the order readers give them: 16 hex digits of its sequence number (in the Chunks layout, its flush's for its shard), then # and 8 hex digits of its index in that flush when not 0."},
			{Name: attrOrd, Description: "Its order key (timestamp#rank), the condition's operand."},
		}, values...), ttlAttr),
		TTL:       attrTTL,
		Retention: raw + " (raw tier) after the reading.",
	}
	if err := example(&latest, map[string]string{attrPK: k.latestPK(designID), attrSK: latestSK}); err != nil {
		return nil, err
	}
	entities := append(raws, latest)
	patterns := []design.AccessPattern{
		{Name: "Latest reading", Description: "Kind.Latest.", Op: design.GetItem, Key: "pk = " + string(latestPK) + " AND sk = " + latestSK, Returns: []string{"Latest"}, Frequency: "every dashboard tile"},
		{Name: "Latest of many series", Description: "Kind.LatestMany: 100 keys per BatchGetItem, unprocessed keys retried.", Op: design.BatchGetItem, Key: "pk = " + string(latestPK) + " AND sk = " + latestSK, Returns: []string{"Latest"}, Frequency: "fleet views (500 devices in one call)"},
		rangePattern,
		newest,
	}
	patterns = append(patterns, rd.patterns...)

	names := map[keys.Granularity]string{keys.Hour: "Hourly", keys.Day: "Daily", keys.Month: "Monthly"}
	for _, g := range s.Rollups {
		pk := design.Template(k.rollupPK(phID, g))
		e := design.Entity{
			Name:        names[g] + "Rollup",
			Description: "Aggregates of one " + g.String() + ", recomputed whole from the finer tier (never accumulated, so a second run never double-counts).",
			Keys:        map[string]design.Template{attrPK: pk, attrSK: "{period}"},
			Attributes: append(append([]design.Attribute{idAttr,
				{Name: "period", Format: layoutOf(g), Description: "The period, UTC."},
				{Name: attrN, Type: "N", Description: "Readings in the period."},
				{Name: attrDone, Type: "BOOL", Description: "The period had ended LateWindow ago when computed."},
			}, aggs...), ttlAttr),
			TTL:       attrTTL,
			Retention: retentionText(s.retentionOf(g)) + " after the end of the period.",
		}
		if s.retentionOf(g) == Forever {
			e.TTL, e.Retention = "", "Kept (no ttl)."
			e.Attributes = e.Attributes[:len(e.Attributes)-1]
		}
		if err := example(&e, map[string]string{attrPK: k.rollupPK(designID, g), attrSK: periodKey(t, g)}); err != nil {
			return nil, err
		}
		entities = append(entities, e)
		unit := strings.ToUpper(g.String()[:1]) + g.String()[1:]
		lo, hi := "from"+unit, "to"+unit
		patterns = append(patterns, design.AccessPattern{
			Name: names[g] + " aggregates", Description: "Kind.Aggregate and Kind.Rollups, when the step is a multiple of the tier's period.",
			Key:     "pk = " + string(pk) + " AND sk BETWEEN {" + lo + "} AND {" + hi + "}",
			Returns: []string{e.Name},
			Params: []design.Attribute{
				{Name: lo, Format: layoutOf(g), Description: "First period."},
				{Name: hi, Format: layoutOf(g), Description: "Last period."},
			},
			Frequency: "charts over days, months, years",
		})
	}
	// The markers: what a background pass must do, one partition per kind.
	type markerKind struct {
		name, desc, pk, period string
		g                      keys.Granularity
		pattern                design.AccessPattern
	}
	var markers []markerKind
	if g := k.finest(); g != 0 {
		markers = append(markers, markerKind{name: "RollupMarker", desc: "A period that received readings and must be rolled up; deleted once computed.",
			pk: k.markerPK(), g: g, period: "The " + g.String() + " that received readings, to roll up, or a coarser period (its key a prefix of the " + g.String() + "'s) whose rollup a pass must recompute.",
			pattern: design.AccessPattern{Name: "Periods to roll up", Description: "Store.Rollup: the marked periods of the kind (strongly consistent).", Frequency: "every RollupInterval (1 minute)"}})
	} else {
		markers = append(markers, markerKind{name: "RollupMarker", desc: "An hour that received readings, written before them: the rollup pass repairs the series' latest reading from it (a write stopped by a crash before its latest reading), then deletes it.",
			pk: k.markerPK(), g: keys.Hour, period: "The hour that received readings.",
			pattern: design.AccessPattern{Name: "Hours to check", Description: "Store.Rollup: the marked hours of the kind (strongly consistent).", Frequency: "every RollupInterval (1 minute)"}})
	}
	if k.compacts() {
		markers = append(markers, markerKind{name: "CompactionMarker", desc: "An hour of chunks that received readings and must be compacted, or a day whose compacted hours may be merged into one chunk; deleted once compacted.",
			pk: k.compactPK(), g: keys.Hour, period: "The hour that received readings, or (once its hours are compacted) their day.",
			pattern: design.AccessPattern{Name: "Periods to compact", Description: "Store.Compact: the marked hours and days of the kind (strongly consistent).", Frequency: "every CompactInterval (1 minute)"}})
	}
	for _, m := range markers {
		e := design.Entity{
			Name:        m.name,
			Description: m.desc,
			Keys:        map[string]design.Template{attrPK: design.Template(m.pk), attrSK: design.Template(phID + keys.Sep + "{period}")},
			Attributes: []design.Attribute{idAttr,
				{Name: "period", Format: layoutOf(m.g), Description: m.period},
				{Name: attrVer, Type: "N", Description: "Version: a marker rewritten meanwhile is not deleted."},
			},
		}
		if err := example(&e, map[string]string{attrPK: m.pk, attrSK: designID + keys.Sep + periodKey(t, m.g)}); err != nil {
			return nil, err
		}
		entities = append(entities, e)
		m.pattern.Key, m.pattern.Returns = "pk = "+m.pk, []string{e.Name}
		patterns = append(patterns, m.pattern)
	}
	dir := design.Entity{
		Name:        "SeriesDirectory",
		Description: "A series of the kind, put by the first flush of its readings in a Store's lifetime (an idempotent put).",
		Keys:        map[string]design.Template{attrPK: design.Template(k.dirPK()), attrSK: design.Template(phID)},
		Attributes:  []design.Attribute{idAttr},
	}
	if err := example(&dir, map[string]string{attrPK: k.dirPK(), attrSK: designID}); err != nil {
		return nil, err
	}
	entities = append(entities, dir)
	index, err := d.labelIndex()
	if err != nil {
		return nil, err
	}
	entities = append(entities, index...)
	mark := design.Entity{
		Name:        "SequenceMark",
		Description: "One per table, shared by the kinds: above the sequence number of every reading written, raised before a flush's items (about once a second at most) and read by Open, so that a restarted Store numbers above its predecessors.",
		Keys:        map[string]design.Template{attrPK: design.Template(seqMarkPK), attrSK: design.Template(seqMarkPK)},
		Attributes:  []design.Attribute{{Name: attrSeq, Description: "The mark, 16 hex digits."}},
	}
	if err := example(&mark, map[string]string{attrPK: seqMarkPK, attrSK: seqMarkPK}); err != nil {
		return nil, err
	}
	entities = append(entities, mark)
	lease := design.Entity{
		Name:        "Lease",
		Description: "One per unit of background work shared by the Stores of the table (the rollup and the compaction pass of each kind) and per sequence-number id: the Store holding it and until when (see fleet.go), taken and renewed by a conditional put, released by a delete.",
		Keys:        map[string]design.Template{attrPK: design.Template(leasePK), attrSK: "{lease}"},
		Attributes: []design.Attribute{
			{Name: "lease", Description: "The unit: rollup#KIND, compact#KIND or seq#NNNN (an id of 4 decimal digits)."},
			{Name: "lease_owner", Description: "The Store holding it (Options.LeaseOwner)."},
			{Name: "lease_until", Type: "N", Description: "When the claim ends, Unix milliseconds of the holder's clock."},
			{Name: attrTTL, Type: "N", Description: "Expiry in epoch seconds, an hour after the claim ends."},
		},
	}
	if err := example(&lease, map[string]string{attrPK: leasePK, attrSK: "rollup" + keys.Sep + k.s.Name}); err != nil {
		return nil, err
	}
	entities = append(entities, lease)
	patterns = append(patterns, design.AccessPattern{Name: "Lease holder", Description: "table.LeaseHolder: which Store holds a unit of background work (monitoring). The Stores take and renew leases with conditional puts, per kind and pass every RollupInterval and CompactInterval and per Store every 10 minutes, and delete them at Close.",
		Op: design.GetItem, Key: "pk = " + leasePK + " AND sk = {lease}", Returns: []string{lease.Name}, Frequency: "on demand"})
	patterns = append(patterns, design.AccessPattern{Name: "Series of the kind", Description: "Kind.Series: the ids in order, from a prefix or a cursor.",
		Key: "pk = " + k.dirPK() + " AND sk >= {id}", Returns: []string{dir.Name}, Frequency: "on demand (listing series)"})
	patterns = append(patterns,
		design.AccessPattern{Name: "Label names of the kind", Description: "Kind.LabelNames: the names in order, from a prefix or a range.",
			Key: "pk = " + k.namesPK() + " AND sk >= {label}", Returns: []string{index[0].Name}, Frequency: "label lookups (Prometheus /api/v1/labels)"},
		design.AccessPattern{Name: "Values of a label", Description: "Kind.LabelValues: the values of one label in order, from a prefix or a range; a regular expression's values are read here, not from the series.",
			Key: "pk = " + k.valuesPK(phLabel) + " AND sk >= {value}", Returns: []string{index[1].Name}, Frequency: "label lookups, regular-expression matchers"},
		design.AccessPattern{Name: "Series of a label value", Description: "Kind.LabelSeries: the ids of the series with one label value, in id order: what a selection by labels reads, page by page.",
			Key: "pk = " + k.postingsPK(Label{phLabel, phValue}) + " AND sk >= {id}", Returns: []string{index[2].Name}, Frequency: "every query selecting series by labels"},
		design.AccessPattern{Name: "Label index states", Description: "Open and EnsureTable: which kinds' label index is complete (strongly consistent); Kind.LabelIndexReady reads one kind's until it is.",
			Key: "pk = " + indexStatePK, Returns: []string{index[4].Name}, Frequency: "at Open, and until a kind's index is built"},
		design.AccessPattern{Name: "Plain series of the kind", Description: "Kind.PlainSeries: the series whose ids are not label sets, in id order, which a selection reads to learn their labels.",
			Key: "pk = " + k.plainPK() + " AND sk >= {id}", Returns: []string{index[3].Name}, Frequency: "selections and lookups in kinds with tags"},
	)

	tbl := design.Table{
		Name:         DefaultTable,
		PartitionKey: design.Key{Name: attrPK, Type: design.String},
		SortKey:      design.Key{Name: attrSK, Type: design.String},
		TTL:          attrTTL,
	}
	if s.MetricIndex {
		tbl.Indexes = []design.Index{{
			Name:         metricIndex,
			PartitionKey: design.Key{Name: attrMPK, Type: design.String},
			SortKey:      design.Key{Name: attrMSK, Type: design.String},
			Projection:   projectionOf(metricProjection([]*Kind{k})),
			Description:  "Cross-series index of the raw items of the kinds with Schema.MetricIndex: all series, one field, one time range (Schema.IndexShards partitions per day add a " + keys.Sep + "S03 suffix).",
		}}
		var returns []string
		for _, e := range raws {
			if _, indexed := e.Keys[attrMPK]; indexed {
				returns = append(returns, e.Name)
			}
		}
		patterns = append(patterns, design.AccessPattern{
			Name: "All series, one field, one time range", Description: "Kind.MetricRange: one query per day (and index shard); eventually consistent on DynamoDB.",
			Index: metricIndex, Key: attrMPK + " = " + k.metricPK(phDay, 0) + " AND " + attrMSK + " BETWEEN {from} AND {to}#~", Returns: returns,
			Params:    []design.Attribute{tsAttr("from", "Start of the range on that day."), tsAttr("to", "The last millisecond of the range on that day.")},
			Frequency: "fleet-wide charts",
		})
	}

	var tiers []string
	for _, g := range s.Rollups {
		tiers = append(tiers, fmt.Sprintf("%s %s", strings.ToLower(names[g]), retentionText(s.retentionOf(g))))
	}
	desc := fmt.Sprintf("The table of a series Store (package series) holding the kind %s, fields %s, tags %s, in the %s layout. "+
		"Every partition holds keys of one format. With Schema.Shards, the raw partitions end with a shard suffix "+
		"(%s, before the day of the day-partitioned layout) and reads merge the shards in time order. "+
		"Retention from event time: raw %s%s. "+
		"Built by series.Design from the functions that make the keys of the items the Store writes.",
		s.Name, listOrNone(s.Fields), listOrNone(s.Tags), s.Layout, k.entity(designID)+keys.Sep+keys.ShardSuffix(7, 16),
		raw, prefixed(", ", strings.Join(tiers, ", ")))
	return &design.Design{
		Name:           fmt.Sprintf("Time series: %s layout", s.Layout),
		Description:    desc,
		Table:          tbl,
		Entities:       entities,
		AccessPatterns: patterns,
	}, nil
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// projectionOf is the design of the metric index's projection of the
// attributes include (all of them if nil), as the Store creates it.
func projectionOf(include []string) design.Projection {
	if len(include) == 0 {
		return design.Projection{Type: design.ProjectAll}
	}
	return design.Projection{Type: design.ProjectInclude, NonKeyAttributes: include}
}

// labelIndex returns the entities of the label index (labelindex.go):
// names, values, postings, plain series, then the index state.
func (d *designer) labelIndex() ([]design.Entity, error) {
	k := d.k
	labelAttr := design.Attribute{Name: "label", Description: "A label name of a series id (series.IDLabels: a name of a label set, or \"series\" for an id that is not one); no '#'."}
	valueAttr := design.Attribute{Name: "value", Description: "A value of that label; no '#'."}
	l := indexLabels(designID)[0]
	es := []design.Entity{{
		Name:        "LabelName",
		Description: "A label name some series of the kind has, put (idempotently) with the directory item of the first series that has it that a Store writes.",
		Keys:        map[string]design.Template{attrPK: design.Template(k.namesPK()), attrSK: phLabel},
		Attributes:  []design.Attribute{labelAttr},
	}, {
		Name:        "LabelValue",
		Description: "A value some series of the kind has for a label, put (idempotently) with the directory item of the first series that has it that a Store writes.",
		Keys:        map[string]design.Template{attrPK: design.Template(k.valuesPK(phLabel)), attrSK: phValue},
		Attributes:  []design.Attribute{labelAttr, valueAttr},
	}, {
		Name:        "Posting",
		Description: "A series of the kind that has a label value, put (idempotently) with the series' directory item, one per label of its id.",
		Keys:        map[string]design.Template{attrPK: design.Template(k.postingsPK(Label{phLabel, phValue})), attrSK: phID},
		Attributes:  []design.Attribute{labelAttr, valueAttr, idAttr},
	}, {
		Name:        "PlainSeries",
		Description: "A series of the kind whose id is not a label set (series.IDLabels), whose readings' tags may give it labels, put (idempotently) with its directory item.",
		Keys:        map[string]design.Template{attrPK: design.Template(k.plainPK()), attrSK: phID},
		Attributes:  []design.Attribute{idAttr},
	}, {
		Name:        "LabelIndexState",
		Description: "One per kind whose label index is complete or being built from the series directory (a kind written by an earlier version); absent until then.",
		Keys:        map[string]design.Template{attrPK: indexStatePK, attrSK: "{kind}"},
		Attributes: []design.Attribute{
			{Name: "kind", Description: "The kind's name."},
			{Name: attrDone, Type: "BOOL", Description: "The index lists every series of the directory."},
			{Name: attrAfter, Description: "While it is built: the last directory id indexed, where the index pass resumes."},
		},
	}}
	keysOf := []map[string]string{
		{attrPK: k.namesPK(), attrSK: l.Name},
		{attrPK: k.valuesPK(l.Name), attrSK: l.Value},
		{attrPK: k.postingsPK(l), attrSK: designID},
		{attrPK: k.plainPK(), attrSK: designID},
		{attrPK: indexStatePK, attrSK: k.s.Name},
	}
	for i := range es {
		if err := example(&es[i], keysOf[i]); err != nil {
			return nil, err
		}
	}
	return es, nil
}
