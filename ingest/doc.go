// Package ingest turns text into readings for package series: the
// decoders behind the write routes of `timetable serve`
// (docs/http-api.md, "Writing readings") and the CLI's `timetable write`
// and `timetable import`, and the encoders of export, whose output they
// read back.
//
// # Decoders
//
// Each decoder reads a whole request and returns a Batch: its readings
// grouped by kind, then series, in input order, ready for
// series.Kind.WriteMany. A Lookup gives the schema of a kind.
//
//	LineProtocol(r, lookup, o)     InfluxDB line protocol, any kinds (measurement = kind)
//	JSON(r, kind, lookup, o)       {"readings": [Reading...]} or [Reading...]
//	JSONLines(r, kind, lookup, o)  one Reading object per line (application/x-ndjson)
//	CSV(r, kind, lookup, o)        a header series,time,<field or tag>..., a reading per row
//	RemoteWrite(data, v, lookup, o) Prometheus remote write 1.0 or 2.0 (protobuf, snappy undone)
//
// A Reading object is that of docs/http-api.md:
//
//	{"series": "123", "time": "2024-12-01T14:30:00.000Z", "values": {"temperature": 21.5}, "tags": {"location": "lab"}}
//
// Line protocol is parsed by github.com/influxdata/line-protocol/v2; the
// mapping is: measurement -> kind; series id -> the value of the tag
// "series", else the sorted tag set "k=v,k=v" (',', '=' and '\' escaped
// with '\'; hashed as "~sha256:<hex>" past 512 bytes), or "_" without
// tags; tags and string fields named as schema tags -> the reading's
// tags; fields -> values (float, integer, unsigned, boolean as 1 or 0); a
// missing timestamp -> Options.Now. A tag the kind lacks is refused when
// the id comes from the tag "series" (it would be lost), kept in the id
// otherwise.
//
// # Open kinds
//
// With Options.Grow, line protocol and remote write define the kinds,
// fields and tags they name on first sight instead of refusing them: a
// number or boolean field becomes a field, a tag or string field a tag
// (docs/metrics.md). Remote write maps a metric name to a kind and a
// label name to a tag through KindOfMetric and TagOfLabel, which
// MetricOfKind and LabelOfTag reverse.
//
// # Refusals
//
// A batch is accepted whole or refused whole: a decoder returns the
// first refusal as an *Error naming its line (for a JSON body, the index
// of the reading) and no Batch. The message reads
//
//	line 3: field "temp" is not a field of kind SENSOR
//
// The decoders check what they can name a line for: syntax, unknown
// kinds, fields and tags, types, non-finite numbers, times outside the
// years 0000-9999, series ids series refuses, the size of a reading's
// tags, Options.MaxReadings and Options.MaxSeries. What depends on the store (retention,
// duplicates) is left to series' writes. Read errors of the reader are
// returned wrapped, not as *Error, so that a server can tell a body over
// its limit (*http.MaxBytesError) from a bad one.
//
// # Bounds
//
// No decoder panics on any input (each has a fuzz target), and none
// buffers more than about twice Options.MaxLineBytes (1 MiB by default)
// beyond the readings it returns: a longer line, line-protocol entry,
// CSV row or JSON reading is refused (Error.Err is ErrTooLong). The
// decoders read their input as it comes, a line or a reading at a time,
// so a body never sits whole in memory: what a call holds is the Batch
// it builds, bounded by Options.MaxReadings and Options.MaxSeries and
// estimated as it grows in Batch.Bytes. A decoded reading holds some 90
// to 220 bytes (TestBatch_Bytes: one series, a hundred, a series per
// reading); a caller that shares memory between requests reserves it
// through Options.Reserve, which may refuse. Bound the body itself with
// http.MaxBytesReader, and an inflating body by counting what it
// inflates.
//
// # Values and times
//
// Every reading has len(Values) == len(Schema.Fields), NaN where the
// input gave no value, and Tags either nil or len(Schema.Tags) long, ""
// where absent: what series.Reading expects. Times are UTC and truncated
// to the millisecond, as series keeps them (series.Kind.Write truncates
// too), so a decoded reading is what the store will hold.
//
// # Encoders
//
// WriteJSONLines writes readings as JSON lines and CSVWriter as CSV,
// which JSONLines and CSV read back to the same readings (NaN as absent,
// -0 kept). One exception: encoding/csv reads "\r\n" inside a quoted
// cell as "\n".
package ingest
