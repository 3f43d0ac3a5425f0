package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	module = "github.com/timetable-db/timetable"
	pebble = "github.com/cockroachdb/pebble"
)

// pkg is a package of the module as go list describes it.
type pkg struct {
	ImportPath string
	Dir        string   // its folder
	GoFiles    []string // its non-test Go files, in Dir
	Imports    []string // direct imports, non-test
	Deps       []string // all dependencies, non-test
}

// root is the module's folder, from this package's.
const root = "../.."

// goList is the output of go list on the module's packages and their
// dependencies, run once for all tests.
var goList = sync.OnceValues(func() ([]byte, error) {
	if err := readSources(); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,Imports,Deps", "./...")
	cmd.Dir = root
	return cmd.Output()
})

// readSources reads go.mod and the module's non-test Go files. go test
// caches a result until a file the test opened changes; go list reads the
// sources in a process of its own, which the cache does not see, so
// without this a changed import would not run the test again.
func readSources() error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module, such as bench
			}
			return nil
		}
		if name == "go.mod" || strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			_, err = os.ReadFile(path)
		}
		return err
	})
}

// modulePackages returns the module's packages, and every package they
// depend on, by import path.
func modulePackages(t *testing.T) (mine []pkg, all map[string]pkg) {
	t.Helper()
	out, err := goList()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	all = map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("cannot decode go list's output: %v", err)
		}
		all[p.ImportPath] = p
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") {
			mine = append(mine, p)
		}
	}
	return mine, all
}

func isPebble(path string) bool { return path == pebble || strings.HasPrefix(path, pebble+"/") }

// mayLinkPebble reports whether the module's package at path may depend on
// Pebble: the engine, the package that opens backends by URL, the binary,
// and internal test scaffolding. The check holds for every other package,
// those to come included.
func mayLinkPebble(path string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	for _, p := range []string{"local", "backend", "cmd", "internal"} {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// importChain returns the shortest chain of imports from the package at
// from to one for which match is true, "from -> ... -> match".
func importChain(all map[string]pkg, from string, match func(string) bool) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if match(p) && p != from {
			chain := []string{p}
			for q := prev[p]; q != ""; q = prev[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			return strings.Join(chain, " -> ")
		}
		for _, next := range all[p].Imports {
			if _, seen := prev[next]; !seen {
				prev[next] = p
				queue = append(queue, next)
			}
		}
	}
	return from + " -> ?"
}

// TestRootImportsNothingOfModule: the root package is the ground; it
// depends on no other package of the module.
func TestRootImportsNothingOfModule(t *testing.T) {
	mine, all := modulePackages(t)
	i := slices.IndexFunc(mine, func(p pkg) bool { return p.ImportPath == module })
	if i < 0 {
		t.Fatalf("go list does not list the root package %s", module)
	}
	ours := func(path string) bool { return strings.HasPrefix(path, module+"/") }
	if slices.ContainsFunc(mine[i].Deps, ours) {
		t.Errorf("the root package depends on a package of the module: %s", importChain(all, module, ours))
	}
}

// TestNoPebbleAboveAPI: only the engine, backend, cmd and internal
// packages link Pebble; table, series, wire, keys and every other package
// above the API do not.
func TestNoPebbleAboveAPI(t *testing.T) {
	mine, all := modulePackages(t)
	checked := 0
	for _, p := range mine {
		linksPebble := slices.ContainsFunc(p.Deps, isPebble)
		if p.ImportPath == module+"/local" && !linksPebble {
			t.Fatalf("package local does not depend on Pebble: go list's output is not what this test expects")
		}
		if mayLinkPebble(p.ImportPath) {
			continue
		}
		checked++
		if linksPebble {
			t.Errorf("%s depends on Pebble: %s", p.ImportPath, importChain(all, p.ImportPath, isPebble))
		}
	}
	for _, want := range []string{"keys", "table", "series", "wire"} {
		if !slices.ContainsFunc(mine, func(p pkg) bool { return p.ImportPath == module+"/"+want }) {
			t.Errorf("go list does not list %s/%s", module, want)
		}
	}
	if checked == 0 {
		t.Fatal("no package checked")
	}
}
