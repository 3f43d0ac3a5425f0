package keys

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTimeSeries(t *testing.T) {
	at := time.Date(2024, 12, 1, 14, 30, 15, 123456789, time.UTC)
	for _, c := range []struct {
		g    Granularity
		want string
	}{
		{Year, "2024"},
		{Month, "2024-12"},
		{Day, "2024-12-01"},
		{Hour, "2024-12-01-14"},
		{Minute, "2024-12-01-14-30"},
	} {
		got, err := TimeSeries(at, c.g)
		if err != nil || got != c.want {
			t.Errorf("TimeSeries(%v) = %q, %v, want %q", c.g, got, err, c.want)
		}
		if len(got) != c.g.Len() {
			t.Errorf("len(%q) = %d, Len() = %d", got, len(got), c.g.Len())
		}
		start, g, err := ParseTimeSeries(got)
		if err != nil || g != c.g || !start.Equal(c.g.Truncate(at)) {
			t.Errorf("ParseTimeSeries(%q) = %v, %v, %v", got, start, g, err)
		}
	}
}

func TestTimeSeries_UTC(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	at := time.Date(2024, 12, 1, 2, 0, 0, 0, tokyo) // 2024-11-30T17:00Z
	if got := MustTimeSeries(at, Hour); got != "2024-11-30-17" {
		t.Fatalf("TimeSeries in JST = %q, want the UTC hour 2024-11-30-17", got)
	}
}

func TestTimeSeries_Range(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(-1, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if _, err := TimeSeries(at, Day); !errors.Is(err, ErrRange) {
			t.Errorf("TimeSeries(%v) error = %v, want ErrRange", at, err)
		}
	}
	if got := MustTimeSeries(minTime, Minute); got != "0000-01-01-00-00" {
		t.Errorf("min = %q", got)
	}
	if got := MustTimeSeries(maxTime, Minute); got != "9999-12-31-23-59" {
		t.Errorf("max = %q", got)
	}
	if _, err := TimeSeries(minTime, Granularity(9)); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad granularity error = %v", err)
	}
}

func TestParseTimeSeries_Errors(t *testing.T) {
	for _, s := range []string{
		"", "202", "20245", "2024-1", "2024-13", "2024-00", "2024/12", "2024-12-32",
		"2023-02-29", "1900-02-29", "2024-12-01-24", "2024-12-01-14-60", "2024-12-01T14",
		"2024-12-01-14-30-00", "+024-12", "2024-1a", "２０２４",
	} {
		if _, _, err := ParseTimeSeries(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTimeSeries(%q) error = %v, want ErrSyntax", s, err)
		}
	}
	for _, s := range []string{"2024-02-29", "2000-02-29", "0000-02-29"} {
		if _, _, err := ParseTimeSeries(s); err != nil {
			t.Errorf("ParseTimeSeries(%q) = %v", s, err)
		}
	}
}

func TestGranularity(t *testing.T) {
	at := time.Date(2024, 12, 31, 23, 59, 59, 1, time.UTC)
	for g := Year; g <= Minute; g++ {
		back, err := ParseGranularity(g.String())
		if err != nil || back != g {
			t.Errorf("ParseGranularity(%q) = %v, %v", g.String(), back, err)
		}
		start, next := g.Truncate(at), g.Next(at)
		if start.After(at) || !next.After(at) {
			t.Errorf("%v: %v <= %v < %v does not hold", g, start, at, next)
		}
		if MustTimeSeries(next, g) <= MustTimeSeries(at, g) {
			t.Errorf("%v: key of next period %q not after %q", g, MustTimeSeries(next, g), MustTimeSeries(at, g))
		}
		if MustTimeSeries(next.Add(-time.Nanosecond), g) != MustTimeSeries(at, g) {
			t.Errorf("%v: the instant before Next is in another period", g)
		}
	}
	if _, err := ParseGranularity("week"); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseGranularity(week) = %v", err)
	}
	if Granularity(0).String() != "Granularity(0)" || Granularity(0).Len() != 0 {
		t.Errorf("invalid granularity: %q %d", Granularity(0).String(), Granularity(0).Len())
	}
}

// TestTimeSeries_OrderIsTimeOrder is the property the pattern stands on:
// for every granularity, key order equals the order of the periods.
func TestTimeSeries_OrderIsTimeOrder(t *testing.T) {
	r := newRand(2)
	for range 20000 {
		a, b := randPair(r, 4, 24*time.Hour)
		for g := Year; g <= Minute; g++ {
			ka, kb := MustTimeSeries(a, g), MustTimeSeries(b, g)
			pa, pb := g.Truncate(a), g.Truncate(b)
			if strings.Compare(ka, kb) != pa.Compare(pb) {
				t.Fatalf("%v: keys %q, %q compare %d; periods %v, %v compare %d",
					g, ka, kb, strings.Compare(ka, kb), pa, pb, pa.Compare(pb))
			}
			for _, k := range []string{ka, kb} {
				if k[:Year.Len()] != MustTimeSeries(a, Year) && k == ka {
					t.Fatalf("%v key %q does not start with its year", g, k)
				}
			}
			if g > Year && ka[:(g-1).Len()] != MustTimeSeries(a, g-1) {
				t.Fatalf("%v key %q does not start with the %v key", g, ka, g-1)
			}
		}
	}
}

func FuzzParseTimeSeries(f *testing.F) {
	fuzzRoundTrip(f, "TimeSeries", []string{"2024", "2024-12", "2024-12-01", "2024-12-01-14", "2024-12-01-14-30", "2024-02-30", ""},
		parse2(ParseTimeSeries), format2(TimeSeries))
}

func FuzzParseGranularity(f *testing.F) {
	fuzzRoundTrip(f, "Granularity", []string{"year", "month", "day", "hour", "minute", "week", ""},
		ParseGranularity, noErr(Granularity.String))
}
