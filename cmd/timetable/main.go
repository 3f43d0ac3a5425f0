// Command timetable is timetable's one binary.
//
// Usage:
//
//	timetable <command> [flags]
//
// Commands:
//
//	serve   serve a data folder or backend: the series API, InfluxDB writes, DynamoDB's API
//	kinds   list, show, define and change kinds of series
//	write   write readings (line protocol, CSV, JSON) from files or stdin
//	import  write readings from files, with a progress bar
//	query   print the readings or aggregates of a series
//	latest  print the latest reading of series
//	export  write a kind's readings as CSV or JSON lines
//	token   make, list and revoke API tokens and DynamoDB access keys
//	design  print a table design (series, analytics) as markdown
//	cost    estimate a series workload's DynamoDB units and monthly bill per layout
//	copy    copy tables and their items between backends, resumably (package tablecopy)
//	demo    record a web-analytics demo site: 90 days of realistic traffic, aggregated
//	version print the module version, VCS revision and Go version
//	help    print usage, or a command's flags
//
// The client commands (kinds to stats) talk to a server (--server URL,
// token from --token or TIMETABLE_TOKEN) or open a data folder (--data DIR)
// or a backend (--backend URL: file:DIR, mem:, http(s)://HOST:PORT,
// dynamodb://REGION).
// `timetable help serve` lists serve's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand: it parses its own flags from args and runs
// until done or until ctx is cancelled.
type command interface {
	Run(ctx context.Context, args []string) error
}

// commandInfo describes a subcommand for dispatch and usage.
type commandInfo struct {
	name     string
	synopsis string
	new      func(stdout, stderr io.Writer) command
}

var commands = []commandInfo{
	{"serve", "serve a data folder or backend: the series API, InfluxDB writes and DynamoDB's API on one address",
		func(stdout, stderr io.Writer) command { return &ServeCommand{Stdout: stdout, Stderr: stderr} }},
	{"design", "print a table design as markdown (design series, design analytics)", func(stdout, stderr io.Writer) command { return &DesignCommand{Stdout: stdout, Stderr: stderr} }},
	{"kinds", "list, show, define and change kinds of series", newKindsCommand},
	{"write", "write readings: line protocol, CSV or JSON from files or stdin", newWriteCommand},
	{"import", "write readings from files, with a progress bar", newImportCommand},
	{"query", "print the readings of a series in a time range, or their aggregates", newQueryCommand},
	{"latest", "print the latest reading of series", newLatestCommand},
	{"export", "write the readings of a kind as CSV or JSON lines", newExportCommand},
	{"token", "make, list and revoke API tokens and DynamoDB access keys", newTokenCommand},
	{"sites", "list, show, add, change and delete the sites of the web analytics", newSitesCommand},
	{"goals", "list, create and delete the conversion goals of a site", newGoalsCommand},
	{"stats", "print a site's web analytics (Stats API queries) as a table", newStatsCommand},
	{"version", "print the version, VCS revision and Go version of this binary", func(stdout, stderr io.Writer) command { return &VersionCommand{Stdout: stdout, Stderr: stderr} }},
	{"cost", "estimate a time-series workload's DynamoDB units and monthly bill per layout", func(stdout, stderr io.Writer) command { return &CostCommand{Stdout: stdout, Stderr: stderr} }},
	{"demo", "record a web-analytics demo site with 90 days of realistic traffic, aggregated", func(stdout, stderr io.Writer) command { return &DemoCommand{Stdout: stdout, Stderr: stderr} }},
	{"copy", "copy tables and their items between backends (a data folder, DynamoDB), resumably", func(stdout, stderr io.Writer) command { return &CopyCommand{Stdout: stdout, Stderr: stderr} }},
}

// errUsage reports a command line that cannot be run; usage has been
// printed.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches args to a command and returns the process exit code: 0 on
// success, 2 for a bad command line, 1 for any other failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if c := lookup(rest[0]); c != nil {
				// A command prints its flags when asked for help.
				_ = c.new(stdout, stdout).Run(ctx, []string{"-h"})
				return 0
			}
			fmt.Fprintf(stderr, "timetable: unknown command %q\n\n", rest[0])
			usage(stderr)
			return 2
		}
		usage(stdout)
		return 0
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "timetable: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	err := c.new(stdout, stderr).Run(ctx, rest)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(stderr, "timetable %s: %v\n", name, err)
	return 1
}

func lookup(name string) *commandInfo {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, "timetable stores and queries time series on DynamoDB's API.\n\nUsage:\n\n  timetable <command> [flags]\n\nCommands:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.synopsis)
	}
	fmt.Fprint(w, "  help     print this, or a command's flags (timetable help serve)\n")
}
