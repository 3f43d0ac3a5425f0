package keys

import (
	"errors"
	"testing"
	"time"
)

func TestTTL(t *testing.T) {
	at := time.Date(2024, 12, 1, 14, 30, 0, 999e6, time.UTC)
	if got := TTL(at); got != 1733063400 {
		t.Fatalf("TTL = %d", got)
	}
	if got := TTLAttr(at); got != "1733063400" {
		t.Fatalf("TTLAttr = %q", got)
	}
	back, err := ParseTTL("1733063400")
	if err != nil || !back.Equal(at.Truncate(time.Second)) {
		t.Fatalf("ParseTTL = %v, %v", back, err)
	}
	if got := TTLAttr(time.Unix(-5, 0)); got != "-5" {
		t.Fatalf("TTLAttr before 1970 = %q", got)
	}
	for _, s := range []string{"", "-", "+5", "05", "-0", "1.5", "1e9", " 1", "99999999999999999999", "0x10"} {
		if _, err := ParseTTL(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTTL(%q) error = %v", s, err)
		}
	}
}

func FuzzParseTTL(f *testing.F) {
	fuzzRoundTrip(f, "TTLAttr", []string{"0", "1733063400", "-5", "05", ""}, ParseTTL, noErr(TTLAttr))
}
