package difftest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Divergence is a difference between the answers of the two targets to the
// same request.
type Divergence struct {
	Index   int    // operation index; -1 during setup; Config.Ops and up for the final checks
	Kind    string // operation
	Request string // JSON, logical table names
	Path    string // where the answers first differ, like .Items[2].a.N
	AtA     string // the value of the first answer at Path, JSON ("" if absent)
	AtB     string // the value of the second answer at Path
	A, B    string // the answers, JSON
	AName   string
	BName   string
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("divergence at operation %d (%s), at %s (%s vs %s)\nrequest: %s\n%s: %s\n%s: %s",
		d.Index, d.Kind, d.Path, d.AtA, d.AtB, d.Request, d.AName, d.A, d.BName, d.B)
}

// Compare compares two canonical answers. It returns "" when they are the
// same, otherwise the path of the first difference.
func Compare(a, b any) string {
	p, _, _ := compare(a, b)
	return p
}

// compare is Compare that also returns the values at the path, JSON.
func compare(a, b any) (path, atA, atB string) {
	ja, jb := toJSON(a), toJSON(b)
	if ja == jb {
		return "", "", ""
	}
	// Compare the JSON forms, so that numeric Go types do not matter.
	var x, y any
	_ = json.Unmarshal([]byte(ja), &x)
	_ = json.Unmarshal([]byte(jb), &y)
	d := &differ{}
	if p, ok := d.firstDiff(x, y, ""); ok {
		if p == "" {
			p = "."
		}
		return p, d.a, d.b
	}
	return ".", ja, jb
}

type differ struct{ a, b string }

func (d *differ) at(x, y any) {
	if x != nil {
		d.a = toJSON(x)
	}
	if y != nil {
		d.b = toJSON(y)
	}
}

// firstDiff returns the path of the first difference between x and y.
func (d *differ) firstDiff(x, y any, path string) (string, bool) {
	switch a := x.(type) {
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok {
			d.at(x, y)
			return path, true
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			va, oka := a[k]
			vb, okb := b[k]
			if oka != okb {
				d.at(va, vb)
				return path + "." + k, true
			}
			if p, diff := d.firstDiff(va, vb, path+"."+k); diff {
				return p, true
			}
		}
		return "", false
	case []any:
		b, ok := y.([]any)
		if !ok {
			d.at(x, y)
			return path, true
		}
		for i := range min(len(a), len(b)) {
			if p, diff := d.firstDiff(a[i], b[i], fmt.Sprintf("%s[%d]", path, i)); diff {
				return p, true
			}
		}
		if len(a) != len(b) {
			d.at(x, y)
			return fmt.Sprintf("%s[%d] (lengths %d and %d)", path, min(len(a), len(b)), len(a), len(b)), true
		}
		return "", false
	default:
		if toJSON(x) != toJSON(y) {
			d.at(x, y)
			return path, true
		}
		return "", false
	}
}

// indent pretty-prints a JSON answer for reports.
func indent(s string) string {
	var x any
	if json.Unmarshal([]byte(s), &x) != nil {
		return s
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	_ = enc.Encode(x)
	return strings.TrimSpace(sb.String())
}
