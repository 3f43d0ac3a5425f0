package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series"
)

// DesignCommand is `timetable design`: it prints the generated design
// document (package design's Markdown) of a table timetable uses:
//
//	timetable design series [-layout chunks|item-per-reading|day-partitioned|buckets|all] [-kind SENSOR] [-fields a,b] [-tags t]
//	timetable design analytics
//
// The series designs are built here from the series package's documented
// key formats (series does not export a design of its own), with its
// layouts, table name, index and retention defaults, and example keys
// made by package keys.
type DesignCommand struct {
	Stdout, Stderr io.Writer
}

// Run parses args and prints the design asked for.
func (c *DesignCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("design", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	layout := fs.String("layout", "all", "series: the layout to print: chunks, item-per-reading, day-partitioned, buckets, or all")
	kind := fs.String("kind", "SENSOR", "series: the kind of series, the entity prefix of its keys")
	fields := fs.String("fields", "temperature,humidity", "series: the float fields, comma-separated")
	tags := fs.String("tags", "location", "series: the string tags, comma-separated")
	metric := fs.Bool("metric-index", true, "series: include the optional metric index (Schema.MetricIndex)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: timetable design series|analytics [flags]\n\nPrints a table design as markdown: its keys, indexes, entities, access-pattern matrix and example items.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	what := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil { // flags after the name
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "timetable design: unexpected arguments %q\n", fs.Args())
		return errUsage
	}
	switch what {
	case "analytics":
		return design.Analytics().Markdown(c.Stdout)
	case "series":
	default:
		fmt.Fprintf(c.Stderr, "timetable design: unknown design %q (series or analytics)\n", what)
		return errUsage
	}
	layouts, err := parseLayouts(*layout)
	if err != nil {
		fmt.Fprintf(c.Stderr, "timetable design: %v\n", err)
		return errUsage
	}
	s := series.Schema{Name: *kind, Fields: splitList(*fields), Tags: splitList(*tags), MetricIndex: *metric}
	for i, l := range layouts {
		if i > 0 {
			fmt.Fprint(c.Stdout, "\n---\n\n")
		}
		s.Layout = l
		if err := seriesDesign(s).Markdown(c.Stdout); err != nil {
			return err
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// seriesLayouts are the layouts in the order the documents list them.
var seriesLayouts = []series.Layout{series.Chunks, series.ItemPerReading, series.DayPartitioned, series.Buckets}

func parseLayouts(s string) ([]series.Layout, error) {
	if s == "all" {
		return seriesLayouts, nil
	}
	for _, l := range seriesLayouts {
		if l.String() == s {
			return []series.Layout{l}, nil
		}
	}
	return nil, errors.New("unknown layout " + s + " (chunks, item-per-reading, day-partitioned, buckets or all)")
}

// seriesExample is the instant of the documents' example keys.
var seriesExample = time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC)

func retentionText(d time.Duration) string {
	const year = 365 * 24 * time.Hour
	switch {
	case d == series.Forever:
		return "kept"
	case d%year == 0:
		return fmt.Sprintf("%d years", int(d/year))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}

// seriesDesign returns the design of the table of a Store holding one kind
// of series with schema s (its Layout, Fields, Tags, MetricIndex; Shards
// are described in words, as they only add a suffix to the partition key).
// The key templates are those of the series package's documentation:
//
//	Chunks (default)  pk SENSOR#123             sk 2024-12-01T14:00:00.000Z#<seq>
//	ItemPerReading    pk SENSOR#123             sk 2024-12-01T14:30:00.000Z#<seq>
//	DayPartitioned    pk SENSOR#123#2024-12-01  sk 14:30:00.000#<seq>
//	Buckets           pk SENSOR#123             sk 2024-12-01
//	latest reading    pk SENSOR#123#L           sk L
//	rollups           pk SENSOR#123#H, #D, #M   sk 2024-12-01-14, 2024-12-01, 2024-12
//	rollup markers    pk ~DIRTY#SENSOR          sk 123#2024-12-01-14
//	metric index      mpk SENSOR#2024-12-01     msk <timestamp>#123#<seq>
func seriesDesign(s series.Schema) *design.Design {
	kind := s.Name
	ent := func(suffix string) design.Template {
		return design.Template(kind + keys.Sep + "{id}" + suffix)
	}
	t := seriesExample
	hour := t.Truncate(time.Hour)
	id := design.Attribute{Name: "id", Description: "The series id, unique within the kind (no '#')."}
	seq := design.Attribute{Name: "seq", Description: "Sequence number of the reading, 16 hex digits: keeps two readings of one instant apart and makes every write idempotent."}
	ttl := design.Attribute{Name: "ttl", Type: "N", Description: "Expiry in epoch seconds, from the event time and the tier's retention."}
	ts := func(name, desc string) design.Attribute {
		return design.Attribute{Name: name, Format: design.LayoutTimestamp, Description: desc}
	}
	day := design.Attribute{Name: "day", Format: design.LayoutDay, Derived: "the UTC day of the reading"}
	var values []design.Attribute
	for _, f := range s.Fields {
		values = append(values, design.Attribute{Name: f, Type: "N", Description: "Field " + f + "."})
	}
	for _, g := range s.Tags {
		values = append(values, design.Attribute{Name: g, Description: "Tag " + g + "."})
	}
	var aggs []design.Attribute
	for _, f := range s.Fields {
		aggs = append(aggs, design.Attribute{Name: f, Type: "M", Description: "Aggregates of field " + f + ": count, sum, min, max, first, last, first_t, last_t."})
	}
	withMetric := func(keysOf map[string]design.Template, start string) map[string]design.Template {
		if s.MetricIndex {
			keysOf["mpk"] = design.Template(kind + keys.Sep + "{day}")
			keysOf["msk"] = design.Template("{" + start + "}#{id}#{seq}")
		}
		return keysOf
	}
	ex := map[string]string{"id": "123"}
	exSeq := []string{"seq", "000000000000002a", "day", keys.MustTimeSeries(t, keys.Day)}
	exWith := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range ex {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	raw := retentionText(series.DefaultRawRetention)
	var rawEnt design.Entity
	var extra []design.Entity
	rangePattern := design.AccessPattern{
		Name: "Readings of a time range", Description: "Kind.Range, Iter and All: the readings of [from, to), oldest or newest first; a cursor resumes after the last reading returned.",
		Frequency: "every chart and export",
	}
	newest := design.AccessPattern{Name: "Newest readings", Description: "Kind.Range with Reverse and Limit: the newest N readings.", Reverse: true, Frequency: "every dashboard load"}
	switch s.Layout {
	case series.Chunks:
		rawEnt = design.Entity{
			Name:        "Chunk",
			Description: "The readings of one series, hour and shard written by one flush, compressed (delta-of-delta timestamps, XOR or decimal floats), with their aggregates as plain attributes. Written once as a new item, never updated in place.",
			Keys:        withMetric(map[string]design.Template{"pk": ent(""), "sk": "{start}#{seq}"}, "start"),
			Attributes: append(append([]design.Attribute{id,
				ts("start", "Time of the chunk's first reading; a chunk never spans two hours."),
				seq, day,
				{Name: "_c", Type: "B", Description: "The compressed readings."},
				{Name: "_g", Type: "B", Description: "The tag column, if the kind has tags."},
				{Name: "_n", Type: "N", Description: "Readings in the chunk."},
				{Name: "_e", Type: "N", Description: "Time of the last reading, Unix milliseconds."},
			}, aggs...), ttl),
			Example:   exWith(append(exSeq, "start", keys.MustTimestamp(hour))...),
			TTL:       "ttl",
			Retention: raw + " (raw tier) after its last reading.",
		}
		rangePattern.Key = "pk = " + string(ent("")) + " AND sk BETWEEN {fromHour} AND {to}#~"
		rangePattern.Params = []design.Attribute{
			{Name: "fromHour", Format: design.LayoutTimestamp, Description: "Start of the hour of from: a chunk that starts earlier in that hour may hold readings of the range."},
			{Name: "to", Format: design.LayoutTimestamp, Description: "The last millisecond of the range; #~ sorts after every suffix."},
		}
		rangePattern.Returns = []string{"Chunk"}
		newest.Key = "pk = " + string(ent(""))
		newest.Returns, newest.Limit = []string{"Chunk"}, 16
	case series.ItemPerReading, series.DayPartitioned:
		rawEnt = design.Entity{
			Name:        "Reading",
			Description: "One reading: each field and tag a plain attribute, readable by any DynamoDB tool; at least one write unit per reading.",
			Attributes:  append(append([]design.Attribute{id, seq}, values...), ttl),
			TTL:         "ttl",
			Retention:   raw + " (raw tier) after the reading.",
		}
		if s.Layout == series.ItemPerReading {
			rawEnt.Keys = withMetric(map[string]design.Template{"pk": ent(""), "sk": "{timestamp}#{seq}"}, "timestamp")
			rawEnt.Attributes = append(rawEnt.Attributes, ts("timestamp", "Time of the reading, UTC, to the millisecond."), day)
			rawEnt.Example = exWith(append(exSeq, "timestamp", keys.MustTimestamp(t))...)
			rangePattern.Key = "pk = " + string(ent("")) + " AND sk BETWEEN {from} AND {to}#~"
			rangePattern.Params = []design.Attribute{ts("from", "Start of the range."), ts("to", "The last millisecond of the range.")}
			newest.Key = "pk = " + string(ent(""))
		} else {
			rawEnt.Description = "One reading in the partition of its day: unbounded series (calendars) read by whole days; a range reads one partition per day."
			rawEnt.Keys = withMetric(map[string]design.Template{"pk": ent("#{day}"), "sk": "{timeOfDay}#{seq}"}, "timestamp")
			rawEnt.Attributes = append(rawEnt.Attributes,
				design.Attribute{Name: "day", Format: design.LayoutDay, Description: "The UTC day of the reading."},
				design.Attribute{Name: "timeOfDay", Format: design.LayoutTimeOfDay, Description: "Time of the reading within its day, UTC."},
				ts("timestamp", "Time of the reading (the metric index's key; not stored on its own)."))
			rawEnt.Example = exWith(append(exSeq, "timeOfDay", keys.TimeOfDay(t), "timestamp", keys.MustTimestamp(t))...)
			rangePattern.Key = "pk = " + string(ent("#{day}")) + " AND sk BETWEEN {fromTime} AND {toTime}#~"
			rangePattern.Description += " One query per day of the range, in order."
			rangePattern.Params = []design.Attribute{
				{Name: "fromTime", Format: design.LayoutTimeOfDay, Description: "from's time of day on the first day, 00:00:00.000 on the others."},
				{Name: "toTime", Format: design.LayoutTimeOfDay, Description: "The last millisecond's time of day on the last day, 23:59:59.999 on the others."},
			}
			newest.Key = "pk = " + string(ent("#{day}"))
			newest.Description += " Day partitions newest first, until N readings."
		}
		rangePattern.Returns, newest.Returns = []string{"Reading"}, []string{"Reading"}
	case series.Buckets:
		rawEnt = design.Entity{
			Name:        "Bucket",
			Description: "The readings of one series, shard and day (Schema.BucketPeriod) and their aggregates. Each write reads and rewrites the whole bucket under a version condition (billed on its full size): for a few readings per period.",
			Keys:        withMetric(map[string]design.Template{"pk": ent(""), "sk": "{period}"}, "start"),
			Attributes: append(append([]design.Attribute{id,
				{Name: "period", Format: design.LayoutDay, Description: "The bucket's period (a day by default; an hour or a month per Schema.BucketPeriod)."},
				{Name: "start", Format: design.LayoutTimestamp, Derived: "the start of the period"},
				{Name: "seq", Derived: "the shard and part number, 16 hex digits"},
				day,
				{Name: "_r", Type: "L", Description: "The readings: maps of _t (timestamp), _q (sequence number), fields and tags."},
				{Name: "_n", Type: "N", Description: "Readings in the bucket."},
				{Name: "_v", Type: "N", Description: "Version, for optimistic concurrency."},
			}, aggs...), ttl),
			Example:   exWith("period", keys.MustTimeSeries(t, keys.Day), "start", keys.MustTimestamp(t.Truncate(24*time.Hour)), "seq", "0000000000000000", "day", keys.MustTimeSeries(t, keys.Day)),
			TTL:       "ttl",
			Retention: raw + " (raw tier) after the end of its period.",
		}
		overflow := rawEnt
		overflow.Name = "BucketPart"
		overflow.Description = "The continuation of a bucket that would pass 300 KB, as many parts as needed."
		overflow.Keys = withMetric(map[string]design.Template{"pk": ent(""), "sk": "{period}#{part}"}, "start")
		overflow.Attributes = append([]design.Attribute{{Name: "part", Description: "Part number, 4 digits from 0001."}}, rawEnt.Attributes...)
		overflow.Example = exWith("period", keys.MustTimeSeries(t, keys.Day), "part", "0001", "start", keys.MustTimestamp(t.Truncate(24*time.Hour)), "seq", "0000000000000001", "day", keys.MustTimeSeries(t, keys.Day))
		extra = append(extra, overflow)
		rangePattern.Key = "pk = " + string(ent("")) + " AND sk BETWEEN {fromPeriod} AND {toPeriod}#~"
		rangePattern.Params = []design.Attribute{
			{Name: "fromPeriod", Format: design.LayoutDay, Description: "The period holding from."},
			{Name: "toPeriod", Format: design.LayoutDay, Description: "The period holding the range's last millisecond."},
		}
		rangePattern.Returns = []string{"Bucket", "BucketPart"}
		newest.Key = "pk = " + string(ent(""))
		newest.Returns, newest.Limit = []string{"Bucket", "BucketPart"}, 4
	}

	latest := design.Entity{
		Name:        "Latest",
		Description: "The newest reading of a series, put by every flush under the condition that it is newer than the one stored (a late reading never replaces it).",
		Keys:        map[string]design.Template{"pk": ent("#L"), "sk": "L"},
		Attributes: append(append([]design.Attribute{id,
			ts("_t", "Time of the reading."),
			{Name: "_q", Description: "Its sequence number."},
			{Name: "_o", Description: "Its order key (timestamp#seq), the condition's operand."},
		}, values...), ttl),
		Example:   exWith(),
		TTL:       "ttl",
		Retention: raw + " (raw tier) after the reading.",
	}
	rollup := func(name, suffix string, format string, g keys.Granularity, ret time.Duration) design.Entity {
		e := design.Entity{
			Name:        name,
			Description: "Aggregates of one " + g.String() + ", recomputed whole from the finer tier (never accumulated, so a second run never double-counts).",
			Keys:        map[string]design.Template{"pk": ent(suffix), "sk": "{period}"},
			Attributes: append(append([]design.Attribute{id,
				{Name: "period", Format: format, Description: "The period, UTC."},
				{Name: "_n", Type: "N", Description: "Readings in the period."},
				{Name: "_d", Type: "BOOL", Description: "The period had ended LateWindow ago when computed."},
			}, aggs...), ttl),
			Example:   exWith("period", keys.MustTimeSeries(t, g)),
			TTL:       "ttl",
			Retention: retentionText(ret) + " after the end of the period.",
		}
		if ret == series.Forever {
			e.TTL, e.Retention = "", "Kept (no ttl)."
			e.Attributes = e.Attributes[:len(e.Attributes)-1]
		}
		return e
	}
	marker := design.Entity{
		Name:        "RollupMarker",
		Description: "A period that received readings and must be rolled up; deleted once computed.",
		Keys:        map[string]design.Template{"pk": design.Template("~DIRTY#" + kind), "sk": "{id}#{hour}"},
		Attributes: []design.Attribute{id,
			{Name: "hour", Format: design.LayoutHour, Description: "The hour that received readings."},
			{Name: "_v", Type: "N", Description: "Version: a marker rewritten meanwhile is not deleted."},
		},
		Example: exWith("hour", keys.MustTimeSeries(t, keys.Hour)),
	}
	entities := append([]design.Entity{rawEnt}, extra...)
	entities = append(entities, latest,
		rollup("HourlyRollup", "#H", design.LayoutHour, keys.Hour, series.DefaultHourlyRetention),
		rollup("DailyRollup", "#D", design.LayoutDay, keys.Day, series.DefaultDailyRetention),
		rollup("MonthlyRollup", "#M", design.LayoutMonth, keys.Month, series.DefaultMonthlyRetention),
		marker)

	patterns := []design.AccessPattern{
		{Name: "Latest reading", Description: "Kind.Latest.", Op: design.GetItem, Key: "pk = " + string(ent("#L")) + " AND sk = L", Returns: []string{"Latest"}, Frequency: "every dashboard tile"},
		{Name: "Latest of many series", Description: "Kind.LatestMany: 100 keys per BatchGetItem, unprocessed keys retried.", Op: design.BatchGetItem, Key: "pk = " + string(ent("#L")) + " AND sk = L", Returns: []string{"Latest"}, Frequency: "fleet views (500 devices in one call)"},
		rangePattern,
		newest,
	}
	for _, r := range []struct {
		name, suffix, lo, hi, format string
		ent                          string
	}{
		{"Hourly aggregates", "#H", "fromHour", "toHour", design.LayoutHour, "HourlyRollup"},
		{"Daily aggregates", "#D", "fromDay", "toDay", design.LayoutDay, "DailyRollup"},
		{"Monthly aggregates", "#M", "fromMonth", "toMonth", design.LayoutMonth, "MonthlyRollup"},
	} {
		patterns = append(patterns, design.AccessPattern{
			Name: r.name, Description: "Kind.Aggregate and Kind.Rollups, when the step is a multiple of the tier's period.",
			Key:     "pk = " + string(ent(r.suffix)) + " AND sk BETWEEN {" + r.lo + "} AND {" + r.hi + "}",
			Returns: []string{r.ent},
			Params: []design.Attribute{
				{Name: r.lo, Format: r.format, Description: "First period."},
				{Name: r.hi, Format: r.format, Description: "Last period."},
			},
			Frequency: "charts over days, months, years",
		})
	}
	patterns = append(patterns, design.AccessPattern{
		Name: "Periods to roll up", Description: "Store.Rollup: the marked periods of the kind (strongly consistent).",
		Key: "pk = ~DIRTY#" + kind, Returns: []string{"RollupMarker"}, Frequency: "every RollupInterval (1 minute)",
	})

	tbl := design.Table{
		Name:         series.DefaultTable,
		PartitionKey: design.Key{Name: "pk", Type: design.String},
		SortKey:      design.Key{Name: "sk", Type: design.String},
		TTL:          "ttl",
	}
	if s.MetricIndex {
		tbl.Indexes = []design.Index{{
			Name:         "metric",
			PartitionKey: design.Key{Name: "mpk", Type: design.String},
			SortKey:      design.Key{Name: "msk", Type: design.String},
			Description:  "Cross-series index of the raw items of the kinds with Schema.MetricIndex: all series, one field, one time range (Schema.IndexShards partitions per day add a #S03 suffix).",
		}}
		raws := []string{rawEnt.Name}
		for _, x := range extra {
			raws = append(raws, x.Name)
		}
		patterns = append(patterns, design.AccessPattern{
			Name: "All series, one field, one time range", Description: "Kind.MetricRange: one query per day (and index shard); eventually consistent on DynamoDB.",
			Index: "metric", Key: "mpk = " + kind + "#{day} AND msk BETWEEN {from} AND {to}#~", Returns: raws,
			Params:    []design.Attribute{ts("from", "Start of the range on that day."), ts("to", "The last millisecond of the range on that day.")},
			Frequency: "fleet-wide charts",
		})
	}

	desc := fmt.Sprintf("The table of a series Store (package series) holding the kind %s, fields %s, tags %s, in the %s layout. "+
		"Every partition holds keys of one format. With Schema.Shards, the raw partitions end with a shard suffix "+
		"(%s#123#S07, before the day of the day-partitioned layout) and reads merge the shards in time order. "+
		"Retention from event time: raw %s, hourly %s, daily %s, monthly %s (defaults). "+
		"Built by `timetable design series` from the series package's documented key formats.",
		kind, listOrNone(s.Fields), listOrNone(s.Tags), s.Layout, kind,
		retentionText(series.DefaultRawRetention), retentionText(series.DefaultHourlyRetention),
		retentionText(series.DefaultDailyRetention), retentionText(series.DefaultMonthlyRetention))
	return &design.Design{
		Name:           fmt.Sprintf("Time series: %s layout", s.Layout),
		Description:    desc,
		Table:          tbl,
		Entities:       entities,
		AccessPatterns: patterns,
	}
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
