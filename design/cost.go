package design

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// ErrWorkload reports a workload the cost model cannot estimate.
var ErrWorkload = errors.New("design: invalid workload")

// Workload is what a table does on average: its writes, its reads per
// access pattern, units measured on a real run, and the items it keeps per
// retention tier. The zero value of each option means its default.
type Workload struct {
	// Name titles the rendered estimate.
	Name string
	// Writes are the kinds of write, each at a steady rate.
	Writes []Write
	// Reads are the reads, per access pattern, each at a steady rate.
	Reads []Read
	// Measured adds the units of a real run (the consumed capacity a table
	// client accumulated per operation), scaled from its duration to a
	// month. It may be nil.
	Measured *Usage
	// Storage is the data kept, per retention tier.
	Storage []Tier
	// Prices are the prices to use; nil means DefaultPrices.
	Prices *Prices
	// TargetUtilization is the share of provisioned capacity the workload
	// may use on average, as auto scaling targets it: in (0, 1]; 0 means
	// 0.7.
	TargetUtilization float64
	// PeakToAverage is the ratio of the peak rate to the average rate that
	// provisioned capacity must absorb: at least 1; 0 means 1. On-demand
	// cost depends on the average only.
	PeakToAverage float64
	// Horizon is the age at which the storage of tiers kept forever is
	// costed: their data grows without end. 0 means 365 days.
	Horizon time.Duration
}

// Write is one kind of write (PutItem, UpdateItem, DeleteItem, or an item
// of a batch or transaction) at a steady rate.
type Write struct {
	// Name names the write ("reading", "chunk flush").
	Name string
	// PerSecond is the average number of writes per second.
	PerSecond float64
	// ItemBytes is the item's size as DynamoDB counts it (names and values
	// of its attributes); for an update, the larger of its size before and
	// after, which is what DynamoDB bills.
	ItemBytes int
	// Transactional marks writes made in TransactWriteItems (twice the
	// units).
	Transactional bool
	// GSIs is the number of global secondary indexes each write also
	// updates; each costs the write units of its index item. (A write that
	// changes an index key costs two index writes: count it twice.)
	GSIs int
	// GSIItemBytes is the size of the item in an index (its keys and
	// projected attributes); 0 means ItemBytes.
	GSIItemBytes int
}

// Read is the reads of one access pattern at a steady rate.
type Read struct {
	// Pattern names the access pattern.
	Pattern string
	// PerSecond is the average number of requests per second.
	PerSecond float64
	// Op is the operation: GetItem and BatchGetItem round each item up to
	// 4 KB on its own; Query (the zero value) and Scan round the sum of the
	// sizes read.
	Op Operation
	// Items is the number of items each request reads: the keys of a
	// GetItem or BatchGetItem (0 means 1); the items a Query or Scan
	// examines, including those a filter drops (0 means none, which still
	// costs the minimum unit).
	Items int
	// ItemBytes is the average size of an item read.
	ItemBytes int
	// Consistency is the read's kind; the zero value is Eventual.
	Consistency Consistency
}

// Usage is capacity measured on a real run: the read and write units each
// operation consumed over Duration, as a table client's statistics report
// them (ReturnConsumedCapacity).
type Usage struct {
	// Duration is how long the run took; units are scaled from it to a
	// month.
	Duration time.Duration
	// Ops maps an operation name ("PutItem", "Query") to the units it
	// consumed.
	Ops map[string]Units
}

// Units are read and write capacity units.
type Units struct {
	Read, Write float64
}

// Tier is the data of one retention tier: items arriving at a steady rate
// and kept for a time.
type Tier struct {
	// Name names the tier ("raw", "hourly").
	Name string
	// ItemsPerSecond is the rate at which new items of the tier are
	// written (updates in place do not add items).
	ItemsPerSecond float64
	// Items is a fixed number of items, for data that does not grow (sites,
	// settings); it is added to those from ItemsPerSecond.
	Items float64
	// ItemBytes is the average item size.
	ItemBytes int
	// Retention is how long an item lives (its TTL); 0 means kept forever,
	// costed at the Workload's Horizon. DynamoDB deletes expired items up to
	// a few days late: add that lag here if it matters.
	Retention time.Duration
	// GSIs is the number of global secondary indexes holding a copy of
	// each item.
	GSIs int
	// GSIItemBytes is the size of an item's copy in an index; 0 means
	// ItemBytes.
	GSIItemBytes int
}

