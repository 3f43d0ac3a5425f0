package analytics

import (
	"context"
	"time"
)

// Properties returns the names of the custom-event properties of site
// over [from, to) (to the hour), read from the aggregates, each with the
// number of custom events that carried it, most first (then by name).
// The names beyond the 100 a period keeps, counted together under
// PropDimension(Other), are left out. A range without aggregates gives
// none.
func (s *Store) Properties(ctx context.Context, site string, from, to time.Time) ([]Count, error) {
	// Any property's breakdown reads them all: they share one attribute.
	st, err := s.merged(ctx, site, from, to, []Dimension{PropDimension(Other)})
	if err != nil {
		return nil, err
	}
	var out []Count
	for d, m := range st.top {
		name, ok := d.PropName()
		if !ok || name == Other {
			continue
		}
		c := Count{Value: name}
		for _, n := range m {
			c.Count += n
		}
		out = append(out, c)
	}
	sortCounts(out)
	return out, nil
}
