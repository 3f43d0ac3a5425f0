package wire

import (
	"iter"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads one JSON document from a byte slice. It is a pull parser:
// the decoders ask for the value they expect and the scanner reports what it
// found. It never panics on malformed input and bounds nesting at maxDepth.
type scanner struct {
	data  []byte
	pos   int
	depth int
	max   int
	buf   []byte // scratch space for unescaping

	// recent holds strings made lately, so that a name or value seen again
	// (attribute names, table names, enums, expressions repeat across items
	// and requests) costs no allocation.
	recent [512]string
}

// intern returns b as a string, reusing an earlier equal string from the
// table of recent ones when there is one.
func (s *scanner) intern(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	h := uint32(len(b))
	for _, c := range b {
		h = h*31 + uint32(c)
	}
	slot := &s.recent[(h^h>>9)%uint32(len(s.recent))]
	if *slot == string(b) {
		return *slot
	}
	str := string(b)
	*slot = str
	return str
}

// token kinds as seen by the first byte of a value.
const (
	tokEOF = iota
	tokObject
	tokArray
	tokString
	tokNumber
	tokTrue
	tokFalse
	tokNull
	tokInvalid
)

// tokenName is the name DynamoDB's JSON layer gives a token in its
// SerializationException messages ("NUMBER_VALUE cannot be converted to
// String").
func tokenName(tok int) string {
	switch tok {
	case tokString:
		return "STRING_VALUE"
	case tokNumber:
		return "NUMBER_VALUE"
	case tokTrue, tokFalse:
		return "BOOLEAN_VALUE"
	case tokNull:
		return "NULL_VALUE"
	case tokObject:
		return "START_OBJECT"
	case tokArray:
		return "START_ARRAY"
	}
	return "UNKNOWN"
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek skips white space and classifies the next value without consuming it.
func (s *scanner) peek() int {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return tokEOF
	}
	switch c := s.data[s.pos]; c {
	case '{':
		return tokObject
	case '[':
		return tokArray
	case '"':
		return tokString
	case 't':
		return tokTrue
	case 'f':
		return tokFalse
	case 'n':
		return tokNull
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return tokNumber
		}
	}
	return tokInvalid
}

func (s *scanner) syntaxError(what string) error {
	if s.pos >= len(s.data) {
		return serializationError("Unexpected end of input: expected " + what)
	}
	c := s.data[s.pos]
	var shown string
	if c >= 0x20 && c < 0x7f {
		shown = strconv.QuoteRune(rune(c))
	} else {
		shown = "0x" + strconv.FormatUint(uint64(c), 16)
	}
	return serializationError("Unexpected character " + shown + " at offset " + strconv.Itoa(s.pos) + ": expected " + what)
}

// literal consumes the literal word (true, false, null).
func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.syntaxError(word)
	}
	s.pos += len(word)
	return nil
}

// enter consumes an opening bracket and counts nesting.
func (s *scanner) enter(open byte) error {
	if s.pos >= len(s.data) || s.data[s.pos] != open {
		return s.syntaxError(string(open))
	}
	s.depth++
	if s.depth > s.max {
		return errTooDeep
	}
	s.pos++
	return nil
}

// more reports whether another element follows in the object or array that
// is open, consuming the separating comma, or consumes the closing bracket
// and returns false. first is true before the first element.
func (s *scanner) more(closing byte, first bool) (bool, error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, s.syntaxError(string(closing))
	}
	c := s.data[s.pos]
	if c == closing {
		s.pos++
		s.depth--
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, s.syntaxError("',' or " + strconv.QuoteRune(rune(closing)))
	}
	s.pos++
	return true, nil
}

// elems ranges over the elements of the array just entered, consuming the
// commas between them and the closing ']': the loop body reads each
// element. A syntax error ends the range, yielded as its last value; the
// other values are nil.
func (s *scanner) elems() iter.Seq[error] {
	return func(yield func(error) bool) {
		for first := true; ; first = false {
			more, err := s.more(']', first)
			if err != nil {
				yield(err)
				return
			}
			if !more || !yield(nil) {
				return
			}
		}
	}
}

// members ranges over the members of the object just entered, consuming
// the names, the commas and the closing '}': it yields each member's name
// (valid until the next, as key's) and the loop body reads the value. A
// syntax error ends the range, yielded as its last value with a nil name.
func (s *scanner) members() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		for first := true; ; first = false {
			more, err := s.more('}', first)
			if err != nil {
				yield(nil, err)
				return
			}
			if !more {
				return
			}
			name, err := s.key()
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(name, nil) {
				return
			}
		}
	}
}

