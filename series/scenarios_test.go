package series

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/keys"
)

// The seed scenarios of the time-series patterns, written once and run
// by the Examples (example_test.go) on the embedded engine and by
// TestScenarios on DynamoDB Local too. Each one gets a backend, a table
// name, a fake clock and a base date (1 December, 00:00 UTC, of some
// year), and prints dates without the year so that its output does not
// depend on the base.

type scenarioEnv struct {
	api   timetable.API
	table string
	clk   *clock
	base  time.Time // 1 December, 00:00 UTC
	w     io.Writer
}

// open opens a store on the scenario's table with the given kinds; the
// background passes are off, so the output depends on the clock only.
func (e *scenarioEnv) open(ctx context.Context, schemas ...Schema) (*Store, error) {
	return e.openWith(ctx, nil, schemas...)
}

// openWith is open with the options set by opt too.
func (e *scenarioEnv) openWith(ctx context.Context, opt func(*Options), schemas ...Schema) (*Store, error) {
	o := &Options{Table: e.table, Now: e.clk.Now, FlushInterval: -1, RollupInterval: -1}
	if opt != nil {
		opt(o)
	}
	st, err := Open(ctx, e.api, o, schemas...)
	if err != nil {
		return nil, err
	}
	if err := st.EnsureTable(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

type scenario struct {
	name string
	run  func(ctx context.Context, e *scenarioEnv) error
}

var scenarios = []scenario{
	{"sensors", scenarioSensors},
	{"logs", scenarioLogs},
	{"activity", scenarioActivity},
	{"transactions", scenarioTransactions},
	{"calendar", scenarioCalendar},
	{"heartrate", scenarioHeartRate},
	{"fleet", scenarioFleet},
}

// scenarioSensors: sensor readings with hourly aggregates and a daily
// average (the IoT use case of the time-series pattern).
func scenarioSensors(ctx context.Context, e *scenarioEnv) error {
	e.clk.Set(e.base.Add(16*time.Hour + 10*time.Minute))
	st, err := e.open(ctx, Schema{
		Name:   "SENSOR",
		Fields: []string{"temperature", "humidity"},
		Tags:   []string{"location"},
	})
	if err != nil {
		return err
	}
	defer st.Close()
	sensors, err := st.Kind("SENSOR")
	if err != nil {
		return err
	}

	// One reading a minute from 10:00 to 15:59, through the write buffer.
	for i := 0; i < 6*60; i++ {
		at := e.base.Add(10*time.Hour + time.Duration(i)*time.Minute)
		temp := 20 + float64(i/60) + float64(i%60)/100 // 20.00 ... 25.59
		r := Reading{Time: at, Values: []float64{temp, 45}, Tags: []string{"warehouse-a"}}
		if err := sensors.Write(ctx, "temp-sensor-1", r); err != nil {
			return err
		}
	}
	if err := st.Flush(ctx); err != nil {
		return err
	}
	if err := st.Rollup(ctx); err != nil { // computes the hours that ended
		return err
	}

	day := keys.Day.Truncate(e.clk.Now())
	hourly, err := sensors.Aggregate(ctx, "temp-sensor-1", AggregateQuery{From: day, To: day.Add(24 * time.Hour), Step: time.Hour})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "hourly aggregates from the %s tier:\n", hourly.Tier)
	sumOfMeans := 0.0
	for _, h := range hourly.Periods {
		t := h.Fields[0]
		fmt.Fprintf(e.w, "  %s  avg %.3f  min %.2f  max %.2f  (%d readings)\n", h.Start.Format("Jan 02 15:04"), t.Sum/float64(t.Count), t.Min, t.Max, t.Count)
		sumOfMeans += t.Mean()
	}
	fmt.Fprintf(e.w, "daily average of the hourly averages: %.3f\n", sumOfMeans/float64(len(hourly.Periods)))

	daily, err := sensors.Aggregate(ctx, "temp-sensor-1", AggregateQuery{From: day, To: day.Add(24 * time.Hour), Step: 24 * time.Hour})
	if err != nil {
		return err
	}
	d := daily.Periods[0].Fields[0]
	fmt.Fprintf(e.w, "daily average from sum and count: %.3f (%d readings)\n", d.Mean(), d.Count)
	latest, err := sensors.Latest(ctx, "temp-sensor-1")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "latest: %s %.2f at %s\n", latest.Time.Format("15:04"), latest.Values[0], latest.Tags[0])
	return nil
}

