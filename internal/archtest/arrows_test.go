package archtest

// arrows is the module's import graph, one line per package: the
// package's path in the module ("timetable" is the root), then every
// package of the module that its non-test files import directly. Imports
// of tests (_test.go files) are not arrows: tests may wire in anything,
// the engine and the test scaffolding of internal/ included.
//
// TestArrows holds the table to the code both ways: an import missing
// from its line fails, and so does an arrow no package imports any more,
// so the table (and docs/architecture.md, which shows it) never draws an
// arrow that is gone. Each failure prints the corrected line. After
// changing a line, go test ./internal/archtest -update rewrites the table
// in docs/architecture.md.
var arrows = map[string][]string{
	"timetable":              {},
	"analytics":              {"design", "table", "timetable"},
	"analytics/collect":      {"analytics", "timetable"},
	"analytics/demo":         {"analytics", "internal/clock"},
	"analytics/plausiblecsv": {"analytics"},
	"analytics/statsapi":     {"analytics"},
	"auth":                   {"table", "timetable", "wire"},
	"backend":                {"local", "timetable"},
	"cmd/timetable":          {"analytics", "analytics/collect", "analytics/demo", "auth", "backend", "design", "internal/front", "local", "series", "server", "table", "tablecopy", "timetable", "wire"},
	"conformance":            {"timetable"},
	"design":                 {},
	"ingest":                 {"series"},
	"promapi":                {"ingest", "internal/httpjson", "series"},
	"internal/archtest":      {},
	"internal/browsertest":   {},
	"internal/clock":         {},
	"internal/difftest":      {"timetable"},
	"internal/dynamotest":    {},
	"internal/e2e":           {},
	"internal/front":         {},
	"internal/geoiptest":     {},
	"internal/httpjson":      {},
	"internal/jsonstr":       {},
	"internal/testenv":       {"internal/clock", "internal/dynamotest", "local", "timetable"},
	"keys":                   {},
	"local":                  {"local/internal/codec", "local/internal/expr", "local/internal/partiql", "local/internal/value", "timetable"},
	"local/internal/codec":   {"internal/jsonstr", "local/internal/number"},
	"local/internal/expr":    {"local/internal/number", "local/internal/value"},
	"local/internal/number":  {},
	"local/internal/partiql": {},
	"local/internal/value":   {"local/internal/number"},
	"series":                 {"design", "keys", "series/internal/chunk", "series/internal/wal", "table", "timetable"},
	"series/internal/chunk":  {},
	"series/internal/wal":    {},
	"server":                 {"analytics", "analytics/collect", "analytics/plausiblecsv", "analytics/statsapi", "auth", "ingest", "internal/httpjson", "internal/jsonstr", "promapi", "series", "timetable", "web", "wire"},
	"table":                  {"timetable"},
	"tablecopy":              {"table", "timetable"},
	"web":                    {},
	"web/internal/jsmin":     {},
	"wire":                   {"internal/jsonstr", "timetable"},
}