// Estimate is the monthly cost of a Workload, with every figure the
// arithmetic went through. Rates are averages per second; a month is
// SecondsPerMonth.
type Estimate struct {
	Name              string
	Prices            Prices
	TargetUtilization float64
	PeakToAverage     float64
	Horizon           time.Duration

	Writes   []WriteLine
	Reads    []ReadLine
	Measured []MeasuredLine
	Storage  []StorageLine

	// WriteUnits, GSIWriteUnits and ReadUnits are the average units per
	// second: writes to the table, writes to its global indexes, reads.
	WriteUnits, GSIWriteUnits, ReadUnits float64
	// WCU, GSIWCU and RCU are the capacity to provision: the average units
	// times PeakToAverage over TargetUtilization, rounded up; the table
	// needs at least one of each. GSIWCU is for all global indexes
	// together: DynamoDB provisions each index on its own, so their rounded
	// capacities (at least one each) may add up to a few units more, and
	// reads from indexes are counted in RCU.
	WCU, GSIWCU, RCU int64
	// StorageBytes is the data stored with its per-item overhead, at the
	// steady state of every tier.
	StorageBytes float64

	// OnDemand and Provisioned are the monthly costs in both capacity
	// modes; storage costs the same in both.
	OnDemand, Provisioned Cost
}

// Cost is a monthly cost, split by what it pays for.
type Cost struct {
	Writes, Reads, Storage, Total float64
}

// WriteLine is the arithmetic of one Write.
type WriteLine struct {
	Write
	// Units and GSIUnits are the units of one write to the table and to
	// all its indexes.
	Units, GSIUnits float64
	// PerSecond units: PerSecond times Units (GSIUnits).
	UnitsPerSecond, GSIUnitsPerSecond float64
}

// ReadLine is the arithmetic of one Read.
type ReadLine struct {
	Read
	// Units are the read units of one request.
	Units float64
	// UnitsPerSecond is PerSecond times Units.
	UnitsPerSecond float64
}

// MeasuredLine is one measured operation scaled to a rate.
type MeasuredLine struct {
	Op string
	Units
	// PerSecond are the units divided by the run's duration.
	PerSecond Units
}

// StorageLine is the arithmetic of one Tier.
type StorageLine struct {
	Tier
	// Retention is the tier's retention, or the Horizon for a tier kept
	// forever.
	Retention time.Duration
	// Items is the number of items stored at the steady state.
	Items float64
	// Bytes is Items times (ItemBytes + ItemOverhead), plus GSIs times
	// Items times (GSIItemBytes + ItemOverhead).
	Bytes float64
}

func (w *Workload) options() (p Prices, util, peak float64, horizon time.Duration, err error) {
	p = DefaultPrices
	if w.Prices != nil {
		p = *w.Prices
	}
	util, peak, horizon = w.TargetUtilization, w.PeakToAverage, w.Horizon
	if util == 0 {
		util = 0.7
	}
	if peak == 0 {
		peak = 1
	}
	if horizon == 0 {
		horizon = 365 * 24 * time.Hour
	}
	switch {
	case !(util > 0 && util <= 1):
		err = fmt.Errorf("%w: target utilization %v is not in (0, 1]", ErrWorkload, util)
	case !(peak >= 1) || math.IsInf(peak, 0):
		err = fmt.Errorf("%w: peak-to-average ratio %v is below 1", ErrWorkload, peak)
	case horizon < 0:
		err = fmt.Errorf("%w: negative horizon %v", ErrWorkload, horizon)
	}
	for _, f := range []float64{p.WriteRequestUnit, p.ReadRequestUnit, p.WCUHour, p.RCUHour, p.StorageGBMonth} {
		if !(f >= 0) || math.IsInf(f, 0) {
			err = fmt.Errorf("%w: price %v", ErrWorkload, f)
		}
	}
	return
}

func rate(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }

// Estimate computes the monthly cost of w in on-demand and provisioned
// capacity modes. It fails on negative or non-finite rates and sizes and on
// options out of range. The Estimate is the caller's.
func (w *Workload) Estimate() (*Estimate, error) {
	p, util, peak, horizon, err := w.options()
	if err != nil {
		return nil, err
	}
	e := &Estimate{Name: w.Name, Prices: p, TargetUtilization: util, PeakToAverage: peak, Horizon: horizon}
	for _, wr := range w.Writes {
		if !rate(wr.PerSecond) || wr.ItemBytes < 0 || wr.GSIs < 0 || wr.GSIItemBytes < 0 {
			return nil, fmt.Errorf("%w: write %q: negative or infinite rate or size", ErrWorkload, wr.Name)
		}
		l := WriteLine{Write: wr, Units: WriteUnits(wr.ItemBytes, wr.Transactional)}
		if wr.GSIs > 0 {
			gb := wr.GSIItemBytes
			if gb == 0 {
				gb = wr.ItemBytes
			}
			l.GSIUnits = float64(wr.GSIs) * WriteUnits(gb, false)
		}
		l.UnitsPerSecond = wr.PerSecond * l.Units
		l.GSIUnitsPerSecond = wr.PerSecond * l.GSIUnits
		e.WriteUnits += l.UnitsPerSecond
		e.GSIWriteUnits += l.GSIUnitsPerSecond
		e.Writes = append(e.Writes, l)
	}
	for _, r := range w.Reads {
		if !rate(r.PerSecond) || r.ItemBytes < 0 || r.Items < 0 || r.Consistency > Transactional {
			return nil, fmt.Errorf("%w: read %q: negative or infinite rate or size, or unknown consistency", ErrWorkload, r.Pattern)
		}
		if r.Op == "" {
			r.Op = Query
		}
		l := ReadLine{Read: r}
		switch r.Op {
		case GetItem, BatchGetItem:
			l.Units = float64(max(r.Items, 1)) * ReadUnits(r.ItemBytes, r.Consistency)
		case Query, Scan:
			total := int64(r.Items) * int64(r.ItemBytes)
			l.Units = float64(blocks(total, ReadUnitBytes)) * r.Consistency.factor()
		default:
			return nil, fmt.Errorf("%w: read %q: unknown operation %q", ErrWorkload, r.Pattern, r.Op)
		}
		l.UnitsPerSecond = r.PerSecond * l.Units
		e.ReadUnits += l.UnitsPerSecond
		e.Reads = append(e.Reads, l)
	}
	if m := w.Measured; m != nil && len(m.Ops) > 0 {
		if m.Duration <= 0 {
			return nil, fmt.Errorf("%w: measured usage over a duration of %v", ErrWorkload, m.Duration)
		}
		secs := m.Duration.Seconds()
		for _, op := range sortedKeys(m.Ops) {
			u := m.Ops[op]
			if !rate(u.Read) || !rate(u.Write) {
				return nil, fmt.Errorf("%w: measured %s: negative or infinite units", ErrWorkload, op)
			}
			l := MeasuredLine{Op: op, Units: u, PerSecond: Units{Read: u.Read / secs, Write: u.Write / secs}}
			e.ReadUnits += l.PerSecond.Read
			e.WriteUnits += l.PerSecond.Write
			e.Measured = append(e.Measured, l)
		}
	}
	for _, t := range w.Storage {
		if !rate(t.ItemsPerSecond) || !rate(t.Items) || t.ItemBytes < 0 || t.Retention < 0 || t.GSIs < 0 || t.GSIItemBytes < 0 {
			return nil, fmt.Errorf("%w: tier %q: negative or infinite rate, count, size or retention", ErrWorkload, t.Name)
		}
		l := StorageLine{Tier: t, Retention: t.Retention}
		if l.Retention == 0 {
			l.Retention = horizon
		}
		l.Items = t.Items + t.ItemsPerSecond*l.Retention.Seconds()
		gb := t.GSIItemBytes
		if gb == 0 {
			gb = t.ItemBytes
		}
		l.Bytes = l.Items*float64(t.ItemBytes+ItemOverhead) + float64(t.GSIs)*l.Items*float64(gb+ItemOverhead)
		e.StorageBytes += l.Bytes
		e.Storage = append(e.Storage, l)
	}
	e.price()
	return e, nil
}

// provision returns the capacity units to provision for an average rate.
func provision(perSecond, peak, util float64) int64 {
	if perSecond == 0 {
		return 0
	}
	// Round away the float noise of the division before rounding up, so
	// that 7 / 0.7 is 10, not 11.
	return int64(math.Ceil(math.Round(perSecond*peak/util*1e9) / 1e9))
}

func (e *Estimate) price() {
	p := e.Prices
	storage := e.StorageBytes / BytesPerGB * p.StorageGBMonth
	e.OnDemand = Cost{
		Writes:  (e.WriteUnits + e.GSIWriteUnits) * SecondsPerMonth * p.WriteRequestUnit,
		Reads:   e.ReadUnits * SecondsPerMonth * p.ReadRequestUnit,
		Storage: storage,
	}
	e.WCU = max(1, provision(e.WriteUnits, e.PeakToAverage, e.TargetUtilization))
	e.GSIWCU = provision(e.GSIWriteUnits, e.PeakToAverage, e.TargetUtilization)
	e.RCU = max(1, provision(e.ReadUnits, e.PeakToAverage, e.TargetUtilization))
	e.Provisioned = Cost{
		Writes:  float64(e.WCU+e.GSIWCU) * HoursPerMonth * p.WCUHour,
		Reads:   float64(e.RCU) * HoursPerMonth * p.RCUHour,
		Storage: storage,
	}
	for _, c := range []*Cost{&e.OnDemand, &e.Provisioned} {
		c.Total = c.Writes + c.Reads + c.Storage
	}
}

// Cheaper returns "on-demand" or "provisioned", whichever costs less per
// month ("on-demand" on a tie, as it needs no capacity planning).
func (e *Estimate) Cheaper() string {
	if e.Provisioned.Total < e.OnDemand.Total {
		return "provisioned"
	}
	return "on-demand"
}

// readOps are the operations whose measured units are reads.
var readOps = []string{"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"}

// UsageFromTotals builds a Usage from units per operation name, splitting
// each operation's total into reads and writes by its name (GetItem,
// BatchGetItem, Query, Scan and TransactGetItems read; the others write),
// for counters that keep one total per operation.
func UsageFromTotals(d time.Duration, totals map[string]float64) Usage {
	u := Usage{Duration: d, Ops: make(map[string]Units, len(totals))}
	for op, n := range totals {
		if slices.Contains(readOps, op) {
			u.Ops[op] = Units{Read: n}
		} else {
			u.Ops[op] = Units{Write: n}
		}
	}
	return u
}
