package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

const sitesUsage = `Usage: timetable sites [list | show ID | create ID | update ID | delete ID | export ID | import ID FILE] [flags]

Lists, shows, adds, changes and deletes the sites of the web analytics.
update replaces the settings: give every one you want to keep.
delete removes the site with all its hits, goals and stats.
export writes the site's stats of --range as a zip of Plausible's CSV
export files (to --output, or standard output); import reads such a zip
(Plausible's own export, or timetable's) into the site as imported
stats, kept apart from the collected ones and shown with them on request.

--excluded-ips and --excluded-paths keep hits out: those from client
addresses in the ranges (addresses and CIDR prefixes, IPv4 or IPv6, at
most 100) and those of pages whose path fits a pattern ('*' within a path
segment, '**' across, at most 100) are dropped by the collect endpoint.

Examples:
  timetable sites create blog --name "My blog" --domains blog.example.com --time-zone Europe/Paris
  timetable sites update blog --name "My blog" --domains blog.example.com --public
  timetable sites update blog --domains blog.example.com --excluded-ips 203.0.113.7,2001:db8::/32 --excluded-paths "/admin/**,/preview/*"
  timetable sites list --server http://127.0.0.1:8000
  timetable sites import blog plausible-export.zip
  timetable sites export blog --range 2024-01-01,2024-12-31 --output blog-2024.zip
`

// siteFlags are the flags of `timetable sites`.
type siteFlags struct {
	name, domains, timeZone    string
	excludedIPs, excludedPaths string
	public                     bool
	// export: the range, the file and whether imported days are added.
	dateRange, output string
	withImported      bool
}

func (f *siteFlags) body(id string) map[string]any {
	return map[string]any{"id": id, "name": f.name, "domains": splitList(f.domains), "time_zone": f.timeZone, "public": f.public,
		"excluded_ips": splitList(f.excludedIPs), "excluded_paths": splitList(f.excludedPaths)}
}

type siteOut struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Domains  []string `json:"domains"`
	TimeZone string   `json:"time_zone"`
	Public   bool     `json:"public"`
	Created  string   `json:"created_at"`
	// Shown to the site's admins only.
	ExcludedIPs   []string `json:"excluded_ips"`
	ExcludedPaths []string `json:"excluded_paths"`
}

func newSitesCommand(stdout, stderr io.Writer) command {
	f := &siteFlags{}
	return &clientCommand{
		name: "sites", usage: sitesUsage, stdout: stdout, stderr: stderr, minArgs: 0, maxArgs: 3, analytics: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.name, "name", "", "create, update: the display name")
			fs.StringVar(&f.domains, "domains", "", "create, update: the site's host names, comma-separated")
			fs.StringVar(&f.timeZone, "time-zone", "", "create, update: the IANA time zone of its reports (default UTC)")
			fs.BoolVar(&f.public, "public", false, "create, update: stats readable without a token")
			fs.StringVar(&f.excludedIPs, "excluded-ips", "", "create, update: client addresses and CIDR prefixes whose hits are dropped, comma-separated")
			fs.StringVar(&f.excludedPaths, "excluded-paths", "", "create, update: path patterns ('*' within a segment, '**' across) whose hits are dropped, comma-separated")
			fs.StringVar(&f.dateRange, "range", "30d", "export: the date range, a preset or FROM,TO")
			fs.StringVar(&f.output, "output", "", "export: the zip file to write (default standard output)")
			fs.BoolVar(&f.withImported, "with-imported", false, "export: add the imported days to the collected ones")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			verb := "list"
			if len(args) > 0 {
				verb = args[0]
			}
			one := "/api/v1/sites/"
			if len(args) >= 2 {
				one += pathEscape(args[1])
			}
			var st siteOut
			switch {
			case verb == "list" && len(args) <= 1:
				var out struct{ Sites []siteOut }
				if err := c.getJSON(ctx, "/api/v1/sites", nil, &out); err != nil {
					return err
				}
				return printSites(stdout, out.Sites)
			case verb == "show" && len(args) == 2:
				if err := c.getJSON(ctx, one, nil, &st); err != nil {
					return err
				}
			case verb == "create" && len(args) == 2:
				if err := c.sendJSON(ctx, http.MethodPost, "/api/v1/sites", f.body(args[1]), &st); err != nil {
					return err
				}
			case verb == "update" && len(args) == 2:
				if err := c.sendJSON(ctx, http.MethodPut, one, f.body(args[1]), &st); err != nil {
					return err
				}
			case verb == "delete" && len(args) == 2:
				return c.do(ctx, http.MethodDelete, one, nil, nil, nil)
			case verb == "export" && len(args) == 2:
				return exportSite(ctx, c, one, f, stdout)
			case verb == "import" && len(args) == 3:
				return importSite(ctx, c, one, args[2], stdout)
			default:
				fmt.Fprint(stderr, sitesUsage)
				return errUsage
			}
			return printSites(stdout, []siteOut{st})
		},
	}
}

