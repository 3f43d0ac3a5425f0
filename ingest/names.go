package ingest

import (
	"fmt"
	"strings"

	"github.com/timetable-db/timetable/series"
)

// Prometheus' names and timetable's: a metric name is a kind's name, a
// label name a tag's, each through a mapping that a Prometheus view of
// the store (docs/metrics.md) reverses.
//
// A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) becomes a kind name (letters,
// digits, '_', '-' and '.', starting with a letter or digit) with ':'
// written '.', and a '0' put before a name that would start with '_' or
// '.': "node_cpu_seconds_total" stays, "job:up:sum" is "job.up.sum",
// "_x" is "0_x". Metric names hold no '.' and start with no digit, so
// the mapping reverses. Names longer than series.MaxKindName bytes, and
// the UTF-8 names of Prometheus 3 outside that alphabet, are refused.
//
// A label name becomes a tag name, which may be any UTF-8 but not start
// with '_' nor be pk, sk, ttl, mpk or msk: such a label name, and one
// that starts with '~', gets a '~' before it ("__meta_x" is "~__meta_x",
// "pk" is "~pk"); every other label name is its own tag name.

// KindOfMetric returns the kind name of Prometheus metric name m, or an
// error saying why m has none.
func KindOfMetric(m string) (string, error) {
	if m == "" {
		return "", fmt.Errorf("metric name is empty")
	}
	var b strings.Builder
	b.Grow(len(m) + 1)
	if m[0] == '_' || m[0] == ':' {
		b.WriteByte('0')
	}
	for i := 0; i < len(m); i++ {
		switch c := m[i]; {
		case c == ':':
			b.WriteByte('.')
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			b.WriteByte(c)
		case c >= '0' && c <= '9' && i > 0:
			b.WriteByte(c)
		default:
			return "", fmt.Errorf("metric name %s: only [a-zA-Z_:][a-zA-Z0-9_:]* names are taken", clip(m))
		}
	}
	if b.Len() > series.MaxKindName {
		return "", fmt.Errorf("metric name %s is longer than %d bytes", clip(m), series.MaxKindName)
	}
	return b.String(), nil
}

// MetricOfKind returns the Prometheus metric name of kind k: the reverse
// of KindOfMetric for the names it returns. A kind not named from a
// metric gets the nearest metric name: '-' written '_', '.' written ':',
// and '_' put before a leading digit; two such kinds may share one.
func MetricOfKind(k string) string {
	if len(k) > 1 && k[0] == '0' && (k[1] == '_' || k[1] == '.') {
		k = k[1:]
	} else if k != "" && k[0] >= '0' && k[0] <= '9' {
		k = "_" + k
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return ':'
		case '-':
			return '_'
		}
		return r
	}, k)
}

// TagOfLabel returns the tag name of Prometheus label name l (see above);
// the caller checks that it is 1 to 255 bytes of UTF-8.
func TagOfLabel(l string) string {
	if needsTilde(l) {
		return "~" + l
	}
	return l
}

// LabelOfTag returns the Prometheus label name of tag name t: the reverse
// of TagOfLabel.
func LabelOfTag(t string) string {
	if strings.HasPrefix(t, "~") {
		return t[1:]
	}
	return t
}

// needsTilde reports whether label name l gets a '~' as a tag name.
func needsTilde(l string) bool {
	if l == "" {
		return false
	}
	switch l {
	case "pk", "sk", "ttl", "mpk", "msk":
		return true
	}
	return l[0] == '_' || l[0] == '~'
}
