package series

import (
	"fmt"
	"testing"
)

// TestLayouts_Registry checks that every registered layout is what its
// registry entry says: named once (String, LayoutNamed, its JSON name),
// made by its constructor with exactly the capabilities the entry
// declares, and costed by the cost model. A layout added to the
// registry with a piece missing fails here.
func TestLayouts_Registry(t *testing.T) {
	if !Buckets.known() {
		t.Fatalf("layout constants up to %v are not all registered (%d entries)", Buckets, len(layouts))
	}
	names, jsons := map[string]bool{}, map[string]bool{}
	fleet := Fleet{Devices: 10, Rate: 1, Fields: 2, Dashboards: 1, DashboardSeries: 1, DashboardRange: 3600e9,
		DashboardRefresh: 60e9, Retention: 7 * day, Flush: 60e9, Rollups: true, Peak: 1}
	for i, l := range Layouts() {
		spec := layouts[l]
		if int(l) != i {
			t.Fatalf("Layouts()[%d] = %d", i, l)
		}
		if spec.name == "" || spec.json == "" || names[spec.name] || jsons[spec.json] {
			t.Errorf("layout %d: names %q, %q empty or taken", l, spec.name, spec.json)
		}
		names[spec.name], jsons[spec.json] = true, true
		if l.String() != spec.name {
			t.Errorf("layout %d: String %q, want %q", l, l, spec.name)
		}
		if got, ok := LayoutNamed(l.String()); !ok || got != l {
			t.Errorf("LayoutNamed(%q) = %v, %v", l, got, ok)
		}
		b, err := l.MarshalText()
		var back Layout
		if err != nil || back.UnmarshalText(b) != nil || back != l {
			t.Errorf("layout %v: MarshalText %q, %v; back %v", l, b, err, back)
		}
		if spec.new == nil || spec.cost == nil {
			t.Fatalf("layout %v: no constructor or no cost", l)
		}
		s, err := Schema{Name: "SENSOR", Fields: []string{"v"}, Layout: l}.normalize()
		if err != nil {
			t.Fatal(err)
		}
		k := newKind(nil, s)
		for _, c := range []struct {
			name          string
			has, declared bool
		}{
			{"merger", k.lay.merger != nil, spec.merges},
			{"unitReader", k.lay.units != nil, spec.unitReader},
			{"compactor", k.lay.compactor != nil, spec.compacts},
		} {
			if c.has != c.declared {
				t.Errorf("layout %v: is a %s: %v; the registry says %v", l, c.name, c.has, c.declared)
			}
		}
		if k.lay.merger != nil {
			if items, _, err := k.lay.puts("1", []rec{{t: 1, vals: []float64{1}}}); len(items) != 0 || err != nil {
				t.Errorf("layout %v is a merger and puts %d items (%v)", l, len(items), err)
			}
		}
		w, err := fleet.Workload(l)
		if err != nil {
			t.Fatalf("layout %v: cost: %v", l, err)
		}
		if len(w.Writes) < 2 || len(w.Storage) < 2 {
			t.Errorf("layout %v: cost model has %d writes, %d tiers: its raw items are not costed", l, len(w.Writes), len(w.Storage))
		}
	}
	unknown := Layout(len(layouts))
	if got, want := unknown.String(), fmt.Sprintf("Layout(%d)", len(layouts)); got != want {
		t.Errorf("String of an unknown layout: %q, want %q", got, want)
	}
	if _, err := (Schema{Name: "SENSOR", Fields: []string{"v"}, Layout: unknown}).normalize(); err == nil {
		t.Error("a schema of an unknown layout is valid")
	}
	if _, ok := LayoutNamed("item_per_reading"); ok {
		t.Error("LayoutNamed takes a JSON name")
	}
}
