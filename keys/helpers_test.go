package keys

import (
	"math/rand/v2"
	"time"
)

var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// randTime returns a random instant in the years 0000-9999. Half of the
// draws are near 2024 so that neighbours share long prefixes.
func randTime(r *rand.Rand) time.Time {
	if r.IntN(2) == 0 {
		base := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
		return base.Add(time.Duration(r.Int64N(int64(90 * 24 * time.Hour))))
	}
	sec := r.Int64N(maxTime.Unix() - minTime.Unix())
	return time.Unix(minTime.Unix()+sec, r.Int64N(1e9)).UTC()
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
