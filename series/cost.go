package series

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/timetable-db/timetable/design"
)

// The cost model of a series Store: what a fleet of series costs on
// DynamoDB in each layout, as a design.Workload (whose Estimate prices
// it). Each layout's part is its registry entry's cost function
// (layout.go); the latest readings and the rollups are the same for all.

// Fleet is a time-series workload: a fleet of series written at a steady
// rate, read by dashboards, kept for a time. Workload turns it into a
// design.Workload per layout.
type Fleet struct {
	Devices          float64       // series
	Rate             float64       // readings per second of each series
	Fields           int           // float fields per reading
	Dashboards       float64       // dashboards open at any time
	DashboardSeries  float64       // series each dashboard shows
	DashboardRange   time.Duration // time range each chart shows
	DashboardRefresh time.Duration // period of a dashboard's refresh
	Retention        time.Duration // raw readings
	Flush            time.Duration // the store's FlushInterval
	Rollups          bool          // hourly, daily and monthly rollups, at the default retentions
	Peak             float64       // peak-to-average ratio for provisioned capacity
}

// The sizes of the items a series Store writes, as DynamoDB counts them,
// for F fields of short names and values of a few significant digits. They
// are calibrated on BENCHMARKS.md's measured items (3 fields: a reading
// item 78.8 B, a reading in a bucket 65.2 B, 1.83 B per reading in
// compacted chunks) and are estimates: long field names or many digits
// make items larger.
func readingItemBytes(f int) float64   { return 45 + 11*float64(f) }   // item-per-reading
func dayItemBytes(f int) float64       { return 44 + 11*float64(f) }   // day-partitioned
func bucketReadingBytes(f int) float64 { return 32 + 11*float64(f) }   // one reading in a bucket
func chunkHeaderBytes(f int) float64   { return 150 + 40*float64(f) }  // keys, count, aggregates of a chunk
func chunkReadingBytes(f int) float64  { return 0.3 + 0.5*float64(f) } // one compressed reading in a chunk
func latestItemBytes(f int) float64    { return 80 + 11*float64(f) }
func rollupItemBytes(f int) float64    { return 60 + 100*float64(f) } // 8 aggregates per field
const (
	bucketHeaderBytes = 60
	bucketPartBytes   = 300 << 10 // a bucket passing it goes on in a new part
	markerBytes       = 60
	costMonth         = 30 * day
)

// perFlush returns the rate of flushes that carry readings of one series
// and the readings each carries: a flush every Flush, or every reading when
// a series has fewer than one reading per flush.
func (l *Fleet) perFlush() (flushesPerSecond, readings float64) {
	f := min(l.Rate, 1/l.Flush.Seconds())
	return f, l.Rate / f
}

// Check returns an error naming the first field of l out of range (by
// the flag of `timetable cost` that sets it).
func (l *Fleet) Check() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !(l.Devices >= 1 && l.Devices <= 1e12):
		return errors.New("--devices must be in 1 to 10^12")
	case !(l.Rate > 0 && l.Rate <= 1e6):
		return errors.New("--rate must be positive, at most 1000000/s")
	case l.Fields < 1 || l.Fields > 1000:
		return errors.New("--fields must be in 1 to 1000")
	case !(l.Dashboards >= 0 && l.Dashboards <= 1e9) || !(l.DashboardSeries >= 0 && l.DashboardSeries <= 1e9):
		return errors.New("--dashboards and --dashboard-series must be in 0 to 10^9")
	case l.Dashboards > 0 && (l.DashboardRange <= 0 || l.DashboardRefresh <= 0):
		return errors.New("--dashboard-range and --dashboard-refresh must be positive")
	case l.Retention <= 0 || l.Flush < time.Second || l.DashboardRange > 100*365*day:
		return errors.New("--retention must be positive, --flush at least 1s, --dashboard-range at most 100 years")
	case !(l.Peak >= 1) || !finite(l.Peak):
		return errors.New("--peak must be at least 1")
	}
	return nil
}

// costSheet is a design workload being built from a fleet: its lines,
// and the figures of the fleet every layout's cost function uses.
type costSheet struct {
	l       *Fleet
	w       *design.Workload
	n, r    float64 // series, readings per second of each
	f       int     // fields
	flushes float64 // flushes per second that carry readings of a series
	k       float64 // readings per such flush
	// refreshes are the dashboard refreshes per second of a series' chart
	// (0: no dashboards), each a range read of T seconds.
	refreshes, T float64
}

func (c *costSheet) write(name string, perSecond, bytes float64) {
	c.w.Writes = append(c.w.Writes, design.Write{Name: name, PerSecond: perSecond, ItemBytes: int(math.Ceil(bytes))})
}

func (c *costSheet) read(pattern string, op design.Operation, perSecond, items, bytes float64, cons design.Consistency) {
	c.w.Reads = append(c.w.Reads, design.Read{Pattern: pattern, Op: op, PerSecond: perSecond, Items: int(math.Ceil(items)), ItemBytes: int(math.Ceil(bytes)), Consistency: cons})
}

func (c *costSheet) tier(name string, perSecond, bytes float64, retention time.Duration) {
	c.w.Storage = append(c.w.Storage, design.Tier{Name: name, ItemsPerSecond: perSecond, ItemBytes: int(math.Ceil(bytes)), Retention: retention})
}

