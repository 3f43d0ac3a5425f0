package series

import (
	"math"
	"testing"
	"time"
)

// TestFleet_Layouts checks what the model must show whatever its
// constants: chunks write and store less than one item per reading at 1
// reading a second, and dashboards and rollups add reads (the cheapest
// layout is checked by timetable cost's TestCost_Layouts).
func TestFleet_Layouts(t *testing.T) {
	l := Fleet{Devices: 100, Rate: 1, Fields: 2, Dashboards: 2, DashboardSeries: 5, DashboardRange: 6 * time.Hour,
		DashboardRefresh: time.Minute, Retention: 7 * day, Flush: 5 * time.Minute, Rollups: true, Peak: 1}
	est := map[string][3]float64{} // write units/s, read units/s, bytes
	for _, lay := range Layouts() {
		w, err := l.Workload(lay)
		if err != nil {
			t.Fatal(err)
		}
		e, err := w.Estimate()
		if err != nil {
			t.Fatal(err)
		}
		est[lay.String()] = [3]float64{e.WriteUnits, e.ReadUnits, e.StorageBytes}
	}
	c, ipr := est["chunks"], est["item-per-reading"]
	if !(c[0] < ipr[0]/10 && c[1] < ipr[1]/10 && c[2] < ipr[2]/10) {
		t.Errorf("chunks %v, item-per-reading %v", c, ipr)
	}
	if w := ipr[0]; math.Abs(w-(100+100.0/300+2*100/3600.0+100/3600.0+100/86400.0+100/(30*86400.0))) > 1e-9 {
		t.Errorf("item-per-reading writes %v/s", w)
	}
	if _, err := l.Workload(Layout(len(layouts))); err == nil {
		t.Error("Workload of an unknown layout: no error")
	}
	bad := l
	bad.Devices = 0
	if _, err := bad.Workload(Chunks); err == nil {
		t.Error("Workload of 0 devices: no error")
	}
}
