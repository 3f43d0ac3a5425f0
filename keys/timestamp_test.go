package keys

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTimestamp(t *testing.T) {
	at := time.Date(2024, 12, 1, 14, 30, 0, 999999, time.UTC)
	got, err := Timestamp(at)
	if err != nil || got != "2024-12-01T14:30:00.000Z" {
		t.Fatalf("Timestamp = %q, %v", got, err)
	}
	// The same form as JavaScript's toISOString and Go's RFC 3339 with millis.
	if want := at.Format("2006-01-02T15:04:05.000Z07:00"); got != want {
		t.Fatalf("Timestamp = %q, time.Format = %q", got, want)
	}
	back, err := ParseTimestamp(got)
	if err != nil || !back.Equal(at.Truncate(time.Millisecond)) {
		t.Fatalf("ParseTimestamp = %v, %v", back, err)
	}
	if got := MustTimestamp(time.Date(2024, 12, 1, 23, 30, 0, 0, time.FixedZone("X", -9*3600))); got != "2024-12-02T08:30:00.000Z" {
		t.Fatalf("Timestamp converts to UTC: %q", got)
	}
}

func TestTimestamp_Range(t *testing.T) {
	if got := MustTimestamp(minTime); got != "0000-01-01T00:00:00.000Z" {
		t.Errorf("min = %q", got)
	}
	if got := MustTimestamp(maxTime); got != "9999-12-31T23:59:59.999Z" {
		t.Errorf("max = %q", got)
	}
	for _, at := range []time.Time{minTime.Add(-time.Nanosecond), maxTime.Add(time.Nanosecond), time.Date(-500, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := Timestamp(at); !errors.Is(err, ErrRange) {
			t.Errorf("Timestamp(%v) error = %v", at, err)
		}
		if _, err := Unique(at); !errors.Is(err, ErrRange) {
			t.Errorf("Unique(%v) error = %v", at, err)
		}
	}
}

func TestParseTimestamp_Errors(t *testing.T) {
	for _, s := range []string{
		"", "2024-12-01T14:30:00Z", "2024-12-01T14:30:00.000+00:00", "2024-12-01 14:30:00.000Z",
		"2024-12-01T14:30:00.000z", "2024-12-01T24:00:00.000Z", "2024-12-01T14:60:00.000Z",
		"2024-12-01T14:30:60.000Z", "2024-02-30T14:30:00.000Z", "2024-12-01T14:30:00,000Z",
		"2024-12-01T14-30:00.000Z", "2024-12-01T14:30:00.0a0Z", "-024-12-01T14:30:00.000Z",
	} {
		if _, err := ParseTimestamp(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTimestamp(%q) error = %v, want ErrSyntax", s, err)
		}
	}
}

// TestTimestamp_OrderIsTimeOrder: byte order equals millisecond time order,
// and parsing round-trips.
func TestTimestamp_OrderIsTimeOrder(t *testing.T) {
	r := newRand(3)
	for range 50000 {
		a, b := randPair(r, 3, 2*time.Millisecond)
		ka, kb := MustTimestamp(a), MustTimestamp(b)
		ta, tb := a.Truncate(time.Millisecond), b.Truncate(time.Millisecond)
		if strings.Compare(ka, kb) != ta.Compare(tb) {
			t.Fatalf("keys %q, %q compare %d; times %v, %v", ka, kb, strings.Compare(ka, kb), ta, tb)
		}
		back, err := ParseTimestamp(ka)
		if err != nil || !back.Equal(ta) {
			t.Fatalf("ParseTimestamp(%q) = %v, %v, want %v", ka, back, err, ta)
		}
		ua, _ := UniqueSeq(a, r.Uint64())
		ub, _ := UniqueSeq(b, r.Uint64())
		if c := ta.Compare(tb); c != 0 && strings.Compare(ua, ub) != c {
			t.Fatalf("unique keys %q, %q do not sort by time", ua, ub)
		}
		day := MustTimeSeries(a, Day)
		if ka[:10] != day || TimeOfDay(a) != ka[11:23] {
			t.Fatalf("timestamp %q does not hold day %q and time of day %q", ka, day, TimeOfDay(a))
		}
	}
}

func TestTimeOfDay(t *testing.T) {
	at := time.Date(2024, 12, 1, 14, 30, 5, 7e6, time.UTC)
	if got := TimeOfDay(at); got != "14:30:05.007" {
		t.Fatalf("TimeOfDay = %q", got)
	}
	d, err := ParseTimeOfDay("14:30:05.007")
	if err != nil || d != 14*time.Hour+30*time.Minute+5*time.Second+7*time.Millisecond {
		t.Fatalf("ParseTimeOfDay = %v, %v", d, err)
	}
	for _, s := range []string{"", "14:30:05", "24:00:00.000", "14:60:00.000", "14:30:60.000", "14.30:05.007", "14:30:05:007", "1a:30:05.007"} {
		if _, err := ParseTimeOfDay(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTimeOfDay(%q) error = %v", s, err)
		}
	}
}

func TestUnique(t *testing.T) {
	at := time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC)
	a, err := Unique(at)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Unique(at)
	if a == b || len(a) != UniqueLen || a[:TimestampLen] != "2024-12-01T14:30:00.000Z" || a[TimestampLen] != '#' {
		t.Fatalf("Unique = %q, %q", a, b)
	}
	s, _ := UniqueSeq(at, 42)
	if s != "2024-12-01T14:30:00.000Z#000000000000002a" {
		t.Fatalf("UniqueSeq = %q", s)
	}
	back, seq, err := ParseUnique(s)
	if err != nil || seq != 42 || !back.Equal(at) {
		t.Fatalf("ParseUnique = %v %d %v", back, seq, err)
	}
	s1, _ := UniqueSeq(at, 1)
	s2, _ := UniqueSeq(at, 1<<40)
	if s1 >= s2 || MustTimestamp(at) >= s1 {
		t.Fatalf("same-instant keys out of order: %q %q", s1, s2)
	}
	for _, s := range []string{"", "2024-12-01T14:30:00.000Z", "2024-12-01T14:30:00.000Z#", "2024-12-01T14:30:00.000Z#000000000000002A",
		"2024-12-01T14:30:00.000Z-000000000000002a", "2024-12-01T14:30:00.000Z#00000000000002a", "2024-12-01T14:30:00.000Z#+00000000000002a"} {
		if _, _, err := ParseUnique(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseUnique(%q) error = %v", s, err)
		}
	}
}

