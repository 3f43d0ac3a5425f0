package series

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
)

func TestDesign_Valid(t *testing.T) {
	for _, l := range []Layout{Chunks, ItemPerReading, DayPartitioned, Buckets} {
		for _, s := range []Schema{
			{Name: "SENSOR", Fields: []string{"temperature"}, Tags: []string{"location"}, Layout: l, MetricIndex: true},
			{Name: "HEART", Fields: []string{"bpm"}, Layout: l, NoCompaction: true, BucketPeriod: keys.Hour},
			{Name: "X", Layout: l, NoRollups: true, Retention: Retention{Raw: Forever}},
			{Name: "Y", Layout: l, Rollups: []keys.Granularity{keys.Month, keys.Day}, BucketPeriod: keys.Month},
		} {
			d, err := Design(s)
			if err != nil {
				t.Fatalf("%s %s: %v", s.Name, l, err)
			}
			if err := d.Validate(); err != nil {
				t.Errorf("%s %s: %v", s.Name, l, err)
			}
		}
	}
	if _, err := Design(Schema{Name: "bad#name"}); err == nil {
		t.Error("an invalid schema has a design")
	}
}

// TestDesign_MatchesWrites writes readings through a Store of each layout
// (flushes, rollups, compaction) and checks every item it leaves in the
// table against the kind's design: each item is an instance of exactly one
// entity, whose key templates match its keys with placeholder values of
// their formats (the series id written, times in their layouts, sequence
// numbers of 16 hex digits) and whose attributes include the item's. It
// fails when a key format of the Store changes and the design does not.
func TestDesign_MatchesWrites(t *testing.T) {
	for _, l := range []Layout{Chunks, ItemPerReading, DayPartitioned, Buckets} {
		t.Run(l.String(), func(t *testing.T) {
			s := Schema{Name: "SENSOR", Fields: []string{"temperature", "humidity"}, Tags: []string{"location"}, Layout: l, MetricIndex: true}
			d, err := Design(s)
			if err != nil {
				t.Fatal(err)
			}
			items := writtenItems(t, s)
			seen := map[string]int{}
			for _, it := range items {
				e := entityOf(t, d, it)
				if e != nil {
					seen[e.Name]++
				}
			}
			for _, e := range d.Entities {
				if seen[e.Name] == 0 && e.Name != "BucketPart" { // a bucket of over 300 KB
					t.Errorf("no item written is a %s", e.Name)
				}
			}
			t.Logf("%d items: %v", len(items), seen)
			// A design whose raw partition key format drifts from the
			// writes' matches none of the raw items.
			raw := d.Entities[0]
			raw.Keys = map[string]design.Template{}
			for name, tmpl := range d.Entities[0].Keys {
				raw.Keys[name] = tmpl
			}
			raw.Keys[attrPK] = design.Template(strings.Replace(string(raw.Keys[attrPK]), keys.Sep, "_", 1))
			for _, it := range items {
				if instanceProblem(&d.Entities[0], it, strOf(it)) == "" && instanceProblem(&raw, it, strOf(it)) == "" {
					t.Errorf("partition key %s matches %s", it[attrPK].(*types.AttributeValueMemberS).Value, raw.Keys[attrPK])
				}
			}
		})
	}
}

var hex16Re = regexp.MustCompile(`^[0-9a-f]{16}$`)

// entityOf returns the entity of d that item is an instance of, and
// reports an error unless there is exactly one whose keys and attributes
// fit it.
func entityOf(t *testing.T, d *design.Design, item map[string]types.AttributeValue) *design.Entity {
	t.Helper()
	str := strOf(item)
	pk, _ := str(attrPK)
	sk, _ := str(attrSK)
	var found []*design.Entity
	var why []string
	for i := range d.Entities {
		e := &d.Entities[i]
		if p := e.Keys[attrPK]; !strings.HasPrefix(pk, p.Prefix()) {
			continue
		}
		if problem := instanceProblem(e, item, str); problem != "" {
			why = append(why, e.Name+": "+problem)
			continue
		}
		found = append(found, e)
	}
	if len(found) != 1 {
		var names []string
		for _, e := range found {
			names = append(names, e.Name)
		}
		t.Errorf("item pk %q sk %q is an instance of %d entities %v of the design (%s)", pk, sk, len(found), names, strings.Join(why, "; "))
		return nil
	}
	return found[0]
}

