package design_test

import (
	"fmt"
	"time"

	"github.com/timetable-db/timetable/design"
)

// Validate catches hour buckets and ISO timestamps sharing one partition's
// sort-key range: '-' sorts before 'T'.
func ExampleDesign_Validate() {
	d := &design.Design{
		Table: design.Table{Name: "sensors", PartitionKey: design.Key{Name: "pk"}, SortKey: design.Key{Name: "sk"}},
		Entities: []design.Entity{
			{
				Name:       "Reading",
				Keys:       map[string]design.Template{"pk": "SENSOR#{id}", "sk": "{timestamp}"},
				Attributes: []design.Attribute{{Name: "id"}, {Name: "timestamp", Format: design.LayoutTimestamp}},
			},
			{
				Name:       "Hourly",
				Keys:       map[string]design.Template{"pk": "SENSOR#{id}", "sk": "{hour}"},
				Attributes: []design.Attribute{{Name: "id"}, {Name: "hour", Format: design.LayoutHour}},
			},
		},
	}
	err := d.Validate()
	for _, p := range err.(design.Problems) {
		fmt.Println(p.Code)
	}
	// Output:
	// sort-order
}

func ExampleTemplate_Match() {
	v, ok := design.Template("SENSOR#{id}#{day}").Match("SENSOR#boiler-7#2024-12-01")
	fmt.Println(ok, v["id"], v["day"])
	// Output:
	// true boiler-7 2024-12-01
}

// One item per reading at 1,000 readings a second, kept 30 days: writes
// 1,000 WRU/s × 2,628,000 s × $0.625 per million = $1,642.50, reads 25 RRU/s
// = $8.21, storage 2,592,000,000 items × 220 B = 531.1 GB = $132.77.
func ExampleWorkload_Estimate() {
	w := design.Workload{
		Writes:  []design.Write{{Name: "reading", PerSecond: 1000, ItemBytes: 120}},
		Reads:   []design.Read{{Pattern: "latest", PerSecond: 50, Items: 1, ItemBytes: 120}},
		Storage: []design.Tier{{Name: "raw", ItemsPerSecond: 1000, ItemBytes: 120, Retention: 30 * 24 * time.Hour}},
	}
	e, err := w.Estimate()
	if err != nil {
		panic(err)
	}
	fmt.Printf("on-demand $%.2f, provisioned $%.2f (%d WCU, %d RCU), storage %.1f GB\n",
		e.OnDemand.Total, e.Provisioned.Total, e.WCU, e.RCU, e.StorageBytes/design.BytesPerGB)
	// Output:
	// on-demand $1783.48, provisioned $814.25 (1429 WCU, 36 RCU), storage 531.1 GB
}
