package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// The series-http part writes and reads the same readings through each
// server's HTTP API. A tsTarget is one server: how to start it, ready it
// for the ingest, merge what it ingested, and ask it for the latest
// reading and a range of one series. Every server gets the same line
// protocol, the same client and the same queries of the same series.
//
// The readings are those of kind tsKind with the fields tsFields, one
// series per value of the tag tsSeriesTag (docs/http-api.md's mapping for
// timetable; VictoriaMetrics makes a metric {measurement}_{field} of each
// field, labelled with the tags: three of its series per reading series).
const (
	tsKind      = "SENSOR"
	tsSeriesTag = "series"
)

var tsFields = []string{"f1", "f2", "f3"}

// errNoReading is Latest's error when the server has no reading of the
// series (yet).
var errNoReading = errors.New("no reading")

type tsTarget interface {
	// Name is the server's name in reports.
	Name() string
	// Start starts the server with its data in dataDir (empty, or left by
	// an earlier Start of the same target) and waits until it is ready.
	Start(ctx context.Context, dataDir string) (*peers.Server, error)
	// Prepare readies a fresh server for the ingest.
	Prepare(ctx context.Context, c *http.Client, endpoint string) error
	// WriteURL is the URL that takes line protocol with timestamps in
	// seconds.
	WriteURL(endpoint string) string
	// Flush asks the server to make every reading it acknowledged
	// written (and searchable), waits for that, and says what it asked.
	Flush(ctx context.Context, c *http.Client, endpoint string) (string, error)
	// Merge asks the server to merge what it has ingested into its final
	// form on disk, waits for that to finish, and says what it did.
	Merge(ctx context.Context, c *http.Client, endpoint string, timeout time.Duration) (string, error)
	// CacheDirs are the top-level folders of the data folder that hold
	// caches the server rebuilds by itself, not data: left out of the
	// bytes on disk.
	CacheDirs() []string
	// Latest returns the values (in tsFields order) of the newest reading
	// of series id, or errNoReading.
	Latest(ctx context.Context, c *http.Client, endpoint, id string) ([]float64, error)
	// Range returns how many readings series id has from from to to
	// (Unix milliseconds, both included) and the values of the first.
	Range(ctx context.Context, c *http.Client, endpoint, id string, from, to int64) (int, []float64, error)
}

// victoriaMetrics is the VictoriaMetrics single-node server, with its
// defaults.
type victoriaMetrics struct{ bin, logDir string }

func (v victoriaMetrics) Name() string { return "VictoriaMetrics" }

func (v victoriaMetrics) Start(ctx context.Context, dataDir string) (*peers.Server, error) {
	return peers.StartVictoriaMetrics(ctx, v.bin, dataDir, v.logDir)
}

// CacheDirs is the folder where VictoriaMetrics saves its in-memory
// caches at exit (and which it may lose: it rebuilds them).
func (v victoriaMetrics) CacheDirs() []string { return []string{"cache"} }

func (v victoriaMetrics) Prepare(context.Context, *http.Client, string) error { return nil }

func (v victoriaMetrics) WriteURL(endpoint string) string { return endpoint + "/write?precision=s" }

// vmFieldsMatch selects the three metrics of series id.
func vmFieldsMatch(id string) string {
	names := make([]string, len(tsFields))
	for i, f := range tsFields {
		names[i] = tsKind + "_" + f
	}
	return fmt.Sprintf(`{__name__=~%q,%s=%q}`, strings.Join(names, "|"), tsSeriesTag, id)
}

// vmField returns the index in tsFields of the metric name, or -1.
func vmField(metric string) int {
	f, ok := strings.CutPrefix(metric, tsKind+"_")
	if !ok {
		return -1
	}
	return slices.Index(tsFields, f)
}

