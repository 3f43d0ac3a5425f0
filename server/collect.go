package server

import (
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/internal/httpjson"
)

// analyticsOff is the answer of the analytics routes when the server has
// no analytics store.
var analyticsOff = errorf(http.StatusNotFound, codeNotFound, "web analytics are off")

// corsAny lets any origin post hits: the tracker runs on the tracked
// site's pages.
func corsAny(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Del("Vary")
}

// droppedHeader names, on the answer to a hit the collect endpoint
// dropped, why (collect's Drop reasons: bot, headless, no_agent, bot_ip,
// spam). The tracker's debug mode reads it.
const droppedHeader = "X-Timetable-Dropped"

// collectEvent records a browser's hit (Plausible's Events API payload)
// and answers 202 "ok", also for a hit dropped as a bot's or as spam,
// which droppedHeader then names.
func (s *Server) collectEvent(w http.ResponseWriter, r *http.Request) error {
	corsAny(w)
	if s.collector == nil {
		return analyticsOff
	}
	if err := s.writable(); err != nil {
		return err
	}
	dropped, err := s.collector.Collect(r)
	if err != nil {
		return collectError(err)
	}
	h := w.Header()
	if dropped != "" {
		h.Set(droppedHeader, dropped)
	}
	h.Set("Access-Control-Expose-Headers", droppedHeader)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte("ok"))
	return nil
}

// collectPreflight answers the CORS preflight of POST /api/event from any
// origin.
func (s *Server) collectPreflight(w http.ResponseWriter, r *http.Request) error {
	corsAny(w)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// collectError maps an error of package collect to its answer; others
// (the store's) pass through to classify.
func collectError(err error) error {
	var rl *collect.RateLimitError
	switch {
	case errors.As(err, &rl):
		return &apiError{status: http.StatusTooManyRequests, code: codeRateLimited, message: err.Error(), retryAfter: rl.RetryAfter}
	case errors.Is(err, collect.ErrTooLarge):
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "%v", err)
	case errors.Is(err, collect.ErrInvalid), errors.Is(err, analytics.ErrInvalid):
		return invalid("%v", err)
	case errors.Is(err, collect.ErrUnknownSite):
		return errorf(http.StatusNotFound, codeNotFound, "%v", err)
	case errors.Is(err, collect.ErrForeignDomain):
		return errorf(http.StatusForbidden, codeDenied, "%v", err)
	}
	return err
}

// collectMetrics turns a Collector's Stats into Prometheus counters at
// each scrape.
type collectMetrics struct {
	c                          *collect.Collector
	accepted, dropped, refused *prometheus.Desc
}

func newCollectMetrics(c *collect.Collector) *collectMetrics {
	return &collectMetrics{
		c: c,
		accepted: prometheus.NewDesc("timetable_analytics_events_accepted_total",
			"Web-analytics events recorded by the collect endpoint.", nil, nil),
		dropped: prometheus.NewDesc("timetable_analytics_events_dropped_total",
			"Hits answered 202 but not recorded, by reason (bot, headless, no_agent, bot_ip, spam).", []string{"reason"}, nil),
		refused: prometheus.NewDesc("timetable_analytics_events_refused_total",
			"Hits refused with an error, by reason (invalid, too_large, unknown_site, foreign_domain, rate_limited, store).", []string{"reason"}, nil),
	}
}

func (m *collectMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.accepted
	ch <- m.dropped
	ch <- m.refused
}

func (m *collectMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.c.Stats()
	ch <- prometheus.MustNewConstMetric(m.accepted, prometheus.CounterValue, float64(st.Accepted))
	for r, n := range st.Dropped {
		ch <- prometheus.MustNewConstMetric(m.dropped, prometheus.CounterValue, float64(n), r)
	}
	for r, n := range st.Refused {
		ch <- prometheus.MustNewConstMetric(m.refused, prometheus.CounterValue, float64(n), r)
	}
}

// collectBatch records a batch of server-side events for a site, all or
// none, and answers {"recorded": n}. The route needs write on the site.
func (s *Server) collectBatch(w http.ResponseWriter, r *http.Request) error {
	if s.collector == nil {
		return analyticsOff
	}
	body, err := s.body(w, r)
	if err != nil {
		return err
	}
	n, err := s.collector.Batch(r.Context(), r.PathValue("site"), body)
	if err != nil {
		return collectError(err)
	}
	httpjson.Write(w, http.StatusOK, map[string]int{"recorded": n})
	return nil
}
