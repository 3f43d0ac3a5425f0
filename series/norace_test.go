//go:build !race

package series

// raceEnabled reports whether the tests run under the race detector, which
// makes them several times slower: the randomized tests then run a smaller
// workload (modelRaceDivisor), and the full one without it.
const raceEnabled = false
