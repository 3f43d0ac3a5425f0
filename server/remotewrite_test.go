package server_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/client_golang/exp/api/remote"
	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/timetable-db/timetable/server"
)

// staleNaN is Prometheus' staleness marker.
var staleNaN = math.Float64frombits(0x7ff0000000000002)

// promAPI returns the remote-write client of Prometheus' own library for
// e's server, without retries.
func promAPI(t *testing.T, e *env) *remote.API {
	t.Helper()
	api, err := remote.NewAPI(e.http.URL, remote.WithAPIPath("api/v1/write"), remote.WithAPIHTTPClient(e.http.Client()),
		remote.WithAPIBackoff(remote.BackoffConfig{Min: time.Millisecond, Max: time.Millisecond, MaxRetries: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// reading is a reading of the series API.
type reading struct {
	Time   time.Time
	Values map[string]*float64
	Tags   map[string]string
}

// readings reads back every reading of a series from t0 on.
func (e *env) readings(kind, id string) []reading {
	e.t.Helper()
	var page struct{ Readings []reading }
	e.get(fmt.Sprintf("/api/v1/kinds/%s/series/%s/readings?from=%d", kind, url.PathEscape(id), ms(t0))).must(e.t, http.StatusOK).json(e.t, &page)
	return page.Readings
}

// wantValues checks the "value" field of a series' readings, one per
// second from t0.
func (e *env) wantValues(kind, id string, want []float64, tags map[string]string) {
	e.t.Helper()
	got := e.readings(kind, id)
	if len(got) != len(want) {
		e.t.Fatalf("%s %s: %d readings, want %d: %+v", kind, id, len(got), len(want), got)
	}
	for i, r := range got {
		if v := r.Values["value"]; v == nil || *v != want[i] || !r.Time.Equal(t0.Add(time.Duration(i)*time.Second)) {
			e.t.Fatalf("%s %s reading %d: %+v, want %v at %v", kind, id, i, r, want[i], t0.Add(time.Duration(i)*time.Second))
		}
		for k, v := range tags {
			if r.Tags[k] != v {
				e.t.Fatalf("%s %s reading %d: tags %v, want %v", kind, id, i, r.Tags, tags)
			}
		}
	}
}

// TestRemoteWrite_V2 writes remote write 2.0 with Prometheus' client
// library: the samples read back through the series API, the kind is
// defined with the metadata sent, and the answer's headers count what was
// written (the library reads them). A retry changes nothing.
func TestRemoteWrite_V2(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	st := writev2.NewSymbolTable()
	var req writev2.Request
	for _, s := range []struct {
		labels []string
		vals   []float64
	}{
		{[]string{"__name__", "http_requests_total", "job", "api", "code", "200"}, []float64{1, 2, 3}},
		{[]string{"__name__", "http_requests_total", "job", "api", "code", "500", "pk", "x", "__meta", "m"}, []float64{7}},
		{[]string{"__name__", "job:up:sum"}, []float64{1, 0, staleNaN}},
	} {
		ts := &writev2.TimeSeries{LabelsRefs: st.SymbolizeLabels(s.labels, nil),
			Metadata: &writev2.Metadata{Type: writev2.Metadata_METRIC_TYPE_COUNTER, HelpRef: st.Symbolize("Requests."), UnitRef: st.Symbolize("requests")}}
		for i, v := range s.vals {
			ts.Samples = append(ts.Samples, &writev2.Sample{Value: v, Timestamp: ms(t0.Add(time.Duration(i) * time.Second))})
		}
		req.Timeseries = append(req.Timeseries, ts)
	}
	req.Symbols = st.Symbols()
	for range 2 { // the second is a retry
		stats, err := promAPI(t, e).Write(ctx, remote.WriteV2MessageType, &req)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Samples != 7 || stats.Histograms != 0 || stats.Exemplars != 0 || stats.NoDataWritten() {
			t.Fatalf("stats %+v, want 6 samples", stats)
		}
	}
	e.wantValues("http_requests_total", "code=200,job=api", []float64{1, 2, 3}, map[string]string{"code": "200", "job": "api"})
	e.wantValues("http_requests_total", "__meta=m,code=500,job=api,pk=x", []float64{7}, map[string]string{"~__meta": "m", "~pk": "x", "code": "500"})
	// A staleness marker is a reading whose value is absent.
	got := e.readings("job.up.sum", "_")
	if len(got) != 3 || got[2].Values["value"] != nil || !got[2].Time.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("job.up.sum: %+v", got)
	}
	k, err := e.store.Kind("http_requests_total")
	if err != nil {
		t.Fatal(err)
	}
	if sc := k.Schema(); !slices.Equal(sc.Fields, []string{"value"}) || sc.Meta.Type != "counter" || sc.Meta.Help != "Requests." || sc.Meta.Unit != "requests" {
		t.Fatalf("schema %+v", sc)
	}
}

// TestRemoteWrite_V1 writes remote write 1.0, encoded as prompb does, with
// Prometheus' client library, metadata in a request of its own as
// Prometheus sends it.
func TestRemoteWrite_V1(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	req := v1Request{series: []v1Series{
		{labels: []string{"__name__", "node_load1", "instance", "a:9100", "empty", ""}, vals: []float64{0.5, 0.25}},
		{labels: []string{"instance", "b:9100", "__name__", "node_load1"}, vals: []float64{2}},
	}}
	if _, err := promAPI(t, e).Write(ctx, remote.WriteV1MessageType, &req); err != nil {
		t.Fatal(err)
	}
	e.wantValues("node_load1", "instance=a:9100", []float64{0.5, 0.25}, map[string]string{"instance": "a:9100"})
	e.wantValues("node_load1", "instance=b:9100", []float64{2}, map[string]string{"instance": "b:9100"})
	k, err := e.store.Kind("node_load1")
	if err != nil {
		t.Fatal(err)
	}
	if sc := k.Schema(); !slices.Equal(sc.Tags, []string{"instance"}) {
		t.Fatalf("tags %v: an empty label is no tag", sc.Tags)
	}
	meta := v1Request{meta: []v1Meta{{typ: 2, family: "node_load1", help: "1m load average.", unit: ""}, {typ: 1, family: "never_written"}}}
	if _, err := promAPI(t, e).Write(ctx, remote.WriteV1MessageType, &meta); err != nil {
		t.Fatal(err)
	}
	if sc := k.Schema(); sc.Meta.Type != "gauge" || sc.Meta.Help != "1m load average." {
		t.Fatalf("meta %+v", sc.Meta)
	}
	if _, err := e.store.Kind("never_written"); err == nil {
		t.Fatal("metadata alone defined a kind")
	}
}

// TestRemoteWrite_Refused: content negotiation, hostile and bad bodies.
func TestRemoteWrite_Refused(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) {
		c.MaxInflatedBytes = 1 << 20
		c.KindLimits.MaxTags = 3
	}})
	good := v1Request{series: []v1Series{{labels: []string{"__name__", "up"}, vals: []float64{1}}}}
	post := func(body []byte, ctype string, header ...string) answer {
		return e.do(http.MethodPost, "/api/v1/write", ctype, bytes.NewReader(body), append([]string{"Content-Encoding", "snappy"}, header...)...)
	}
	pb := "application/x-protobuf"
	enc := func(r v1Request) []byte { return snappy.Encode(nil, r.marshal()) }
	post(enc(good), pb+";proto=io.prometheus.write.v3.Request").must(t, http.StatusUnsupportedMediaType)
	post(enc(good), pb, "Content-Encoding", "zstd").must(t, http.StatusUnsupportedMediaType)
	// 2.0 refused: the headers say nothing was written.
	if a := post(snappy.Encode(nil, []byte{0xff}), pb+";proto=io.prometheus.write.v2.Request").must(t, http.StatusBadRequest); a.header.Get("X-Prometheus-Remote-Write-Samples-Written") != "0" {
		t.Fatalf("headers %v", a.header)
	}
	// A snappy bomb: a small body announcing 64 MB is refused before it
	// is inflated; so is one inflating past the limit.
	bomb := protowire.AppendVarint(nil, 64<<20)
	bomb = append(bomb, 0)
	post(bomb, pb).must(t, http.StatusRequestEntityTooLarge)
	post(snappy.Encode(nil, make([]byte, 2<<20)), pb).must(t, http.StatusRequestEntityTooLarge)
	post([]byte("not snappy at all"), pb).must(t, http.StatusBadRequest)
	post(snappy.Encode(nil, []byte("\x0a\xff\xff")), pb).must(t, http.StatusBadRequest)
	// A series without a name, a name series cannot take, a native
	// histogram that cannot be mapped (a count of 1, no bucket).
	for _, r := range []v1Request{
		{series: []v1Series{{labels: []string{"job", "x"}, vals: []float64{1}}}},
		{series: []v1Series{{labels: []string{"__name__", "bad-name"}, vals: []float64{1}}}},
		{series: []v1Series{{labels: []string{"__name__", "h"}, vals: []float64{1}, hists: []*writev2.Histogram{{Count: &writev2.Histogram_CountInt{CountInt: 1}}}}}},
		{series: []v1Series{{labels: []string{"__name__", "dup", "a", "1", "a", "2"}, vals: []float64{1}}}},
	} {
		post(enc(r), pb).must(t, http.StatusBadRequest)
	}
	// A huge label set: refused by the cap on tags, naming it; nothing is
	// written, nor the kind defined.
	var labels []string
	for i := range 2000 {
		labels = append(labels, fmt.Sprintf("l%04d", i), "v")
	}
	big := v1Request{series: []v1Series{{labels: append([]string{"__name__", "wide"}, labels...), vals: []float64{1}}}}
	if a := post(enc(big), pb).must(t, http.StatusBadRequest); !strings.Contains(string(a.body), "more than 1025 labels") {
		t.Fatalf("huge label set: %s", a.body)
	}
	wide := v1Request{series: []v1Series{{labels: append([]string{"__name__", "wide"}, labels[:8]...), vals: []float64{1}}}}
	if a := post(enc(wide), pb).must(t, http.StatusBadRequest); !strings.Contains(string(a.body), "--max-tags") {
		t.Fatalf("over the cap on tags: %s", a.body)
	}
	if _, err := e.store.Kind("wide"); err == nil {
		t.Fatal("a refused write defined its kind")
	}
	post(enc(good), pb).must(t, http.StatusNoContent)
}

