package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the server's own metrics.
type httpMetrics struct {
	requests *prometheus.HistogramVec
	ingested prometheus.Counter
	refused  *prometheus.CounterVec
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "timetable", Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time to answer a request of the series API, by route and status.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 12),
		}, []string{"route", "code"}),
		ingested: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "timetable", Subsystem: "http", Name: "readings_ingested_total",
			Help: "Readings written through the HTTP API and acknowledged.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "timetable", Subsystem: "http", Name: "write_requests_refused_total",
			Help: "Write requests refused whole, by reason: decode (a bad line, row or reading), store (the store refused a reading), denied (token scope or kind), limit (body, reading or series count), busy (the in-flight budget spent).",
		}, []string{"reason"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.ingested, m.refused} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// registerBudget registers the figures of the in-flight budget.
func registerBudget(reg prometheus.Registerer, b *Budget) error {
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "timetable", Subsystem: "http", Name: "inflight_bytes",
			Help: "Bytes of memory the requests in progress hold (bodies, decoded readings), of the in-flight budget."},
			func() float64 { return float64(b.Stats().Held) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "timetable", Subsystem: "http", Name: "inflight_bytes_peak",
			Help: "The most bytes of memory the requests in progress held at once since the start."},
			func() float64 { return float64(b.Stats().Peak) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "timetable", Subsystem: "http", Name: "inflight_bytes_limit",
			Help: "The in-flight budget: the most bytes of memory the requests in progress may hold (--max-inflight-bytes)."},
			func() float64 { return float64(b.Stats().Size) }),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *httpMetrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}
