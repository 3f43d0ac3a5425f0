package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// VersionCommand is `timetable version`: it prints the module version,
// the VCS revision the binary was built from and the Go version, from
// the build information the Go toolchain embeds.
type VersionCommand struct {
	Stdout, Stderr io.Writer

	// BuildInfo returns the build information; default
	// debug.ReadBuildInfo.
	BuildInfo func() (*debug.BuildInfo, bool)
}

const versionUsage = `Usage: timetable version

Prints the module version, the VCS revision (with "+dirty" if the tree had
changes) and commit time the binary was built from, and the Go version.
A binary built with go install MODULE@VERSION has a version and no
revision; one built in a clone has the revision and "(devel)".

Example:

  $ timetable version
  timetable v0.3.0 (revision 1a2b3c4d5e6f, 2025-01-02T03:04:05Z) go1.26.8 linux/amd64
`

// Run prints the version line.
func (c *VersionCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), versionUsage) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "timetable version: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	read := c.BuildInfo
	if read == nil {
		read = debug.ReadBuildInfo
	}
	fmt.Fprintln(c.Stdout, versionLine(read))
	return nil
}

// versionLine renders the build information: "timetable VERSION
// (revision REV[+dirty], TIME) GOVERSION OS/ARCH", leaving out what the
// build did not record.
func versionLine(read func() (*debug.BuildInfo, bool)) string {
	version, goVersion := "(unknown)", runtime.Version()
	var rev, at string
	dirty := false
	if bi, ok := read(); ok && bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "timetable " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		line += " (revision " + rev
		if at != "" {
			line += ", " + at
		}
		line += ")"
	}
	return line + " " + goVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}
