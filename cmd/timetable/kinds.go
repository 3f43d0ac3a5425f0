package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
)

const kindsUsage = `Usage: timetable kinds [list | show KIND | create | change KIND] [flags]

Lists, shows, defines and changes kinds of series (their schemas).
A schema is JSON (see docs/http-api.md), from --file (- for stdin), or
for create, from --name, --fields, --tags and --layout.

Examples:
  timetable kinds
  timetable kinds create --name SENSOR --fields temperature,humidity --tags location
  timetable kinds show SENSOR > sensor.json
  timetable kinds change SENSOR --file sensor.json
`

// kindsFlags are the flags of `timetable kinds`.
type kindsFlags struct {
	file, name, fields, tags, layout, duplicates string
}

func newKindsCommand(stdout, stderr io.Writer) command {
	f := &kindsFlags{}
	return &clientCommand{
		name: "kinds", usage: kindsUsage, stdout: stdout, stderr: stderr, minArgs: 0, maxArgs: 2,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.file, "file", "", "create, change: the schema as JSON (- for stdin)")
			fs.StringVar(&f.name, "name", "", "create: the kind's name")
			fs.StringVar(&f.fields, "fields", "", "create: the float fields, comma-separated")
			fs.StringVar(&f.tags, "tags", "", "create: the string tags, comma-separated")
			fs.StringVar(&f.layout, "layout", "", "create: chunks (default), item_per_reading, day_partitioned or buckets")
			fs.StringVar(&f.duplicates, "duplicates", "", "create: readings of one instant: last_wins (default), keep_all or reject_different")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			verb := "list"
			if len(args) > 0 {
				verb = args[0]
			}
			switch {
			case verb == "list" && len(args) <= 1:
				return listKinds(ctx, c, stdout)
			case verb == "show" && len(args) == 2:
				var sc json.RawMessage
				if err := c.getJSON(ctx, "/api/v1/kinds/"+pathEscape(args[1]), nil, &sc); err != nil {
					return err
				}
				return printJSON(stdout, sc)
			case verb == "create" && len(args) == 1:
				return f.send(ctx, c, stdout, http.MethodPost, "/api/v1/kinds")
			case verb == "change" && len(args) == 2:
				return f.send(ctx, c, stdout, http.MethodPut, "/api/v1/kinds/"+pathEscape(args[1]))
			}
			fmt.Fprint(stderr, kindsUsage)
			return errUsage
		},
	}
}

// send sends the schema the flags describe (a whole one for POST, a
// change for any other method) to path and prints the kind the server
// answers with.
func (f *kindsFlags) send(ctx context.Context, c *client, stdout io.Writer, method, path string) error {
	sc, err := f.schema(method == http.MethodPost)
	if err != nil {
		return err
	}
	var out json.RawMessage
	if err := c.sendJSON(ctx, method, path, sc, &out); err != nil {
		return err
	}
	return printJSON(stdout, out)
}

// schema returns the schema of --file, or for create one made of the
// other flags.
func (f *kindsFlags) schema(create bool) (json.RawMessage, error) {
	if f.file != "" {
		b, err := readInput(f.file)
		if err != nil {
			return nil, err
		}
		if !json.Valid(b) {
			return nil, fmt.Errorf("%s is not JSON", f.file)
		}
		return b, nil
	}
	if !create || f.name == "" {
		return nil, fmt.Errorf("give the schema with --file, or --name and --fields")
	}
	sc := map[string]any{"name": f.name, "fields": splitList(f.fields)}
	if f.tags != "" {
		sc["tags"] = splitList(f.tags)
	}
	if f.layout != "" {
		sc["layout"] = f.layout
	}
	if f.duplicates != "" {
		sc["duplicates"] = f.duplicates
	}
	return json.Marshal(sc)
}

func listKinds(ctx context.Context, c *client, w io.Writer) error {
	var out struct {
		Kinds []struct {
			Name       string   `json:"name"`
			Fields     []string `json:"fields"`
			Tags       []string `json:"tags"`
			Layout     string   `json:"layout"`
			Duplicates string   `json:"duplicates"`
		} `json:"kinds"`
	}
	if err := c.getJSON(ctx, "/api/v1/kinds", nil, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tLAYOUT\tDUPLICATES\tFIELDS\tTAGS")
	for _, k := range out.Kinds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Name, k.Layout, k.Duplicates, strings.Join(k.Fields, ","), strings.Join(k.Tags, ","))
	}
	return tw.Flush()
}

// readInput reads a file, or stdin for "-".
func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

func printJSON(w io.Writer, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// pathEscape escapes one segment of a path.
func pathEscape(s string) string { return url.PathEscape(s) }