// scenarioLogs: application logs by service, with an error-level filter
// for today.
func scenarioLogs(ctx context.Context, e *scenarioEnv) error {
	now := e.base.Add(15 * time.Hour)
	e.clk.Set(now)
	st, err := e.open(ctx, Schema{
		Name:      "SERVICE",
		Tags:      []string{"level", "message"},
		Layout:    ItemPerReading, // pk SERVICE#api-gateway, sk 2024-12-01T14:03:10.000Z#...
		NoRollups: true,
	})
	if err != nil {
		return err
	}
	defer st.Close()
	logs, err := st.Kind("SERVICE")
	if err != nil {
		return err
	}
	entries := []struct {
		ago        time.Duration
		level, msg string
	}{
		{26 * time.Hour, "ERROR", "disk full"}, // yesterday
		{20 * time.Hour, "INFO", "deploy v41"},
		{5 * time.Hour, "INFO", "deploy v42"},
		{3*time.Hour + 12*time.Minute, "ERROR", "payment provider timeout"},
		{90 * time.Minute, "WARN", "slow query"},
		{40 * time.Minute, "ERROR", "connection reset"},
		{10 * time.Minute, "INFO", "healthy"},
	}
	for _, en := range entries {
		r := Reading{Time: now.Add(-en.ago), Tags: []string{en.level, en.msg}}
		if err := logs.WriteSync(ctx, "api-gateway", r); err != nil {
			return err
		}
	}
	today := keys.Day.Truncate(now)
	errorsToday, err := logs.Range(ctx, "api-gateway", Query{From: today, Filter: []Filter{Tag("level").Eq("ERROR")}})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.w, "errors today:")
	for _, r := range errorsToday.Readings {
		fmt.Fprintf(e.w, "  %s %s %s\n", r.Time.Format("15:04"), r.Tags[0], r.Tags[1])
	}
	lastHour, err := logs.Range(ctx, "api-gateway", Query{From: now.Add(-time.Hour)})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "entries in the last hour: %d\n", len(lastHour.Readings))
	return nil
}

// scenarioActivity: a user activity timeline, the last 7 days and the
// most recent activity.
func scenarioActivity(ctx context.Context, e *scenarioEnv) error {
	now := e.base.Add(12 * time.Hour)
	e.clk.Set(now)
	st, err := e.open(ctx, Schema{Name: "USER", Tags: []string{"activityType", "details"}, Layout: ItemPerReading, NoRollups: true})
	if err != nil {
		return err
	}
	defer st.Close()
	users, err := st.Kind("USER")
	if err != nil {
		return err
	}
	acts := []struct {
		daysAgo float64
		typ     string
		details string
	}{
		{10, "login", "web"}, {8, "purchase", "order 17"}, {6.5, "login", "mobile"},
		{3, "review", "order 17: 5 stars"}, {1.25, "login", "web"}, {0.1, "logout", "web"},
	}
	for _, a := range acts {
		at := now.Add(-time.Duration(a.daysAgo * 24 * float64(time.Hour)))
		if err := users.WriteSync(ctx, "123", Reading{Time: at, Tags: []string{a.typ, a.details}}); err != nil {
			return err
		}
	}
	week, err := users.Range(ctx, "123", Query{From: now.Add(-7 * 24 * time.Hour), To: now})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.w, "last 7 days:")
	for _, r := range week.Readings {
		fmt.Fprintf(e.w, "  %s %-7s %s\n", r.Time.Format("Jan 02 15:04"), r.Tags[0], r.Tags[1])
	}
	newest, err := users.Range(ctx, "123", Query{Reverse: true, Limit: 1})
	if err != nil {
		return err
	}
	latest, err := users.Latest(ctx, "123")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "most recent: %s (%s), latest item agrees: %v\n", newest.Readings[0].Tags[0], newest.Readings[0].Time.Format("15:04"),
		latest.Time.Equal(newest.Readings[0].Time))
	return nil
}