// strOf returns the string attributes of item.
func strOf(item map[string]types.AttributeValue) func(name string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := item[name].(*types.AttributeValueMemberS)
		if !ok {
			return "", false
		}
		return v.Value, true
	}
}

// instanceProblem says why item is not an instance of e, or "".
func instanceProblem(e *design.Entity, item map[string]types.AttributeValue, str func(string) (string, bool)) string {
	values := map[string]string{}
	for name, tmpl := range e.Keys {
		v, ok := str(name)
		if !ok {
			return "no key " + name
		}
		m, ok := tmpl.Match(v)
		if !ok {
			return name + " " + v + " does not match " + string(tmpl)
		}
		for p, pv := range m {
			if prev, ok := values[p]; ok && prev != pv {
				return "{" + p + "} is " + prev + " and " + pv
			}
			values[p] = pv
		}
	}
	for _, k := range []string{attrMPK, attrMSK} {
		if _, ok := item[k]; ok {
			if _, ok := e.Keys[k]; !ok {
				return "the item has " + k
			}
		}
	}
	for p, v := range values {
		a := e.Attribute(p)
		switch {
		case a == nil:
			return "{" + p + "} is not an attribute"
		case p == "id" && v != designTestID:
			return "id " + v
		case p == "seq" && !hex16Re.MatchString(v), p == "part" && len(v) != 4:
			return p + " " + v
		case a.Format != "":
			// The value of a period may be of a coarser one, a prefix of
			// the layout (design.Attribute.Format).
			if len(v) > len(a.Format) {
				return p + " " + v + " is not of format " + a.Format
			}
			if _, err := time.Parse(a.Format[:len(v)], v); err != nil {
				return p + " " + v + " is not of format " + a.Format
			}
		}
	}
	for name := range item {
		if _, key := e.Keys[name]; !key && e.Attribute(name) == nil {
			return "attribute " + name + " is not in the design"
		}
	}
	return ""
}

const designTestID = "dev-1"

// writtenItems writes readings of schema s through a Store on the embedded
// engine, with flushes, rollups and compaction, and returns every item the
// table held at some point (read after each step).
func writtenItems(t *testing.T, s Schema) []map[string]types.AttributeValue {
	ctx := context.Background()
	clk := newClock(time.Date(2024, 12, 1, 14, 0, 0, 0, time.UTC))
	api := openEngine(t, clk)
	opts := testOptions(t, clk)
	opts.MaxFuture = -1 // it writes a day ahead
	st, k := openKind(t, api, opts, s)
	seen := map[string]map[string]types.AttributeValue{}
	snapshot := func() {
		t.Helper()
		for _, it := range scanAll(t, api, opts.Table) {
			pk := it[attrPK].(*types.AttributeValueMemberS).Value
			sk := it[attrSK].(*types.AttributeValueMemberS).Value
			seen[pk+"\x00"+sk] = it
		}
	}
	write := func(at time.Time, n int) {
		t.Helper()
		var rs []Reading
		for i := range n {
			rs = append(rs, Reading{Time: at.Add(time.Duration(i) * time.Second), Values: []float64{20.5 + float64(i), 40}, Tags: []string{"hall"}})
		}
		if err := k.Write(ctx, designTestID, rs...); err != nil {
			t.Fatal(err)
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		snapshot()
	}
	write(clk.Now().Add(10*time.Minute), 5)
	write(clk.Now().Add(20*time.Minute), 5) // a second chunk of the hour
	write(clk.Now().Add(26*time.Hour), 3)   // another day
	clk.Advance(3 * 24 * time.Hour)
	for range 2 {
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		snapshot()
		clk.Advance(time.Hour)
	}
	clk.Set(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)) // the month has ended
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	snapshot()
	out := make([]map[string]types.AttributeValue, 0, len(seen))
	for _, it := range seen {
		out = append(out, it)
	}
	return out
}

func scanAll(t *testing.T, api timetable.API, tbl string) []map[string]types.AttributeValue {
	t.Helper()
	in := &dynamodb.ScanInput{TableName: aws.String(tbl), ConsistentRead: aws.Bool(true)}
	var out []map[string]types.AttributeValue
	for {
		page, err := api.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
		if len(page.LastEvaluatedKey) == 0 {
			return out
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}
