package series

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/timetable-db/timetable/local"
)

// runExample runs a scenario on the embedded engine, in memory, with a
// fixed clock on 1 December 2024.
func runExample(s func(context.Context, *scenarioEnv) error) {
	base := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
	clk := newClock(base)
	// The engine expires items by the same clock as the store.
	db, err := local.Open("", &local.Options{InMemory: true, Now: clk.Now})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	if err := s(context.Background(), &scenarioEnv{api: db, table: "timetable", clk: clk, base: base, w: os.Stdout}); err != nil {
		fmt.Println("error:", err)
	}
}

// Sensor readings with hourly aggregates and a daily average: the hours
// that ended come from the hourly rollups, the current one from the raw
// readings.
func Example_sensors() {
	runExample(scenarioSensors)
	// Output:
	// hourly aggregates from the hourly tier:
	//   Dec 01 10:00  avg 20.295  min 20.00  max 20.59  (60 readings)
	//   Dec 01 11:00  avg 21.295  min 21.00  max 21.59  (60 readings)
	//   Dec 01 12:00  avg 22.295  min 22.00  max 22.59  (60 readings)
	//   Dec 01 13:00  avg 23.295  min 23.00  max 23.59  (60 readings)
	//   Dec 01 14:00  avg 24.295  min 24.00  max 24.59  (60 readings)
	//   Dec 01 15:00  avg 25.295  min 25.00  max 25.59  (60 readings)
	// daily average of the hourly averages: 22.795
	// daily average from sum and count: 22.795 (360 readings)
	// latest: 15:59 25.59 at warehouse-a
}

// Application logs by service, and the errors of today (a filter on a
// tag over today's range of ISO sort keys).
func Example_logs() {
	runExample(scenarioLogs)
	// Output:
	// errors today:
	//   11:48 ERROR payment provider timeout
	//   14:20 ERROR connection reset
	// entries in the last hour: 2
}

// A user activity timeline: the last 7 days and the most recent activity.
func Example_activity() {
	runExample(scenarioActivity)
	// Output:
	// last 7 days:
	//   Nov 25 00:00 login   mobile
	//   Nov 28 12:00 review  order 17: 5 stars
	//   Nov 30 06:00 login   web
	//   Dec 01 09:36 logout  web
	// most recent: logout (09:36), latest item agrees: true
}

// Account transactions with a monthly statement and its balance.
func Example_transactions() {
	runExample(scenarioTransactions)
	// Output:
	// statement for December:
	//   Dec 01 credit   2500.00  salary
	//   Dec 03 debit    1200.00  rent
	//   Dec 03 debit      35.50  electricity
	//   Dec 10 debit      64.90  groceries
	//   Dec 24 credit    100.00  refund
	//   Dec 31 debit      12.99  subscription
	// balance for the month: 1286.61
	// from the monthly rollup: 6 transactions, 3913.39 moved, largest 2500.00
}

// Calendar events in day partitions.
func Example_calendar() {
	runExample(scenarioCalendar)
	// Output:
	// Dec 02: 2 events
	// this week:
	//   Dec 01 09:30  15 min  stand-up
	//   Dec 02 09:30  15 min  stand-up
	//   Dec 02 14:00  60 min  design review
	//   Dec 03 09:30  15 min  stand-up
	//   Dec 05 16:00  30 min  demo
	// meetings of 30 minutes or more: 2
}

// Heart-rate measurements in daily buckets, and the average from their
// pre-aggregated sum and count.
func Example_heartRate() {
	runExample(scenarioHeartRate)
	// Output:
	// employee 67890 Dec 01: count 3, sum 217, average 72.33
	// employee 67890 Dec 02: count 3, sum 218, average 72.67
	// employee 67890 over 2 buckets: average 72.50
	// employee 12345 Dec 01: count 3, sum 198, average 66.00
	// employee 12345 over 1 buckets: average 66.00
}

// The latest reading of a fleet of 500 devices, with BatchGetItem calls of
// 100 keys.
func Example_fleet() {
	runExample(scenarioFleet)
	// Output:
	// latest readings: 500 of 500 devices
	// lowest battery: device-081 at 1% (11:03:21)
	// devices under 20%: 95
}

// TestScenarios runs every scenario on each backend with a base date in
// 2099 (DynamoDB Local expires items by the real clock) and checks that
// each prints what it prints on the embedded engine with the Examples'
// base date.
func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ctx := context.Background()
			var want bytes.Buffer
			{
				base := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
				clk := newClock(base)
				e := &scenarioEnv{api: openEngine(t, clk), table: tableName(t), clk: clk, base: base, w: &want}
				if err := sc.run(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			eachBackend(t, func(t *testing.T, b backend) {
				clk := newClock(t0)
				var got bytes.Buffer
				e := &scenarioEnv{api: b.OpenOn(t, clk), table: tableName(t), clk: clk, base: t0, w: &got}
				defer func() {
					st, err := Open(ctx, e.api, &Options{Table: e.table, RollupInterval: -1})
					if err == nil {
						st.Table().Drop(ctx)
						st.Close()
					}
				}()
				if err := sc.run(ctx, e); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Errorf("output differs from the example's:\n%s\nwant:\n%s", got.String(), want.String())
				}
			})
		})
	}
}