// exportSite writes the export of the site at path (its API path) to
// f.output, or to stdout; a file is written whole or not at all.
func exportSite(ctx context.Context, c *client, path string, f *siteFlags, stdout io.Writer) error {
	q := url.Values{"date_range": {f.dateRange}}
	if f.withImported {
		q.Set("with_imported", "true")
	}
	var buf bytes.Buffer
	if err := c.do(ctx, http.MethodGet, path+"/export?"+q.Encode(), nil, nil, &buf); err != nil {
		return err
	}
	if f.output == "" {
		_, err := buf.WriteTo(stdout)
		return err
	}
	tmp := f.output + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, f.output)
}

// importSite sends the zip file to the import route of the site at path
// and prints what was imported.
func importSite(ctx context.Context, c *client, path, file string, stdout io.Writer) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var out struct {
		Site, From, To string
		Days           int
	}
	if err := c.do(ctx, http.MethodPost, path+"/import", http.Header{"Content-Type": {"application/zip"}}, bytes.NewReader(b), &out); err != nil {
		return err
	}
	if out.Days == 0 {
		_, err = fmt.Fprintf(stdout, "imported no day into %s\n", out.Site)
		return err
	}
	days := "days"
	if out.Days == 1 {
		days = "day"
	}
	_, err = fmt.Fprintf(stdout, "imported %d %s (%s to %s) into %s\n", out.Days, days, out.From, out.To, out.Site)
	return err
}

func printSites(w io.Writer, sites []siteOut) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SITE\tNAME\tDOMAINS\tTIME ZONE\tPUBLIC\tCREATED\tEXCLUDED IPS\tEXCLUDED PATHS")
	for _, s := range sites {
		tz := s.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", s.ID, s.Name, strings.Join(s.Domains, ","), tz, s.Public, s.Created,
			orDash(strings.Join(s.ExcludedIPs, ",")), orDash(strings.Join(s.ExcludedPaths, ",")))
	}
	return tw.Flush()
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

const goalsUsage = `Usage: timetable goals [list | create ID | delete ID] --site SITE [flags]

Lists, creates (or replaces) and deletes the conversion goals of a site: a
page goal matches page views whose path fits a pattern ('*' within a path
segment, '**' across), an event goal custom events of a name.

Examples:
  timetable goals create signup --site blog --page "/signup/*"
  timetable goals create purchase --site blog --event Purchase --name "Purchases"
  timetable goals list --site blog
`

func newGoalsCommand(stdout, stderr io.Writer) command {
	var site, name, page, event string
	return &clientCommand{
		name: "goals", usage: goalsUsage, stdout: stdout, stderr: stderr, minArgs: 0, maxArgs: 2, analytics: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&site, "site", "", "the site (required)")
			fs.StringVar(&name, "name", "", "create: the display name")
			fs.StringVar(&page, "page", "", "create: a page goal's path pattern")
			fs.StringVar(&event, "event", "", "create: an event goal's event name")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			if site == "" {
				return fmt.Errorf("goals: --site is required")
			}
			base := "/api/v1/sites/" + pathEscape(site) + "/goals"
			verb := "list"
			if len(args) > 0 {
				verb = args[0]
			}
			switch {
			case verb == "list" && len(args) <= 1:
				var out struct {
					Goals []struct{ ID, Name, Kind, Match string }
				}
				if err := c.getJSON(ctx, base, nil, &out); err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "GOAL\tNAME\tKIND\tMATCH")
				for _, g := range out.Goals {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", g.ID, g.Name, g.Kind, g.Match)
				}
				return tw.Flush()
			case verb == "create" && len(args) == 2:
				in := map[string]string{"id": args[1], "name": name}
				switch {
				case page != "" && event == "":
					in["kind"], in["match"] = "pageview", page
				case event != "" && page == "":
					in["kind"], in["match"] = "event", event
				default:
					return fmt.Errorf("goals create: give one of --page PATTERN and --event NAME")
				}
				var out json.RawMessage
				if err := c.sendJSON(ctx, http.MethodPost, base, in, &out); err != nil {
					return err
				}
				return printJSON(stdout, out)
			case verb == "delete" && len(args) == 2:
				return c.do(ctx, http.MethodDelete, base+"/"+pathEscape(args[1]), nil, nil, nil)
			}
			fmt.Fprint(stderr, goalsUsage)
			return errUsage
		},
	}
}

