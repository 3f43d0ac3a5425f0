package promapi

import (
	"strings"

	"github.com/timetable-db/timetable/ingest"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
)

// valueField is the name of the one field of a kind that is a metric of
// its own name.
const valueField = "value"

// seriesLabel is the label of a series id that is not a label set.
const seriesLabel = "series"

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

// IDLabels returns the labels a series id stands for, sorted by name:
//
//   - "_" (what line protocol makes of an entry without tags): none;
//   - a label set as line protocol and remote write make it, "k=v,k=v"
//     sorted by name, each name once, no empty name or value, no
//     "__name__", with ',', '=' and '\' escaped by a '\' in names and
//     values: those labels;
//   - a label set too long to be an id, hashed (ingest.HashedIDPrefix):
//     none, its readings' tags are its labels;
//   - any other id: {series="<id>"}.
func IDLabels(id string) labels.Labels {
	if id == "_" || strings.HasPrefix(id, ingest.HashedIDPrefix) {
		return labels.EmptyLabels()
	}
	if ls, ok := parseLabelSet(id); ok {
		return labels.New(ls...)
	}
	return labels.FromStrings(seriesLabel, id)
}

// parseLabelSet parses "k=v,k=v" as IDLabels describes it, and reports
// whether id is one.
func parseLabelSet(id string) ([]labels.Label, bool) {
	var ls []labels.Label
	var cur strings.Builder
	var name string
	inValue := false
	end := func() bool {
		if !inValue || name == "" || cur.Len() == 0 || name == model.MetricNameLabel {
			return false
		}
		if len(ls) > 0 && ls[len(ls)-1].Name >= name {
			return false
		}
		ls = append(ls, labels.Label{Name: name, Value: cur.String()})
		cur.Reset()
		inValue = false
		return true
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch c {
		case '\\':
			if i+1 == len(id) {
				return nil, false
			}
			n := id[i+1]
			if n != ',' && n != '=' && n != '\\' {
				return nil, false
			}
			cur.WriteByte(n)
			i++
		case '=':
			if inValue {
				return nil, false
			}
			name = cur.String()
			cur.Reset()
			inValue = true
		case ',':
			if !end() {
				return nil, false
			}
		default:
			cur.WriteByte(c)
		}
	}
	if !end() {
		return nil, false
	}
	return ls, true
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
