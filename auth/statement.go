package auth

import "strings"

// statementTable returns the table a PartiQL statement of DynamoDB acts
// on, and whether the statement writes:
//
//	SELECT ... FROM "table"[."index"] ...       reads
//	EXISTS(SELECT ... FROM "table" ...)          reads (a transaction's check)
//	INSERT INTO "table" VALUE {...}              writes
//	UPDATE "table" SET ... / REMOVE ...          writes
//	DELETE FROM "table" WHERE ...                writes
//
// The table is a double-quoted identifier ("" for a quote) or a bare one.
// ok is false when the statement is none of these, has a comment, or has
// more than one FROM (outside strings and quoted identifiers): the caller
// then cannot tell its table, and must not guess.
func statementTable(stmt string) (table string, writes, ok bool) {
	toks, ok := partiQLTokens(stmt)
	if !ok || len(toks) < 2 {
		return "", false, false
	}
	word := func(i int) string {
		if i < len(toks) && !toks[i].quoted {
			return strings.ToUpper(toks[i].text)
		}
		return ""
	}
	name := func(i int) (string, bool) {
		if i >= len(toks) || (!toks[i].quoted && !isBareIdent(toks[i].text)) || toks[i].text == "" {
			return "", false
		}
		return toks[i].text, true
	}
	from := -1
	for i := range toks {
		if word(i) == "FROM" {
			if from >= 0 {
				return "", false, false
			}
			from = i
		}
	}
	switch word(0) {
	case "SELECT", "EXISTS":
		if from < 0 {
			return "", false, false
		}
		t, ok := name(from + 1)
		return t, false, ok
	case "DELETE":
		if from != 1 {
			return "", false, false
		}
		t, ok := name(2)
		return t, true, ok
	case "INSERT":
		if word(1) != "INTO" || from >= 0 {
			return "", false, false
		}
		t, ok := name(2)
		return t, true, ok
	case "UPDATE":
		if from >= 0 {
			return "", false, false
		}
		t, ok := name(1)
		return t, true, ok
	}
	return "", false, false
}

// partiQLToken is a word, a quoted identifier (its text unquoted), a
// string literal (text ""), or one character of punctuation.
type partiQLToken struct {
	text   string
	quoted bool // a double-quoted identifier or a string literal
}

// partiQLTokens splits a statement into tokens; ok is false for an
// unterminated quote or a comment ("--", "/*").
func partiQLTokens(s string) ([]partiQLToken, bool) {
	var toks []partiQLToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, false
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			text := b.String()
			if c == '\'' {
				text = "" // a string, never a table
			}
			toks = append(toks, partiQLToken{text: text, quoted: true})
			i = j + 1
		case strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*"):
			return nil, false
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, partiQLToken{text: s[i:j]})
			i = j
		default:
			toks = append(toks, partiQLToken{text: s[i : i+1]})
			i++
		}
	}
	return toks, true
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// isBareIdent reports whether a word token can be an unquoted table name.
func isBareIdent(s string) bool {
	return s != "" && !('0' <= s[0] && s[0] <= '9')
}
