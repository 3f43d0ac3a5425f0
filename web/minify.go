//go:build ignore

// minify writes the minified form of a JavaScript file: go run minify.go SRC DST.
// It is run by `go generate ./web`.
package main

import (
	"fmt"
	"os"

	"github.com/timetable-db/timetable/web/internal/jsmin"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run minify.go SRC DST")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "minify:", err)
		os.Exit(1)
	}
}

func run(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	out, err := jsmin.Minify(b)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return os.WriteFile(dst, out, 0o644)
}
