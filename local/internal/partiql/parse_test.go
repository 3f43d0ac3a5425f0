package partiql

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		st, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if got := st.String(); got != want {
			t.Fatalf("Parse(%q) = %s, want %s", in, got, want)
		}
	}
	f(`SELECT * FROM t`, `SELECT * FROM "t"`)
	f(`select a, b.c[1], "d""x" from "my-table"."idx" where pk = 'a' and sk > 1 order by sk desc`,
		`SELECT "a", "b"."c"[1], "d""x" FROM "my-table"."idx" WHERE (("pk" = 'a') AND ("sk" > 1)) ORDER BY "sk" DESC`)
	f(`SELECT * FROM t WHERE a = 1 OR b <> 2 AND NOT c != 3`,
		`SELECT * FROM "t" WHERE (("a" = 1) OR (("b" <> 2) AND (NOT ("c" <> 3))))`)
	f(`SELECT * FROM t WHERE pk IN ['a', ?] AND x BETWEEN -1 AND 2.5e3 AND y IS NOT MISSING AND z IS NULL`,
		`SELECT * FROM "t" WHERE (((("pk" IN ['a', ?]) AND ("x" BETWEEN -1 AND 2.5e3)) AND ("y" IS NOT MISSING)) AND ("z" IS NULL))`)
	f(`SELECT * FROM t WHERE begins_with(s, 'it''s') AND size(l) > 2 AND contains(ss, ?)`,
		`SELECT * FROM "t" WHERE ((begins_with("s", 'it''s') AND (size("l") > 2)) AND contains("ss", ?))`)
	f(`INSERT INTO t VALUE {'pk': 'a', 'n': 1, 'l': [1, 'x', NULL, TRUE], 'm': {'k': false}, 's': <<'a', 'b'>>, 'e': []};`,
		`INSERT INTO "t" VALUE {'pk': 'a', 'n': 1, 'l': [1, 'x', NULL, TRUE], 'm': {'k': FALSE}, 's': <<'a', 'b'>>, 'e': []}`)
	f(`UPDATE t SET a = a + 1, b.c[0] = 'x' REMOVE d SET e = list_append(e, [1]) WHERE pk = ? RETURNING MODIFIED NEW *`,
		`UPDATE "t" SET "a" = ("a" + 1) SET "b"."c"[0] = 'x' REMOVE "d" SET "e" = list_append("e", [1]) WHERE ("pk" = ?) RETURNING MODIFIED NEW *`)
	f(`DELETE FROM t WHERE pk = 'a' AND x = MISSING RETURNING ALL OLD *`,
		`DELETE FROM "t" WHERE (("pk" = 'a') AND ("x" = MISSING)) RETURNING ALL OLD *`)
	f(`EXISTS (SELECT * FROM t WHERE pk = 'a')`, `EXISTS(SELECT * FROM "t" WHERE ("pk" = 'a'))`)
}

func TestParse_Params(t *testing.T) {
	st, err := Parse(`UPDATE t SET a = ? WHERE pk = ? AND sk IN (?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	u := st.(*Update)
	if got := u.Actions[0].Value.(*Param).N; got != 0 {
		t.Fatalf("first parameter is %d", got)
	}
	in := u.Where.(*Binary).R.(*In)
	if got := in.List[1].(*Param).N; got != 3 {
		t.Fatalf("last parameter is %d", got)
	}
}

func TestParse_Errors(t *testing.T) {
	for _, in := range []string{
		``, `SELEC * FROM t`, `SELECT * FROM t WHERE`, `SELECT * FROM`, `SELECT FROM t`,
		`SELECT * FROM t WHERE a = 'x`, `SELECT * FROM t WHERE a = = 1`, `SELECT * FROM t extra`,
		`INSERT INTO t VALUE {1: 2}`, `UPDATE t WHERE a = 1`, `DELETE FROM t`, `SELECT * FROM t WHERE a[x] = 1`,
		`SELECT * FROM t WHERE a[-1] = 1`, `SELECT * FROM select`, `SELECT * FROM t WHERE a = 1 RETURNING ALL OLD *`,
		`UPDATE t SET a = 1 WHERE pk = 1 RETURNING ALL *`, `SELECT * FROM t WHERE a = #`,
		`SELECT * FROM t WHERE ` + deep(1000), `SELECT * FROM t WHERE a = ` + nested(65),
	} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		} else if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("Parse(%q): %T", in, err)
		}
	}
}

// nested is a list literal nested n deep.
func nested(n int) string {
	s := "1"
	for range n {
		s = "[" + s + "]"
	}
	return s
}

// deep is a comparison in n parentheses.
func deep(n int) string {
	s := "a = 1"
	for range n {
		s = "(" + s + ")"
	}
	return s
}

// FuzzParse checks that Parse never panics, and that what parses prints to
// text that parses to the same tree and prints the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT a, b.c[1] FROM "t"."i" WHERE pk = 'a' AND sk BETWEEN 1 AND ? ORDER BY sk DESC`,
		`INSERT INTO t VALUE {'pk': 'a', 'l': [1, -2.5e3, NULL], 'm': {'k': <<'x'>>}}`,
		`UPDATE t SET a = a + 1 REMOVE b WHERE pk = ? AND attribute_type(c, 'S') RETURNING ALL NEW *`,
		`DELETE FROM t WHERE pk = 'x''y' AND NOT (a IS MISSING OR b IS NOT NULL)`,
		`EXISTS(SELECT * FROM t WHERE pk IN ['a', 'b'])`,
		`SELECT * FROM t WHERE ` + deep(70), `SELECT * FROM t WHERE a = ` + nested(63),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		if err != nil {
			return
		}
		text := st.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, text, err)
		}
		if !reflect.DeepEqual(st, again) {
			t.Fatalf("%q printed as %q, which parses to another tree", s, text)
		}
		if again.String() != text {
			t.Fatalf("%q prints as %q, then %q", s, text, again.String())
		}
	})
}
