package keys

import (
	"errors"
	"slices"
	"testing"
)

func TestEntity(t *testing.T) {
	if got := Entity("SENSOR", "123"); got != "SENSOR#123" {
		t.Fatalf("Entity = %q", got)
	}
	typ, id, err := ParseEntity("SENSOR#123")
	if err != nil || typ != "SENSOR" || id != "123" {
		t.Fatalf("ParseEntity = %q %q %v", typ, id, err)
	}
	typ, id, err = ParseEntity(Entity("USER", "a#b"))
	if err != nil || typ != "USER" || id != "a#b" {
		t.Fatalf("ParseEntity with # in id = %q %q %v", typ, id, err)
	}
}

func TestParseEntity_Errors(t *testing.T) {
	for _, s := range []string{"", "SENSOR", "#123", "SENSOR#", "#"} {
		if _, _, err := ParseEntity(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseEntity(%q) error = %v, want ErrSyntax", s, err)
		}
	}
}

func TestComposite(t *testing.T) {
	got, err := Composite("SENSOR", "123", "2024-12-01-14")
	if err != nil || got != "SENSOR#123#2024-12-01-14" {
		t.Fatalf("Composite = %q, %v", got, err)
	}
	if got := MustComposite("SERVICE", "api-gateway", "LOGS"); got != "SERVICE#api-gateway#LOGS" {
		t.Fatalf("MustComposite = %q", got)
	}
	parts, err := ParseComposite("SERVICE#api-gateway#LOGS")
	if err != nil || !slices.Equal(parts, []string{"SERVICE", "api-gateway", "LOGS"}) {
		t.Fatalf("ParseComposite = %q, %v", parts, err)
	}
}

func TestComposite_Refuses(t *testing.T) {
	for _, parts := range [][]string{nil, {""}, {"a", ""}, {"a#b"}, {"a", "#"}, {"", "b"}} {
		if s, err := Composite(parts...); !errors.Is(err, ErrInvalid) {
			t.Errorf("Composite(%q) = %q, %v, want ErrInvalid", parts, s, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustComposite with a '#' did not panic")
		}
	}()
	MustComposite("a#b")
}

func TestParseComposite_Errors(t *testing.T) {
	for _, s := range []string{"", "#", "a#", "#a", "a##b"} {
		if _, err := ParseComposite(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseComposite(%q) error = %v, want ErrSyntax", s, err)
		}
	}
}

func TestComposite_RoundTrip(t *testing.T) {
	r := newRand(1)
	alphabet := []byte("ab#-Z0é")
	for range 2000 {
		parts := make([]string, r.IntN(4))
		for i := range parts {
			b := make([]byte, r.IntN(4))
			for j := range b {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
			parts[i] = string(b)
		}
		s, err := Composite(parts...)
		if err != nil {
			continue
		}
		back, err := ParseComposite(s)
		if err != nil || !slices.Equal(back, parts) {
			t.Fatalf("ParseComposite(Composite(%q)) = %q, %v", parts, back, err)
		}
	}
}

func FuzzParseEntity(f *testing.F) {
	fuzzRoundTrip(f, "Entity", []string{"SENSOR#123", "a#b#c", "", "#", "x#"},
		parse2(ParseEntity), format2(func(typ, id string) (string, error) { return Entity(typ, id), nil }))
}

func FuzzParseComposite(f *testing.F) {
	fuzzRoundTrip(f, "Composite", []string{"SENSOR#123#RAW", "a", "", "#", "a##b"},
		ParseComposite, func(parts []string) (string, error) { return Composite(parts...) })
}
