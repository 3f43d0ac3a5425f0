package design

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrTemplate reports a template that cannot be parsed, or values that do
// not fill it.
var ErrTemplate = errors.New("design: invalid template")

// Template is a key value with placeholders: literal text and names in
// braces, such as "PV#{timestamp}#{id}". A name is one or more ASCII
// letters, digits or underscores. Braces cannot appear as literal text.
type Template string

// segment is a literal (name == "") or a placeholder.
type segment struct {
	lit  string
	name string
}

func (s segment) placeholder() bool { return s.name != "" }

// parse splits t into segments. Adjacent literals never occur; adjacent
// placeholders may (Validate reports them).
func (t Template) parse() ([]segment, error) {
	var segs []segment
	s := string(t)
	for len(s) > 0 {
		i := strings.IndexAny(s, "{}")
		if i < 0 {
			segs = append(segs, segment{lit: s})
			break
		}
		if s[i] == '}' {
			return nil, fmt.Errorf("%w %q: '}' without '{'", ErrTemplate, string(t))
		}
		if i > 0 {
			segs = append(segs, segment{lit: s[:i]})
		}
		j := strings.IndexAny(s[i+1:], "{}")
		if j < 0 || s[i+1+j] == '{' {
			return nil, fmt.Errorf("%w %q: '{' without '}'", ErrTemplate, string(t))
		}
		name := s[i+1 : i+1+j]
		if !validName(name) {
			return nil, fmt.Errorf("%w %q: bad placeholder name %q", ErrTemplate, string(t), name)
		}
		segs = append(segs, segment{name: name})
		s = s[i+2+j:]
	}
	return segs, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Check reports whether t parses.
func (t Template) Check() error {
	_, err := t.parse()
	return err
}

// Placeholders returns the names of t's placeholders in order of
// appearance, repeats included; nil if t does not parse.
func (t Template) Placeholders() []string {
	segs, err := t.parse()
	if err != nil {
		return nil
	}
	var names []string
	for _, s := range segs {
		if s.placeholder() {
			names = append(names, s.name)
		}
	}
	return names
}

// Prefix returns the literal text before t's first placeholder (all of t if
// it has none).
func (t Template) Prefix() string {
	if i := strings.IndexByte(string(t), '{'); i >= 0 {
		return string(t[:i])
	}
	return string(t)
}

// Literal reports whether t has no placeholders.
func (t Template) Literal() bool { return !strings.ContainsAny(string(t), "{}") }

// Fill replaces each placeholder with its value from values. It fails if t
// does not parse or a placeholder has no value.
func (t Template) Fill(values map[string]string) (string, error) {
	// One pass over t without parse's segments: keys are filled per
	// written item. A template that does not parse fails with parse's
	// error, before any missing value.
	var b strings.Builder
	b.Grow(len(t) + 32)
	for s := string(t); len(s) > 0; {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			if strings.IndexByte(s, '}') >= 0 {
				return "", t.parseError()
			}
			b.WriteString(s)
			break
		}
		j := strings.IndexAny(s[i+1:], "{}")
		if strings.IndexByte(s[:i], '}') >= 0 || j < 0 || s[i+1+j] == '{' {
			return "", t.parseError()
		}
		name := s[i+1 : i+1+j]
		v, ok := values[name]
		if !ok || !validName(name) {
			if err := t.parseError(); err != nil {
				return "", err
			}
			return "", fmt.Errorf("%w %q: no value for {%s}", ErrTemplate, string(t), name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+2+j:]
	}
	return b.String(), nil
}

// parseError returns parse's error for t, nil if t parses.
func (t Template) parseError() error {
	_, err := t.parse()
	return err
}

// MaxKeyBytes is the longest key Match considers: 2,048 bytes, DynamoDB's
// limit for a partition key (a sort key may have 1,024).
const MaxKeyBytes = 2048

// Match reports whether key is a value of t and returns the value of each
// placeholder. Every placeholder takes at least one byte; a name that occurs
// twice must take the same value both times. When several splits fit, Match
// gives each placeholder the shortest value that lets the rest match. A
// template with two adjacent placeholders, and a key longer than
// MaxKeyBytes, match nothing.
func (t Template) Match(key string) (map[string]string, bool) {
	segs, err := t.parse()
	if err != nil || len(key) > MaxKeyBytes {
		return nil, false
	}
	seen := map[string]bool{}
	m := &matcher{segs: segs, key: key, failed: map[string]bool{}, values: map[string]string{}}
	for i, s := range segs {
		if i > 0 && s.placeholder() && segs[i-1].placeholder() {
			return nil, false
		}
		m.repeats = m.repeats || seen[s.name]
		seen[s.name] = s.placeholder()
	}
	if !m.match(0, 0) {
		return nil, false
	}
	return m.values, true
}

type matcher struct {
	segs    []segment
	key     string
	repeats bool            // a placeholder name occurs twice
	failed  map[string]bool // states known not to match
	values  map[string]string
}

// state identifies a point of the search: the segment, the position in the
// key and, when names repeat, the values bound so far (which decide whether
// the rest can match).
func (m *matcher) state(si, pos int) string {
	st := strconv.Itoa(si) + ":" + strconv.Itoa(pos)
	if m.repeats {
		for _, s := range m.segs[si:] {
			if v, ok := m.values[s.name]; ok && s.placeholder() {
				st += "\x00" + s.name + "=" + v
			}
		}
	}
	return st
}

func (m *matcher) match(si, pos int) bool {
	if si == len(m.segs) {
		return pos == len(m.key)
	}
	st := m.state(si, pos)
	if m.failed[st] {
		return false
	}
	ok := m.step(si, pos)
	if !ok {
		m.failed[st] = true
	}
	return ok
}

func (m *matcher) step(si, pos int) bool {
	s := m.segs[si]
	rest := m.key[pos:]
	if !s.placeholder() {
		return strings.HasPrefix(rest, s.lit) && m.match(si+1, pos+len(s.lit))
	}
	try := func(end int) bool {
		v := m.key[pos:end]
		prev, had := m.values[s.name]
		if had && prev != v {
			return false
		}
		m.values[s.name] = v
		if m.match(si+1, end) {
			return true
		}
		if !had {
			delete(m.values, s.name)
		}
		return false
	}
	if si == len(m.segs)-1 {
		return len(rest) > 0 && try(len(m.key))
	}
	next := m.segs[si+1].lit // the next segment is a literal
	for off := 1; off < len(rest); {
		i := strings.Index(rest[off:], next)
		if i < 0 {
			break
		}
		if try(pos + off + i) {
			return true
		}
		off += i + 1
	}
	return false
}

// shape returns t with every placeholder name removed ("SITE#{}"), so that
// two templates that produce the same values compare equal.
func (t Template) shape() string {
	segs, err := t.parse()
	if err != nil {
		return string(t)
	}
	var b strings.Builder
	for _, s := range segs {
		if s.placeholder() {
			b.WriteString("{}")
		} else {
			b.WriteString(s.lit)
		}
	}
	return b.String()
}
