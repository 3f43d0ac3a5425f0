// Package archtest holds no code: its tests hold the module's import
// graph, as go list reads it, to the architecture that docs/architecture.md
// describes.
//
// The table arrows (arrows_test.go) is every import between the module's
// packages, by their non-test files; TestArrows fails when an import
// appears that the table lacks, or when the table keeps an arrow that no
// package imports any more, and prints the line to write. The
// architecture page shows the table (go test ./internal/archtest -update
// rewrites it there; TestArchitectureDoc_Arrows fails while it differs),
// and its package map and "Imports flow downwards" line are checked
// against the table (TestArchitectureDoc_PackageMap,
// TestArchitectureDoc_ImportsFlowDownwards); every file it names by its
// path is in the repository (TestArchitectureDoc_Paths).
// TestDocComments_InPlace finds a doc comment left above the wrong
// function.
//
// Two rules hold for packages to come too: the root package imports no
// other package of the module, and no package above the API links Pebble:
// only the engine (local), the package that opens a backend by URL
// (backend), the binary (cmd) and internal test scaffolding may.
package archtest
