package chunk

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Merge decodes chunks and appends all their readings, in time order, to a
// new Appender: for compacting the small chunks of many flushes into one.
// Readings with equal timestamps keep the order of the chunks they come
// from (and within a chunk, their own). The fields are those of the first
// chunk, then the new names of the later ones in order of appearance; a
// reading lacks the fields of other chunks, which get NaN (absent in the
// aggregates). It returns ErrFull if the readings exceed MaxReadings,
// and ErrCorrupt (wrapped) if a chunk does not decode.
func Merge(chunks ...*Chunk) (*Appender, error) {
	var names []string
	index := map[string]int{}
	total := 0
	for _, c := range chunks {
		for _, f := range c.fields {
			if _, ok := index[f.name]; !ok {
				index[f.name] = len(names)
				names = append(names, f.name)
			}
		}
		total += c.n
	}
	if total > MaxReadings {
		return nil, fmt.Errorf("%w: %d readings to merge", ErrFull, total)
	}
	if len(names) > MaxFields {
		return nil, fmt.Errorf("chunk: %d fields to merge, more than %d", len(names), MaxFields)
	}
	// Decode every chunk into columns of the merged layout.
	ts := make([]int64, total)
	vals := make([][]float64, len(names))
	for i := range vals {
		vals[i] = make([]float64, total)
	}
	sorted := true
	at := 0
	for ci, c := range chunks {
		end := at + c.n
		if err := c.DecodeTimes(ts[at:end]); err != nil {
			return nil, fmt.Errorf("cannot decode chunk %d: %w", ci, err)
		}
		for i, name := range names {
			if j := c.Index(name); j >= 0 {
				if err := c.DecodeField(j, vals[i][at:end]); err != nil {
					return nil, fmt.Errorf("cannot decode chunk %d: %w", ci, err)
				}
			} else {
				for k := at; k < end; k++ {
					vals[i][k] = math.NaN()
				}
			}
		}
		if at > 0 && c.n > 0 && ts[at] < ts[at-1] {
			sorted = false
		}
		at = end
	}
	a, err := NewAppender(names)
	if err != nil {
		return nil, err
	}
	order := make([]int, total)
	for i := range order {
		order[i] = i
	}
	if !sorted {
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(ts[x], ts[y]) })
	}
	row := make([]float64, len(names))
	for _, k := range order {
		for i := range row {
			row[i] = vals[i][k]
		}
		if err := a.Append(ts[k], row); err != nil {
			return nil, err
		}
	}
	return a, nil
}