// scenarioTransactions: account transactions with a monthly statement and
// balance. Transactions are kept forever.
func scenarioTransactions(ctx context.Context, e *scenarioEnv) error {
	e.clk.Set(e.base.AddDate(0, 1, 2)) // 2 January
	st, err := e.open(ctx, Schema{
		Name:       "ACCOUNT",
		Fields:     []string{"amount"},
		Tags:       []string{"type", "description"},
		Layout:     ItemPerReading,
		Duplicates: KeepAll, // two transactions at one instant are two transactions
		Retention:  Retention{Raw: Forever},
		Rollups:    []keys.Granularity{keys.Day, keys.Month},
	})
	if err != nil {
		return err
	}
	defer st.Close()
	acct, err := st.Kind("ACCOUNT")
	if err != nil {
		return err
	}
	txns := []struct {
		day    int
		hour   int
		amount float64
		typ    string
		desc   string
	}{
		{-3, 9, 40, "debit", "November groceries"},
		{1, 8, 2500, "credit", "salary"},
		{3, 12, 1200, "debit", "rent"},
		{3, 12, 35.5, "debit", "electricity"}, // same instant as the rent
		{10, 18, 64.9, "debit", "groceries"},
		{24, 10, 100, "credit", "refund"},
		{31, 23, 12.99, "debit", "subscription"},
		{33, 9, 15, "debit", "January coffee"},
	}
	for _, x := range txns {
		at := e.base.AddDate(0, 0, x.day-1).Add(time.Duration(x.hour) * time.Hour)
		r := Reading{Time: at, Values: []float64{x.amount}, Tags: []string{x.typ, x.desc}}
		if err := acct.WriteSync(ctx, "acc-123", r); err != nil {
			return err
		}
	}
	start, end := e.base, e.base.AddDate(0, 1, 0)
	stmt, err := acct.Range(ctx, "acc-123", Query{From: start, To: end})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "statement for %s:\n", start.Format("January"))
	balance := 0.0
	for _, r := range stmt.Readings {
		amt := r.Values[0]
		if r.Tags[0] == "debit" {
			amt = -amt
		}
		balance += amt
		fmt.Fprintf(e.w, "  %s %-6s %9.2f  %s\n", r.Time.Format("Jan 02"), r.Tags[0], r.Values[0], r.Tags[1])
	}
	fmt.Fprintf(e.w, "balance for the month: %.2f\n", balance)
	if err := st.Rollup(ctx); err != nil {
		return err
	}
	monthly, err := acct.Aggregate(ctx, "acc-123", AggregateQuery{From: start, To: end, Months: 1})
	if err != nil {
		return err
	}
	m := monthly.Periods[0]
	fmt.Fprintf(e.w, "from the %s rollup: %d transactions, %.2f moved, largest %.2f\n", monthly.Tier, m.Count, m.Fields[0].Sum, m.Fields[0].Max)
	return nil
}

// scenarioCalendar: calendar events in day partitions
// (pk CALENDAR#team#2024-12-02, sk 09:30:00.000#...).
func scenarioCalendar(ctx context.Context, e *scenarioEnv) error {
	e.clk.Set(e.base.Add(8 * time.Hour))
	// A calendar holds events to come: no bound on future readings.
	st, err := e.openWith(ctx, func(o *Options) { o.MaxFuture = -1 }, Schema{
		Name:      "CALENDAR",
		Fields:    []string{"minutes"},
		Tags:      []string{"title"},
		Layout:    DayPartitioned,
		Retention: Retention{Raw: Forever},
		NoRollups: true,
	})
	if err != nil {
		return err
	}
	defer st.Close()
	cal, err := st.Kind("CALENDAR")
	if err != nil {
		return err
	}
	events := []struct {
		day     int
		at      string
		minutes float64
		title   string
	}{
		{1, "09:30", 15, "stand-up"}, {2, "09:30", 15, "stand-up"}, {2, "14:00", 60, "design review"},
		{3, "09:30", 15, "stand-up"}, {5, "16:00", 30, "demo"}, {9, "09:30", 15, "stand-up"},
	}
	for _, ev := range events {
		hm, _ := time.Parse("15:04", ev.at)
		at := e.base.AddDate(0, 0, ev.day-1).Add(time.Duration(hm.Hour())*time.Hour + time.Duration(hm.Minute())*time.Minute)
		if err := cal.WriteSync(ctx, "team", Reading{Time: at, Values: []float64{ev.minutes}, Tags: []string{ev.title}}); err != nil {
			return err
		}
	}
	// One day: one partition.
	day2 := e.base.AddDate(0, 0, 1)
	one, err := cal.Range(ctx, "team", Query{From: day2, To: day2.AddDate(0, 0, 1)})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "%s: %d events\n", day2.Format("Jan 02"), len(one.Readings))
	// A week: one query per day partition, in order.
	week, err := cal.Range(ctx, "team", Query{From: e.base, To: e.base.AddDate(0, 0, 7)})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.w, "this week:")
	for _, r := range week.Readings {
		fmt.Fprintf(e.w, "  %s %3.0f min  %s\n", r.Time.Format("Jan 02 15:04"), r.Values[0], r.Tags[0])
	}
	// Long meetings of the week: a filter on a field.
	busy, err := cal.Range(ctx, "team", Query{From: e.base, To: e.base.AddDate(0, 0, 7), Filter: []Filter{Field("minutes").Gte(30)}})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.w, "meetings of 30 minutes or more: %d\n", len(busy.Readings))
	return nil
}

