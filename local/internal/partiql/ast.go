package partiql

import (
	"strconv"
	"strings"
)

// A Statement is one parsed PartiQL statement: *Select, *Insert, *Update,
// *Delete or *Exists.
type Statement interface {
	// String prints the statement in a canonical form that Parse reads
	// back to an equal statement.
	String() string
	statement()
}

// An Expr is an expression of a WHERE clause, a SET value or an INSERT
// value: *Path, a literal (*String, *Number, *Bool, *Null, *Missing, *List,
// *Map, *Set), *Param, *Binary, *Not, *Between, *In, *Is or *Call.
type Expr interface {
	String() string
	expr()
}

// Select is SELECT Projection FROM Table[.Index] [WHERE Where]
// [ORDER BY OrderBy].
type Select struct {
	Projection []*Path // nil for *
	Table      string
	Index      string // "" for the table itself
	Where      Expr   // nil without WHERE
	OrderBy    []Order
}

// Order is one term of ORDER BY.
type Order struct {
	Path *Path
	Desc bool
}

// Insert is INSERT INTO Table VALUE Value.
type Insert struct {
	Table string
	Index string // set only to be refused: writes go to tables
	Value Expr
}

// Update is UPDATE Table SET ... REMOVE ... WHERE Where [RETURNING ...].
type Update struct {
	Table     string
	Index     string // set only to be refused
	Actions   []Action
	Where     Expr
	Returning Returning
}

// Action is one SET (Value set) or REMOVE (Value nil) of an UPDATE.
type Action struct {
	Path  *Path
	Value Expr
}

// Delete is DELETE FROM Table WHERE Where [RETURNING ALL OLD *].
type Delete struct {
	Table     string
	Index     string // set only to be refused
	Where     Expr
	Returning Returning
}

// Exists is EXISTS(SELECT ...), a condition check of ExecuteTransaction.
type Exists struct {
	Select *Select
}

// Returning is what a RETURNING clause asks for: "" (none), or one of
// "ALL OLD", "MODIFIED OLD", "ALL NEW", "MODIFIED NEW".
type Returning string

func (*Select) statement() {}
func (*Insert) statement() {}
func (*Update) statement() {}
func (*Delete) statement() {}
func (*Exists) statement() {}

// Step is one step of a path: an attribute or map key name, or a list
// index when IsIndex is set.
type Step struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path; its first step is always a name.
type Path struct{ Steps []Step }

// String is a string literal.
type String struct{ V string }

// Number is a number literal, as written (possibly with a leading -).
type Number struct{ V string }

// Bool is TRUE or FALSE.
type Bool struct{ V bool }

// Null is NULL.
type Null struct{}

// Missing is MISSING.
type Missing struct{}

// List is [e, ...].
type List struct{ Elems []Expr }

// Map is {'k': e, ...}; keys in the order written.
type Map struct{ Entries []Entry }

// Entry is one member of a Map.
type Entry struct {
	Key   string
	Value Expr
}

// Set is <<e, ...>>.
type Set struct{ Elems []Expr }

// Param is a ? placeholder; N counts them from 0 in the order written.
type Param struct{ N int }

// Binary is L Op R, Op being one of OR AND = <> < <= > >= + -.
type Binary struct {
	Op   string
	L, R Expr
}

// Not is NOT X.
type Not struct{ X Expr }

// Between is X BETWEEN Lo AND Hi.
type Between struct{ X, Lo, Hi Expr }

// In is X IN [List...] (or X IN (List...)).
type In struct {
	X    Expr
	List []Expr
}

// Is is X IS [NOT] NULL or X IS [NOT] MISSING (What is "NULL" or
// "MISSING").
type Is struct {
	X    Expr
	Not  bool
	What string
}

// Call is a function call; Name is in lower case.
type Call struct {
	Name string
	Args []Expr
}

func (*Path) expr()    {}
func (*String) expr()  {}
func (*Number) expr()  {}
func (*Bool) expr()    {}
func (*Null) expr()    {}
func (*Missing) expr() {}
func (*List) expr()    {}
func (*Map) expr()     {}
func (*Set) expr()     {}
func (*Param) expr()   {}
func (*Binary) expr()  {}
func (*Not) expr()     {}
func (*Between) expr() {}
func (*In) expr()      {}
func (*Is) expr()      {}
func (*Call) expr()    {}

// Printing. Names are always quoted and binary operators always
// parenthesised, so that what is printed parses back to the same tree.

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func target(table, index string) string {
	if index == "" {
		return quoteName(table)
	}
	return quoteName(table) + "." + quoteName(index)
}

func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

