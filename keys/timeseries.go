package keys

import (
	"fmt"
	"time"
)

// Granularity is the width of the period a time-series key names. The zero
// value is invalid.
type Granularity uint8

// The granularities, coarsest first. Their keys are:
//
//	Year    2024
//	Month   2024-12
//	Day     2024-12-01
//	Hour    2024-12-01-14
//	Minute  2024-12-01-14-30
const (
	Year Granularity = iota + 1
	Month
	Day
	Hour
	Minute
)

var granularityNames = [...]string{"", "year", "month", "day", "hour", "minute"}

// keyLen is the length of the key of each granularity, indexed by it.
var keyLen = [...]int{0, 4, 7, 10, 13, 16}

// String returns "year", "month", "day", "hour" or "minute", and
// "Granularity(N)" for an invalid value.
func (g Granularity) String() string {
	if g.Valid() {
		return granularityNames[g]
	}
	return fmt.Sprintf("Granularity(%d)", uint8(g))
}

// Valid reports whether g is one of the declared granularities.
func (g Granularity) Valid() bool { return g >= Year && g <= Minute }

// Len returns the length in bytes of the keys of granularity g, 0 if g is
// invalid.
func (g Granularity) Len() int {
	if !g.Valid() {
		return 0
	}
	return keyLen[g]
}

// ParseGranularity returns the granularity named s ("year", "month", "day",
// "hour" or "minute").
func ParseGranularity(s string) (Granularity, error) {
	for g := Year; g <= Minute; g++ {
		if granularityNames[g] == s {
			return g, nil
		}
	}
	return 0, fmt.Errorf("cannot parse granularity %q: want year, month, day, hour or minute: %w", s, ErrSyntax)
}

// Truncate returns the start, in UTC, of the period of granularity g that
// holds t. It returns t in UTC unchanged if g is invalid.
func (g Granularity) Truncate(t time.Time) time.Time {
	t = t.UTC()
	y, mo, d := t.Date()
	switch g {
	case Year:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case Month:
		return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
	case Day:
		return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	case Hour:
		return time.Date(y, mo, d, t.Hour(), 0, 0, 0, time.UTC)
	case Minute:
		return time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	}
	return t
}

// Next returns the start, in UTC, of the period of granularity g that
// follows the one holding t. It returns t in UTC unchanged if g is invalid.
func (g Granularity) Next(t time.Time) time.Time {
	s := g.Truncate(t)
	switch g {
	case Year:
		return s.AddDate(1, 0, 0)
	case Month:
		return s.AddDate(0, 1, 0)
	case Day:
		return s.AddDate(0, 0, 1)
	case Hour:
		return s.Add(time.Hour)
	case Minute:
		return s.Add(time.Minute)
	}
	return s
}

// TimeSeries returns the key of the period of granularity g that holds t,
// in UTC: TimeSeries(2024-12-01T14:30:00Z, Hour) = "2024-12-01-14". Keys of
// one granularity are of fixed width, and their byte order is the order of
// the periods. It returns an error wrapping ErrRange if t is outside the
// years 0000 to 9999, and one wrapping ErrInvalid if g is not valid.
func TimeSeries(t time.Time, g Granularity) (string, error) {
	var buf [16]byte
	b, err := AppendTimeSeries(buf[:0], t, g)
	return string(b), err
}

// MustTimeSeries is TimeSeries for arguments known to be valid. It panics
// where TimeSeries returns an error.
func MustTimeSeries(t time.Time, g Granularity) string {
	s, err := TimeSeries(t, g)
	if err != nil {
		panic(err)
	}
	return s
}

// AppendTimeSeries appends the key TimeSeries(t, g) to dst and returns the
// extended slice. On error dst is returned unchanged.
func AppendTimeSeries(dst []byte, t time.Time, g Granularity) ([]byte, error) {
	if !g.Valid() {
		return dst, fmt.Errorf("cannot build time-series key: %v: %w", g, ErrInvalid)
	}
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return dst, fmt.Errorf("cannot build time-series key for year %d: %w", y, ErrRange)
	}
	dst = appendDigits(dst, y, 4)
	if g >= Month {
		dst = append(dst, '-')
		dst = appendDigits(dst, int(mo), 2)
	}
	if g >= Day {
		dst = append(dst, '-')
		dst = appendDigits(dst, d, 2)
	}
	if g >= Hour {
		dst = append(dst, '-')
		dst = appendDigits(dst, t.Hour(), 2)
	}
	if g >= Minute {
		dst = append(dst, '-')
		dst = appendDigits(dst, t.Minute(), 2)
	}
	return dst, nil
}

// ParseTimeSeries parses a key made by TimeSeries and returns the start of
// its period in UTC and its granularity, told by the key's length. It
// returns an error wrapping ErrSyntax for anything TimeSeries cannot
// produce (wrong length, separators or digits, month 13, February 30,
// hour 24, ...).
func ParseTimeSeries(s string) (time.Time, Granularity, error) {
	var g Granularity
	for c := Year; c <= Minute; c++ {
		if len(s) == keyLen[c] {
			g = c
		}
	}
	if g == 0 {
		return time.Time{}, 0, fmt.Errorf("cannot parse time-series key %q: bad length: %w", s, ErrSyntax)
	}
	fail := func() (time.Time, Granularity, error) {
		return time.Time{}, 0, fmt.Errorf("cannot parse time-series key %q: want YYYY[-MM[-DD[-hh[-mm]]]]: %w", s, ErrSyntax)
	}
	y, ok := digits(s, 0, 4)
	mo, d, h, mi := 1, 1, 0, 0
	if ok && g >= Month {
		mo, ok = field(s, 4, '-', ok)
	}
	if ok && g >= Day {
		d, ok = field(s, 7, '-', ok)
	}
	if ok && g >= Hour {
		h, ok = field(s, 10, '-', ok)
	}
	if ok && g >= Minute {
		mi, ok = field(s, 13, '-', ok)
	}
	if !ok || !validDate(y, mo, d) || h > 23 || mi > 59 {
		return fail()
	}
	return time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC), g, nil
}

// appendDigits appends v, which must be in [0, 10^width), as width decimal
// digits with leading zeros.
func appendDigits(dst []byte, v, width int) []byte {
	var buf [9]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:width]...)
}

// digits reads width decimal digits of s at offset i.
func digits(s string, i, width int) (int, bool) {
	if i+width > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i : i+width]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// field reads the separator sep at offset i and two digits after it.
func field(s string, i int, sep byte, ok bool) (int, bool) {
	if !ok || i >= len(s) || s[i] != sep {
		return 0, false
	}
	return digits(s, i+1, 2)
}

// validDate reports whether y-mo-d is a date of the proleptic Gregorian
// calendar with y in 0..9999.
func validDate(y, mo, d int) bool {
	if y < 0 || y > 9999 || mo < 1 || mo > 12 || d < 1 {
		return false
	}
	return d <= daysIn(y, mo)
}

func daysIn(y, mo int) int {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
