package analytics_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/design"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func problems(t *testing.T, d *design.Design) design.Problems {
	t.Helper()
	err := d.Validate()
	if err == nil {
		return nil
	}
	var ps design.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Validate returned %T %v, not Problems", err, err)
	}
	return ps
}

// TestDesign_Markdown compares the documents of the design with the files
// of testdata, or rewrites them with -update.
func TestDesign_Markdown(t *testing.T) {
	d := analytics.Design()
	for name, write := range map[string]func(io.Writer) error{
		"analytics.md": d.Markdown, "analytics_matrix.md": d.Matrix, "analytics_chart.md": d.Chart,
	} {
		var got bytes.Buffer
		if err := write(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want, err := os.ReadFile(path); err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from the output (%v; run go test -update to accept it); output:\n%s", path, err, got.Bytes())
		}
	}
}

func TestDesign_Validate(t *testing.T) {
	d := analytics.Design()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	// The example keys of every entity are values of its templates.
	for _, e := range d.Entities {
		kv, err := e.KeyValues(e.Example)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		for name, v := range kv {
			vals, ok := e.Keys[name].Match(v)
			if !ok {
				t.Errorf("%s: %s = %q does not match %q", e.Name, name, v, e.Keys[name])
			}
			for p, pv := range vals {
				if e.Example[p] != pv {
					t.Errorf("%s: %s: {%s} = %q, want %q", e.Name, name, p, pv, e.Example[p])
				}
			}
		}
	}
	// Each call returns a new design.
	d.Table.Name = "changed"
	if analytics.Design().Table.Name != "analytics" {
		t.Error("Design shares its design between calls")
	}
}

// The web-analytics design as reference 001 publishes it, and its realtime
// read as the code behind it runs it: Validate finds its three traps.
func TestDesign_Reference001AsPublished(t *testing.T) {
	d := analytics.Design()
	// The published design has none of the entities timetable adds.
	d.Entities = slices.DeleteFunc(d.Entities, func(e design.Entity) bool {
		return e.Name == "Top" || e.Name == "Pending" || e.Name == "Salt"
	})
	ev := d.Entity("Event")
	ev.Keys["gsi1pk"] = "SITE#{siteId}"
	ev.Keys["gsi1sk"] = "DATE#{date}"
	ev.Attributes = append(ev.Attributes, design.Attribute{Name: "date", Format: design.LayoutDay, Derived: "the UTC date of timestamp"})
	ev.Example["date"] = "2024-01-15"
	d.AccessPatterns = []design.AccessPattern{
		{Name: "Get Site by ID", Op: design.GetItem, Key: "pk = SITE#{siteId} AND sk = METADATA", Returns: []string{"Site"}},
		{
			Name: "Query Page Views by Date", Index: "GSI1", Returns: []string{"PageView"},
			Key:    "gsi1pk = SITE#{siteId} AND gsi1sk BETWEEN DATE#{start} AND DATE#{end}",
			Params: []design.Attribute{{Name: "start", Format: design.LayoutDay}, {Name: "end", Format: design.LayoutDay}},
		},
		{Name: "Query Aggregated Stats", Index: "GSI1", Key: "gsi1pk = SITE#{siteId} AND begins_with(gsi1sk, PERIOD#day#)", Returns: []string{"Stats"}},
		{
			Name: "Get Real-time Stats", Returns: []string{"Realtime"},
			Key: "pk = SITE#{siteId} AND sk IN (REALTIME#{m1}, REALTIME#{m2}, REALTIME#{m3}, REALTIME#{m4}, REALTIME#{m5})",
		},
		{Name: "Query Visitor Sessions", Index: "GSI2", Key: "gsi2pk = VISITOR#{visitorId}", Returns: []string{"Session"}},
		{
			Name: "Real-time stats (code)", Returns: []string{"Realtime"}, Reverse: true, Limit: 5,
			Key:    "pk = SITE#{siteId} AND sk >= REALTIME#{start}",
			Params: []design.Attribute{{Name: "start", Format: "2006-01-02T15:04"}},
		},
	}
	ps := problems(t, d)
	want := map[string]design.Code{
		"access pattern Query Page Views by Date": design.CodeSelectsOthers,
		"access pattern Get Real-time Stats":      design.CodeKeyCondition,
		"access pattern Real-time stats (code)":   design.CodeUnboundedRange,
	}
	if len(ps) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(ps), len(want), ps)
	}
	for _, p := range ps {
		if want[p.Where] != p.Code {
			t.Errorf("unexpected problem %v (%s)", p, p.Code)
		}
	}
	if !strings.Contains(ps.Error(), "runs on into the Session, Stats") {
		t.Errorf("the realtime problem does not name SESSION and STATS:\n%v", ps)
	}
	if !ps.Has(design.CodeKeyCondition) || ps.Has(design.CodeSortOrder) {
		t.Error("Has")
	}
}

