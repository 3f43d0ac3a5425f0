package keys

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// TimestampLen is the length of every key made by Timestamp.
const TimestampLen = len("2024-12-01T14:30:00.000Z")

// UniqueLen is the length of every key made by Unique and UniqueSeq.
const UniqueLen = TimestampLen + 1 + 16

// TimeOfDayLen is the length of every key made by TimeOfDay.
const TimeOfDayLen = len("14:30:00.000")

// Timestamp returns t as a fixed-width ISO 8601 instant in UTC with
// milliseconds, "2024-12-01T14:30:00.000Z" (JavaScript's toISOString).
// Sub-millisecond digits are truncated, so for instants a and b in range,
// Timestamp(a) < Timestamp(b) exactly when a truncated to the millisecond
// is before b truncated to the millisecond. It returns an error wrapping
// ErrRange if t is outside the years 0000 to 9999.
func Timestamp(t time.Time) (string, error) {
	var buf [TimestampLen]byte
	b, err := AppendTimestamp(buf[:0], t)
	return string(b), err
}

// MustTimestamp is Timestamp for an instant known to be in range. It
// panics where Timestamp returns an error.
func MustTimestamp(t time.Time) string {
	s, err := Timestamp(t)
	if err != nil {
		panic(err)
	}
	return s
}

// AppendTimestamp appends Timestamp(t) to dst and returns the extended
// slice. On error dst is returned unchanged.
func AppendTimestamp(dst []byte, t time.Time) ([]byte, error) {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return dst, fmt.Errorf("cannot build timestamp key for year %d: %w", y, ErrRange)
	}
	dst, _ = AppendTimeSeries(dst, t, Day)
	dst = append(dst, 'T')
	dst = appendClock(dst, t)
	return append(dst, 'Z'), nil
}

func appendClock(dst []byte, t time.Time) []byte {
	dst = appendDigits(dst, t.Hour(), 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, t.Minute(), 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, t.Second(), 2)
	dst = append(dst, '.')
	return appendDigits(dst, t.Nanosecond()/1e6, 3)
}

// ParseTimestamp parses a key made by Timestamp and returns the instant in
// UTC. It accepts exactly the 24-byte form "YYYY-MM-DDThh:mm:ss.sssZ" (no
// other offsets, precisions or leap seconds) and returns an error wrapping
// ErrSyntax for anything else. Timestamp(ParseTimestamp(s)) == s for every
// s it accepts.
func ParseTimestamp(s string) (time.Time, error) {
	if len(s) != TimestampLen || s[10] != 'T' || s[23] != 'Z' {
		return time.Time{}, fmt.Errorf("cannot parse timestamp key %q: want YYYY-MM-DDThh:mm:ss.sssZ: %w", s, ErrSyntax)
	}
	day, g, err := ParseTimeSeries(s[:10])
	if err != nil || g != Day {
		return time.Time{}, fmt.Errorf("cannot parse timestamp key %q: bad date: %w", s, ErrSyntax)
	}
	clock, err := ParseTimeOfDay(s[11:23])
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot parse timestamp key %q: bad time of day: %w", s, ErrSyntax)
	}
	return day.Add(clock), nil
}

// TimeOfDay returns the time of day of t in UTC with milliseconds,
// "14:30:00.000", the sort key of day-partitioned layouts (whose partition
// key carries TimeSeries(t, Day)). Its byte order is the order of the
// times of day.
func TimeOfDay(t time.Time) string {
	var buf [TimeOfDayLen]byte
	return string(appendClock(buf[:0], t.UTC()))
}

