package design

import (
	"errors"
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// The expectations are computed by hand in the comments: a month is
// 2,628,000 s (730 h), on-demand $0.625 per million WRU and $0.125 per
// million RRU, provisioned $0.00065 per WCU-hour (0.4745 a month) and
// $0.00013 per RCU-hour (0.0949 a month), storage $0.25 per GB (2^30 B).
func TestEstimate(t *testing.T) {
	day := 24 * time.Hour
	for _, c := range []struct {
		name string
		w    Workload
		// Expected figures.
		wu, gwu, ru           float64
		wcu, gwcu, rcu        int64
		bytes                 float64
		onDemand, provisioned Cost
	}{
		{
			// Reference 004's device store: 10,000 writes/s of items under
			// 1 KB. It quotes ~$12.5k a month on demand at $1.25 per million
			// and 5,000 WCU for ~$2.3k; but 10,000 writes/s are 864 million
			// a day, 26.28 billion a month: $16,425 at today's $0.625 per
			// million ($32,850 at the old price), and 5,000 WCU cannot
			// sustain 10,000 writes/s of 1 WCU each.
			name: "reference 004 writes",
			w:    Workload{Writes: []Write{{Name: "reading", PerSecond: 10000, ItemBytes: 200}}},
			wu:   10000,
			// ⌈10,000 / 0.7⌉ = ⌈14,285.71⌉ = 14,286 WCU; 1 RCU at least.
			wcu: 14286, rcu: 1,
			// 26,280,000,000 WRU × 0.625e-6 = 16,425.
			onDemand: Cost{Writes: 16425, Total: 16425},
			// 14,286 × 0.4745 = 6,778.707; 1 × 0.0949.
			provisioned: Cost{Writes: 6778.707, Reads: 0.0949, Total: 6778.8019},
		},
		{
			name: "reads",
			w: Workload{Reads: []Read{
				// ⌈50 × 200 / 4,096⌉ = ⌈2.44⌉ = 3 × 0.5 = 1.5 RRU; × 20/s = 30.
				{Pattern: "range", PerSecond: 20, Items: 50, ItemBytes: 200},
				// 100 × ⌈300 / 4,096⌉ × 1 = 100 RRU; × 1/s = 100.
				{Pattern: "fleet", Op: BatchGetItem, PerSecond: 1, Items: 100, ItemBytes: 300, Consistency: Strong},
				// 1 × ⌈8,192 / 4,096⌉ × 2 = 4 RRU; × 2.5/s = 10.
				{Pattern: "tx", Op: GetItem, PerSecond: 2.5, ItemBytes: 8192, Consistency: Transactional},
				// An empty query still costs 0.5; × 4/s = 2.
				{Pattern: "empty", PerSecond: 4},
			}},
			ru:  142,
			wcu: 1, rcu: 203, // ⌈142 / 0.7⌉ = ⌈202.86⌉
			// 142 × 2,628,000 = 373,176,000 RRU × 0.125e-6 = 46.647.
			onDemand: Cost{Reads: 46.647, Total: 46.647},
			// 1 × 0.4745; 203 × 0.0949 = 19.2647.
			provisioned: Cost{Writes: 0.4745, Reads: 19.2647, Total: 19.7392},
		},
		{
			name: "index writes and transactions",
			w: Workload{Writes: []Write{
				// ⌈1,500 / 1,024⌉ = 2 WRU, and 2 per index: 200 + 400 WRU/s.
				{Name: "view", PerSecond: 100, ItemBytes: 1500, GSIs: 2},
				// ⌈3,072 / 1,024⌉ × 2 = 6 WRU; the index item of 100 B 1 WRU.
				{Name: "tx", PerSecond: 10, ItemBytes: 3072, Transactional: true, GSIs: 1, GSIItemBytes: 100},
			}},
			wu: 260, gwu: 410,
			// ⌈260 / 0.7⌉ = ⌈371.43⌉ = 372; ⌈410 / 0.7⌉ = ⌈585.71⌉ = 586.
			wcu: 372, gwcu: 586, rcu: 1,
			// 670 × 2,628,000 × 0.625e-6 = 1,100.475.
			onDemand: Cost{Writes: 1100.475, Total: 1100.475},
			// (372 + 586) × 0.4745 = 454.571; 0.0949.
			provisioned: Cost{Writes: 454.571, Reads: 0.0949, Total: 454.6659},
		},
		{
			name: "measured",
			w: Workload{Measured: &Usage{Duration: time.Minute, Ops: map[string]Units{
				"PutItem": {Write: 540}, "UpdateItem": {Write: 60}, "Query": {Read: 30},
			}}},
			// 600 WRU / 60 s = 10; 30 RRU / 60 s = 0.5.
			wu: 10, ru: 0.5,
			wcu: 15, rcu: 1, // ⌈10 / 0.7⌉ = ⌈14.29⌉; ⌈0.71⌉
			// 10 × 2,628,000 × 0.625e-6 = 16.425; 0.5 × 2,628,000 × 0.125e-6 = 0.16425.
			onDemand: Cost{Writes: 16.425, Reads: 0.16425, Total: 16.58925},
			// 15 × 0.4745 = 7.1175; 0.0949.
			provisioned: Cost{Writes: 7.1175, Reads: 0.0949, Total: 7.2124},
		},
		{
			name: "utilization and peaks",
			w: Workload{
				Writes:            []Write{{Name: "w", PerSecond: 7, ItemBytes: 1}},
				Reads:             []Read{{Pattern: "r", Op: GetItem, PerSecond: 7, ItemBytes: 1, Consistency: Strong}},
				TargetUtilization: 0.5, PeakToAverage: 2,
			},
			wu: 7, ru: 7,
			wcu: 28, rcu: 28, // 7 × 2 / 0.5
			onDemand:    Cost{Writes: 7 * SecondsPerMonth * 0.625e-6, Reads: 7 * SecondsPerMonth * 0.125e-6, Total: 11.4975 + 2.29950},
			provisioned: Cost{Writes: 28 * 0.4745, Reads: 28 * 0.0949, Total: 28 * (0.4745 + 0.0949)},
		},
		{
			// 7 / 0.7 is 10.000000000000002 in floating point; it must
			// provision 10, not 11.
			name:        "exact division",
			w:           Workload{Writes: []Write{{Name: "w", PerSecond: 7, ItemBytes: 1}}},
			wu:          7,
			wcu:         10,
			rcu:         1,
			onDemand:    Cost{Writes: 11.4975, Total: 11.4975},
			provisioned: Cost{Writes: 4.745, Reads: 0.0949, Total: 4.8399},
		},
		{
			name: "storage",
			w: Workload{Storage: []Tier{
				// 1,048,576 × (924 + 100) B = 2^30 B, and as much again in
				// one index of 412-byte copies: 1.5 GB.
				{Name: "fixed", Items: 1 << 20, ItemBytes: 924, GSIs: 1, GSIItemBytes: 412},
				// 10/s × 30 days = 25,920,000 items × 1,100 B = 28,512,000,000 B.
				{Name: "raw", ItemsPerSecond: 10, ItemBytes: 1000, Retention: 30 * day},
				// Kept: 1/s × 365 days = 31,536,000 items × 1,000 B.
				{Name: "monthly", ItemsPerSecond: 1, ItemBytes: 900},
			}},
			wcu: 1, rcu: 1,
			bytes: 1.5*(1<<30) + 28512000000 + 31536000000,
			// 1.5 + 60,048,000,000 / 2^30 = 1.5 + 55.924 GB ≈ 57.4245 GB × 0.25.
			onDemand:    Cost{Storage: (1.5 + 60048000000.0/(1<<30)) * 0.25, Total: (1.5 + 60048000000.0/(1<<30)) * 0.25},
			provisioned: Cost{Writes: 0.4745, Reads: 0.0949, Storage: (1.5 + 60048000000.0/(1<<30)) * 0.25, Total: 0.5694 + (1.5+60048000000.0/(1<<30))*0.25},
		},
		{
			name: "prices of before November 2024",
			w: Workload{
				Writes: []Write{{Name: "reading", PerSecond: 10000, ItemBytes: 1024}},
				Prices: &Prices{WriteRequestUnit: 1.25e-6, ReadRequestUnit: 0.25e-6, WCUHour: 0.00065, RCUHour: 0.00013, StorageGBMonth: 0.25},
			},
			wu: 10000, wcu: 14286, rcu: 1,
			onDemand:    Cost{Writes: 32850, Total: 32850},
			provisioned: Cost{Writes: 6778.707, Reads: 0.0949, Total: 6778.8019},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := c.w.Estimate()
			if err != nil {
				t.Fatal(err)
			}
			if !near(e.WriteUnits, c.wu) || !near(e.GSIWriteUnits, c.gwu) || !near(e.ReadUnits, c.ru) {
				t.Errorf("units/s: writes %v, index writes %v, reads %v; want %v, %v, %v", e.WriteUnits, e.GSIWriteUnits, e.ReadUnits, c.wu, c.gwu, c.ru)
			}
			if e.WCU != c.wcu || e.GSIWCU != c.gwcu || e.RCU != c.rcu {
				t.Errorf("provisioned: %d WCU, %d index WCU, %d RCU; want %d, %d, %d", e.WCU, e.GSIWCU, e.RCU, c.wcu, c.gwcu, c.rcu)
			}
			if !near(e.StorageBytes, c.bytes) {
				t.Errorf("storage: %v bytes, want %v", e.StorageBytes, c.bytes)
			}
			for _, m := range []struct {
				name      string
				got, want Cost
			}{{"on-demand", e.OnDemand, c.onDemand}, {"provisioned", e.Provisioned, c.provisioned}} {
				if !near(m.got.Writes, m.want.Writes) || !near(m.got.Reads, m.want.Reads) || !near(m.got.Storage, m.want.Storage) || !near(m.got.Total, m.want.Total) {
					t.Errorf("%s: %+v, want %+v", m.name, m.got, m.want)
				}
			}
		})
	}
}

