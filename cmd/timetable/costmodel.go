package main

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/series"
)

// seriesLoad is a time-series workload: a fleet of series written at a
// steady rate, read by dashboards, kept for a time. It is turned into a
// design.Workload per layout by workload.
type seriesLoad struct {
	Devices          float64       // series
	Rate             float64       // readings per second of each series
	Fields           int           // float fields per reading
	Dashboards       float64       // dashboards open at any time
	DashboardSeries  float64       // series each dashboard shows
	DashboardRange   time.Duration // time range each chart shows
	DashboardRefresh time.Duration // period of a dashboard's refresh
	Retention        time.Duration // raw readings
	Flush            time.Duration // the store's FlushInterval
	Rollups          bool          // hourly, daily and monthly rollups, at series' default retentions
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
	day               = 24 * time.Hour
	month             = 30 * day
)

// perFlush returns the rate of flushes that carry readings of one series
// and the readings each carries: a flush every Flush, or every reading when
// a series has fewer than one reading per flush.
func (l *seriesLoad) perFlush() (flushesPerSecond, readings float64) {
	f := min(l.Rate, 1/l.Flush.Seconds())
	return f, l.Rate / f
}

func (l *seriesLoad) check() error {
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

// workload returns the design workload of l in layout lay: its writes,
// reads and storage tiers, per second for the whole fleet.
func (l *seriesLoad) workload(lay series.Layout) (*design.Workload, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	n, r, f := l.Devices, l.Rate, l.Fields
	flushes, k := l.perFlush()
	hour := time.Hour.Seconds()
	w := &design.Workload{Name: lay.String() + " layout", PeakToAverage: l.Peak}
	write := func(name string, perSecond, bytes float64) {
		w.Writes = append(w.Writes, design.Write{Name: name, PerSecond: perSecond, ItemBytes: int(math.Ceil(bytes))})
	}
	read := func(pattern string, op design.Operation, perSecond, items, bytes float64, c design.Consistency) {
		w.Reads = append(w.Reads, design.Read{Pattern: pattern, Op: op, PerSecond: perSecond, Items: int(math.Ceil(items)), ItemBytes: int(math.Ceil(bytes)), Consistency: c})
	}
	tier := func(name string, perSecond, bytes float64, retention time.Duration) {
		w.Storage = append(w.Storage, design.Tier{Name: name, ItemsPerSecond: perSecond, ItemBytes: int(math.Ceil(bytes)), Retention: retention})
	}

	// Dashboards: each refresh reads the range of each series it shows,
	// and its latest reading.
	refreshes := 0.0
	T := l.DashboardRange.Seconds()
	if l.Dashboards > 0 && l.DashboardSeries > 0 {
		refreshes = l.Dashboards * l.DashboardSeries / l.DashboardRefresh.Seconds()
	}

	// hourBytes is what one series' raw data of one hour weighs, which the
	// hourly rollup reads.
	var hourBytes float64
	switch lay {
	case series.ItemPerReading, series.DayPartitioned:
		b := readingItemBytes(f)
		if lay == series.DayPartitioned {
			b = dayItemBytes(f)
		}
		write("reading", n*r, b)
		tier("readings", n*r, b, l.Retention)
		hourBytes = r * hour * b
		if refreshes > 0 {
			if lay == series.ItemPerReading {
				read("range of a series", design.Query, refreshes, T*r, b, design.Eventual)
			} else {
				// A range randomly placed touches T/day + 1 day partitions on
				// average, a Query each.
				parts := T/day.Seconds() + 1
				read("range of a series, per day partition", design.Query, refreshes*parts, T*r/parts, b, design.Eventual)
			}
		}
	case series.Buckets:
		rb, period := bucketReadingBytes(f), day.Seconds() // the default BucketPeriod
		// Each flush rewrites the series' bucket (billed on its size): the
		// sizes grow through the period, a part at a time.
		perPeriod := max(1, math.Round(period*flushes))
		perPart := math.Floor((bucketPartBytes - bucketHeaderBytes) / rb)
		wru := map[float64]float64{} // write units of a rewrite -> rewrites per period
		for j := 1.0; j <= perPeriod; j++ {
			in := math.Mod(j*k-1, perPart) + 1
			wru[design.WriteUnits(int(math.Ceil(bucketHeaderBytes+in*rb)), false)]++
		}
		for _, u := range slices.Sorted(maps.Keys(wru)) {
			write(fmt.Sprintf("bucket rewrite of %v KB", u), n*flushes*wru[u]/perPeriod, u*1024)
		}
		full := bucketHeaderBytes + r*period*rb
		parts := math.Ceil(full / bucketPartBytes)
		tier("buckets", n*parts/period, full/parts, l.Retention)
		hourBytes = r * hour * rb
		if refreshes > 0 {
			read("range of a series", design.Query, refreshes, (T/period+1)*parts, full/parts, design.Eventual)
		}
	case series.Chunks:
		flushChunk := chunkHeaderBytes(f) + k*chunkReadingBytes(f)
		write("chunk", n*flushes, flushChunk)
		hourChunk := chunkHeaderBytes(f) + r*hour*chunkReadingBytes(f)
		if chunksPerHour := flushes * hour; chunksPerHour > 1 {
			// Compaction: read the hour's chunks, write one, delete them,
			// and the marker that asked for it.
			read("compaction", design.Query, n/hour, chunksPerHour, flushChunk, design.Strong)
			write("compacted chunk", n/hour, hourChunk)
			write("chunk delete", n*flushes, flushChunk)
			write("compaction marker put and delete", 2*n/hour, markerBytes)
		}
		tier("chunks", n/hour, hourChunk, l.Retention)
		hourBytes = hourChunk
		if refreshes > 0 {
			read("range of a series", design.Query, refreshes, T/hour+1, hourChunk, design.Eventual)
		}
	default:
		return nil, fmt.Errorf("unknown layout %v", lay)
	}

	write("latest reading", n*flushes, latestItemBytes(f))
	tier("latest readings", 0, latestItemBytes(f), 0)
	w.Storage[len(w.Storage)-1].Items = n
	if refreshes > 0 {
		read("latest reading", design.GetItem, refreshes, 1, latestItemBytes(f), design.Eventual)
	}
	if l.Rollups {
		rb := rollupItemBytes(f)
		write("rollup marker put and delete", 2*n/hour, markerBytes)
		write("hourly rollup", n/hour, rb)
		read("hourly rollup's raw data", design.Query, n/hour, 1, hourBytes, design.Strong)
		write("daily rollup", n/day.Seconds(), rb)
		read("daily rollup's hours", design.Query, n/day.Seconds(), 24, rb, design.Strong)
		write("monthly rollup", n/month.Seconds(), rb)
		read("monthly rollup's days", design.Query, n/month.Seconds(), 30, rb, design.Strong)
		tier("hourly rollups", n/hour, rb, series.DefaultHourlyRetention)
		tier("daily rollups", n/day.Seconds(), rb, series.DefaultDailyRetention)
		tier("monthly rollups", n/month.Seconds(), rb, 0) // kept: costed at the horizon
	}
	return w, nil
}

// parseRate parses a rate of readings, "N/UNIT": N a positive number, UNIT
// s, min, h or d (or second, minute, hour, day), or a Go duration ("1/30s",
// "5/1m"); it returns readings per second.
func parseRate(s string) (float64, error) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, fmt.Errorf("rate %q: want N/UNIT, such as 1/min or 2/s", s)
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("rate %q: %q is not a positive number", s, num)
	}
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		per = time.Second
	case "m", "min", "minute":
		per = time.Minute
	case "h", "hour":
		per = time.Hour
	case "d", "day":
		per = day
	default:
		if per, err = parseDuration(unit); err != nil {
			return 0, fmt.Errorf("rate %q: unknown unit %q (s, min, h, d or a duration)", s, unit)
		}
	}
	r := n / per.Seconds()
	if !(r > 0) || math.IsInf(r, 0) {
		return 0, fmt.Errorf("rate %q is out of range", s)
	}
	return r, nil
}

// parseDuration parses a Go duration, or a number of days "30d"; it must
// be positive.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || !(n > 0) || n > 100*365 {
			return 0, fmt.Errorf("duration %q: want a positive number of days, at most 36500", s)
		}
		d = time.Duration(n * float64(day))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("duration %q: want a Go duration (90s, 5m, 24h) or days (30d)", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q is not positive", s)
	}
	return d, nil
}