// ParseTimeOfDay parses a key made by TimeOfDay and returns the time since
// midnight. It returns an error wrapping ErrSyntax for anything TimeOfDay
// cannot produce.
func ParseTimeOfDay(s string) (time.Duration, error) {
	ok := len(s) == TimeOfDayLen
	h, ok := digitsIf(s, 0, 2, ok)
	m, ok := field(s, 2, ':', ok)
	sec, ok := field(s, 5, ':', ok)
	if ok && s[8] != '.' {
		ok = false
	}
	ms, ok := digitsIf(s, 9, 3, ok)
	if !ok || h > 23 || m > 59 || sec > 59 {
		return 0, fmt.Errorf("cannot parse time-of-day key %q: want hh:mm:ss.sss: %w", s, ErrSyntax)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(sec)*time.Second + time.Duration(ms)*time.Millisecond, nil
}

func digitsIf(s string, i, width int, ok bool) (int, bool) {
	if !ok {
		return 0, false
	}
	return digits(s, i, width)
}

// Unique returns Timestamp(t) followed by '#' and 16 random lowercase hex
// digits, "2024-12-01T14:30:00.000Z#9f86d081884c7d65", so that readings at
// the same instant get distinct keys. Keys sort by time first; keys of one
// millisecond sort in random order. A retried write gets a new key, so use
// UniqueSeq when writes must be idempotent. Safe for concurrent use.
func Unique(t time.Time) (string, error) {
	return UniqueSeq(t, rand.Uint64())
}

// UniqueSeq returns Timestamp(t) followed by '#' and seq as 16 lowercase
// hex digits, "2024-12-01T14:30:00.000Z#000000000000002a". Keys of one
// millisecond sort by seq. It returns an error wrapping ErrRange if t is
// outside the years 0000 to 9999.
func UniqueSeq(t time.Time, seq uint64) (string, error) {
	var buf [UniqueLen]byte
	b, err := AppendTimestamp(buf[:0], t)
	if err != nil {
		return "", err
	}
	b = append(b, Sep...)
	b = appendHex(b, seq)
	return string(b), nil
}

func appendHex(dst []byte, v uint64) []byte {
	const hexDigits = "0123456789abcdef"
	for i := 60; i >= 0; i -= 4 {
		dst = append(dst, hexDigits[(v>>uint(i))&0xf])
	}
	return dst
}

// ParseUnique parses a key made by Unique or UniqueSeq and returns its
// instant and its suffix. It returns an error wrapping ErrSyntax for
// anything else (the suffix must be 16 lowercase hex digits).
func ParseUnique(s string) (time.Time, uint64, error) {
	fail := func() (time.Time, uint64, error) {
		return time.Time{}, 0, fmt.Errorf("cannot parse unique key %q: want YYYY-MM-DDThh:mm:ss.sssZ#<16 hex digits>: %w", s, ErrSyntax)
	}
	if len(s) != UniqueLen || s[TimestampLen] != '#' {
		return fail()
	}
	t, err := ParseTimestamp(s[:TimestampLen])
	if err != nil {
		return fail()
	}
	hex := s[TimestampLen+1:]
	for _, c := range []byte(hex) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fail()
		}
	}
	seq, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return fail()
	}
	return t, seq, nil
}

// TimestampPrefix returns the prefix shared by the Timestamp keys of every
// instant in the period of granularity g that holds t, for begins_with
// queries over ISO sort keys: "2024", "2024-12", "2024-12-01",
// "2024-12-01T14", "2024-12-01T14:30". (TimeSeries keys use '-' after the
// day, so TimeSeries(t, Hour) is not a prefix of timestamps.) It returns an
// error wrapping ErrRange for years outside 0000-9999, and one wrapping
// ErrInvalid for an invalid g.
func TimestampPrefix(t time.Time, g Granularity) (string, error) {
	if !g.Valid() {
		return "", fmt.Errorf("cannot build timestamp prefix: %v: %w", g, ErrInvalid)
	}
	var buf [TimestampLen]byte
	b, err := AppendTimestamp(buf[:0], t)
	if err != nil {
		return "", err
	}
	return string(b[:g.Len()]), nil
}

// ParseTimestampPrefix parses a prefix made by TimestampPrefix and returns
// the start of its period in UTC and its granularity. It returns an error
// wrapping ErrSyntax for anything TimestampPrefix cannot produce.
func ParseTimestampPrefix(s string) (time.Time, Granularity, error) {
	ts := []byte(s)
	if len(ts) >= Hour.Len() {
		if ts[10] != 'T' {
			return time.Time{}, 0, fmt.Errorf("cannot parse timestamp prefix %q: %w", s, ErrSyntax)
		}
		ts[10] = '-'
		if len(ts) == Minute.Len() {
			if ts[13] != ':' {
				return time.Time{}, 0, fmt.Errorf("cannot parse timestamp prefix %q: %w", s, ErrSyntax)
			}
			ts[13] = '-'
		}
	}
	at, g, err := ParseTimeSeries(string(ts))
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("cannot parse timestamp prefix %q: %w", s, ErrSyntax)
	}
	return at, g, nil
}