// TestLineProtocol_OpenKinds: Telegraf's line protocol without a kind
// defined, tags growing, caps named, a dropped tag refused.
func TestLineProtocol_OpenKinds(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) {
		c.KindLimits = server.Config{}.KindLimits
		c.KindLimits.MaxFields = 2
		c.KindLimits.MaxKinds = 2
	}})
	sec := t0.Unix()
	e.post("/write?precision=s", "text/plain", fmt.Sprintf("cpu,host=a usage_idle=98.1 %d\n", sec)).must(t, http.StatusNoContent)
	// A new tag and a new field: the kind grows; a string field is a tag.
	e.post("/api/v2/write?precision=s", "text/plain", fmt.Sprintf("cpu,host=a,dc=x usage_idle=97,usage_user=1i,state=\"ok\" %d\n", sec+1)).must(t, http.StatusNoContent)
	sc := mustSchema(t, e, "cpu")
	if !slices.Equal(sc.Fields, []string{"usage_idle", "usage_user"}) || !slices.Equal(sc.Tags, []string{"host", "dc", "state"}) {
		t.Fatalf("cpu: fields %v tags %v", sc.Fields, sc.Tags)
	}
	got := e.readings("cpu", "host=a")
	if len(got) != 1 || *got[0].Values["usage_idle"] != 98.1 || got[0].Tags["host"] != "a" {
		t.Fatalf("host=a: %+v", got)
	}
	got = e.readings("cpu", "dc=x,host=a")
	if len(got) != 1 || *got[0].Values["usage_user"] != 1 || got[0].Tags["state"] != "ok" || got[0].Tags["dc"] != "x" {
		t.Fatalf("dc=x,host=a: %+v", got)
	}
	// Caps, named; nothing of the body written.
	body := fmt.Sprintf("cpu,host=b usage_idle=1 %d\ncpu,host=b usage_system=2 %d\n", sec, sec)
	if a := e.post("/write?precision=s", "text/plain", body).must(t, http.StatusBadRequest); !strings.Contains(string(a.body), "--max-fields") || !strings.Contains(string(a.body), "line 2") {
		t.Fatalf("over the cap on fields: %s", a.body)
	}
	if got := e.readings("cpu", "host=b"); len(got) != 0 {
		t.Fatalf("refused body written: %+v", got)
	}
	e.post("/write", "text/plain", "mem used=1\n").must(t, http.StatusNoContent)
	if a := e.post("/write", "text/plain", "disk used=1\n").must(t, http.StatusBadRequest); !strings.Contains(string(a.body), "--max-kinds") {
		t.Fatalf("over the cap on kinds: %s", a.body)
	}
}