// Merge flushes the in-memory rows to parts (/internal/force_flush), then
// starts a forced merge of every partition (/internal/force_merge, which
// runs in the background) and waits until vm_active_force_merges is 0.
func (v victoriaMetrics) Merge(ctx context.Context, c *http.Client, endpoint string, timeout time.Duration) (string, error) {
	for _, p := range []string{"/internal/force_flush", "/internal/force_merge"} {
		if _, err := httpGet(ctx, c, endpoint+p); err != nil {
			return "", err
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		// The merge starts in a goroutine: give it time to count itself.
		if err := sleepCtx(ctx, time.Second); err != nil {
			return "", err
		}
		body, err := httpGet(ctx, c, endpoint+"/metrics")
		if err != nil {
			return "", err
		}
		n, ok := promValue(body, "vm_active_force_merges")
		if !ok {
			return "", errors.New("no vm_active_force_merges in /metrics")
		}
		if n == 0 {
			return "/internal/force_flush, then /internal/force_merge until vm_active_force_merges is 0", nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("forced merge still running after %v", timeout)
		}
	}
}

// promValue returns the value of the unlabelled sample name in a
// Prometheus text exposition.
func promValue(body []byte, name string) (float64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return x, err == nil
		}
	}
	return 0, false
}

// Latest is an instant query (now) of last_over_time over a day, which
// holds the newest reading: VictoriaMetrics keeps no latest value apart,
// this is how its users ask for one. nocache=1 keeps its result cache out
// (timetable has none; every measured query is of another series anyway).
func (v victoriaMetrics) Latest(ctx context.Context, c *http.Client, endpoint, id string) ([]float64, error) {
	q := url.Values{
		"query":   {fmt.Sprintf("last_over_time(%s[1d]) keep_metric_names", vmFieldsMatch(id))},
		"nocache": {"1"},
	}
	body, err := httpGet(ctx, c, endpoint+"/api/v1/query?"+q.Encode())
	if err != nil {
		return nil, err
	}
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("cannot decode the answer of /api/v1/query: %w", err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("/api/v1/query: status %q", r.Status)
	}
	vals, seen := make([]float64, len(tsFields)), 0
	for _, s := range r.Data.Result {
		i := vmField(s.Metric["__name__"])
		str, ok := s.Value[1].(string)
		if i < 0 || !ok {
			return nil, fmt.Errorf("/api/v1/query: unexpected series %v", s.Metric)
		}
		x, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("/api/v1/query: value %q: %w", str, err)
		}
		vals[i] = x
		seen++
	}
	if seen == 0 {
		return nil, errNoReading
	}
	if seen != len(tsFields) {
		return nil, fmt.Errorf("/api/v1/query: %d series, want %d", seen, len(tsFields))
	}
	return vals, nil
}

// Range is /api/v1/export of the three metrics of the series: their raw
// samples, as JSON lines.
func (v victoriaMetrics) Range(ctx context.Context, c *http.Client, endpoint, id string, from, to int64) (int, []float64, error) {
	q := url.Values{
		"match[]": {vmFieldsMatch(id)},
		"start":   {strconv.FormatFloat(float64(from)/1000, 'f', 3, 64)},
		"end":     {strconv.FormatFloat(float64(to)/1000, 'f', 3, 64)},
	}
	body, err := httpGet(ctx, c, endpoint+"/api/v1/export?"+q.Encode())
	if err != nil {
		return 0, nil, err
	}
	counts := make([]int, len(tsFields))
	first, firstTS := make([]float64, len(tsFields)), make([]int64, len(tsFields))
	dec := json.NewDecoder(bytes.NewReader(body))
	for dec.More() {
		var line struct {
			Metric     map[string]string `json:"metric"`
			Values     []float64         `json:"values"`
			Timestamps []int64           `json:"timestamps"`
		}
		if err := dec.Decode(&line); err != nil {
			return 0, nil, fmt.Errorf("cannot decode the answer of /api/v1/export: %w", err)
		}
		i := vmField(line.Metric["__name__"])
		if i < 0 || len(line.Values) != len(line.Timestamps) {
			return 0, nil, fmt.Errorf("/api/v1/export: unexpected series %v", line.Metric)
		}
		for j, ts := range line.Timestamps {
			if counts[i] == 0 || ts < firstTS[i] {
				first[i], firstTS[i] = line.Values[j], ts
			}
			counts[i]++
		}
	}
	for i := range counts {
		if counts[i] != counts[0] || firstTS[i] != firstTS[0] {
			return 0, nil, fmt.Errorf("/api/v1/export: fields with different samples: %v", counts)
		}
	}
	return counts[0], first, nil
}

// timetableServe is `timetable serve` with the series API of
// docs/http-api.md.
type timetableServe struct {
	bin, logDir string
	args        []string // extra arguments: the address to listen on, --no-auth
}

func (t timetableServe) Name() string { return "timetable serve" }

