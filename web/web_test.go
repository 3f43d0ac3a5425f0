package web_test

import (
	"bytes"
	"testing"

	"github.com/timetable-db/timetable/web"
	"github.com/timetable-db/timetable/web/internal/jsmin"
)

// TestTrackerMinified: the served script is the source as minified now;
// after an edit of tracker/script.js, run `go generate ./web`.
func TestTrackerMinified(t *testing.T) {
	src, err := web.Tracker.ReadFile("tracker/script.js")
	if err != nil {
		t.Fatal(err)
	}
	got, err := web.Tracker.ReadFile(web.TrackerScript)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jsmin.Minify(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not tracker/script.js minified (%d bytes, want %d): run go generate ./web", web.TrackerScript, len(got), len(want))
	}
	if len(got) >= len(src)/2 {
		t.Fatalf("minified %d bytes from %d: the minifier did little", len(got), len(src))
	}
}

func TestMinifyRefusesBadSyntax(t *testing.T) {
	if _, err := jsmin.Minify([]byte("function (")); err == nil {
		t.Fatal("no error for a syntax error")
	}
}
