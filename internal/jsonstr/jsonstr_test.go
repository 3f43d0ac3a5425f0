package jsonstr

import (
	"encoding/json"
	"testing"
)

// check fails unless Append(s) is a JSON string that decodes to what
// encoding/json's own encoding of s decodes to.
func check(t *testing.T, s string) {
	t.Helper()
	out := Append([]byte("x"), s)
	if out[0] != 'x' {
		t.Fatalf("Append lost dst's prefix: %q", out)
	}
	var got, want string
	if err := json.Unmarshal(out[1:], &got); err != nil {
		t.Fatalf("Append(%q) = %s, not JSON: %v", s, out[1:], err)
	}
	ref, _ := json.Marshal(s)
	if err := json.Unmarshal(ref, &want); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("Append(%q) decodes to %q, encoding/json's to %q", s, got, want)
	}
}

func TestAppend(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "\n\r\t\x00\x1f\x7f", "é 日本 🎉 \u2028 <>&", "a\xffb\xc3", "\xed\xa0\x80"} {
		check(t, s)
	}
	if got := string(Append(nil, "a\"\x01\xff")); got != `"a\"\u0001\ufffd"` {
		t.Errorf("Append = %s", got)
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("plain")
	f.Add("a\xffb\"\\\x00é")
	f.Fuzz(check)
}
