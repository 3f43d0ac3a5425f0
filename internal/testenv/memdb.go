package testenv

import (
	"testing"

	"github.com/timetable-db/timetable/local"
)

// MemDB opens the embedded engine in memory with opts (nil means the
// defaults; InMemory is set whatever opts says, and opts is not modified)
// and closes it when the test ends. It fails the test if the engine does
// not open.
func MemDB(tb testing.TB, opts *local.Options) *local.DB {
	tb.Helper()
	var o local.Options
	if opts != nil {
		o = *opts
	}
	o.InMemory = true
	db, err := local.Open("", &o)
	if err != nil {
		tb.Fatalf("cannot open the embedded engine: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}
