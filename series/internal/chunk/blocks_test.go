package chunk

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBlocks_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	gen := map[string]func(i int) int64{
		"zero":      func(int) int64 { return 0 },
		"constant":  func(int) int64 { return 1000 },
		"uniform":   func(int) int64 { return r.Int64N(101) - 50 },
		"geometric": func(int) int64 { return int64(r.ExpFloat64()*20) * int64(1-2*r.IntN(2)) },
		"gaussian":  func(int) int64 { return int64(r.NormFloat64() * 30) },
		"outliers": func(int) int64 {
			if r.IntN(50) == 0 {
				return r.Int64()
			}
			return r.Int64N(10)
		},
		"extremes": func(i int) int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1}[i%4] },
		"any":      func(int) int64 { return int64(r.Uint64()) },
		"wide":     func(int) int64 { return r.Int64N(1<<50) - 1<<49 },
	}
	for name, g := range gen {
		for _, n := range []int{1, 2, 255, 256, 257, 1000} {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = g(i)
			}
			var w bitWriter
			writeBlocks(&w, vals)
			b := w.finish()
			br := newBlockReader(newBitReader(b), n, Version)
			var got []int64
			for br.nextLen() > 0 {
				blk := make([]int64, br.nextLen())
				br.readBlock(blk)
				got = append(got, blk...)
			}
			if err := checkStream(&br.r, name); err != nil {
				t.Fatalf("%s n=%d: %v", name, n, err)
			}
			for i := range vals {
				if got[i] != vals[i] {
					t.Fatalf("%s n=%d: value %d = %d, want %d", name, n, i, got[i], vals[i])
				}
			}
			if name == "geometric" && n >= 256 && b[0]>>7 != modeRice {
				t.Errorf("geometric values not Rice coded")
			}
			if name == "uniform" && n >= 256 && b[0]>>7 != modeRange {
				t.Errorf("uniform values not range coded")
			}
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, rm1 := range []uint64{0, 1, 2, 3, 4, 5, 99, 100, 127, 128, 1000, 1<<56 - 1, 1 << 56, 1<<63 + 12345, math.MaxUint64} {
		tr := newTruncated(rm1)
		xs := []uint64{0, 1, rm1 / 2, rm1 - 1, rm1, tr.shift, tr.shift - 1, tr.shift + tr.short, tr.shift + tr.short - 1}
		var w bitWriter
		var want []uint64
		for _, x := range xs {
			if x > rm1 {
				continue
			}
			tr.write(&w, x)
			want = append(want, x)
		}
		r := newBitReader(w.finish())
		for _, x := range want {
			if got := tr.read(&r); got != x {
				t.Fatalf("R-1=%d: read %d, want %d", rm1, got, x)
			}
		}
		if r.err {
			t.Fatalf("R-1=%d: read error", rm1)
		}
	}
}

// TestBlocks_Groups round-trips range blocks over R symbols for R with
// groups of every length (and block lengths that leave a shorter last
// group), and checks that uniform values take near log2(R) bits.
func TestBlocks_Groups(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, R := range []int64{3, 5, 7, 21, 100, 101, 255, 257, 1000, 65535, 65537} {
		for _, n := range []int{1, 2, 13, 256, 300, 2560} {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = r.Int64N(R) - R/2
			}
			vals[0] = -R / 2 // the block's range is all R symbols
			vals[n-1] = -R/2 + R - 1
			var w bitWriter
			writeBlocks(&w, vals)
			bitsUsed := w.bitLen()
			b := w.finish()
			br := newBlockReader(newBitReader(b), n, Version)
			got := make([]int64, 0, n)
			for br.nextLen() > 0 {
				blk := make([]int64, br.nextLen())
				br.readBlock(blk)
				got = append(got, blk...)
			}
			if err := checkStream(&br.r, "groups"); err != nil {
				t.Fatalf("R=%d n=%d: %v", R, n, err)
			}
			for i := range vals {
				if got[i] != vals[i] {
					t.Fatalf("R=%d n=%d: value %d = %d, want %d", R, n, i, got[i], vals[i])
				}
			}
			// Version 1 readers do not know groups: a version 1 reader of
			// these bits must not panic.
			v1 := newBlockReader(newBitReader(b), n, 1)
			for v1.nextLen() > 0 {
				v1.readBlock(make([]int64, v1.nextLen()))
			}
			if g := groupLen(uint64(R - 1)); n == 2560 && g > 1 {
				entropy := math.Log2(float64(R))
				gs := newGroups(uint64(R - 1))
				grouped := float64(groupedBits(vals, -R/2, &gs, make([]uint64, n))) / float64(n)
				if grouped > entropy+0.02 {
					t.Errorf("R=%d: groups take %.3f bits a value, entropy %.3f", R, grouped, entropy)
				}
				t.Logf("R=%d: %.3f bits a value with block headers, %.3f in groups, entropy %.3f", R, float64(bitsUsed)/float64(n), grouped, entropy)
			}
		}
	}
}

func TestGroupLen(t *testing.T) {
	for rm1, want := range map[uint64]int{0: 1, 1: 1, 2: 20, 3: 1, 20: 7, 255: 1, 256: 3, 65534: 2, 65535: 1, 65536: 1, 1 << 40: 1} {
		if got := groupLen(rm1); got != want {
			t.Errorf("groupLen(%d) = %d, want %d", rm1, got, want)
		}
		if g := groupLen(rm1); g > 1 && rpow(rm1+1, g) > 1<<32 {
			t.Errorf("R=%d: R^%d over 2^32", rm1+1, g)
		}
	}
}

// groupedBits returns the bits of vals (offsets from lo, below gs.r)
// coded in groups, and writes the groups' symbols to sym (at least
// len(vals)/g+1 long).
func groupedBits(vals []int64, lo int64, gs *groups, sym []uint64) int {
	c := 0
	for i, j := 0, 0; i < len(vals); i, j = i+gs.g, j+1 {
		grp := vals[i:min(i+gs.g, len(vals))]
		code := gs.code(len(grp))
		sym[j] = groupSymbol(grp, lo, gs.r)
		c += code.bits(sym[j])
	}
	return c
}

// groupSymbol returns the symbol of a group: x[0] + x[1]*r + ..., x[i] =
// grp[i] - lo.
func groupSymbol(grp []int64, lo int64, r uint64) uint64 {
	var y uint64
	for i := len(grp) - 1; i >= 0; i-- {
		y = y*r + uint64(grp[i]-lo)
	}
	return y
}
