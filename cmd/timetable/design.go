package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/series"
)

// DesignCommand is `timetable design`: it prints the generated design
// document (package design's Markdown) of a table timetable uses:
//
//	timetable design series [-layout chunks|item-per-reading|day-partitioned|buckets|all] [-kind SENSOR] [-fields a,b] [-tags t]
//	timetable design analytics
//
// The series designs are series.Design's, built from the functions that
// make the keys of the items a series Store writes; the analytics design
// is analytics.Design, whose templates the analytics Store fills in.
type DesignCommand struct {
	Stdout, Stderr io.Writer
}

// Run parses args and prints the design asked for.
func (c *DesignCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("design", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	layout := fs.String("layout", "all", "series: the layout to print: "+layoutNames(", ")+", or all")
	kind := fs.String("kind", "SENSOR", "series: the kind of series, the entity prefix of its keys")
	fields := fs.String("fields", "temperature,humidity", "series: the float fields, comma-separated")
	tags := fs.String("tags", "location", "series: the string tags, comma-separated")
	metric := fs.Bool("metric-index", true, "series: include the optional metric index (Schema.MetricIndex)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: timetable design series|analytics [flags]\n\nPrints a table design as markdown: its keys, indexes, entities, access-pattern matrix and example items.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	what := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil { // flags after the name
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "timetable design: unexpected arguments %q\n", fs.Args())
		return errUsage
	}
	switch what {
	case "analytics":
		return analytics.Design().Markdown(c.Stdout)
	case "series":
	default:
		fmt.Fprintf(c.Stderr, "timetable design: unknown design %q (series or analytics)\n", what)
		return errUsage
	}
	layouts, err := parseLayouts(*layout)
	if err != nil {
		fmt.Fprintf(c.Stderr, "timetable design: %v\n", err)
		return errUsage
	}
	s := series.Schema{Name: *kind, Fields: splitList(*fields), Tags: splitList(*tags), MetricIndex: *metric}
	for i, l := range layouts {
		if i > 0 {
			fmt.Fprint(c.Stdout, "\n---\n\n")
		}
		s.Layout = l
		d, err := series.Design(s)
		if err != nil {
			fmt.Fprintf(c.Stderr, "timetable design: %v\n", err)
			return errUsage
		}
		if err := d.Markdown(c.Stdout); err != nil {
			return err
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseLayouts returns the layouts -layout names: one, or all of them.
func parseLayouts(s string) ([]series.Layout, error) {
	if s == "all" {
		return series.Layouts(), nil
	}
	if l, ok := series.LayoutNamed(s); ok {
		return []series.Layout{l}, nil
	}
	return nil, errors.New("unknown layout " + s + " (" + layoutNames(", ") + " or all)")
}

// layoutNames returns the names of the layouts, joined by sep.
func layoutNames(sep string) string {
	var names []string
	for _, l := range series.Layouts() {
		names = append(names, l.String())
	}
	return strings.Join(names, sep)
}
