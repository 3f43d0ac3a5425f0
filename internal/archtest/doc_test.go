package archtest

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the table of arrows in docs/architecture.md from the table in "+tableFile)

// docFile is the architecture document, from the module's folder.
const docFile = "docs/architecture.md"

// The lines around the generated table of arrows in docFile.
const (
	beginArrows = "<!-- The arrows: generated from " + tableFile + " by go test ./internal/archtest -update. Do not edit. -->"
	endArrows   = "<!-- End of the arrows. -->"
)

// readDoc returns the content of docFile.
func readDoc(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, docFile))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// renderArrows returns the table arrows as markdown: a row per package,
// the root first, then by name, with the packages it imports and those
// importing it.
func renderArrows() string {
	names := slices.Sorted(maps.Keys(arrows))
	names = slices.DeleteFunc(names, func(n string) bool { return n == rootName })
	names = slices.Insert(names, 0, rootName)
	importers := map[string][]string{}
	for _, from := range names {
		for _, to := range arrows[from] {
			importers[to] = append(importers[to], from)
		}
	}
	list := func(ns []string) string {
		if len(ns) == 0 {
			return "none"
		}
		ns = slices.Sorted(slices.Values(ns))
		q := make([]string, len(ns))
		for i, n := range ns {
			q[i] = "`" + n + "`"
		}
		return strings.Join(q, ", ")
	}
	var b strings.Builder
	b.WriteString("| Package | Imports (non-test files) | Imported by (non-test files) |\n")
	b.WriteString("|---|---|---|\n")
	for _, n := range names {
		label := "`" + n + "`"
		if n == rootName {
			label += " (root)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", label, list(arrows[n]), list(importers[n]))
	}
	return b.String()
}

// arrowsBlock returns the offsets in doc of the generated table, between
// its begin and end lines.
func arrowsBlock(doc []byte) (start, end int, err error) {
	b := bytes.Index(doc, []byte(beginArrows+"\n"))
	if b < 0 {
		return 0, 0, fmt.Errorf("%s lacks the line %s", docFile, beginArrows)
	}
	start = b + len(beginArrows) + 1
	e := bytes.Index(doc[start:], []byte(endArrows+"\n"))
	if e < 0 {
		return 0, 0, fmt.Errorf("%s lacks the line %s after %s", docFile, endArrows, beginArrows)
	}
	return start, start + e, nil
}