func FuzzParseTimestamp(f *testing.F) {
	fuzzRoundTrip(f, "Timestamp", []string{"2024-12-01T14:30:00.000Z", "0000-01-01T00:00:00.000Z", "2024-02-30T00:00:00.000Z", ""},
		ParseTimestamp, noErr(MustTimestamp))
}

func FuzzParseTimeOfDay(f *testing.F) {
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	fuzzRoundTrip(f, "TimeOfDay", []string{"14:30:05.007", "23:59:59.999", "00:00:00.000", ""},
		ParseTimeOfDay, noErr(func(d time.Duration) string { return TimeOfDay(day.Add(d)) }))
}

func FuzzParseUnique(f *testing.F) {
	fuzzRoundTrip(f, "UniqueSeq", []string{"2024-12-01T14:30:00.000Z#000000000000002a", "2024-12-01T14:30:00.000Z#ffffffffffffffff"},
		parse2(ParseUnique), format2(UniqueSeq))
}

// TestTimestampPrefix: a timestamp has the prefix of a period exactly when
// its instant is in that period.
func TestTimestampPrefix(t *testing.T) {
	at := time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC)
	want := map[Granularity]string{Year: "2024", Month: "2024-12", Day: "2024-12-01", Hour: "2024-12-01T14", Minute: "2024-12-01T14:30"}
	for g, w := range want {
		p, err := TimestampPrefix(at, g)
		if err != nil || p != w {
			t.Errorf("TimestampPrefix(%v) = %q, %v, want %q", g, p, err, w)
		}
		start, pg, err := ParseTimestampPrefix(p)
		if err != nil || pg != g || !start.Equal(g.Truncate(at)) {
			t.Errorf("ParseTimestampPrefix(%q) = %v %v %v", p, start, pg, err)
		}
	}
	if _, err := TimestampPrefix(at, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid granularity: %v", err)
	}
	if _, err := TimestampPrefix(maxTime.Add(time.Hour), Day); !errors.Is(err, ErrRange) {
		t.Errorf("year 10000: %v", err)
	}
	for _, s := range []string{"2024-12-01-14", "2024-12-01T14-30", "2024-12-01T24", "2024-12-01T14:3", ""} {
		if _, _, err := ParseTimestampPrefix(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTimestampPrefix(%q) = %v", s, err)
		}
	}
	r := newRand(4)
	for range 20000 {
		a, b := randPair(r, 2, time.Hour)
		kb := MustTimestamp(b)
		for g := Year; g <= Minute; g++ {
			p, _ := TimestampPrefix(a, g)
			if has, same := strings.HasPrefix(kb, p), g.Truncate(a).Equal(g.Truncate(b)); has != same {
				t.Fatalf("%v: %q has prefix %q = %v, same period = %v", g, kb, p, has, same)
			}
		}
	}
}

func FuzzParseTimestampPrefix(f *testing.F) {
	fuzzRoundTrip(f, "TimestampPrefix", []string{"2024", "2024-12", "2024-12-01", "2024-12-01T14", "2024-12-01T14:30", "2024-12-01-14"},
		parse2(ParseTimestampPrefix), format2(TimestampPrefix))
}