func TestEstimate_Lines(t *testing.T) {
	w := Workload{
		Writes: []Write{{Name: "w", PerSecond: 3, ItemBytes: 2048, GSIs: 1, GSIItemBytes: 10}},
		Reads:  []Read{{Pattern: "q", PerSecond: 2, Items: 3, ItemBytes: 4096, Consistency: Strong}},
	}
	e, err := w.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if l := e.Writes[0]; l.Units != 2 || l.GSIUnits != 1 || l.UnitsPerSecond != 6 || l.GSIUnitsPerSecond != 3 {
		t.Errorf("write line %+v", l)
	}
	if l := e.Reads[0]; l.Op != Query || l.Units != 3 || l.UnitsPerSecond != 6 {
		t.Errorf("read line %+v", l)
	}
}

func TestEstimate_Cheaper(t *testing.T) {
	steady := Workload{Writes: []Write{{Name: "w", PerSecond: 100, ItemBytes: 100}}}
	e, err := steady.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if e.Cheaper() != "provisioned" {
		t.Errorf("steady load: %s is cheaper (%+v, %+v)", e.Cheaper(), e.OnDemand, e.Provisioned)
	}
	// A trickle costs less on demand than the minimum provisioned table.
	trickle := Workload{Writes: []Write{{Name: "w", PerSecond: 0.001, ItemBytes: 100}}}
	if e, err = trickle.Estimate(); err != nil {
		t.Fatal(err)
	}
	if e.Cheaper() != "on-demand" {
		t.Errorf("trickle: %s is cheaper (%+v, %+v)", e.Cheaper(), e.OnDemand, e.Provisioned)
	}
}

