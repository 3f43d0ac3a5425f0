package main

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion_Line(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH
	f := func(bi *debug.BuildInfo, want string) {
		t.Helper()
		got := versionLine(func() (*debug.BuildInfo, bool) { return bi, bi != nil })
		if got != want+platform {
			t.Errorf("versionLine = %q, want %q", got, want+platform)
		}
	}
	f(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}}, "timetable v0.3.0 go1.26.8")
	f(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.time", Value: "2025-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}}, "timetable (devel) (revision 1a2b3c4d5e6f+dirty, 2025-01-02T03:04:05Z) go1.26.8")
	f(nil, "timetable (unknown) "+runtime.Version())
}

func TestVersion_Command(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// A test binary's build information names the Go version that built it.
	if s := out.String(); !strings.HasPrefix(s, "timetable ") || !strings.Contains(s, runtime.Version()) || !strings.HasSuffix(s, "\n") {
		t.Errorf("version: %q", s)
	}
	if code := run(context.Background(), []string{"version", "extra"}, &out, &errb); code != 2 {
		t.Errorf("version extra: exit %d", code)
	}
	out.Reset()
	if code := run(context.Background(), []string{"help", "version"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Example:") {
		t.Errorf("help version: exit %d, %q", code, out.String())
	}
}