// Workload returns the design workload of l in layout lay: its writes,
// reads and storage tiers, per second for the whole fleet.
func (l *Fleet) Workload(lay Layout) (*design.Workload, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	if !lay.known() {
		return nil, fmt.Errorf("unknown layout %v", lay)
	}
	c := &costSheet{l: l, n: l.Devices, r: l.Rate, f: l.Fields, T: l.DashboardRange.Seconds(),
		w: &design.Workload{Name: lay.String() + " layout", PeakToAverage: l.Peak}}
	c.flushes, c.k = l.perFlush()
	// Dashboards: each refresh reads the range of each series it shows,
	// and its latest reading.
	if l.Dashboards > 0 && l.DashboardSeries > 0 {
		c.refreshes = l.Dashboards * l.DashboardSeries / l.DashboardRefresh.Seconds()
	}
	hourBytes := layouts[lay].cost(c)

	n, f, hour := c.n, c.f, time.Hour.Seconds()
	c.write("latest reading", n*c.flushes, latestItemBytes(f))
	c.tier("latest readings", 0, latestItemBytes(f), 0)
	c.w.Storage[len(c.w.Storage)-1].Items = n
	if c.refreshes > 0 {
		c.read("latest reading", design.GetItem, c.refreshes, 1, latestItemBytes(f), design.Eventual)
	}
	if l.Rollups {
		rb := rollupItemBytes(f)
		c.write("rollup marker put and delete", 2*n/hour, markerBytes)
		c.write("hourly rollup", n/hour, rb)
		c.read("hourly rollup's raw data", design.Query, n/hour, 1, hourBytes, design.Strong)
		c.write("daily rollup", n/day.Seconds(), rb)
		c.read("daily rollup's hours", design.Query, n/day.Seconds(), 24, rb, design.Strong)
		c.write("monthly rollup", n/costMonth.Seconds(), rb)
		c.read("monthly rollup's days", design.Query, n/costMonth.Seconds(), 30, rb, design.Strong)
		c.tier("hourly rollups", n/hour, rb, DefaultHourlyRetention)
		c.tier("daily rollups", n/day.Seconds(), rb, DefaultDailyRetention)
		c.tier("monthly rollups", n/costMonth.Seconds(), rb, 0) // kept: costed at the horizon
	}
	return c.w, nil
}

// itemsCost is the part of the layouts of one item per reading of b
// bytes that they share: a write and a stored item per reading.
func itemsCost(c *costSheet, b float64) (hourBytes float64) {
	c.write("reading", c.n*c.r, b)
	c.tier("readings", c.n*c.r, b, c.l.Retention)
	return c.r * time.Hour.Seconds() * b
}

// readingCost is the cost of ItemPerReading: a range is one Query.
func readingCost(c *costSheet) float64 {
	b := readingItemBytes(c.f)
	hourBytes := itemsCost(c, b)
	if c.refreshes > 0 {
		c.read("range of a series", design.Query, c.refreshes, c.T*c.r, b, design.Eventual)
	}
	return hourBytes
}

// dayCost is the cost of DayPartitioned: a range randomly placed touches
// T/day + 1 day partitions on average, a Query each.
func dayCost(c *costSheet) float64 {
	b := dayItemBytes(c.f)
	hourBytes := itemsCost(c, b)
	if c.refreshes > 0 {
		parts := c.T/day.Seconds() + 1
		c.read("range of a series, per day partition", design.Query, c.refreshes*parts, c.T*c.r/parts, b, design.Eventual)
	}
	return hourBytes
}

// bucketCost is the cost of Buckets, at the default BucketPeriod (a day):
// each flush rewrites the series' bucket (billed on its size), the sizes
// growing through the period, a part at a time.
func bucketCost(c *costSheet) float64 {
	rb, period := bucketReadingBytes(c.f), day.Seconds()
	perPeriod := max(1, math.Round(period*c.flushes))
	perPart := math.Floor((bucketPartBytes - bucketHeaderBytes) / rb)
	wru := map[float64]float64{} // write units of a rewrite -> rewrites per period
	for j := 1.0; j <= perPeriod; j++ {
		in := math.Mod(j*c.k-1, perPart) + 1
		wru[design.WriteUnits(int(math.Ceil(bucketHeaderBytes+in*rb)), false)]++
	}
	for _, u := range slices.Sorted(maps.Keys(wru)) {
		c.write(fmt.Sprintf("bucket rewrite of %v KB", u), c.n*c.flushes*wru[u]/perPeriod, u*1024)
	}
	full := bucketHeaderBytes + c.r*period*rb
	parts := math.Ceil(full / bucketPartBytes)
	c.tier("buckets", c.n*parts/period, full/parts, c.l.Retention)
	if c.refreshes > 0 {
		c.read("range of a series", design.Query, c.refreshes, (c.T/period+1)*parts, full/parts, design.Eventual)
	}
	return c.r * time.Hour.Seconds() * rb
}

// chunkCost is the cost of Chunks: a chunk per series and flush, merged
// into one per hour by compaction.
func chunkCost(c *costSheet) float64 {
	hour := time.Hour.Seconds()
	flushChunk := chunkHeaderBytes(c.f) + c.k*chunkReadingBytes(c.f)
	c.write("chunk", c.n*c.flushes, flushChunk)
	hourChunk := chunkHeaderBytes(c.f) + c.r*hour*chunkReadingBytes(c.f)
	if chunksPerHour := c.flushes * hour; chunksPerHour > 1 {
		// Compaction: read the hour's chunks, write one, delete them,
		// and the marker that asked for it.
		c.read("compaction", design.Query, c.n/hour, chunksPerHour, flushChunk, design.Strong)
		c.write("compacted chunk", c.n/hour, hourChunk)
		c.write("chunk delete", c.n*c.flushes, flushChunk)
		c.write("compaction marker put and delete", 2*c.n/hour, markerBytes)
	}
	c.tier("chunks", c.n/hour, hourChunk, c.l.Retention)
	if c.refreshes > 0 {
		c.read("range of a series", design.Query, c.refreshes, c.T/hour+1, hourChunk, design.Eventual)
	}
	return hourChunk
}
