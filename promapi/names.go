package promapi

import (
	"strings"

	"github.com/prometheus/prometheus/model/labels"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

// valueField is the name of the one field of a kind that is a metric of
// its own name.
const valueField = "value"

// MetricName returns the name of the metric that field i of a kind with
// these fields is: the kind's metric name (ingest.MetricOfKind, the
// reverse of the names remote write gives kinds) when "value" is its only
// field, else that of kind_field.
func MetricName(kind string, fields []string, i int) string {
	if len(fields) == 1 && fields[0] == valueField {
		return ingest.MetricOfKind(kind)
	}
	return ingest.MetricOfKind(kind + "_" + fields[i])
}

// IDLabels returns the labels a series id stands for, sorted by name,
// as series.IDLabels reads them:
//
//   - "_" (what line protocol makes of an entry without tags): none;
//   - a label set as line protocol and remote write make it, "k=v,k=v"
//     sorted by name, each name once, no empty name or value, no
//     "__name__", with ',', '=' and '\' escaped by a '\' in names and
//     values: those labels;
//   - a label set too long to be an id, hashed (series.HashedIDPrefix):
//     none, its readings' tags are its labels;
//   - any other id: {series="<id>"}.
func IDLabels(id string) labels.Labels {
	ls, _ := series.IDLabels(id)
	return labelsOf(ls)
}

// FormatLabelSet is the id of a label set, as IDLabels reads it back: the
// inverse of IDLabels for sets without "__name__" and empty values ("_"
// for no labels).
func FormatLabelSet(ls labels.Labels) string {
	if ls.IsEmpty() {
		return "_"
	}
	var b strings.Builder
	ls.Range(func(l labels.Label) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		escape(&b, l.Name)
		b.WriteByte('=')
		escape(&b, l.Value)
	})
	return b.String()
}

// escape writes s with ',', '=' and '\' escaped by a '\'.
func escape(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '=' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
}