func (t timetableServe) Start(ctx context.Context, dataDir string) (*peers.Server, error) {
	return peers.StartTimetableHTTP(ctx, t.bin, dataDir, t.logDir, t.args...)
}

// Prepare defines the kind: its fields, and the chunks layout (the one
// meant for this workload). The series tag names the series and is not
// also stored as a reading tag.
func (t timetableServe) Prepare(ctx context.Context, c *http.Client, endpoint string) error {
	schema, _ := json.Marshal(map[string]any{"name": tsKind, "fields": tsFields, "layout": "chunks"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/api/v1/kinds", bytes.NewReader(schema))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	_, err = do(c, req, http.StatusCreated)
	return err
}

func (t timetableServe) CacheDirs() []string { return nil }

func (t timetableServe) WriteURL(endpoint string) string { return endpoint + "/write?precision=s" }

// Merge does nothing: the API has no request for it. The caller waits
// until the server is idle and stops it cleanly (which flushes) before it
// measures the folder.
func (t timetableServe) Merge(context.Context, *http.Client, string, time.Duration) (string, error) {
	return "nothing asked (the series API has no merge or compaction request)", nil
}

type ttReading struct {
	Series string             `json:"series"`
	Values map[string]float64 `json:"values"`
}

func (r ttReading) values() []float64 {
	vals := make([]float64, len(tsFields))
	for i, f := range tsFields {
		vals[i] = r.Values[f]
	}
	return vals
}

func (t timetableServe) seriesURL(endpoint, id string) string {
	return endpoint + "/api/v1/kinds/" + tsKind + "/series/" + url.PathEscape(id)
}

func (t timetableServe) Latest(ctx context.Context, c *http.Client, endpoint, id string) ([]float64, error) {
	body, err := httpGet(ctx, c, t.seriesURL(endpoint, id)+"/latest")
	var se *statusError
	if errors.As(err, &se) && se.status == http.StatusNotFound {
		return nil, fmt.Errorf("%w: %v", errNoReading, err)
	}
	if err != nil {
		return nil, err
	}
	var r ttReading
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("cannot decode the answer of latest: %w", err)
	}
	if r.Series != id || len(r.Values) != len(tsFields) {
		return nil, fmt.Errorf("latest of %s: unexpected reading %+v", id, r)
	}
	return r.values(), nil
}

// Range reads the readings oldest first, page after page (the server's
// default page size), until no cursor is left. to is sent plus 1 ms so
// that the answer is the same whether the server takes it as included or
// excluded (the readings are whole seconds).
func (t timetableServe) Range(ctx context.Context, c *http.Client, endpoint, id string, from, to int64) (int, []float64, error) {
	q := url.Values{"from": {strconv.FormatInt(from, 10)}, "to": {strconv.FormatInt(to+1, 10)}, "order": {"asc"}}
	var first []float64
	n := 0
	for page := 0; ; page++ {
		body, err := httpGet(ctx, c, t.seriesURL(endpoint, id)+"/readings?"+q.Encode())
		if err != nil {
			return 0, nil, err
		}
		var r struct {
			Readings []ttReading `json:"readings"`
			Cursor   string      `json:"cursor"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return 0, nil, fmt.Errorf("cannot decode the answer of readings: %w", err)
		}
		if n == 0 && len(r.Readings) > 0 {
			first = r.Readings[0].values()
		}
		n += len(r.Readings)
		if r.Cursor == "" {
			return n, first, nil
		}
		if page > 100000 {
			return 0, nil, errors.New("readings: more than 100000 pages")
		}
		q.Set("cursor", r.Cursor)
	}
}

// httpGet GETs url and returns the body of a 200 answer.
func httpGet(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return do(c, req, http.StatusOK)
}

// do sends req and returns the body of the answer, or an error naming the
// status and the start of the body if the status is not want (any 2xx
// when want is 0).
func do(c *http.Client, req *http.Request, want int) ([]byte, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	if (want == 0 && resp.StatusCode/100 != 2) || (want != 0 && resp.StatusCode != want) {
		if len(body) > 300 {
			body = body[:300]
		}
		return nil, &statusError{fmt.Sprintf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(body)), resp.StatusCode}
	}
	return body, nil
}

// statusError is do's error for an answer with an unexpected status.
type statusError struct {
	msg    string
	status int
}

func (e *statusError) Error() string { return e.msg }

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
