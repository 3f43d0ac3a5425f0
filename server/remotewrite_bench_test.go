package server_test

import (
	"bytes"
	"container/heap"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
)

// rwLoad is the load of the bench module's prometheus part: counters
// series of a counter, one sample a minute over counterSpan, and gauges
// series of a gauge (labels cpu, instance, job, zone), one sample every
// 15 s over gaugeSpan, both ending at end; remote write 1.0 requests of
// batch samples, one TimeSeries with its labels per sample (as
// Prometheus' queue manager sends them), the series split among shards
// senders, each sending its samples in time order. With v2 the requests
// are remote write 2.0's, the same series and samples: a symbol table
// per request, one TimeSeries of label references per sample.
type rwLoad struct {
	counters, gauges       int
	counterSpan, gaugeSpan time.Duration
	batch, shards          int
	v2                     bool
	end                    time.Time
	samples                int
	bytes                  int        // of the requests, compressed
	requests               [][][]byte // per shard, snappy-compressed
}

// rwBenchSeries is one series of an rwLoad while its requests are built.
type rwBenchSeries struct {
	labels      []byte   // the encoded Label fields of its TimeSeries
	pairs       []string // its labels, name and value (2.0)
	start, step int64    // ms
	n, sent     int
	counter     bool
	val         float64
	rng         *rand.Rand
}

func (s *rwBenchSeries) at() int64 { return s.start + int64(s.sent)*s.step }

type rwByNext []*rwBenchSeries

func (h rwByNext) Len() int           { return len(h) }
func (h rwByNext) Less(i, j int) bool { return h[i].at() < h[j].at() }
func (h rwByNext) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rwByNext) Push(x any)        { *h = append(*h, x.(*rwBenchSeries)) }
func (h *rwByNext) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func appendRWLabel(b []byte, name, value string) []byte {
	var l []byte
	l = protowire.AppendTag(l, 1, protowire.BytesType)
	l = protowire.AppendString(l, name)
	l = protowire.AppendTag(l, 2, protowire.BytesType)
	l = protowire.AppendString(l, value)
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendBytes(b, l)
}

// build makes the load's requests.
func (l *rwLoad) build() {
	end := l.end.UnixMilli()
	var all []*rwBenchSeries
	add := func(i int, pairs []string, span, step time.Duration, counter bool) {
		var labels []byte
		for j := 0; j+1 < len(pairs); j += 2 {
			labels = appendRWLabel(labels, pairs[j], pairs[j+1])
		}
		n := int(span / step)
		s := &rwBenchSeries{labels: labels, pairs: pairs, step: step.Milliseconds(), n: n, counter: counter, rng: rand.New(rand.NewPCG(uint64(i), 24))}
		s.start = end - int64(n-1)*s.step
		if !counter {
			s.val = float64(s.rng.IntN(100))
		}
		all = append(all, s)
		l.samples += n
	}
	for i := range l.counters {
		add(i, []string{"__name__", "bench_requests_total", "instance", fmt.Sprintf("host-%04d:9100", i), "job", "api"}, l.counterSpan, time.Minute, true)
	}
	for i := range l.gauges {
		host := i / 10
		add(l.counters+i, []string{"__name__", "bench_cpu_usage", "cpu", fmt.Sprint(i % 10), "instance", fmt.Sprintf("host-%04d:9100", host),
			"job", "node", "zone", fmt.Sprintf("zone-%d", host%10)}, l.gaugeSpan, 15*time.Second, false)
	}
	parts := make([]rwByNext, l.shards)
	for i, s := range all {
		parts[i%l.shards] = append(parts[i%l.shards], s)
	}
	l.requests = make([][][]byte, l.shards)
	for p, h := range parts {
		heap.Init(&h)
		var req []byte
		syms := newRWSymbols()
		n := 0
		flush := func() {
			if n > 0 {
				if l.v2 {
					req = append(syms.encode(), req...)
				}
				body := snappy.Encode(nil, req)
				l.bytes += len(body)
				l.requests[p] = append(l.requests[p], body)
			}
			req, n = req[:0], 0
			syms = newRWSymbols()
		}
		for h.Len() > 0 {
			s := h[0]
			if s.counter {
				s.val += float64(s.rng.IntN(100))
			} else {
				s.val = math.Round(min(100, max(0, s.val+s.rng.NormFloat64()))*100) / 100
			}
			var sm []byte
			sm = protowire.AppendTag(sm, 1, protowire.Fixed64Type)
			sm = protowire.AppendFixed64(sm, math.Float64bits(s.val))
			sm = protowire.AppendTag(sm, 2, protowire.VarintType)
			sm = protowire.AppendVarint(sm, uint64(s.at()))
			if l.v2 {
				var refs []byte
				for _, x := range s.pairs {
					refs = protowire.AppendVarint(refs, syms.ref(x))
				}
				var ts []byte
				ts = protowire.AppendTag(ts, 1, protowire.BytesType)
				ts = protowire.AppendBytes(ts, refs)
				ts = protowire.AppendTag(ts, 2, protowire.BytesType)
				ts = protowire.AppendBytes(ts, sm)
				req = protowire.AppendTag(req, 5, protowire.BytesType)
				req = protowire.AppendBytes(req, ts)
			} else {
				ts := append([]byte(nil), s.labels...)
				ts = protowire.AppendTag(ts, 2, protowire.BytesType)
				ts = protowire.AppendBytes(ts, sm)
				req = protowire.AppendTag(req, 1, protowire.BytesType)
				req = protowire.AppendBytes(req, ts)
			}
			s.sent++
			if s.sent == s.n {
				heap.Pop(&h)
			} else {
				heap.Fix(&h, 0)
			}
			if n++; n == l.batch {
				flush()
			}
		}
		flush()
	}
}

