// Package archtest holds no code: its test checks the module's import
// graph against the architecture (DESIGN.md, "Architecture"). The root
// package imports no other package of the module, and no package above
// the API links Pebble: only the engine (local), the package that opens a
// backend by URL (backend), the binary (cmd) and internal test scaffolding
// may.
package archtest
