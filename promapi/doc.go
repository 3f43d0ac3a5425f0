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
// A series' labels are those of its id (IDLabels, series.IDLabels):
// "k=v,k=v" sorted, with ',', '=' and '\' escaped by '\', as line
// protocol and remote write make ids, is exactly those labels; "_" none.
// Any other id is {series="<id>"} (a hashed label set,
// series.HashedIDPrefix, none), to which the readings' tags add the
// kind's tags the id does not name, "" being absent: a series whose
// readings differ in such a tag is one Prometheus series per combination
// of their values. The readings' tags of a series whose id is a label set
// add nothing (line protocol and remote write give it the same labels as
// tags).
//
// A reading's value is its sample. A NaN written by remote write or OTLP
// (stored as ingest.SampleNaNBits) is a NaN sample, and a staleness
// marker (Prometheus' own NaN) is given back as one; these keep their
// bits in the chunks layout, the default, only: the other layouts store
// no NaN, which reads back as an absent value. An absent value (any other
// NaN) is no sample, except in a kind whose only field is "value" (a
// metric of its own, as remote write makes them): there it is a
// staleness marker (so is a NaN sample written by an earlier version,
// stored as math.NaN()).
// Readings of one instant (Schema.Duplicates KeepAll) are one sample,
// the last written.
//
// # Selecting series
//
// A selection (of a query, or of the series and label lookups) matches
// __name__ against every metric of the kinds the caller may read, then
// finds the series of each matching kind through the kind's label index
// (series.Kind.LabelSeries, LabelValues; see select.go), as Prometheus'
// PostingsForMatchers does through its inverted index: each matcher that
// does not match the empty value (job="a", job=~"a|b", job!="") needs
// its label, so the series selected are among the postings of its values
// (those of a regular expression read from the label's value list, from
// its literal prefix, or taken from its alternatives); those of few
// values are read together, a page each in turn, until one is done,
// which bounds the reads by about as many postings per such matcher as
// the smallest holds. Every other matcher (job!="a", job="", job!~"a.*")
// only removes series, which the labels of each id tell at no cost. A
// selection without such a matcher takes every series of the kind's
// directory (series.Kind.Series). Series whose ids are not label sets,
// in a kind with tags, may take labels from their readings: no posting
// names those, so they are found apart (series.Kind.PlainSeries, or the
// ids a matcher on series names) and read to be selected. A
// selection that would select more than Queryable.MaxSeries series
// (DefaultMaxSeries), counting those it must read, is refused with
// ErrTooManySeries (422), whatever the size of the kinds.
//
// A kind written by an earlier version has no label index until the
// index pass builds it (series.Store.IndexLabels, in the background):
// until then, a selection lists its directory, and refuses it if it
// holds more than MaxSeries series.
//
// Series whose ids give all their labels are then read only for their
// samples, over the selection's range (series.Query From and To: the
// range is pushed down), a reading at a time into the engine's
// chunkenc.Iterator; the others are read over the range when selected,
// to know their labels. Label lookups (names, values of one name)
// without matchers on other labels than __name__ read the label index:
// its names, or the values of the name, up to the lookup's limit, and
// __name__'s values are the metrics of the kinds that have a series; in
// a kind that holds series labelled by their readings, and with other
// matchers, they list the labels of the series selected. So lookups list
// the series of the index whatever start and end say (a deleted series
// too: the index keeps it), except series labelled by their readings,
// which are listed where they have readings in the range.
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