func TestDesign_KeyValues(t *testing.T) {
	d := analytics.Design()
	got, err := d.Entity("PageView").KeyValues(map[string]string{
		"siteId": "s1", "timestamp": "2024-01-15T10:30:00.000Z", "id": "v1", "date": "2024-01-15",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pk": "SITE#s1", "sk": "PV#2024-01-15T10:30:00.000Z#v1",
		"gsi1pk": "SITE#s1", "gsi1sk": "DATE#2024-01-15",
	}
	if !maps.Equal(got, want) {
		t.Errorf("KeyValues = %v, want %v", got, want)
	}
	if _, err := d.Entity("PageView").KeyValues(map[string]string{"siteId": "s1"}); err == nil {
		t.Error("KeyValues without timestamp: no error")
	}
}

func ExampleDesign_matrix() {
	d := analytics.Design()
	d.AccessPatterns = d.AccessPatterns[len(d.AccessPatterns)-1:]
	d.Matrix(os.Stdout)
	// Output:
	// | # | Access pattern | Operation | Table `analytics` | `GSI1` | `GSI2` | Order | Limit | Frequency |
	// |---|---|---|---|---|---|---|---|---|
	// | 1 | Realtime visitors | Query | `pk = SITE#{siteId} AND sk BETWEEN REALTIME#{start} AND REALTIME#{end}` | | | descending | 5 | realtime view, every 10 s |
}

func ExampleDesign_keyValues() {
	pv := analytics.Design().Entity("PageView")
	k, err := pv.KeyValues(map[string]string{
		"siteId": "my-site", "timestamp": "2024-01-15T10:30:00.000Z", "id": "pv-1", "date": "2024-01-15",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(k["pk"], k["sk"], k["gsi1sk"])
	// Output:
	// SITE#my-site PV#2024-01-15T10:30:00.000Z#pv-1 DATE#2024-01-15
}

func TestDesign_Expression(t *testing.T) {
	d := analytics.Design()
	x, err := d.AccessPattern("Realtime visitors").Expression(map[string]string{
		"siteId": "my-site", "start": "2024-01-15T10:26", "end": "2024-01-15T10:30",
	})
	if err != nil {
		t.Fatal(err)
	}
	if x.KeyCondition != "#k0 = :v0 AND #k1 BETWEEN :v1 AND :v2" {
		t.Errorf("KeyCondition = %q", x.KeyCondition)
	}
	if want := map[string]string{"#k0": "pk", "#k1": "sk"}; !maps.Equal(x.Names, want) {
		t.Errorf("Names = %v", x.Names)
	}
	want := map[string]string{":v0": "SITE#my-site", ":v1": "REALTIME#2024-01-15T10:26", ":v2": "REALTIME#2024-01-15T10:30"}
	if !maps.Equal(x.Values, want) {
		t.Errorf("Values = %v", x.Values)
	}

	x, err = d.AccessPattern("Site by id").Expression(map[string]string{"siteId": "s"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"pk": "SITE#s", "sk": "METADATA"}; !maps.Equal(x.Key, want) {
		t.Errorf("Key = %v", x.Key)
	}

	x, err = d.AccessPattern("All stats of a period kind").Expression(map[string]string{"siteId": "s", "period": "day"})
	if err != nil || x.KeyCondition != "#k0 = :v0 AND begins_with(#k1, :v1)" || x.Values[":v1"] != "PERIOD#day#" {
		t.Errorf("begins_with: %+v, %v", x, err)
	}

	if _, err := d.AccessPattern("Realtime visitors").Expression(map[string]string{"siteId": "s"}); err == nil {
		t.Error("no error without {start}")
	}
	if _, err := (&design.AccessPattern{Name: "scan", Op: design.Scan}).Expression(nil); err == nil {
		t.Error("no error without a key condition")
	}
}
