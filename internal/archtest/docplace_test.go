package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocComments_InPlace: no function's doc comment begins with the name
// of another function of its package, the mark of a comment left above
// the wrong declaration (go doc would show it as the function's own).
func TestDocComments_InPlace(t *testing.T) {
	mine, _ := modulePackages(t)
	checked := 0
	for _, p := range mine {
		fset := token.NewFileSet()
		var decls []*ast.FuncDecl
		funcs := map[string]bool{}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					decls = append(decls, fd)
					funcs[fd.Name.Name] = true
				}
			}
		}
		for _, fd := range decls {
			if fd.Doc == nil {
				continue
			}
			checked++
			words := strings.Fields(fd.Doc.Text())
			if len(words) == 0 {
				continue
			}
			first := strings.TrimRight(words[0], ",.:;")
			if first != fd.Name.Name && funcs[first] {
				pos := fset.Position(fd.Doc.Pos())
				file, _ := name(p.ImportPath)
				file += "/" + filepath.Base(pos.Filename)
				t.Errorf("%s:%d: the doc comment of %s begins with %s, another function of the package: it belongs above %s",
					file, pos.Line, fd.Name.Name, first, first)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no doc comment checked")
	}
}
