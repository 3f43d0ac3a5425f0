package chunk

import (
	"math/rand/v2"
	"testing"
)

func TestDebugBlockLen(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	g := walkSeries(1, 3600, 1, 1000, 0.5)
	v := 100.0
	for i := range g.vals[0] {
		v = round2(v + r.NormFloat64()*0.2)
		g.vals[0][i] = v
	}
	for _, s := range []*series{walkSeries(1, 3600, 1, 1000, 0.5), walkSeries(1, 3600, 1, 1000, 0.1), walkSeries(1, 3600, 1, 1000, 10), g, gaugeSeries(3, 5760)} {
		b := s.encode(t)
		c, _ := Open(b)
		t.Logf("blockLen %d: %d bytes %.3f bits/value; times %d bytes", blockLen, len(b), float64(len(c.fields[0].stream))*8/float64(c.Len()), len(c.times))
	}
}
