package local_test

import (
	"testing"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/local"
)

// TestConformance runs the shared conformance cases against an in-memory
// engine.
func TestConformance(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true})
	conformance.Run(t, db)
}
