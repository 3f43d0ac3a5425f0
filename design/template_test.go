package design

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
)

func TestTemplate_Parse(t *testing.T) {
	for _, c := range []struct {
		t     Template
		names []string
		ok    bool
	}{
		{"SITE#{siteId}", []string{"siteId"}, true},
		{"METADATA", nil, true},
		{"", nil, true},
		{"PV#{timestamp}#{id}", []string{"timestamp", "id"}, true},
		{"{a}{b}", []string{"a", "b"}, true},
		{"{a}#{a}", []string{"a", "a"}, true},
		{"SITE#{", nil, false},
		{"SITE#}", nil, false},
		{"{}", nil, false},
		{"{a b}", nil, false},
		{"{a{b}}", nil, false},
		{"{a-b}", nil, false},
	} {
		err := c.t.Check()
		if (err == nil) != c.ok {
			t.Errorf("%q: Check() = %v, want ok %v", c.t, err, c.ok)
			continue
		}
		if err != nil && !errors.Is(err, ErrTemplate) {
			t.Errorf("%q: error %v is not ErrTemplate", c.t, err)
		}
		if got := c.t.Placeholders(); !slices.Equal(got, c.names) {
			t.Errorf("%q: Placeholders() = %q, want %q", c.t, got, c.names)
		}
	}
}

func TestTemplate_Fill(t *testing.T) {
	tm := Template("PV#{timestamp}#{id}")
	got, err := tm.Fill(map[string]string{"timestamp": "2024-01-15T10:30:00.000Z", "id": "a1", "other": "x"})
	if err != nil || got != "PV#2024-01-15T10:30:00.000Z#a1" {
		t.Errorf("Fill = %q, %v", got, err)
	}
	if _, err := tm.Fill(map[string]string{"timestamp": "t"}); !errors.Is(err, ErrTemplate) || !strings.Contains(err.Error(), "{id}") {
		t.Errorf("Fill without id: %v", err)
	}
	if _, err := Template("{").Fill(nil); !errors.Is(err, ErrTemplate) {
		t.Errorf("Fill of a bad template: %v", err)
	}
	if got := tm.Prefix(); got != "PV#" {
		t.Errorf("Prefix = %q", got)
	}
	if !Template("METADATA").Literal() || tm.Literal() {
		t.Error("Literal")
	}
}

func TestTemplate_Match(t *testing.T) {
	for _, c := range []struct {
		t    Template
		key  string
		want map[string]string // nil: no match
	}{
		{"SITE#{siteId}", "SITE#my-site", map[string]string{"siteId": "my-site"}},
		{"SITE#{siteId}", "SITE#", nil},
		{"SITE#{siteId}", "USER#x", nil},
		{"METADATA", "METADATA", map[string]string{}},
		{"METADATA", "METADATA2", nil},
		{"PV#{timestamp}#{id}", "PV#2024-01-15T10:30:00.000Z#a1", map[string]string{"timestamp": "2024-01-15T10:30:00.000Z", "id": "a1"}},
		// The shortest first value that lets the rest match.
		{"{a}#{b}", "x#y#z", map[string]string{"a": "x", "b": "y#z"}},
		// Backtracking: the first '#' does not lead to a match.
		{"{a}#END", "x#y#END", map[string]string{"a": "x#y"}},
		{"{a}#{a}", "x#x", map[string]string{"a": "x"}},
		{"{a}#{a}", "x#y", nil},
		{"{a}{b}", "xy", nil},
		{"SENSOR#{id}#{day}", "SENSOR#7#2024-12-01", map[string]string{"id": "7", "day": "2024-12-01"}},
		{"{a}#{b}#{a}", "x#y#x#y", nil},
		// a = x fails at the last {a}, position 6, only because of the
		// repeat; a = x#y reaches the same point later and matches.
		{"{a}#{b}#{a}", "x#y#z#x#y", map[string]string{"a": "x#y", "b": "z"}},
		{"{a}", strings.Repeat("k", MaxKeyBytes+1), nil},
	} {
		got, ok := c.t.Match(c.key)
		if ok != (c.want != nil) || ok && !maps.Equal(got, c.want) {
			t.Errorf("%q.Match(%q) = %v, %v; want %v", c.t, c.key, got, ok, c.want)
		}
	}
}