// TestLineProtocol_NoAutoKinds: with open kinds off, unknown kinds, fields
// and tags are refused as before, and a tag that would be lost too.
func TestLineProtocol_NoAutoKinds(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.NoAutoKinds = true }})
	e.defineSensor()
	e.post("/write", "text/plain", "cpu,host=a usage_idle=98.1\n").must(t, http.StatusBadRequest)
	e.post("/write", "text/plain", "SENSOR,series=a nosuch=1\n").must(t, http.StatusBadRequest)
	if a := e.post("/write", "text/plain", "SENSOR,series=a,room=1 temperature=1\n").must(t, http.StatusBadRequest); !strings.Contains(string(a.body), `room`) {
		t.Fatalf("a tag lost: %s", a.body)
	}
	// Without a "series" tag the tags are the series id: kept.
	e.post("/write", "text/plain", "SENSOR,room=1 temperature=1\n").must(t, http.StatusNoContent)
	pb := v1Request{series: []v1Series{{labels: []string{"__name__", "up"}, vals: []float64{1}}}}
	e.do(http.MethodPost, "/api/v1/write", "application/x-protobuf", bytes.NewReader(snappy.Encode(nil, pb.marshal())), "Content-Encoding", "snappy").must(t, http.StatusBadRequest)
	if _, err := e.store.Kind("cpu"); err == nil {
		t.Fatal("kind defined with --no-auto-kinds")
	}
}

