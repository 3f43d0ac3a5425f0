package table_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

// Readings of a sensor, one item each, with hourly aggregates kept by
// Increment, Add, Min and Max, then the latest reading and the hour's
// aggregate read back.
func Example() {
	ctx := context.Background()
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	tbl, err := table.New(db, table.Schema{Name: "TimeSeriesData", HashKey: "pk", RangeKey: "sk"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := tbl.Create(ctx, nil); err != nil {
		log.Fatal(err)
	}

	start := time.Date(2024, 12, 1, 14, 0, 0, 0, time.UTC)
	for i, v := range []float64{72.5, 70.1, 75.3, 71.0} {
		at := start.Add(time.Duration(i) * 15 * time.Minute)
		sk, _ := keys.Timestamp(at)
		if _, err := tbl.Put(ctx, map[string]any{
			"pk": keys.MustComposite("SENSOR", "temp-1", "RAW"), "sk": sk, "value": v,
		}, nil); err != nil {
			log.Fatal(err)
		}
		hour, _ := keys.TimeSeries(at, keys.Hour)
		u := table.NewUpdate().Increment("count", 1).Add("sum", v).Min("min", v).Max("max", v)
		if _, err := tbl.Update(ctx, table.K(keys.MustComposite("SENSOR", "temp-1", "HOURLY"), hour), u, nil); err != nil {
			log.Fatal(err)
		}
	}

	latest, err := tbl.Query(ctx, &table.Query{Hash: "SENSOR#temp-1#RAW", Reverse: true, Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	var r struct {
		SK    string  `dynamodbav:"sk"`
		Value float64 `dynamodbav:"value"`
	}
	_ = table.Unmarshal(latest.Items[0], &r)
	fmt.Println("latest:", r.SK, r.Value)

	for it, err := range tbl.QueryAll(ctx, &table.Query{Hash: "SENSOR#temp-1#HOURLY", Range: table.BeginsWith("2024-12-01")}) {
		if err != nil {
			log.Fatal(err)
		}
		var h struct {
			SK    string  `dynamodbav:"sk"`
			Count int     `dynamodbav:"count"`
			Sum   float64 `dynamodbav:"sum"`
			Min   float64 `dynamodbav:"min"`
			Max   float64 `dynamodbav:"max"`
		}
		_ = table.Unmarshal(it, &h)
		fmt.Printf("%s: count %d, avg %.2f, min %.1f, max %.1f\n", h.SK, h.Count, h.Sum/float64(h.Count), h.Min, h.Max)
	}
	// Output:
	// latest: 2024-12-01T14:45:00.000Z 71
	// 2024-12-01-14: count 4, avg 72.22, min 70.1, max 75.3
}