func TestParseKeyCondition(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pk = SENSOR#{id}", "pk = SENSOR#{id}"},
		{"pk=SENSOR#{id} and sk>={from}", "pk = SENSOR#{id} AND sk >= {from}"},
		{"sk < {to} AND pk = X", "pk = X AND sk < {to}"},
		{"pk = X AND sk <= {to}", "pk = X AND sk <= {to}"},
		{"pk = X AND sk > {to}", "pk = X AND sk > {to}"},
		{"pk = SENSOR#{id} AND sk between {from} and {to}", "pk = SENSOR#{id} AND sk BETWEEN {from} AND {to}"},
		{"gsi1pk = SITE#{siteId} AND begins_with( gsi1sk , PERIOD#day# )", "gsi1pk = SITE#{siteId} AND begins_with(gsi1sk, PERIOD#day#)"},
		{"pk = A AND sk = B", "pk = A AND sk = B"},
	} {
		k, err := ParseKeyCondition(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := k.String(); got != c.want {
			t.Errorf("%q: String() = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseKeyCondition_Errors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pk = :pk AND sk IN (:m1, :m2)", "IN is not allowed"},
		{"pk = A OR sk = B", "OR is not allowed"},
		{"NOT pk = A", "NOT is not allowed"},
		{"pk = A AND sk <> B", "<> is not allowed"},
		{"pk = A AND contains(sk, B)", "the only function is begins_with"},
		{"sk > A", "needs an equality"},
		{"pk > A AND sk > B", "needs an equality"},
		{"pk = A AND pk = B", "two conditions on pk"},
		{"a = A AND b = B AND c = C AND d = D AND e = E AND f = F AND g = G AND h = H AND i = I", "at most 8 terms"},
		{"a = A AND b > B AND a = C", "two conditions on a"},
		{"a > A AND b > B AND c < C", "no term of 3 is one"},
		{"pk =", "missing value"},
		{"pk", "missing operator"},
		{"pk ~ A", "unknown operator"},
		{"", "empty condition"},
		{"pk = A AND", "empty condition"},
		{"pk = A AND sk BETWEEN B C", "expected AND in BETWEEN"},
		{"pk = A AND begins_with(sk B)", `expected ","`},
		{"pk = A AND begins_with(sk, B", `expected ")"`},
		{"pk = {x", "'{' without '}'"},
		{"pk = A sk = B", "expected AND"},
		{"= A", "expected an attribute name"},
		{"pk = AND", "expected a value"},
	} {
		_, err := ParseKeyCondition(c.in)
		if err == nil || !errors.Is(err, ErrKeyCondition) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want ErrKeyCondition containing %q", c.in, err, c.want)
		}
	}
}

