package main

import (
	"strconv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// pebbleCollector exports the embedded engine's Pebble metrics, read at
// each scrape.
type pebbleCollector struct {
	metrics func() *pebble.Metrics

	diskBytes, memtableBytes, walBytes, walWritten      *prometheus.Desc
	cacheBytes, cacheHits, cacheMisses                  *prometheus.Desc
	compactions, compactionDebt, flushes                *prometheus.Desc
	levelTables, levelBytes, readAmp                    *prometheus.Desc
	snapshots, obsoleteTableBytes, tableCacheHitsMisses *prometheus.Desc
}

func newPebbleCollector(metrics func() *pebble.Metrics) *pebbleCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("timetable_pebble_"+name, help, labels, nil)
	}
	return &pebbleCollector{
		metrics:              metrics,
		diskBytes:            d("disk_bytes", "Disk space the data folder uses: live and obsolete files."),
		memtableBytes:        d("memtable_bytes", "Bytes held by memtables."),
		walBytes:             d("wal_bytes", "Size of the live write-ahead log."),
		walWritten:           d("wal_written_bytes_total", "Bytes written to the write-ahead log."),
		cacheBytes:           d("block_cache_bytes", "Bytes in the block cache."),
		cacheHits:            d("block_cache_hits_total", "Block cache hits."),
		cacheMisses:          d("block_cache_misses_total", "Block cache misses."),
		compactions:          d("compactions_total", "Compactions done."),
		compactionDebt:       d("compaction_debt_bytes", "Estimated bytes compaction must still rewrite."),
		flushes:              d("flushes_total", "Memtable flushes done."),
		levelTables:          d("level_tables", "Tables in each LSM level.", "level"),
		levelBytes:           d("level_bytes", "Bytes of the tables of each LSM level.", "level"),
		readAmp:              d("read_amplification", "Sublevels a read may visit (L0 sublevels plus non-empty levels)."),
		snapshots:            d("snapshots", "Open snapshots."),
		obsoleteTableBytes:   d("obsolete_table_bytes", "Bytes of tables no longer needed, not yet deleted."),
		tableCacheHitsMisses: d("file_cache_total", "File cache lookups, by result.", "result"),
	}
}

func (c *pebbleCollector) Describe(ch chan<- *prometheus.Desc) {
	prometheus.DescribeByCollect(c, ch)
}

func (c *pebbleCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.metrics()
	if m == nil {
		return // the engine's storage failed: no metrics of it
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(c.diskBytes, float64(m.DiskSpaceUsage()))
	gauge(c.memtableBytes, float64(m.MemTable.Size))
	gauge(c.walBytes, float64(m.WAL.Size))
	counter(c.walWritten, float64(m.WAL.BytesWritten))
	gauge(c.cacheBytes, float64(m.BlockCache.Size))
	counter(c.cacheHits, float64(m.BlockCache.Hits))
	counter(c.cacheMisses, float64(m.BlockCache.Misses))
	counter(c.compactions, float64(m.Compact.Count))
	gauge(c.compactionDebt, float64(m.Compact.EstimatedDebt))
	counter(c.flushes, float64(m.Flush.Count))
	readAmp := 0
	for i, l := range m.Levels {
		gauge(c.levelTables, float64(l.TablesCount), strconv.Itoa(i))
		gauge(c.levelBytes, float64(l.TablesSize), strconv.Itoa(i))
		if i == 0 {
			readAmp += int(l.Sublevels)
		} else if l.TablesCount > 0 {
			readAmp++
		}
	}
	gauge(c.readAmp, float64(readAmp))
	gauge(c.snapshots, float64(m.Snapshots.Count))
	gauge(c.obsoleteTableBytes, float64(m.Table.ObsoleteSize))
	counter(c.tableCacheHitsMisses, float64(m.FileCache.Hits), "hit")
	counter(c.tableCacheHitsMisses, float64(m.FileCache.Misses), "miss")
}