// rwSymbols is the symbol table of a remote write 2.0 request being
// built: "" first.
type rwSymbols struct {
	refs map[string]uint64
	syms []string
}

func newRWSymbols() *rwSymbols { return &rwSymbols{refs: map[string]uint64{"": 0}, syms: []string{""}} }

func (t *rwSymbols) ref(s string) uint64 {
	if r, ok := t.refs[s]; ok {
		return r
	}
	t.refs[s] = uint64(len(t.syms))
	t.syms = append(t.syms, s)
	return uint64(len(t.syms) - 1)
}

// encode returns the symbols as the Request's field 4.
func (t *rwSymbols) encode() []byte {
	var b []byte
	for _, s := range t.syms {
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	return b
}

// fullRWLoad makes BenchmarkRemoteWrite_Load run the load of the bench
// module's prometheus part at its full size.
var fullRWLoad = flag.Bool("remotewrite.full", false, "BenchmarkRemoteWrite_Load: 1,000 counters over 24 h and 10,000 gauges over 1 h (3,840,000 samples)")

// BenchmarkRemoteWrite_Load ingests the load of the bench module's
// prometheus part (scaled down: 1,000 counters over 2 h and 10,000 gauges
// over 10 min, 520,000 samples; the full size with -remotewrite.full),
// as remote write 1.0 requests and as 2.0 requests of the same samples
// (sub-benchmarks 1.0 and 2.0, side by side in one run),
// through the server's handler, called by 4 goroutines, into a data
// folder opened as serve opens one (the engine on disk with serve's
// settings, every write synced; the series store's log in the folder),
// then writes every reading to the table (POST /write?sync=true) and
// closes the store and the engine. Each iteration starts from an empty
// folder. It reports the samples a second, the process's CPU per sample
// (ingest and flush), the write units of the table's writes per sample
// (the items a flush writes), the bytes the folder holds per sample
// once closed, and the bytes sent (compressed) per sample.
func BenchmarkRemoteWrite_Load(b *testing.B) {
	for _, v2 := range []bool{false, true} {
		l := rwLoad{counters: 1000, gauges: 10_000, counterSpan: 2 * time.Hour, gaugeSpan: 10 * time.Minute,
			batch: 500, shards: 4, v2: v2, end: time.Now().Truncate(time.Minute).Add(-2 * time.Minute)}
		if *fullRWLoad {
			l.counterSpan, l.gaugeSpan = 24*time.Hour, time.Hour
		}
		l.build()
		name := "1.0"
		if v2 {
			name = "2.0"
		}
		b.Run(name, func(b *testing.B) { benchRWLoad(b, &l) })
	}
}

// benchRWLoad runs BenchmarkRemoteWrite_Load's load l.
func benchRWLoad(b *testing.B, l *rwLoad) {
	ctype := "application/x-protobuf"
	if l.v2 {
		ctype += ";proto=io.prometheus.write.v2.Request"
	}
	ctx := context.Background()
	var cpu time.Duration
	var onDisk int64
	var units float64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		db, err := local.Open(dir, &local.Options{MemTableSize: 16 << 20, L0CompactionThreshold: 12, L0CompactionFileThreshold: 48})
		if err != nil {
			b.Fatal(err)
		}
		st, err := series.Open(ctx, db, &series.Options{WALDir: filepath.Join(dir, "series-wal")})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.EnsureTable(ctx); err != nil {
			b.Fatal(err)
		}
		srv, err := server.New(server.Config{Store: st})
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := processCPU()
		b.StartTimer()
		var wg sync.WaitGroup
		for _, reqs := range l.requests {
			wg.Go(func() {
				for _, body := range reqs {
					r := httptest.NewRequest(http.MethodPost, "/api/v1/write", bytes.NewReader(body))
					r.Header.Set("Content-Type", ctype)
					r.Header.Set("Content-Encoding", "snappy")
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, r)
					if rec.Code != http.StatusNoContent {
						b.Errorf("%d %s", rec.Code, rec.Body)
						return
					}
				}
			})
		}
		wg.Wait()
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/write?sync=true", nil))
		if rec.Code != http.StatusNoContent {
			b.Fatalf("flush: %d %s", rec.Code, rec.Body)
		}
		b.StopTimer()
		cpu += processCPU() - cpu0
		units += st.Stats().WriteUnits
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		if err := db.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		onDisk += dirBytes(b, dir)
		b.StartTimer()
	}
	samples := float64(l.samples) * float64(b.N)
	b.ReportMetric(samples/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(cpu.Microseconds())/samples, "cpu-µs/sample")
	b.ReportMetric(units/samples, "wu/sample")
	b.ReportMetric(float64(onDisk)/samples, "disk-B/sample")
	b.ReportMetric(float64(l.bytes)/float64(l.samples), "sent-B/sample")
}

// processCPU returns the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dirBytes returns the bytes of the regular files under dir.
func dirBytes(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	return n
}
