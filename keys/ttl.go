package keys

import (
	"fmt"
	"strconv"
	"time"
)

// TTL returns t as epoch seconds, the value DynamoDB's time to live reads
// from a Number attribute. Fractions of a second are dropped (rounded
// toward the past). Compute it from the event's time, not the write's, so
// that backfilled data expires when it should.
func TTL(t time.Time) int64 { return t.Unix() }

// TTLAttr returns TTL(t) as the decimal string of a DynamoDB Number
// attribute ("1733063400"), for a types.AttributeValueMemberN.
func TTLAttr(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// ParseTTL parses epoch seconds written as a decimal integer, as TTLAttr
// makes them, and returns the instant in UTC. It returns an error wrapping
// ErrSyntax for anything else, including a sign, spaces, fractions,
// exponents and leading zeros.
func ParseTTL(s string) (time.Time, error) {
	ok := s != "" && (s == "0" || s[0] != '0') && (s[0] != '-' || (len(s) > 1 && s[1] != '0'))
	sec, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil || s[0] == '+' {
		return time.Time{}, fmt.Errorf("cannot parse TTL %q: want epoch seconds: %w", s, ErrSyntax)
	}
	return time.Unix(sec, 0).UTC(), nil
}