// The layouts name the formats of package keys exactly.
func TestLayouts_MatchKeys(t *testing.T) {
	ts := []time.Time{
		time.Date(2024, 12, 1, 14, 30, 5, 123456789, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	for _, tm := range ts {
		for _, c := range []struct {
			layout string
			g      keys.Granularity
		}{{LayoutYear, keys.Year}, {LayoutMonth, keys.Month}, {LayoutDay, keys.Day}, {LayoutHour, keys.Hour}, {LayoutMinute, keys.Minute}} {
			if got, want := tm.Format(c.layout), keys.MustTimeSeries(tm, c.g); got != want {
				t.Errorf("%v %s: layout gives %q, keys %q", tm, c.g, got, want)
			}
		}
		if got, want := tm.Format(LayoutTimestamp), keys.MustTimestamp(tm); got != want {
			t.Errorf("timestamp: layout gives %q, keys %q", got, want)
		}
		if got, want := tm.Format(LayoutTimeOfDay), keys.TimeOfDay(tm); got != want {
			t.Errorf("time of day: layout gives %q, keys %q", got, want)
		}
	}
}

func TestCheckLayout(t *testing.T) {
	for _, l := range []string{LayoutYear, LayoutMonth, LayoutDay, LayoutHour, LayoutMinute, LayoutTimestamp, LayoutTimeOfDay,
		"2006-01-02T15", "2006-01-02T15:04", "20060102150405", time.RFC3339Nano[:len("2006-01-02T15:04:05")]} {
		if why := checkLayout(l); why != "" {
			t.Errorf("%q: %s", l, why)
		}
	}
	for l, want := range map[string]string{
		"02-01-2006":      "do not sort",
		"2006-1-2":        "differ in width",
		"Jan 2006":        "do not sort",
		"2006-01-02 3:04": "differ in width",
		"03:04 PM":        "do not sort",
		"day":             "not a time layout",
		time.RFC3339Nano:  "differ in width",
	} {
		if why := checkLayout(l); !strings.Contains(why, want) {
			t.Errorf("%q: %q, want %q", l, why, want)
		}
	}
}

func TestLayoutsCompatible(t *testing.T) {
	for _, c := range []struct {
		a, b string
		ok   bool
	}{
		{LayoutDay, LayoutTimestamp, true},
		{LayoutYear, LayoutMinute, true},
		{"2006-01-02T15:04", LayoutTimestamp, true},
		{LayoutHour, LayoutTimestamp, false}, // '-' against 'T'
		{LayoutMinute, "2006-01-02T15:04", false},
	} {
		if ok, _ := layoutsCompatible(c.a, c.b); ok != c.ok {
			t.Errorf("%q, %q: %v, want %v", c.a, c.b, ok, c.ok)
		}
	}
}

func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"SITE#{siteId}", "PV#{timestamp}#{id}", "{a}#{b}", "{a}#END", "{", "}{", "{a}{b}", "{a}#{a}"} {
		f.Add(s, "SITE#my-site")
	}
	f.Fuzz(func(t *testing.T, tmpl, key string) {
		tm := Template(tmpl)
		err := tm.Check()
		names := tm.Placeholders()
		if err != nil && names != nil {
			t.Fatalf("%q: invalid but has placeholders %q", tmpl, names)
		}
		values, ok := tm.Match(key)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("%q: invalid but matches %q", tmpl, key)
		}
		got, err := tm.Fill(values)
		if err != nil || got != key {
			t.Fatalf("%q: Match(%q) = %v, which fills to %q, %v", tmpl, key, values, got, err)
		}
	})
}

func FuzzParseKeyCondition(f *testing.F) {
	for _, s := range []string{
		"pk = SENSOR#{id} AND sk BETWEEN {from} AND {to}",
		"gsi1pk = SITE#{siteId} AND begins_with(gsi1sk, PERIOD#day#)",
		"pk = :pk AND sk IN (:a, :b)", "sk >= X AND pk = Y", "pk = A AND sk <> B", "((", "pk=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKeyCondition(s)
		if err != nil {
			if !errors.Is(err, ErrKeyCondition) {
				t.Fatalf("%q: error %v is not ErrKeyCondition", s, err)
			}
			return
		}
		again, err := ParseKeyCondition(k.String())
		if err != nil {
			t.Fatalf("%q: String() = %q does not parse: %v", s, k.String(), err)
		}
		if again.String() != k.String() {
			t.Fatalf("%q: %q reparses as %q", s, k.String(), again.String())
		}
	})
}

// fillBySegments is Fill as parse's segments define it.
func fillBySegments(t Template, values map[string]string) (string, error) {
	segs, err := t.parse()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range segs {
		if !s.placeholder() {
			b.WriteString(s.lit)
			continue
		}
		v, ok := values[s.name]
		if !ok {
			return "", fmt.Errorf("%w %q: no value for {%s}", ErrTemplate, string(t), s.name)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

func FuzzTemplateFill(f *testing.F) {
	for _, s := range []string{"SITE#{siteId}", "PV#{timestamp}#{id}", "{a}#{b}", "{a}#END", "{", "}{", "{a}{b}", "{a}#{a}", "a}#{b}", "{a}#{b", "{a-b}", "{}", "{a}#{c}#}"} {
		f.Add(s, "x", true)
		f.Add(s, "", false)
	}
	f.Fuzz(func(t *testing.T, tmpl, v string, withB bool) {
		values := map[string]string{"a": v, "siteId": v, "timestamp": v, "id": v}
		if withB {
			values["b"] = v
		}
		tm := Template(tmpl)
		got, err := tm.Fill(values)
		want, wantErr := fillBySegments(tm, values)
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("Fill(%q) = %q, %v; want %q, %v", tmpl, got, err, want, wantErr)
		}
	})
}
