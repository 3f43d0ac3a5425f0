package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// MaxPayloadBytes is the largest payload Decode accepts.
const MaxPayloadBytes = 16 << 10

// Payload is a hit as a tracker sends it (Plausible's Events API).
type Payload struct {
	// Name is the event's name: "pageview", "engagement" or a custom
	// event's. Required.
	Name string
	// URL is the page's full URL. Required.
	URL string
	// Domain is the site's domain or id as the tracker was configured
	// (Plausible's data-domain); "" when the tracker sent none.
	Domain string
	// Referrer is the referring URL, "" if none.
	Referrer string
	// Props are the custom properties: string values as sent; numbers and
	// booleans as their JSON text; null, empty, object and array values
	// dropped (as Plausible drops them).
	Props map[string]string
	// Hash reports hash-based routing: the URL's fragment is part of the
	// path.
	Hash bool
	// Interactive is false for an event sent with interactive: false
	// (it does not end a bounce); true otherwise.
	Interactive bool
	// EngagementMs and ScrollDepth are what an engagement event reports:
	// engaged time in milliseconds and scroll depth in percent (clamped to
	// 0..100); zero when absent.
	EngagementMs int64
	ScrollDepth  int
}

// Errors of Decode and Collect, matched with errors.Is.
var (
	// ErrInvalid reports a payload that is not a valid hit.
	ErrInvalid = errors.New("collect: invalid")
	// ErrTooLarge reports a body over its limit.
	ErrTooLarge = errors.New("collect: too large")
)

// wire is the JSON of a payload, both names of each member.
type wire struct {
	N        string          `json:"n"`
	Name     string          `json:"name"`
	U        string          `json:"u"`
	URL      string          `json:"url"`
	D        string          `json:"d"`
	Domain   string          `json:"domain"`
	R        *string         `json:"r"`
	Referrer *string         `json:"referrer"`
	P        json.RawMessage `json:"p"`
	Props    json.RawMessage `json:"props"`
	M        json.RawMessage `json:"m"`
	Meta     json.RawMessage `json:"meta"`
	H        json.RawMessage `json:"h"`
	I        json.RawMessage `json:"i"`
	E        json.RawMessage `json:"e"`
	SD       json.RawMessage `json:"sd"`
}

// Decode parses a hit of at most MaxPayloadBytes (ErrTooLarge beyond). It
// fails with ErrInvalid when data is no JSON object, a member has the
// wrong type, or the name or URL is missing. It checks no lengths beyond
// the payload's: analytics.Store.Record does.
func Decode(data []byte) (*Payload, error) {
	if len(data) > MaxPayloadBytes {
		return nil, fmt.Errorf("%w: the payload is %d bytes, over the limit of %d", ErrTooLarge, len(data), MaxPayloadBytes)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("%w payload: want a JSON object", ErrInvalid)
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w payload: %v", ErrInvalid, err)
	}
	p := &Payload{Name: or(w.N, w.Name), URL: or(w.U, w.URL), Domain: or(w.D, w.Domain), Interactive: true}
	if w.R != nil {
		p.Referrer = *w.R
	} else if w.Referrer != nil {
		p.Referrer = *w.Referrer
	}
	if p.Name == "" {
		return nil, fmt.Errorf("%w payload: no event name (n)", ErrInvalid)
	}
	if p.URL == "" {
		return nil, fmt.Errorf("%w payload: no url (u)", ErrInvalid)
	}
	var err error
	if p.Props, err = decodeProps(firstRaw(w.P, w.Props, w.M, w.Meta)); err != nil {
		return nil, err
	}
	if p.Hash, err = flag("h", w.H, false); err != nil {
		return nil, err
	}
	if p.Interactive, err = flag("i", w.I, true); err != nil {
		return nil, err
	}
	e, err := number("e", w.E)
	if err != nil {
		return nil, err
	}
	p.EngagementMs = int64(max(0, min(e, float64(math.MaxInt32))))
	sd, err := number("sd", w.SD)
	if err != nil {
		return nil, err
	}
	p.ScrollDepth = int(max(0, min(sd, 100)))
	return p, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func firstRaw(rs ...json.RawMessage) json.RawMessage {
	for _, r := range rs {
		if !isNull(r) {
			return r
		}
	}
	return nil
}

// decodeProps reads props: an object, or a string holding one (Plausible's
// older trackers), or null.
func decodeProps(raw json.RawMessage) (map[string]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%w props: %v", ErrInvalid, err)
		}
		raw = json.RawMessage(s)
		if isNull(raw) || s == "" {
			return nil, nil
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%w props: want a JSON object", ErrInvalid)
	}
	props := make(map[string]string, len(obj))
	for k, v := range obj {
		if s, ok := scalar(v); ok && s != "" {
			props[k] = s
		}
	}
	if len(props) == 0 {
		return nil, nil
	}
	return props, nil
}

// scalar returns a JSON string's value, or a number's or boolean's text; ok
// is false for null, objects and arrays.
func scalar(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	case 't', 'f':
		return string(v), true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(v), utf8.Valid(v)
	}
	return "", false
}

// flag reads a boolean member sent as true/false, a number (0 is false) or
// a string of either; absent or null is def.
func flag(name string, raw json.RawMessage, def bool) (bool, error) {
	if isNull(raw) {
		return def, nil
	}
	s, ok := scalar(raw)
	if !ok {
		return false, fmt.Errorf("%w %s: want a boolean", ErrInvalid, name)
	}
	if b, err := strconv.ParseBool(s); err == nil {
		return b, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f != 0, nil
	}
	return false, fmt.Errorf("%w %s: want a boolean, not %q", ErrInvalid, name, s)
}

// number reads a number member (or a string of one); absent or null is 0.
func number(name string, raw json.RawMessage) (float64, error) {
	if isNull(raw) {
		return 0, nil
	}
	s, ok := scalar(raw)
	if !ok {
		return 0, fmt.Errorf("%w %s: want a number", ErrInvalid, name)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf("%w %s: want a number, not %q", ErrInvalid, name, s)
	}
	return f, nil
}
