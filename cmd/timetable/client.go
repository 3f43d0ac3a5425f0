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
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
)

// target is where a client command sends its requests: a server (--server
// with a token), or a data folder (--data) or backend (--backend) opened in
// this process, served by the same handler in memory, so all ways behave
// alike.
type target struct {
	server, token, data, backend, table, authTable string
	// analyticsTable, if set, opens the web analytics of the data too.
	analyticsTable string
	// tokens opens the token store on a remote backend (its auth table,
	// created if missing); on a data folder it is always open.
	tokens bool
	// fs is the command's flag set, to tell the flags given from their
	// defaults.
	fs *flag.FlagSet
}

// addTargetFlags registers --server, --token, --data, --backend, --table
// and --auth-table.
func addTargetFlags(fs *flag.FlagSet) *target {
	t := &target{fs: fs}
	fs.StringVar(&t.server, "server", os.Getenv("TIMETABLE_SERVER"), "URL of a timetable server (default $TIMETABLE_SERVER); without it, --backend or --data is opened")
	fs.StringVar(&t.token, "token", "", "API token for --server (default $TIMETABLE_TOKEN)")
	fs.StringVar(&t.data, "data", defaultDataDir, "data folder to open when no --server or --backend is given (not while a server holds it)")
	fs.StringVar(&t.backend, "backend", "", "the backend to open instead of --data: file:DIR, mem:, http(s)://HOST:PORT (DynamoDB Local, ScyllaDB Alternator, a timetable serve's DynamoDB endpoint) or dynamodb://REGION; credentials and region from the AWS default chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...). Writes are acknowledged once in the backend")
	fs.StringVar(&t.table, "table", series.DefaultTable, "the table of the time series (with --data or --backend)")
	fs.StringVar(&t.authTable, "auth-table", auth.DefaultTable, "the table of tokens and access keys (with --data: in the folder's auth engine; with --backend: in the backend)")
	return t
}

// client speaks the series API of a target.
type client struct {
	base  string
	token string
	http  *http.Client
	close func() error
}

// connect opens the target: for --data or --backend, the data and an
// in-process server without authentication. On a remote backend the
// in-process server answers a write once its readings are in the backend:
// the command keeps nothing locally.
func (t *target) connect(ctx context.Context) (*client, error) {
	set := flagsGiven(t.fs)
	if t.backend != "" && set["server"] {
		return nil, errors.New("--server and --backend both name where the data is: give one")
	}
	if t.server != "" && t.backend == "" {
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
	st, err := parseStorage(t.data, set["data"], t.backend, false)
	if err != nil {
		return nil, err
	}
	eng, err := openEngine(ctx, engineOptions{storage: st, table: t.table, flushInterval: -1, auth: st.remote == "" || t.tokens, authTable: t.authTable,
		analyticsTable: t.analyticsTable, rebuildRealtime: st.remote == "", logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Store: eng.store, Analytics: eng.analytics, Auth: eng.auth, Trusted: true,
		SyncWrites: st.remote != ""})
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
		if err := parseFlags(fs, args); err != nil {
			return nil, err
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

// newFlagSet returns the flag set of the command name: its errors go to
// stderr, and its help is usage followed by the flags' defaults.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs: flag.ErrHelp for -h, errUsage for a
// bad flag (fs has said which).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
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
	// tokens: the command makes, lists or revokes tokens and keys (on a
	// remote backend, only such a command opens its auth table).
	tokens bool
	run    func(ctx context.Context, c *client, args []string) error
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
	t.tokens = cc.tokens
	if cc.analytics {
		fs.StringVar(&t.analyticsTable, "analytics-table", analytics.DefaultTable, "the table of the web analytics (with --data or --backend)")
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
