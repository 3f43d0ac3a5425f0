// Package promapi is Prometheus' HTTP query API over a series.Store,
// answered by Prometheus' own PromQL engine
// (github.com/prometheus/prometheus/promql) through Queryable, a
// storage.Queryable over the store. docs/prometheus.md is the user's
// page; this is the contract.
//
// # Metrics and labels
//
// A kind whose only field is "value" is the metric of the kind's name;
// a kind with fields f1..fn is the metrics kind_f1..kind_fn (MetricName).
// Two kinds and fields of one metric name are one metric: their series
// of one label set are merged, sample by sample. No label names the kind
// (remote-written metrics keep the labels Prometheus gave them); the help
// of /api/v1/metadata does.
//
// A series' labels are those of its id (IDLabels): "k=v,k=v" sorted, with
// ',', '=' and '\' escaped by '\', as line protocol and remote write make
// ids, is those labels; "_" none; any other id is {series="<id>"}. To
// these the readings' tags add the kind's tags the id does not name,
// "" being absent: a series whose readings differ in such a tag is one
// Prometheus series per combination of their values. A tag the id names
// is the id's value.
//
// A reading's absent field (NaN) is no sample, except in a kind whose only
// field is "value" (a metric of its own, as remote write makes them):
// there it is the staleness marker remote write stored, given back as
// Prometheus' marker. Readings of one instant (Schema.Duplicates KeepAll)
// are one sample, the last written.
//
// # Selecting series
//
// No index of label values is kept. A selection (of a query, or of the
// series and label lookups) matches __name__ against every metric of the
// kinds the caller may read, lists the series of each matching kind from
// its directory (series.Kind.Series, a page of 1,000 ids per table
// query) and keeps those whose labels match the other matchers: its cost
// is linear in the series of the kinds its __name__ matchers select, and
// a kind of more than Queryable.MaxSeries series (DefaultMaxSeries) is
// refused with ErrTooManySeries (422) rather than listed. Series whose
// ids give all their labels are then read only for their samples, over
// the selection's range (series.Query From and To: the range is pushed
// down), a reading at a time into the engine's chunkenc.Iterator; the
// others are read over the range when selected, to know their labels.
// So series and label lookups list every series of the directory that
// matches, whatever start and end say, except series labelled by their
// readings, which are listed where they have readings in the range.
//
// # The API
//
// API's methods are the handlers of GET /api/v1/query, query_range,
// series, labels, label/<name>/values, metadata, status/buildinfo,
// format_query and query_exemplars (always empty: no exemplars are kept)
// (and a form POST of query, query_range, series, labels, format_query
// and query_exemplars), with Prometheus' parameters and answers:
// {"status": "success", "data": ..., "warnings": [...]} or {"status":
// "error", "errorType": ..., "error": ...} with Prometheus' statuses (400
// bad_data, 422 execution, 503 timeout). A query runs under
// Config.Timeout and MaxSamples, with a lookback delta of 5 minutes, the
// @ modifier and negative offsets on; a range query has at most 11,000
// points per series. Config.Allow limits the kinds of a caller: the
// metrics of the others do not exist for it, in queries and lookups.
package promapi
