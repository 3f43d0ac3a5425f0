package main

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"
)

// The prometheus part's load: the samples of two metrics as a Prometheus
// server would remote-write them, and the parsing of query_range answers.

// The metrics of the prometheus part: a counter of 1,000 series (by
// default) read as rate over a day, and a gauge of 10,000 series read as
// a sum by zone over an hour.
const (
	promCounter = "bench_requests_total"
	promGauge   = "bench_cpu_usage"
)

// rwSeries is one series of the load: its labels (sorted by name, as
// Prometheus sends them, __name__ first), n samples step milliseconds
// apart from start, counter or gauge values.
type rwSeries struct {
	labels  []prompb.Label
	start   int64 // Unix milliseconds of the first sample
	step    int64 // milliseconds
	n       int
	counter bool
	rng     *rand.Rand
	val     float64
	sent    int // samples made so far
}

// next returns the series' next sample and advances it. A counter grows
// by a whole number from 0 to 99 each step; a gauge walks with two
// decimals between 0 and 100.
func (s *rwSeries) next() prompb.Sample {
	if s.counter {
		s.val += float64(s.rng.IntN(100))
	} else {
		s.val = math.Round(min(100, max(0, s.val+s.rng.NormFloat64()))*100) / 100
	}
	ts := s.start + int64(s.sent)*s.step
	s.sent++
	return prompb.Sample{Value: s.val, Timestamp: ts}
}

// promLoad is the shape of the load: c.counters series of promCounter
// over counterSpan, one sample every counterStep, and c.gauges series of
// promGauge over gaugeSpan, every gaugeStep, both ending at end.
type promLoad struct {
	counters                 int
	counterSpan, counterStep time.Duration
	gauges, zones            int
	gaugeSpan, gaugeStep     time.Duration
}

// samples returns the number of samples of the load.
func (l promLoad) samples() int64 {
	return int64(l.counters)*int64(l.counterSpan/l.counterStep) + int64(l.gauges)*int64(l.gaugeSpan/l.gaugeStep)
}

// promSeries returns the series of the load, the counters first, the
// last sample of each at end (milliseconds). Values are the same for the
// same arguments. The counter's labels are instance and job; the gauge's
// cpu (0 to 9), instance (one per ten series), job and zone (instance
// modulo zones).
func promSeries(l promLoad, end int64) []*rwSeries {
	var out []*rwSeries
	add := func(i int, labels []prompb.Label, span, step time.Duration, counter bool) {
		n := int(span / step)
		st := step.Milliseconds()
		s := &rwSeries{labels: labels, start: end - int64(n-1)*st, step: st, n: n, counter: counter,
			rng: rand.New(rand.NewPCG(uint64(i), 24))}
		if !counter {
			s.val = float64(s.rng.IntN(100))
		}
		out = append(out, s)
	}
	for i := range l.counters {
		add(i, []prompb.Label{
			{Name: "__name__", Value: promCounter},
			{Name: "instance", Value: fmt.Sprintf("host-%04d:9100", i)},
			{Name: "job", Value: "api"},
		}, l.counterSpan, l.counterStep, true)
	}
	for i := range l.gauges {
		host := i / 10
		add(l.counters+i, []prompb.Label{
			{Name: "__name__", Value: promGauge},
			{Name: "cpu", Value: strconv.Itoa(i % 10)},
			{Name: "instance", Value: fmt.Sprintf("host-%04d:9100", host)},
			{Name: "job", Value: "node"},
			{Name: "zone", Value: fmt.Sprintf("zone-%d", host%max(l.zones, 1))},
		}, l.gaugeSpan, l.gaugeStep, false)
	}
	return out
}

// byNext orders series by the time of their next sample, then by their
// place in the shard: a heap for the merge of buildShard.
type byNext []*rwSeries