func (s *Select) String() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Projection == nil {
		b.WriteString("*")
	} else {
		for i, p := range s.Projection {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.String())
		}
	}
	b.WriteString(" FROM ")
	b.WriteString(target(s.Table, s.Index))
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.String())
	}
	for i, o := range s.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(o.Path.String())
		if o.Desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
	}
	return b.String()
}

func (s *Insert) String() string {
	return "INSERT INTO " + target(s.Table, s.Index) + " VALUE " + s.Value.String()
}

func (s *Update) String() string {
	var b strings.Builder
	b.WriteString("UPDATE ")
	b.WriteString(target(s.Table, s.Index))
	for _, a := range s.Actions {
		if a.Value == nil {
			b.WriteString(" REMOVE ")
			b.WriteString(a.Path.String())
		} else {
			b.WriteString(" SET ")
			b.WriteString(a.Path.String())
			b.WriteString(" = ")
			b.WriteString(a.Value.String())
		}
	}
	b.WriteString(" WHERE ")
	b.WriteString(s.Where.String())
	b.WriteString(s.Returning.clause())
	return b.String()
}

func (s *Delete) String() string {
	return "DELETE FROM " + target(s.Table, s.Index) + " WHERE " + s.Where.String() + s.Returning.clause()
}

func (s *Exists) String() string { return "EXISTS(" + s.Select.String() + ")" }

func (r Returning) clause() string {
	if r == "" {
		return ""
	}
	return " RETURNING " + string(r) + " *"
}

func (p *Path) String() string {
	var b strings.Builder
	for i, s := range p.Steps {
		switch {
		case s.IsIndex:
			b.WriteString("[")
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteString("]")
		case i == 0:
			b.WriteString(quoteName(s.Name))
		default:
			b.WriteString(".")
			b.WriteString(quoteName(s.Name))
		}
	}
	return b.String()
}

func (e *String) String() string  { return quoteString(e.V) }
func (e *Number) String() string  { return e.V }
func (e *Null) String() string    { return "NULL" }
func (e *Missing) String() string { return "MISSING" }
func (e *Param) String() string   { return "?" }

func (e *Bool) String() string {
	if e.V {
		return "TRUE"
	}
	return "FALSE"
}

func joinExprs(es []Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.String()
	}
	return strings.Join(s, ", ")
}

func (e *List) String() string { return "[" + joinExprs(e.Elems) + "]" }
func (e *Set) String() string  { return "<<" + joinExprs(e.Elems) + ">>" }

func (e *Map) String() string {
	s := make([]string, len(e.Entries))
	for i, en := range e.Entries {
		s[i] = quoteString(en.Key) + ": " + en.Value.String()
	}
	return "{" + strings.Join(s, ", ") + "}"
}

func (e *Binary) String() string { return "(" + e.L.String() + " " + e.Op + " " + e.R.String() + ")" }
func (e *Not) String() string    { return "(NOT " + e.X.String() + ")" }
func (e *Between) String() string {
	return "(" + e.X.String() + " BETWEEN " + e.Lo.String() + " AND " + e.Hi.String() + ")"
}
func (e *In) String() string { return "(" + e.X.String() + " IN [" + joinExprs(e.List) + "])" }

func (e *Is) String() string {
	not := ""
	if e.Not {
		not = "NOT "
	}
	return "(" + e.X.String() + " IS " + not + e.What + ")"
}

func (e *Call) String() string { return e.Name + "(" + joinExprs(e.Args) + ")" }

// Params returns how many ? placeholders st holds.
func Params(st Statement) int {
	n := 0
	var walk func(e Expr)
	walkAll := func(es []Expr) {
		for _, x := range es {
			walk(x)
		}
	}
	walk = func(e Expr) {
		switch x := e.(type) {
		case *Param:
			n = max(n, x.N+1)
		case *List:
			walkAll(x.Elems)
		case *Set:
			walkAll(x.Elems)
		case *Map:
			for _, en := range x.Entries {
				walk(en.Value)
			}
		case *Binary:
			walk(x.L)
			walk(x.R)
		case *Not:
			walk(x.X)
		case *Between:
			walkAll([]Expr{x.X, x.Lo, x.Hi})
		case *In:
			walk(x.X)
			walkAll(x.List)
		case *Is:
			walk(x.X)
		case *Call:
			walkAll(x.Args)
		}
	}
	switch s := st.(type) {
	case *Select:
		walk(s.Where)
	case *Insert:
		walk(s.Value)
	case *Update:
		for _, a := range s.Actions {
			walk(a.Value)
		}
		walk(s.Where)
	case *Delete:
		walk(s.Where)
	case *Exists:
		walk(s.Select.Where)
	}
	return n
}
