package local

import "github.com/timetable-db/timetable"

// A DB is the embedded implementation of the root package's interfaces.
var (
	_ timetable.API     = (*DB)(nil)
	_ timetable.Syncer  = (*DB)(nil)
	_ timetable.Backend = (*DB)(nil)

	_ timetable.PartiQLAPI     = (*DB)(nil)
	_ timetable.StreamsAPI     = (*DB)(nil)
	_ timetable.ItemJSONReader = (*DB)(nil)
)