func TestEstimate_Errors(t *testing.T) {
	for name, w := range map[string]Workload{
		"negative rate":      {Writes: []Write{{PerSecond: -1}}},
		"infinite rate":      {Reads: []Read{{PerSecond: math.Inf(1)}}},
		"NaN rate":           {Reads: []Read{{PerSecond: math.NaN()}}},
		"negative size":      {Reads: []Read{{PerSecond: 1, ItemBytes: -1}}},
		"unknown op":         {Reads: []Read{{PerSecond: 1, Op: "PutItem"}}},
		"unknown read kind":  {Reads: []Read{{PerSecond: 1, Consistency: 7}}},
		"utilization > 1":    {TargetUtilization: 1.5},
		"utilization < 0":    {TargetUtilization: -0.5},
		"peak below 1":       {PeakToAverage: 0.5},
		"negative horizon":   {Horizon: -time.Hour},
		"negative price":     {Prices: &Prices{WriteRequestUnit: -1}},
		"no duration":        {Measured: &Usage{Ops: map[string]Units{"PutItem": {Write: 1}}}},
		"negative measure":   {Measured: &Usage{Duration: time.Second, Ops: map[string]Units{"PutItem": {Write: -1}}}},
		"negative retention": {Storage: []Tier{{Retention: -time.Hour}}},
		"negative count":     {Storage: []Tier{{Items: -1}}},
	} {
		if _, err := w.Estimate(); !errors.Is(err, ErrWorkload) {
			t.Errorf("%s: err = %v, want ErrWorkload", name, err)
		}
	}
}

func TestUsageFromTotals(t *testing.T) {
	u := UsageFromTotals(time.Minute, map[string]float64{"Query": 3, "PutItem": 5, "TransactGetItems": 2, "TransactWriteItems": 4})
	want := map[string]Units{"Query": {Read: 3}, "PutItem": {Write: 5}, "TransactGetItems": {Read: 2}, "TransactWriteItems": {Write: 4}}
	if u.Duration != time.Minute || len(u.Ops) != len(want) {
		t.Fatalf("usage %+v", u)
	}
	for op, w := range want {
		if u.Ops[op] != w {
			t.Errorf("%s: %+v, want %+v", op, u.Ops[op], w)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{num(26280000000), "26,280,000,000"},
		{num(0.5), "0.5"},
		{num(14285.714285), "14,285.7143"},
		{num(-1234.5), "-1,234.5"},
		{num(0), "0"},
		{num(1.0 / 3600), "0.000278"},
		{num(0.0042), "0.0042"},
		{money(16425), "$16,425.00"},
		{money(0.0949), "$0.09"},
		{money(0.0042), "$0.0042"},
		{money(0), "$0.00"},
		{price(0.625), "$0.625"},
		{price(USEast1WriteRequestUnit * 1e6), "$0.625"},
		{price(0.00065), "$0.00065"},
		{days(30 * 24 * time.Hour), "30 days"},
		{days(36 * time.Hour), "36h0m0s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
