// Package jsmin minifies the tracking script: `go generate ./web` writes
// its output next to the source, and a test of package web checks that
// the checked-in file is what it makes of the source now.
package jsmin

import (
	"bytes"
	"fmt"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/js"
)

// Minify returns src, a JavaScript program, minified: comments and
// spaces dropped, local names shortened. The output is deterministic for
// a given src and version of the minifier, and ends with a newline.
func Minify(src []byte) ([]byte, error) {
	m := minify.New()
	var out bytes.Buffer
	if err := (&js.Minifier{}).Minify(m, &out, bytes.NewReader(src), nil); err != nil {
		return nil, fmt.Errorf("jsmin: cannot minify: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
