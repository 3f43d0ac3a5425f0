package keys

import (
	"fmt"
	"strings"
)

// Sep is the separator between the parts of entity and composite keys.
const Sep = "#"

// Entity returns the entity key typ#id, such as Entity("SENSOR", "123") =
// "SENSOR#123". typ is meant to be a constant without '#' (ParseEntity
// splits at the first '#'); id may contain '#', but then the key no longer
// splits into parts with ParseComposite. Use Composite to have every part
// checked.
func Entity(typ, id string) string {
	return typ + Sep + id
}

// ParseEntity splits an entity key at its first '#' into the type and the
// id. It returns an error wrapping ErrSyntax if there is no '#' or if either
// side is empty. For every non-empty typ without '#' and non-empty id,
// ParseEntity(Entity(typ, id)) returns typ and id.
func ParseEntity(s string) (typ, id string, err error) {
	typ, id, ok := strings.Cut(s, Sep)
	if !ok || typ == "" || id == "" {
		return "", "", fmt.Errorf("cannot parse entity key %q: want TYPE#ID: %w", s, ErrSyntax)
	}
	return typ, id, nil
}

// Composite joins parts with '#': Composite("SENSOR", "123", "2024-12-01-14")
// = "SENSOR#123#2024-12-01-14". It returns an error wrapping ErrInvalid if
// there are no parts, or if a part is empty or contains '#', since such a key
// could not be split back into the same parts.
func Composite(parts ...string) (string, error) {
	if len(parts) == 0 {
		return "", fmt.Errorf("cannot build composite key: no parts: %w", ErrInvalid)
	}
	n := len(parts) - 1
	for i, p := range parts {
		if p == "" {
			return "", fmt.Errorf("cannot build composite key: part %d is empty: %w", i, ErrInvalid)
		}
		if strings.Contains(p, Sep) {
			return "", fmt.Errorf("cannot build composite key: part %d (%q) contains %q: %w", i, p, Sep, ErrInvalid)
		}
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(Sep)
		}
		b.WriteString(p)
	}
	return b.String(), nil
}

// MustComposite is Composite for parts known to be valid, such as constants.
// It panics where Composite returns an error.
func MustComposite(parts ...string) string {
	s, err := Composite(parts...)
	if err != nil {
		panic(err)
	}
	return s
}

// ParseComposite splits a composite key at every '#'. It returns an error
// wrapping ErrSyntax if any part is empty (including an empty s). For every
// parts accepted by Composite, ParseComposite(Composite(parts...)) returns
// parts. The returned slice is newly allocated and owned by the caller.
func ParseComposite(s string) ([]string, error) {
	parts := strings.Split(s, Sep)
	for i, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("cannot parse composite key %q: part %d is empty: %w", s, i, ErrSyntax)
		}
	}
	return parts, nil
}
