//go:build !race

package promapi

// raceEnabled reports whether the tests run under the race detector, which
// makes them several times slower: TestSelect_Work, which only counts
// reads, runs without it.
const raceEnabled = false
