package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
)

// target is where a client command sends its requests: a server (--server
// with a token) or a data folder opened in this process (--data), served
// by the same handler in memory, so both ways behave alike.
type target struct {
	server, token, data, table string
	// analyticsTable, if set, opens the web analytics of --data too.
	analyticsTable string
}

// addTargetFlags registers --server, --token, --data and --table.
func addTargetFlags(fs *flag.FlagSet) *target {
	t := &target{}
	fs.StringVar(&t.server, "server", os.Getenv("TIMETABLE_SERVER"), "URL of a timetable server (default $TIMETABLE_SERVER); without it, --data is opened")
	fs.StringVar(&t.token, "token", "", "API token for --server (default $TIMETABLE_TOKEN)")
	fs.StringVar(&t.data, "data", "./timetable-data", "data folder to open when no --server is given (not while a server holds it)")
	fs.StringVar(&t.table, "table", series.DefaultTable, "the table of the time series (with --data)")
	return t
}

// client speaks the series API of a target.
type client struct {
	base  string
	token string
	http  *http.Client
	close func() error
}

// connect opens the target: for --data, the folder and an in-process
// server without authentication.
func (t *target) connect(ctx context.Context) (*client, error) {
	if t.server != "" {
		u, err := url.Parse(t.server)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--server %q: want a URL such as http://127.0.0.1:8000", t.server)
		}
		token := t.token
		if token == "" {
			token = os.Getenv("TIMETABLE_TOKEN")
		}
		return &client{base: strings.TrimRight(t.server, "/"), token: token,
			http: &http.Client{Timeout: 10 * time.Minute}, close: func() error { return nil }}, nil
	}
	eng, err := openEngine(ctx, engineOptions{dir: t.data, table: t.table, flushInterval: -1, auth: true,
		analyticsTable: t.analyticsTable, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Store: eng.store, Analytics: eng.analytics, Auth: eng.auth, Trusted: true})
	if err != nil {
		_ = eng.Close()
		return nil, err
	}
	return &client{base: "http://data-folder", http: &http.Client{Transport: handlerTransport{srv}},
		close: eng.Close}, nil
}

// handlerTransport answers requests with a handler in this process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// apiError is an error answer of the server.
type apiError struct {
	Status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *apiError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("the server answered %d", e.Status)
	}
	return fmt.Sprintf("%s (%d %s)", e.Message, e.Status, e.Code)
}

// do sends a request and decodes a JSON answer into out (nil to discard
// it); an error answer is an *apiError.
func (c *client) do(ctx context.Context, method, path string, header http.Header, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		ae := &apiError{Status: resp.StatusCode}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(b, ae) != nil || ae.Message == "" {
			ae.Message = strings.TrimSpace(string(b))
		}
		return ae
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if w, ok := out.(io.Writer); ok {
		_, err = io.Copy(w, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func (c *client) getJSON(ctx context.Context, path string, q url.Values, out any) error {
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return c.do(ctx, http.MethodGet, path, nil, nil, out)
}

func (c *client) sendJSON(ctx context.Context, method, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return c.do(ctx, method, path, http.Header{"Content-Type": {"application/json"}}, bytes.NewReader(b), out)
}

// parseArgs parses flags anywhere among args (timetable latest SENSOR s1
// --server URL) and returns the positional arguments. A bad flag or -h
// prints usage and returns errUsage or flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// clientCommand is the frame of the commands that speak the series API:
// usage text, flags, the target, and the command's own run.
type clientCommand struct {
	name, usage    string
	stdout, stderr io.Writer
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet)
	// minArgs and maxArgs bound the positional arguments (-1: no bound).
	minArgs, maxArgs int
	// analytics adds --analytics-table: the command reads the web
	// analytics (of --data, that table).
	analytics bool
	run       func(ctx context.Context, c *client, args []string) error
}

func (cc *clientCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(cc.name, flag.ContinueOnError)
	fs.SetOutput(cc.stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), cc.usage)
		fmt.Fprint(fs.Output(), "\nFlags:\n")
		fs.PrintDefaults()
	}
	t := addTargetFlags(fs)
	if cc.analytics {
		fs.StringVar(&t.analyticsTable, "analytics-table", analytics.DefaultTable, "the table of the web analytics (with --data)")
	}
	if cc.flags != nil {
		cc.flags(fs)
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < cc.minArgs || (cc.maxArgs >= 0 && len(pos) > cc.maxArgs) {
		fmt.Fprintf(cc.stderr, "timetable %s: wrong number of arguments\n\n", cc.name)
		fs.Usage()
		return errUsage
	}
	c, err := t.connect(ctx)
	if err != nil {
		return err
	}
	runErr := cc.run(ctx, c, pos)
	if err := c.close(); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
