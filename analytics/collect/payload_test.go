package collect

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// Payloads as Plausible's tracker (npm @plausible-analytics/tracker 0.4.6,
// plausible.js) builds them: a page view {n, v, u, d, r}, props, i: false
// and h: 1 added when set; an engagement event {n, sd, d, u, p, e, v}.
// Older scripts sent props as a JSON string, and meta (m) before props.
var plausiblePayloads = []string{
	`{"n":"pageview","v":36,"u":"https://shop.example/shoes?utm_source=x","d":"shop.example","r":null}`,
	`{"n":"pageview","v":36,"u":"https://shop.example/#/cart","d":"shop.example","r":"https://www.google.com/","h":1}`,
	`{"n":"Signup","v":36,"u":"https://shop.example/","d":"shop.example","r":null,"p":{"plan":"pro","seats":3},"i":false,"$":{"amount":"9.99","currency":"EUR"}}`,
	`{"n":"engagement","sd":73,"d":"shop.example","u":"https://shop.example/shoes","p":{"plan":"pro"},"e":5210,"v":36}`,
	`{"n":"pageview","u":"https://shop.example/","d":"shop.example","r":"","w":1440,"h":0,"p":"{\"author\":\"ann\"}"}`,
	`{"name":"pageview","url":"https://shop.example/","domain":"shop.example","referrer":"https://t.co/x","props":{"a":"b"},"interactive":true}`,
	`{"n":"Download","u":"https://shop.example/","d":"shop.example","m":"{\"file\":\"a.pdf\"}"}`,
}

func TestDecode(t *testing.T) {
	for i, c := range []struct {
		in   string
		want Payload
	}{
		{plausiblePayloads[0], Payload{Name: "pageview", URL: "https://shop.example/shoes?utm_source=x", Domain: "shop.example", Interactive: true}},
		{plausiblePayloads[1], Payload{Name: "pageview", URL: "https://shop.example/#/cart", Domain: "shop.example", Referrer: "https://www.google.com/", Hash: true, Interactive: true}},
		{plausiblePayloads[2], Payload{Name: "Signup", URL: "https://shop.example/", Domain: "shop.example", Props: map[string]string{"plan": "pro", "seats": "3"}}},
		{plausiblePayloads[3], Payload{Name: "engagement", URL: "https://shop.example/shoes", Domain: "shop.example", Props: map[string]string{"plan": "pro"}, Interactive: true, EngagementMs: 5210, ScrollDepth: 73}},
		{plausiblePayloads[4], Payload{Name: "pageview", URL: "https://shop.example/", Domain: "shop.example", Props: map[string]string{"author": "ann"}, Interactive: true}},
		{plausiblePayloads[5], Payload{Name: "pageview", URL: "https://shop.example/", Domain: "shop.example", Referrer: "https://t.co/x", Props: map[string]string{"a": "b"}, Interactive: true}},
		{plausiblePayloads[6], Payload{Name: "Download", URL: "https://shop.example/", Domain: "shop.example", Props: map[string]string{"file": "a.pdf"}, Interactive: true}},
		// Props: null, empty, objects and arrays dropped; booleans and numbers as text.
		{`{"n":"x","u":"http://a.b/","p":{"a":null,"b":"","c":{},"d":[1],"e":false,"f":-1.5e3}}`, Payload{Name: "x", URL: "http://a.b/", Props: map[string]string{"e": "false", "f": "-1.5e3"}, Interactive: true}},
		{`{"n":"x","u":"http://a.b/","p":"null"}`, Payload{Name: "x", URL: "http://a.b/", Interactive: true}},
		// Flags and numbers as strings; scroll depth clamped.
		{`{"n":"engagement","u":"http://a.b/","h":"true","i":"0","e":"12","sd":250}`, Payload{Name: "engagement", URL: "http://a.b/", Hash: true, EngagementMs: 12, ScrollDepth: 100}},
		{`{"n":"engagement","u":"http://a.b/","e":-5,"sd":-1}`, Payload{Name: "engagement", URL: "http://a.b/", Interactive: true}},
		{" \n{\"n\":\"x\",\"u\":\"http://a.b/\",\"unknown\":[1,2]}\n", Payload{Name: "x", URL: "http://a.b/", Interactive: true}},
	} {
		got, err := Decode([]byte(c.in))
		if err != nil {
			t.Errorf("%d: Decode(%s): %v", i, c.in, err)
			continue
		}
		if !samePayload(got, &c.want) {
			t.Errorf("%d: Decode(%s)\n got %+v\nwant %+v", i, c.in, *got, c.want)
		}
	}
}

func samePayload(a, b *Payload) bool {
	return a.Name == b.Name && a.URL == b.URL && a.Domain == b.Domain && a.Referrer == b.Referrer && a.Hash == b.Hash &&
		a.Interactive == b.Interactive && a.EngagementMs == b.EngagementMs && a.ScrollDepth == b.ScrollDepth && maps.Equal(a.Props, b.Props)
}

func TestDecode_Errors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want error
		msg  string
	}{
		{``, ErrInvalid, "JSON object"},
		{`[]`, ErrInvalid, "JSON object"},
		{`{"n":"x"`, ErrInvalid, "payload"},
		{`{"u":"http://a.b/"}`, ErrInvalid, "no event name"},
		{`{"n":"x"}`, ErrInvalid, "no url"},
		{`{"n":1,"u":"http://a.b/"}`, ErrInvalid, "payload"},
		{`{"n":"x","u":"http://a.b/","p":[1]}`, ErrInvalid, "props"},
		{`{"n":"x","u":"http://a.b/","p":"{bad"}`, ErrInvalid, "props"},
		{`{"n":"x","u":"http://a.b/","p":7}`, ErrInvalid, "props"},
		{`{"n":"x","u":"http://a.b/","h":"maybe"}`, ErrInvalid, "h"},
		{`{"n":"x","u":"http://a.b/","i":{}}`, ErrInvalid, "i"},
		{`{"n":"x","u":"http://a.b/","e":"soon"}`, ErrInvalid, "e"},
		{`{"n":"x","u":"http://a.b/","sd":[]}`, ErrInvalid, "sd"},
		{`{"n":"x","u":"http://a.b/","p":"` + strings.Repeat("a", MaxPayloadBytes) + `"}`, ErrTooLarge, "limit"},
	} {
		_, err := Decode([]byte(c.in))
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Decode(%.60s): %v, want %v mentioning %q", c.in, err, c.want, c.msg)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range plausiblePayloads {
		f.Add([]byte(p))
	}
	for _, p := range []string{`{}`, `{"n":"x","u":"u","p":"\"\""}`, `{"n":"x","u":"u","e":1e400}`, `{"n":"x","u":"u","sd":"NaN"}`, `null`} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v is neither ErrInvalid nor ErrTooLarge", err)
			}
			return
		}
		if p.Name == "" || p.URL == "" || p.EngagementMs < 0 || p.ScrollDepth < 0 || p.ScrollDepth > 100 {
			t.Fatalf("Decode accepted %q as %+v", data, *p)
		}
		for k, v := range p.Props {
			if v == "" {
				t.Fatalf("empty value of prop %q kept", k)
			}
		}
	})
}
