package archtest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tableFile is where arrows is, for failure messages.
const tableFile = "internal/archtest/arrows_test.go"

// rootName is the root package's name in arrows.
const rootName = "timetable"

// name returns the name in arrows of the module's package at import path
// path, and whether path is in the module.
func name(path string) (string, bool) {
	if path == module {
		return rootName, true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// graph returns the module's import graph as go list reads it: each
// package's name, and the names of the module's packages its non-test
// files import, sorted.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	mine, _ := modulePackages(t)
	g := make(map[string][]string, len(mine))
	for _, p := range mine {
		from, _ := name(p.ImportPath)
		to := []string{}
		for _, imp := range p.Imports {
			if n, ok := name(imp); ok {
				to = append(to, n)
			}
		}
		slices.Sort(to)
		g[from] = slices.Compact(to)
	}
	return g
}

// tableLine returns the line of package from in arrows, with imports to.
func tableLine(from string, to []string) string {
	q := make([]string, len(to))
	for i, n := range to {
		q[i] = strconv.Quote(n)
	}
	return fmt.Sprintf("\t%q: {%s},", from, strings.Join(q, ", "))
}

// TestArrows: the table arrows is the module's import graph, exactly. An
// import it lacks fails, and so does an arrow no package draws any more;
// each failure names the arrow and prints the corrected line.
func TestArrows(t *testing.T) {
	g := graph(t)
	if len(g["series"]) == 0 || len(g["local"]) == 0 {
		t.Fatalf("go list's graph is not what this test expects (series imports %v, local imports %v)", g["series"], g["local"])
	}
	const rewrite = "then go test ./internal/archtest -update rewrites the table in docs/architecture.md"
	for _, from := range slices.Sorted(maps.Keys(g)) {
		got := g[from]
		allowed, ok := arrows[from]
		if !ok {
			t.Errorf("package %s has no line in %s; add it:\n%s\n%s", from, tableFile, tableLine(from, got), rewrite)
			continue
		}
		var why []string
		for _, to := range got {
			if !slices.Contains(allowed, to) {
				why = append(why, fmt.Sprintf("%s imports %s, an arrow the table lacks: add %q", from, to, to))
			}
		}
		for i, to := range allowed {
			switch {
			case slices.Contains(allowed[:i], to):
				why = append(why, fmt.Sprintf("the line of %s names %s twice", from, to))
			case !slices.Contains(got, to):
				why = append(why, fmt.Sprintf("the table draws %s -> %s, which no non-test file of %s imports: remove %q", from, to, from, to))
			}
		}
		if len(why) > 0 {
			t.Errorf("%s, in the line of %q in %s; the line should read:\n%s\n%s", strings.Join(why, "; "), from, tableFile, tableLine(from, got), rewrite)
		}
	}
	for _, from := range slices.Sorted(maps.Keys(arrows)) {
		if _, ok := g[from]; !ok {
			t.Errorf("%s has a line for %s, which is not a package of the module: remove the line, %s", tableFile, from, rewrite)
		}
	}
}