const statsUsage = `Usage: timetable stats --site SITE [--range 30d] [--dimension D] [--metrics M1,M2] [--filter OP:DIMENSION:VALUE]...

Prints a site's web analytics as a table, through the Stats API
(POST /api/v2/query, Plausible's Stats API v2): the metrics over the range,
or by the values of a dimension. --range is a preset (day, 7d, 28d, 30d,
91d, month, 6mo, 12mo, year, all) or two dates, FROM,TO. Dimensions:
event:page, event:name, event:goal, event:props:NAME, visit:source,
visit:entry_page, visit:exit_page, visit:utm_source, visit:utm_medium,
visit:utm_campaign, visit:country, visit:browser, visit:os, visit:device,
time, time:hour, time:day, time:week, time:month.

Examples:
  timetable stats --site blog --range 30d
  timetable stats --site blog --range 7d --dimension visit:source --metrics visits,bounce_rate
  timetable stats --site blog --range month --dimension time:day --metrics visitors,pageviews
  timetable stats --site blog --range 7d --dimension event:page --metrics visitors --filter is:visit:country:FR
  timetable stats --site blog --range 12mo --dimension time:month --metrics visitors,pageviews --with-imported
`

func newStatsCommand(stdout, stderr io.Writer) command {
	var site, rng, metrics string
	var dims, filters listFlag
	var limit int
	var withImported bool
	return &clientCommand{
		name: "stats", usage: statsUsage, stdout: stdout, stderr: stderr, minArgs: 0, maxArgs: 0, analytics: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&site, "site", "", "the site (required)")
			fs.StringVar(&rng, "range", "30d", "the date range: a preset or FROM,TO")
			fs.StringVar(&metrics, "metrics", "visitors,visits,pageviews,bounce_rate,visit_duration", "the metrics, comma-separated")
			fs.Var(&dims, "dimension", "a dimension to break the figures down by (repeat for more)")
			fs.Var(&filters, "filter", "a filter OP:DIMENSION:VALUE, OP one of is, is_not, contains, contains_not (repeat: all must hold)")
			fs.IntVar(&limit, "limit", 100, "the rows to print at most")
			fs.BoolVar(&withImported, "with-imported", false, "add the site's imported stats (timetable sites import) to the collected ones")
		},
		run: func(ctx context.Context, c *client, _ []string) error {
			if site == "" {
				return fmt.Errorf("stats: --site is required")
			}
			q := map[string]any{"site_id": site, "metrics": splitList(metrics), "dimensions": []string(dims),
				"pagination": map[string]int{"limit": limit}}
			if from, to, ok := strings.Cut(rng, ","); ok {
				q["date_range"] = []string{from, to}
			} else {
				q["date_range"] = rng
			}
			var fs [][]any
			for _, f := range filters {
				op, rest, ok1 := strings.Cut(f, ":")
				i := strings.LastIndexByte(rest, ':')
				if !ok1 || i < 0 {
					return fmt.Errorf("--filter %q: want OP:DIMENSION:VALUE, such as is:visit:country:FR", f)
				}
				fs = append(fs, []any{op, rest[:i], []string{rest[i+1:]}})
			}
			if len(fs) > 0 {
				q["filters"] = fs
			}
			if withImported {
				q["include"] = map[string]bool{"imports": true}
			}
			var out struct {
				Results []struct {
					Metrics    []json.Number `json:"metrics"`
					Dimensions []string      `json:"dimensions"`
				} `json:"results"`
			}
			if err := c.sendJSON(ctx, http.MethodPost, "/api/v2/query", q, &out); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
			var head []string
			for _, d := range dims {
				head = append(head, strings.ToUpper(d))
			}
			for _, m := range splitList(metrics) {
				head = append(head, strings.ToUpper(m))
			}
			fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
			for _, r := range out.Results {
				cells := slices.Clone(r.Dimensions)
				for _, m := range r.Metrics {
					cells = append(cells, formatNumber(m))
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
			}
			return tw.Flush()
		},
	}
}

// formatNumber prints an integer as is and a fraction to two decimals.
func formatNumber(n json.Number) string {
	if i, err := n.Int64(); err == nil {
		return strconv.FormatInt(i, 10)
	}
	f, err := n.Float64()
	if err != nil {
		return n.String()
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}
