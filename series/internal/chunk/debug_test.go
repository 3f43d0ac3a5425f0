package chunk

import "testing"

func TestDebugSizes(t *testing.T) {
	for _, s := range []*series{walkSeries(1, 3600, 1, 1000, 0.5), walkSeries(1, 86400, 1, 1000, 0.5), gaugeSeries(3, 5760)} {
		b := s.encode(t)
		c, _ := Open(b)
		t.Logf("%v times=%d field0=%d header=%d", c, len(c.times), len(c.fields[0].stream), len(b)-len(c.times)-len(c.fields[0].stream))
		var w bitWriter
		writeDoD(&w, s.ts)
		var w2 bitWriter
		writeDeltaBlocks(&w2, s.ts)
		t.Logf("dod %d bits, delta blocks %d bits", w.bitLen(), w2.bitLen())
	}
}
