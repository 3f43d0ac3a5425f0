package series

import "context"

// KindReadings is the readings of several series of one kind, for
// Store.WriteKinds.
type KindReadings struct {
	Kind   string
	Series []SeriesReadings
}

// WriteKinds writes the readings of several kinds as one call, as
// Kind.WriteMany does for one: every reading is accepted or none is (an
// unknown kind, an invalid reading, a RejectDifferent conflict in any kind
// refuses the whole call, and the error names the kind and series). It is
// how a request that mixes kinds (InfluxDB line protocol, whose
// measurements are kinds) is written whole or not at all.
func (s *Store) WriteKinds(ctx context.Context, batch []KindReadings) error {
	return s.write(ctx, nil, "", nil, &writeReq{kinds: batch, names: nameKindSeries})
}
