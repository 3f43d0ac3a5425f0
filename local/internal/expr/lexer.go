package expr

import "unicode/utf8"

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tName             // attribute name: [A-Za-z][A-Za-z0-9_]*
	tNameRef          // #name placeholder
	tValueRef         // :value placeholder
	tInt              // list index: 0 or [1-9][0-9]*
	tEQ               // =
	tNE               // <>
	tLT               // <
	tLE               // <=
	tGT               // >
	tGE               // >=
	tLParen           // (
	tRParen           // )
	tLBracket         // [
	tRBracket         // ]
	tComma            // ,
	tDot              // .
	tPlus             // +
	tMinus            // -
	tAnd              // AND (keywords ignore case)
	tOr               // OR
	tNot              // NOT
	tBetween          // BETWEEN
	tIn               // IN
	tSet              // SET
	tRemove           // REMOVE
	tAdd              // ADD
	tDelete           // DELETE
	tUnknown          // any other character
)

// token is a lexical token; start and end are byte offsets in the input.
type token struct {
	kind       tokKind
	start, end int
}

// keywords of the grammar, matched ignoring case. They cannot be used as
// bare attribute names in any kind of expression.
var keywords = [...]struct {
	word string
	kind tokKind
}{
	{"AND", tAnd}, {"OR", tOr}, {"NOT", tNot}, {"BETWEEN", tBetween}, {"IN", tIn},
	{"SET", tSet}, {"REMOVE", tRemove}, {"ADD", tAdd}, {"DELETE", tDelete},
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isWordChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// equalFold reports whether s equals the upper-case ASCII word w, ignoring case.
func equalFold(s, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// lex splits s into tokens, ending with a tEOF token. It never fails:
// characters outside the grammar become tUnknown tokens of one code point,
// which the parser reports as syntax errors, as DynamoDB does.
func lex(s string, toks []token) []token {
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return append(toks, token{kind: tEOF, start: len(s), end: len(s)})
		}
		start := i
		c := s[i]
		kind := tUnknown
		switch {
		case isLetter(c):
			for i < len(s) && isWordChar(s[i]) {
				i++
			}
			kind = tName
			word := s[start:i]
			for _, k := range keywords {
				if equalFold(word, k.word) {
					kind = k.kind
					break
				}
			}
		case c == '#' || c == ':':
			i++
			for i < len(s) && isWordChar(s[i]) {
				i++
			}
			if i-start == 1 {
				kind = tUnknown
			} else if c == '#' {
				kind = tNameRef
			} else {
				kind = tValueRef
			}
		case c == '0':
			i++
			kind = tInt
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			kind = tInt
		case c == '<':
			i++
			switch {
			case skip(s, &i, '='):
				kind = tLE
			case skip(s, &i, '>'):
				kind = tNE
			default:
				kind = tLT
			}
		case c == '>':
			i++
			kind = tGT
			if skip(s, &i, '=') {
				kind = tGE
			}
		default:
			i++
			switch c {
			case '=':
				kind = tEQ
			case '(':
				kind = tLParen
			case ')':
				kind = tRParen
			case '[':
				kind = tLBracket
			case ']':
				kind = tRBracket
			case ',':
				kind = tComma
			case '.':
				kind = tDot
			case '+':
				kind = tPlus
			case '-':
				kind = tMinus
			default:
				if c >= utf8.RuneSelf {
					_, n := utf8.DecodeRuneInString(s[start:])
					i = start + n
				}
			}
		}
		toks = append(toks, token{kind: kind, start: start, end: i})
	}
}

// skip moves *i past the byte c if it is the one at *i in s, for the
// operators of two characters.
func skip(s string, i *int, c byte) bool {
	if *i < len(s) && s[*i] == c {
		*i++
		return true
	}
	return false
}
