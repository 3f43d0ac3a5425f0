package main

// fieldSource makes the readings of one series, one step at a time.
type fieldSource interface {
	// step fills vals (one value per field) with the next reading.
	step(vals []float64)
}

// tsDataset is a shape of data the series-http part sends.
type tsDataset struct {
	name  string // as -series-http-data names it
	title string // in figure names and the report
	about string // what its readings are, for the report
	// source returns the readings of series i (fields values each).
	source func(i uint64, fields int) fieldSource
}

// tsDatasets are the shapes of data of the series-http part: a random
// walk of decimals (sensors), and counters and gauges as node_exporter
// reports a machine's (many of them constant).
var tsDatasets = []tsDataset{
	{
		name: "walk", title: "random walk",
		about:  "a random walk with two decimals each, such as a sensor's 21.53",
		source: func(i uint64, fields int) fieldSource { return newWalk(i, fields) },
	},
	{
		name: "node", title: "node-exporter-like",
		about: "node_exporter-like: in 2 of 5 series the three fields never change (a file system's size in bytes, an up of 1, a count of 0); " +
			"in the others f1 is a byte counter (whole numbers, rising by 0 to 2,000,000 a minute, not at all in 3 minutes of 10), " +
			"f2 a memory gauge (a whole number of 4,096-byte pages, moving by up to 64 pages) and f3 a CPU-seconds counter with two decimals (rising by 0 to 60.00)",
		source: func(i uint64, fields int) fieldSource { return newNodeLike(i, fields) },
	},
}

// datasetNamed returns the dataset of -series-http-data's name.
func datasetNamed(name string) (tsDataset, bool) {
	for _, d := range tsDatasets {
		if d.name == name {
			return d, true
		}
	}
	return tsDataset{}, false
}

// nodeLike is a series of node_exporter-like readings (see tsDatasets),
// fields f1 to f3 as described there; more fields repeat the three. The
// same seed gives the same readings.
type nodeLike struct {
	w        *walk // its splitmix64
	constant bool
	vals     []int64 // bytes, pages, hundredths of a second
}

func newNodeLike(seed uint64, fields int) *nodeLike {
	n := &nodeLike{w: newWalk(seed, 0), constant: seed%5 < 2, vals: make([]int64, fields)}
	for f := range n.vals {
		switch f % 3 {
		case 0:
			n.vals[f] = int64(n.w.next() % (1 << 40)) // bytes: up to a TiB
			if n.constant {
				n.vals[f] &^= 4095
			}
		case 1:
			n.vals[f] = 1 << 21 // pages: 8 GiB
			if n.constant {
				n.vals[f] = 1 // up
			}
		default:
			n.vals[f] = int64(n.w.next() % 100_000_000) // up to 1,000,000.00 s
			if n.constant {
				n.vals[f] = 0
			}
		}
	}
	return n
}

func (n *nodeLike) step(vals []float64) {
	for f := range n.vals {
		if !n.constant {
			switch f % 3 {
			case 0:
				if n.w.next()%10 >= 3 {
					n.vals[f] += int64(n.w.next() % 2_000_001)
				}
			case 1:
				n.vals[f] = max(1, n.vals[f]+int64(n.w.next()%129)-64)
			default:
				n.vals[f] += int64(n.w.next() % 6001)
			}
		}
		if f%3 == 2 {
			vals[f] = float64(n.vals[f]) / 100
		} else {
			vals[f] = float64(n.vals[f])
		}
	}
}