// TestArchitectureDoc_Arrows: docs/architecture.md shows the table arrows
// as renderArrows writes it; -update rewrites it there.
func TestArchitectureDoc_Arrows(t *testing.T) {
	doc := readDoc(t)
	start, end, err := arrowsBlock(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := renderArrows()
	got := string(doc[start:end])
	if got == want {
		return
	}
	if *update {
		out := slices.Concat(doc[:start], []byte(want), doc[end:])
		if err := os.WriteFile(filepath.Join(root, docFile), out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the table of arrows in %s", docFile)
		return
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(gotLines) && i < len(wantLines) && gotLines[i] == wantLines[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return ls[i]
		}
		return "(end of the table)"
	}
	t.Errorf("the table of arrows in %s differs from %s (go test ./internal/archtest -update rewrites it); at its row %d,\nthe doc has: %s\nthe table:   %s",
		docFile, tableFile, i+1, line(gotLines), line(wantLines))
}

// flowLead begins the paragraph of docFile that sums up the arrows.
const flowLead = "Imports flow downwards:"

// flowAlias names, in that paragraph, the packages called by a short
// name there.
var flowAlias = map[string]string{"cmd": "cmd/timetable"}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	arrowOp  = regexp.MustCompile(`\s*(->|<-)\s*`)
)

// flowArrows returns the arrows that the paragraph beginning with
// flowLead draws, each as [from, to]. Each of its code spans holding an
// arrow is a chain of groups of packages separated by commas: "a -> b, c
// -> d" draws a -> b, a -> c, b -> d and c -> d; "a <- b" draws b -> a.
func flowArrows(doc string) ([][2]string, error) {
	i := strings.Index(doc, "\n"+flowLead)
	if i < 0 {
		return nil, fmt.Errorf("%s has no paragraph beginning %q", docFile, flowLead)
	}
	para, _, _ := strings.Cut(doc[i+1:], "\n\n")
	var out [][2]string
	for _, m := range codeSpan.FindAllStringSubmatch(para, -1) {
		span := strings.Join(strings.Fields(m[1]), " ")
		ops := arrowOp.FindAllStringSubmatch(span, -1)
		if len(ops) == 0 {
			continue
		}
		groups := arrowOp.Split(span, -1)
		names := make([][]string, len(groups))
		for j, g := range groups {
			for n := range strings.SplitSeq(g, ",") {
				n = strings.TrimSpace(n)
				if a, ok := flowAlias[n]; ok {
					n = a
				}
				if n == "" {
					return nil, fmt.Errorf("%s: %q has an empty name", docFile, span)
				}
				names[j] = append(names[j], n)
			}
		}
		for j, op := range ops {
			for _, a := range names[j] {
				for _, b := range names[j+1] {
					if op[1] == "<-" {
						out = append(out, [2]string{b, a})
					} else {
						out = append(out, [2]string{a, b})
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: the paragraph beginning %q draws no arrow", docFile, flowLead)
	}
	return out, nil
}

// TestArchitectureDoc_ImportsFlowDownwards: every arrow that the prose
// summary of docs/architecture.md draws is an import in the table arrows
// (which TestArrows holds to the code).
func TestArchitectureDoc_ImportsFlowDownwards(t *testing.T) {
	doc := readDoc(t)
	drawn, err := flowArrows(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range drawn {
		from, to := a[0], a[1]
		to2, ok := arrows[from]
		switch {
		case !ok:
			t.Errorf("%s, %q: %s is not a package of %s", docFile, flowLead, from, tableFile)
		case !slices.Contains(to2, to):
			t.Errorf("%s, %q: it draws %s -> %s, an arrow %s lacks: %s does not import %s", docFile, flowLead, from, to, tableFile, from, to)
		}
	}
}

// rowsLead begins the line of docFile after which the package map's
// drawing is, in a fenced block.
const rowsLead = "<!-- The rows:"

// packageRows returns the rows of the package map of doc, top first: the
// names of the packages on each row, in the drawing's order. Words made
// of the drawing's strokes, and words in parentheses, are not names.
func packageRows(doc string) ([][]string, error) {
	i := strings.Index(doc, "\n"+rowsLead)
	if i < 0 {
		return nil, fmt.Errorf("%s has no line beginning %q", docFile, rowsLead)
	}
	lines := strings.Split(doc[i+1:], "\n")
	if len(lines) < 2 || lines[1] != "```" {
		return nil, fmt.Errorf("%s: the line beginning %q is not followed by a fenced block", docFile, rowsLead)
	}
	var rows [][]string
	for _, l := range lines[2:] {
		if l == "```" {
			return rows, nil
		}
		var row []string
		for _, w := range strings.Fields(l) {
			if strings.HasPrefix(w, "(") || strings.Trim(w, `|+-/\_`) == "" {
				continue
			}
			row = append(row, w)
		}
		if len(row) > 0 {
			rows = append(rows, row)
		}
	}
	return nil, fmt.Errorf("%s: the package map's fenced block does not end", docFile)
}

// internalPackage reports whether the package named n is under a folder
// internal, which the package map may leave out.
func internalPackage(n string) bool {
	return slices.Contains(strings.Split(n, "/"), "internal")
}

// TestArchitectureDoc_PackageMap: in the drawing of docs/architecture.md,
// each package is on a row above those it imports (per the table arrows,
// which TestArrows holds to the code), and every package outside an
// internal folder has a row.
func TestArchitectureDoc_PackageMap(t *testing.T) {
	doc := readDoc(t)
	rows, err := packageRows(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]int{}
	for r, names := range rows {
		for _, n := range names {
			if _, ok := arrows[n]; !ok {
				t.Errorf("the package map of %s names %s on its row %d, which is not a package of %s", docFile, n, r+1, tableFile)
			}
			if prev, ok := row[n]; ok {
				t.Errorf("the package map of %s names %s on its rows %d and %d", docFile, n, prev+1, r+1)
			}
			row[n] = r
		}
	}
	for _, from := range slices.Sorted(maps.Keys(arrows)) {
		rf, drawn := row[from]
		if !drawn {
			if internalPackage(from) {
				continue
			}
			// The rows it may go on: below its importers, above its imports.
			lo, hi := -1, len(rows)
			for imp, to := range arrows {
				if r, ok := row[imp]; ok && slices.Contains(to, from) {
					lo = max(lo, r)
				}
			}
			for _, to := range arrows[from] {
				if r, ok := row[to]; ok {
					hi = min(hi, r)
				}
			}
			where := fmt.Sprintf("on a row from %d to %d", lo+2, hi)
			if lo+1 >= hi {
				where = fmt.Sprintf("on a new row just below row %d, its lowest importer's, and move what it imports (from row %d) below it", lo+1, hi+1)
			}
			t.Errorf("%s has no row in the package map of %s: add it %s (rows counted from the top, from 1)", from, docFile, where)
			continue
		}
		for _, to := range arrows[from] {
			if rt, ok := row[to]; ok && rt <= rf {
				t.Errorf("the package map of %s puts %s on row %d and %s, which it imports, on row %d: %s must be on a row below %s's", docFile, from, rf+1, to, rt+1, to, from)
			}
		}
	}
}

// docPath is a code span of docFile naming a file of the repository by
// its path: a folder, a slash, a name with an extension.
var docPath = regexp.MustCompile("`([a-z][A-Za-z0-9_./-]*/[A-Za-z0-9_.-]+\\.[a-z]+)`")

// TestArchitectureDoc_Paths: every file that docs/architecture.md names
// by its path is in the repository, so a file moved or removed without
// the page following fails here.
func TestArchitectureDoc_Paths(t *testing.T) { checkDocPaths(t, docFile) }

// TestScaleOutDoc_Paths: the same for docs/scale-out.md.
func TestScaleOutDoc_Paths(t *testing.T) { checkDocPaths(t, "docs/scale-out.md") }

// checkDocPaths fails if file, a page of the module's folder, names by
// its path (docPath) a file that is not in the repository, or names none.
func checkDocPaths(t *testing.T, file string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range docPath.FindAllSubmatch(doc, -1) {
		path := string(m[1])
		if seen[path] {
			continue
		}
		seen[path] = true
		if _, err := os.Stat(filepath.Join(root, path)); err != nil {
			t.Errorf("%s names %s, which is not in the repository (moved or removed?): name its new home, or drop it", file, path)
		}
	}
	if len(seen) == 0 {
		t.Fatalf("%s names no file by its path: this test finds nothing to check", file)
	}
}
