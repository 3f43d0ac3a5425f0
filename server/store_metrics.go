package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/timetable-db/timetable/series"
)

// storeCollector exports a series Store's Stats, read at each scrape.
type storeCollector struct {
	store *series.Store

	accepted, refused, buffered           *prometheus.Desc
	flushes, flushSeconds, lastFlush      *prometheus.Desc
	walBytes, walSize, units              *prometheus.Desc
	rollupPasses, compactionPasses, kinds *prometheus.Desc
	sourcesNearExpiry                     *prometheus.Desc
}

// NewStoreCollector returns a Prometheus collector of st's counters:
// readings accepted and refused, buffer depth, flushes and their
// duration, write-ahead log bytes, consumed capacity units, rollup and
// compaction passes, and the groups compaction found near expiring
// unmerged (series.Options.SourceExpiry).
func NewStoreCollector(st *series.Store) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("timetable_series_"+name, help, labels, nil)
	}
	return &storeCollector{
		store:             st,
		accepted:          d("readings_accepted_total", "Readings of writes the store accepted (logged, or written)."),
		refused:           d("readings_refused_total", "Readings of writes the store refused, by cause: invalid, conflict, other.", "cause"),
		buffered:          d("readings_buffered", "Readings buffered now, not yet written to the table."),
		flushes:           d("flushes_total", "Flushes of the buffer to the table, by result.", "result"),
		flushSeconds:      d("flush_seconds_total", "Total time spent flushing."),
		lastFlush:         d("last_flush_seconds", "Duration of the last flush."),
		walBytes:          d("wal_written_bytes_total", "Bytes written to the series write-ahead log."),
		walSize:           d("wal_bytes", "Size of the series write-ahead log's files now."),
		units:             d("consumed_capacity_units_total", "Capacity units the table reported consumed by the store, by kind: read, write.", "kind"),
		rollupPasses:      d("rollup_passes_total", "Rollup passes run."),
		compactionPasses:  d("compaction_passes_total", "Compaction passes run."),
		kinds:             d("kinds", "Kinds of series defined."),
		sourcesNearExpiry: d("sources_near_expiry_total", "Groups of chunk items (series, shard and hour or day) in which compaction found items not merged within half of the source expiry of their expiry; items that expire unmerged lose their readings."),
	}
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.store.Stats()
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(c.accepted, float64(s.ReadingsAccepted))
	counter(c.refused, float64(s.RefusedInvalid), "invalid")
	counter(c.refused, float64(s.RefusedConflict), "conflict")
	counter(c.refused, float64(s.RefusedOther), "other")
	gauge(c.buffered, float64(s.Buffered))
	counter(c.flushes, float64(s.Flushes), "ok")
	counter(c.flushes, float64(s.FlushErrors), "error")
	counter(c.flushSeconds, s.FlushSeconds)
	gauge(c.lastFlush, s.LastFlush.Seconds())
	counter(c.walBytes, float64(s.WALBytes))
	gauge(c.walSize, float64(s.WALSize))
	counter(c.units, s.ReadUnits, "read")
	counter(c.units, s.WriteUnits, "write")
	counter(c.rollupPasses, float64(s.RollupPasses))
	counter(c.compactionPasses, float64(s.CompactionPasses))
	counter(c.sourcesNearExpiry, float64(s.SourcesNearExpiry))
	gauge(c.kinds, float64(len(c.store.Kinds())))
}