// key reads an object member name and the colon after it. The returned
// bytes alias the input or the scanner's scratch buffer and are valid until
// the next call to key.
func (s *scanner) key() ([]byte, error) {
	s.skipSpace()
	raw, escaped, err := s.rawString()
	if err != nil {
		return nil, err
	}
	if escaped {
		s.buf, err = unescape(s.buf[:0], raw)
		if err != nil {
			return nil, err
		}
		raw = s.buf
	}
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return nil, s.syntaxError("':'")
	}
	s.pos++
	return raw, nil
}

// rawString consumes a string token and returns its contents between the
// quotes, unprocessed, and whether it holds escapes. It checks that the
// bytes are valid UTF-8 without control characters.
func (s *scanner) rawString() (raw []byte, escaped bool, err error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, false, s.syntaxError("a string")
	}
	start := s.pos + 1
	i := start
	ascii := true
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			raw = s.data[start:i]
			if !ascii && !utf8.Valid(raw) {
				return nil, false, serializationError("Invalid UTF-8 in string at offset " + strconv.Itoa(start))
			}
			s.pos = i + 1
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			i += 2
			continue
		case c < 0x20:
			s.pos = i
			return nil, false, s.syntaxError("a string character (control characters must be escaped)")
		case c >= 0x80:
			ascii = false
		}
		i++
	}
	s.pos = len(s.data)
	return nil, false, s.syntaxError("'\"' to end the string")
}

// str reads a string token into a new string.
func (s *scanner) str() (string, error) {
	raw, escaped, err := s.rawString()
	if err != nil {
		return "", err
	}
	if !escaped {
		return s.intern(raw), nil
	}
	s.buf, err = unescape(s.buf[:0], raw)
	if err != nil {
		return "", err
	}
	return s.intern(s.buf), nil
}

// unescape appends the unescaped form of raw, the inside of a JSON string,
// to dst. Lone surrogates become U+FFFD, as encoding/json does.
func unescape(dst, raw []byte) ([]byte, error) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return nil, serializationError("Invalid escape at end of string")
		}
		switch e := raw[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				return nil, serializationError("Invalid \\u escape in string")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(raw[min(i+2, len(raw)):]); ok && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						i += 6
						dst = utf8.AppendRune(dst, d)
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return nil, serializationError("Invalid escape character " + strconv.QuoteRune(rune(e)) + " in string")
		}
		i += 2
	}
	return dst, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number consumes a number token and returns its text, checked against
// JSON's grammar.
func (s *scanner) number() ([]byte, error) {
	start := s.pos
	i := s.pos
	n := len(s.data)
	if i < n && s.data[i] == '-' {
		i++
	}
	switch {
	case i < n && s.data[i] == '0':
		i++
	case i < n && s.data[i] >= '1' && s.data[i] <= '9':
		for i < n && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return nil, s.syntaxError("a digit")
	}
	if i < n && s.data[i] == '.' {
		i++
		if i >= n || s.data[i] < '0' || s.data[i] > '9' {
			s.pos = i
			return nil, s.syntaxError("a digit after '.'")
		}
		for i < n && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
	}
	if i < n && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < n && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		if i >= n || s.data[i] < '0' || s.data[i] > '9' {
			s.pos = i
			return nil, s.syntaxError("a digit in the exponent")
		}
		for i < n && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return s.data[start:i], nil
}

// skip consumes one value of any type, checking its syntax.
func (s *scanner) skip() error {
	switch s.peek() {
	case tokObject:
		if err := s.enter('{'); err != nil {
			return err
		}
		for _, err := range s.members() {
			if err == nil {
				err = s.skip()
			}
			if err != nil {
				return err
			}
		}
		return nil
	case tokArray:
		if err := s.enter('['); err != nil {
			return err
		}
		for err := range s.elems() {
			if err == nil {
				err = s.skip()
			}
			if err != nil {
				return err
			}
		}
		return nil
	case tokString:
		_, _, err := s.rawString()
		return err
	case tokNumber:
		_, err := s.number()
		return err
	case tokTrue:
		return s.literal("true")
	case tokFalse:
		return s.literal("false")
	case tokNull:
		return s.literal("null")
	}
	return s.syntaxError("a value")
}

// end checks that only white space follows the document.
func (s *scanner) end() error {
	s.skipSpace()
	if s.pos != len(s.data) {
		return s.syntaxError("end of input")
	}
	return nil
}