// TestOpenKinds_ConcurrentFirstWrites: many requests write a new kind at
// once, each with a field and a tag of its own: the kind is defined once
// with all of them, and every reading is there.
func TestOpenKinds_ConcurrentFirstWrites(t *testing.T) {
	e := newEnv(t, envOptions{})
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			var a answer
			if i%2 == 0 {
				line := fmt.Sprintf("burst,t%02d=x f%02d=%d,shared=1 %d\n", i, i, i, ms(t0))
				req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/write?precision=ms", strings.NewReader(line))
				a = send(e, req)
			} else {
				r := v1Request{series: []v1Series{{labels: []string{"__name__", "burst", fmt.Sprintf("t%02d", i), "x"}, vals: []float64{float64(i)}}}}
				req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/api/v1/write", bytes.NewReader(snappy.Encode(nil, r.marshal())))
				req.Header.Set("Content-Type", "application/x-protobuf")
				req.Header.Set("Content-Encoding", "snappy")
				a = send(e, req)
			}
			if a.status != http.StatusNoContent {
				errs <- fmt.Sprintf("request %d: %d %s", i, a.status, a.body)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	sc := mustSchema(t, e, "burst")
	for i := range n {
		tag := fmt.Sprintf("t%02d", i)
		if !slices.Contains(sc.Tags, tag) || i%2 == 0 && !slices.Contains(sc.Fields, fmt.Sprintf("f%02d", i)) {
			t.Fatalf("request %d's names lost: fields %v, tags %v", i, sc.Fields, sc.Tags)
		}
		if got := e.readings("burst", tag+"=x"); len(got) != 1 {
			t.Fatalf("series %s: %+v", tag, got)
		}
	}
	if len(sc.Fields) != n/2+2 || len(sc.Tags) != n {
		t.Fatalf("fields %v, tags %v", sc.Fields, sc.Tags)
	}
}

// send does req, reading the answer whole.
func send(e *env, req *http.Request) answer {
	resp, err := e.http.Client().Do(req)
	if err != nil {
		return answer{status: 0, body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return answer{resp.StatusCode, resp.Header, b.Bytes()}
}

// schemaView is the kind's schema as the API shows it.
type schemaView struct {
	Fields, Tags []string
}

func mustSchema(t *testing.T, e *env, kind string) schemaView {
	t.Helper()
	var sc schemaView
	e.get("/api/v1/kinds/"+kind).must(t, http.StatusOK).json(t, &sc)
	return sc
}

// v1Request is a remote write 1.0 prometheus.WriteRequest, encoded as
// prompb encodes it, and marshalled the way the client library takes a
// gogo-protobuf message.
type v1Request struct {
	series []v1Series
	meta   []v1Meta
}

type v1Series struct {
	labels []string // name, value, ...
	vals   []float64
	hists  []*writev2.Histogram // native histograms (1.0's has the fields of 2.0's)
}

type v1Meta struct {
	typ                uint64
	family, help, unit string
}

func (r *v1Request) marshal() []byte {
	var b []byte
	for _, s := range r.series {
		var ts []byte
		for j := 0; j+1 < len(s.labels); j += 2 {
			var l []byte
			l = protowire.AppendTag(l, 1, protowire.BytesType)
			l = protowire.AppendString(l, s.labels[j])
			l = protowire.AppendTag(l, 2, protowire.BytesType)
			l = protowire.AppendString(l, s.labels[j+1])
			ts = protowire.AppendTag(ts, 1, protowire.BytesType)
			ts = protowire.AppendBytes(ts, l)
		}
		for k, v := range s.vals {
			var sm []byte
			sm = protowire.AppendTag(sm, 1, protowire.Fixed64Type)
			sm = protowire.AppendFixed64(sm, math.Float64bits(v))
			sm = protowire.AppendTag(sm, 2, protowire.VarintType)
			sm = protowire.AppendVarint(sm, uint64(ms(t0.Add(time.Duration(k)*time.Second))))
			ts = protowire.AppendTag(ts, 2, protowire.BytesType)
			ts = protowire.AppendBytes(ts, sm)
		}
		for _, h := range s.hists {
			hb, err := proto.Marshal(h)
			if err != nil {
				panic(err)
			}
			ts = protowire.AppendTag(ts, 4, protowire.BytesType)
			ts = protowire.AppendBytes(ts, hb)
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, ts)
	}
	for _, m := range r.meta {
		var mb []byte
		mb = protowire.AppendTag(mb, 1, protowire.VarintType)
		mb = protowire.AppendVarint(mb, m.typ)
		for _, f := range []struct {
			n protowire.Number
			s string
		}{{2, m.family}, {4, m.help}, {5, m.unit}} {
			mb = protowire.AppendTag(mb, f.n, protowire.BytesType)
			mb = protowire.AppendString(mb, f.s)
		}
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, mb)
	}
	return b
}

func (r *v1Request) Size() int { return len(r.marshal()) }

func (r *v1Request) MarshalToSizedBuffer(dst []byte) (int, error) {
	return copy(dst, r.marshal()), nil
}