func (h byNext) Len() int { return len(h) }
func (h byNext) Less(i, j int) bool {
	ti, tj := h[i].start+int64(h[i].sent)*h[i].step, h[j].start+int64(h[j].sent)*h[j].step
	return ti < tj
}
func (h byNext) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *byNext) Push(x any)   { *h = append(*h, x.(*rwSeries)) }
func (h *byNext) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// buildShard returns the remote-write 1.0 request bodies (snappy-
// compressed prometheus.WriteRequest) of series, as a Prometheus shard
// sends them: samples in time order across the series, batch samples per
// request, each sample a TimeSeries of its own with its series' labels
// (how Prometheus' queue manager builds a 1.0 request), the last request
// shorter. It consumes the series' samples.
func buildShard(series []*rwSeries, batch int) ([][]byte, error) {
	if batch <= 0 {
		return nil, fmt.Errorf("batch %d: want at least 1 sample per request", batch)
	}
	h := byNext{}
	for _, s := range series {
		if s.sent < s.n {
			h = append(h, s)
		}
	}
	heap.Init(&h)
	var bodies [][]byte
	req := prompb.WriteRequest{Timeseries: make([]prompb.TimeSeries, 0, batch)}
	flush := func() error {
		if len(req.Timeseries) == 0 {
			return nil
		}
		raw, err := req.Marshal()
		if err != nil {
			return err
		}
		bodies = append(bodies, snappy.Encode(nil, raw))
		req.Timeseries = req.Timeseries[:0]
		return nil
	}
	for h.Len() > 0 {
		s := h[0]
		req.Timeseries = append(req.Timeseries, prompb.TimeSeries{Labels: s.labels, Samples: []prompb.Sample{s.next()}})
		if s.sent == s.n {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
		if len(req.Timeseries) == batch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return bodies, nil
}

// buildShards splits series among shards senders as Prometheus does (a
// series always to the same shard; here series i to shard i modulo
// shards) and builds each shard's requests.
func buildShards(series []*rwSeries, shards, batch int) ([][][]byte, error) {
	if shards <= 0 {
		return nil, fmt.Errorf("shards %d: want at least 1", shards)
	}
	parts := make([][]*rwSeries, shards)
	for i, s := range series {
		parts[i%shards] = append(parts[i%shards], s)
	}
	out := make([][][]byte, shards)
	for i, p := range parts {
		var err error
		if out[i], err = buildShard(p, batch); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// postRemoteWrite sends one remote-write 1.0 request with the headers
// Prometheus sends; any 2xx is success.
func postRemoteWrite(ctx context.Context, c *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	req.Header.Set("User-Agent", "Prometheus/2.42.0")
	_, err = do(c, req, 0)
	return err
}

// sendShards sends each shard's requests in order, the shards at once,
// each waiting for an answer before its next request; it returns once
// every shard is done, with the first error.
func sendShards(ctx context.Context, c *http.Client, url string, shards [][][]byte) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, bodies := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range bodies {
				if ctx.Err() != nil {
					return
				}
				if err := postRemoteWrite(ctx, c, url, b); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}

// promQuery is one query_range of the part.
type promQuery struct {
	name       string // in reports
	expr       string
	start, end int64 // Unix seconds
	step       time.Duration
	series     int // the series the answer must have
}

// values returns the query string of q. nocache=1 keeps
// VictoriaMetrics' result cache out (the others ignore it).
func (q promQuery) values() url.Values {
	return url.Values{
		"query":   {q.expr},
		"start":   {strconv.FormatInt(q.start, 10)},
		"end":     {strconv.FormatInt(q.end, 10)},
		"step":    {strconv.FormatFloat(q.step.Seconds(), 'f', -1, 64)},
		"nocache": {"1"},
	}
}

// promMatrix is a query_range answer: each series' samples by Unix
// millisecond, keyed by its label set written "k=v,k=v" sorted.
type promMatrix map[string]map[int64]float64

// points returns the samples of all series of m.
func (m promMatrix) points() int {
	n := 0
	for _, s := range m {
		n += len(s)
	}
	return n
}

// parseMatrix decodes a query_range answer of Prometheus' HTTP API.
func parseMatrix(body []byte) (promMatrix, error) {
	var r struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("cannot decode the answer of query_range: %w", err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("query_range: status %q: %s: %s", r.Status, r.ErrorType, r.Error)
	}
	if r.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("query_range: result type %q, want matrix", r.Data.ResultType)
	}
	m := promMatrix{}
	for _, s := range r.Data.Result {
		key := labelKey(s.Metric)
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("query_range: series %s twice", key)
		}
		pts := make(map[int64]float64, len(s.Values))
		for _, v := range s.Values {
			ts, ok := v[0].(float64)
			str, ok2 := v[1].(string)
			if !ok || !ok2 {
				return nil, fmt.Errorf("query_range: series %s: sample %v is not [time, \"value\"]", key, v)
			}
			x, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return nil, fmt.Errorf("query_range: series %s: value %q: %w", key, str, err)
			}
			pts[int64(math.Round(ts*1000))] = x
		}
		m[key] = pts
	}
	return m, nil
}

// labelKey writes a label set "k=v,k=v", sorted by name.
func labelKey(ls map[string]string) string {
	names := make([]string, 0, len(ls))
	for n := range ls {
		names = append(names, n)
	}
	sort.Strings(names)
	var sb strings.Builder
	for i, n := range names {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(n + "=" + ls[n])
	}
	return sb.String()
}

// matrixDiff compares b with a: the samples at the same series and time
// in both, the largest relative difference of their values
// (|a-b|/max(|a|,|b|), 0 when both are 0), and the samples only one has.
type matrixDiff struct {
	common, onlyA, onlyB int
	maxRel               float64
}

func diffMatrix(a, b promMatrix) matrixDiff {
	var d matrixDiff
	for key, sa := range a {
		sb := b[key]
		for ts, x := range sa {
			y, ok := sb[ts]
			if !ok {
				d.onlyA++
				continue
			}
			d.common++
			if den := max(math.Abs(x), math.Abs(y)); den > 0 {
				d.maxRel = max(d.maxRel, math.Abs(x-y)/den)
			}
		}
	}
	d.onlyB = b.points() - d.common
	return d
}