// scenarioHeartRate: heart-rate measurements in daily buckets with
// pre-aggregated sum and count, and the average from them (the bucket
// pattern).
func scenarioHeartRate(ctx context.Context, e *scenarioEnv) error {
	e.clk.Set(e.base.AddDate(0, 0, 2))
	st, err := e.open(ctx, Schema{Name: "EMPLOYEE", Fields: []string{"heart_rate"}, Layout: Buckets, BucketPeriod: keys.Day, NoRollups: true})
	if err != nil {
		return err
	}
	defer st.Close()
	hr, err := st.Kind("EMPLOYEE")
	if err != nil {
		return err
	}
	data := map[string][][]float64{
		"67890": {{72, 75, 70}, {71, 74, 73}},
		"12345": {{65, 67, 66}},
	}
	for _, id := range []string{"67890", "12345"} {
		for d, day := range data[id] {
			for i, v := range day {
				at := e.base.AddDate(0, 0, d).Add(time.Duration(8+4*i) * time.Hour) // 08:00, 12:00, 16:00
				if err := hr.Write(ctx, id, Reading{Time: at, Values: []float64{v}}); err != nil {
					return err
				}
			}
		}
	}
	if err := st.Flush(ctx); err != nil {
		return err
	}
	for _, id := range []string{"67890", "12345"} {
		buckets, err := hr.Buckets(ctx, id, e.base, e.base.AddDate(0, 0, 7))
		if err != nil {
			return err
		}
		var count int64
		var sum float64
		for _, b := range buckets {
			a := b.Fields[0]
			fmt.Fprintf(e.w, "employee %s %s: count %d, sum %.0f, average %.2f\n", id, b.Start.Format("Jan 02"), a.Count, a.Sum, a.Sum/float64(a.Count))
			count += a.Count
			sum += a.Sum
		}
		fmt.Fprintf(e.w, "employee %s over %d buckets: average %.2f\n", id, len(buckets), sum/float64(count))
	}
	return nil
}

// scenarioFleet: the latest reading of a fleet of 500 devices in one call.
func scenarioFleet(ctx context.Context, e *scenarioEnv) error {
	e.clk.Set(e.base.Add(12 * time.Hour))
	st, err := e.open(ctx, Schema{Name: "DEVICE", Fields: []string{"battery", "temperature"}, NoRollups: true})
	if err != nil {
		return err
	}
	defer st.Close()
	devices, err := st.Kind("DEVICE")
	if err != nil {
		return err
	}
	ids := make([]string, 500)
	for i := range ids {
		ids[i] = fmt.Sprintf("device-%03d", i)
		for m := 0; m < 3; m++ { // three readings each, a minute apart
			at := e.base.Add(11*time.Hour + time.Duration(m)*time.Minute + time.Duration(i)*time.Second)
			battery := 100 - float64((i*37+m)%100)
			if err := devices.Write(ctx, ids[i], Reading{Time: at, Values: []float64{battery, 20 + float64(i%10)}}); err != nil {
				return err
			}
		}
	}
	if err := st.Flush(ctx); err != nil {
		return err
	}
	latest, err := devices.LatestMany(ctx, ids)
	if err != nil {
		return err
	}
	low, lowID, n := math.Inf(1), "", 0
	for _, id := range ids {
		r := latest[id]
		if r.Values[0] < low {
			low, lowID = r.Values[0], id
		}
		if r.Values[0] < 20 {
			n++
		}
	}
	fmt.Fprintf(e.w, "latest readings: %d of %d devices\n", len(latest), len(ids))
	fmt.Fprintf(e.w, "lowest battery: %s at %.0f%% (%s)\n", lowID, low, latest[lowID].Time.Format("15:04:05"))
	fmt.Fprintf(e.w, "devices under 20%%: %d\n", n)
	return nil
}
