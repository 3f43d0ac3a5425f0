package conformance

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ProjectionExpression: top-level and nested paths, list indexes, name
// placeholders, missing paths, and the path validation errors, on every read
// operation.

// projDoc is the document the projection cases read.
func projDoc() Item {
	return Item{
		"pk": S("doc"),
		"m": M(Item{
			"a": N("1"),
			"b": L(S("x"), S("y"), M(Item{"c": S("z"), "d": BOOL(true)})),
			"e": M(Item{"f": M(Item{"g": S("deep")})}),
		}),
		"l":    L(N("0"), N("1"), N("2"), N("3"), L(S("n0"), S("n1"))),
		"s":    S("str"),
		"ss":   SS("p", "q"),
		"a.b":  S("dotted"),
		"name": S("reserved"),
	}
}

func projTable(h *H) string {
	h.t.Helper()
	tbl := h.HashTable()
	h.Put(tbl, projDoc())
	return tbl
}

// projCase reads projDoc through GetItem with the projection expr (and names)
// and wants the item want.
func projCase(name, expr string, names map[string]string, want Item) Case {
	return Case{Name: "Projection/" + name, Run: func(t *testing.T, h *H) {
		tbl := projTable(h)
		out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{
			TableName: aws.String(tbl), Key: Item{"pk": S("doc")},
			ProjectionExpression: aws.String(expr), ExpressionAttributeNames: names,
		})
		h.Must(err)
		h.WantItem(out.Item, want)
	}}
}

// projError reads projDoc through GetItem with the projection expr and wants
// a ValidationException with msg.
func projError(name, expr string, names map[string]string, msg string) Case {
	return Case{Name: "Projection/" + name, Run: func(t *testing.T, h *H) {
		tbl := projTable(h)
		_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{
			TableName: aws.String(tbl), Key: Item{"pk": S("doc")},
			ProjectionExpression: aws.String(expr), ExpressionAttributeNames: names,
		})
		h.WantError(err, "ValidationException", msg)
	}}
}

func init() {
	d := projDoc()
	register(
		projCase("TopLevel", "s, ss", nil, Item{"s": d["s"], "ss": d["ss"]}),
		projCase("KeyOnly", "pk", nil, Item{"pk": S("doc")}),
		projCase("WholeMap", "m", nil, Item{"m": d["m"]}),
		projCase("NestedMapField", "m.a", nil, Item{"m": M(Item{"a": N("1")})}),
		projCase("DeepPath", "m.e.f.g", nil, Item{"m": M(Item{"e": M(Item{"f": M(Item{"g": S("deep")})})})}),
		projCase("SiblingPathsMerge", "m.a, m.e.f", nil, Item{"m": M(Item{"a": N("1"), "e": M(Item{"f": M(Item{"g": S("deep")})})})}),
		projCase("ListIndex", "l[2]", nil, Item{"l": L(N("2"))}),
		projCase("ListIndexesKeepOrder", "l[3], l[0]", nil, Item{"l": L(N("0"), N("3"))}),
		projCase("NestedListIndex", "l[4][1]", nil, Item{"l": L(L(S("n1")))}),
		projCase("ListInMap", "m.b[2].c, m.b[0]", nil, Item{"m": M(Item{"b": L(S("x"), M(Item{"c": S("z")}))})}),
		projCase("ListIndexOutOfRange", "l[9], s", nil, Item{"s": S("str")}),
		projCase("MissingAttribute", "nx, s", nil, Item{"s": S("str")}),
		projCase("MissingNestedField", "m.zz, s", nil, Item{"s": S("str")}),
		projCase("AllPathsMissing", "nx, m.zz, l[1].x", nil, Item{}),
		projCase("IndexIntoNonList", "s[0], m.a", nil, Item{"m": M(Item{"a": N("1")})}),
		projCase("FieldOfNonMap", "s.x, ss", nil, Item{"ss": d["ss"]}),
		projCase("NamePlaceholder", "#n", map[string]string{"#n": "name"}, Item{"name": S("reserved")}),
		projCase("DottedNamePlaceholder", "#d", map[string]string{"#d": "a.b"}, Item{"a.b": S("dotted")}),
		projCase("PlaceholdersInPath", "#m.#b[1], #m.#a", map[string]string{"#m": "m", "#b": "b", "#a": "a"}, Item{"m": M(Item{"a": N("1"), "b": L(S("y"))})}),
		projCase("Whitespace", "  s ,\tm . a  ", nil, Item{"s": S("str"), "m": M(Item{"a": N("1")})}),
		projError("OverlappingPaths", "m, m.a", nil, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, a]"),
		projError("OverlappingPathsReversed", "m.a, m", nil, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m]"),
		projError("DuplicatePath", "s, s", nil, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [s], path two: [s]"),
		projError("ConflictingPaths", "m.a, m[0]", nil, "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m, [0]]"),
		projError("ReservedWord", "name", nil, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
		projError("UndefinedName", "#x", nil, "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"),
		projError("UnusedName", "s", map[string]string{"#u": "x"}, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}"),
		projError("Empty", "", nil, "Invalid ProjectionExpression: The expression can not be empty;"),
		projError("UnclosedIndex", "l[1", nil, "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \"1\""),
		projError("NegativeIndex", "l[-1]", nil, "Invalid ProjectionExpression: Syntax error; token: \"-\", near: \"[-1\""),
		projError("ValuePlaceholder", ":v", nil, "Invalid ProjectionExpression: Syntax error; token: \":v\", near: \":v\""),
	)

	register(
		Case{Name: "Projection/Query", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND sk < :s", Item{":p": S("p"), ":s": S("abc")})
			in.ProjectionExpression = aws.String("sk, n")
			out := h.MustQuery(in)
			h.WantItems(out.Items, []Item{{"sk": S("a"), "n": N("0")}, {"sk": S("ab"), "n": N("1")}})
		}},
		Case{Name: "Projection/QueryNestedWithFilterOnUnprojected", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable("S")
			h.PutMany(tbl,
				Item{"pk": S("p"), "sk": S("1"), "m": M(Item{"x": N("1"), "y": N("2")}), "f": BOOL(true)},
				Item{"pk": S("p"), "sk": S("2"), "m": M(Item{"x": N("3"), "y": N("4")}), "f": BOOL(false)},
			)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p"), ":t": BOOL(true)})
			in.ProjectionExpression = aws.String("m.y")
			in.FilterExpression = aws.String("f = :t")
			out := h.MustQuery(in)
			h.WantItems(out.Items, []Item{{"m": M(Item{"y": N("2")})}})
		}},
		Case{Name: "Projection/Scan", Run: func(t *testing.T, h *H) {
			tbl := projTable(h)
			h.Put(tbl, Item{"pk": S("other"), "l": L(S("only"))})
			in := scanIn(tbl)
			in.ProjectionExpression = aws.String("l[0], m.a")
			h.WantItemSet(h.ScanAll(in), []Item{{"l": L(N("0")), "m": M(Item{"a": N("1")})}, {"l": L(S("only"))}})
		}},
		Case{Name: "Projection/ScanNothingProjected", Run: func(t *testing.T, h *H) {
			// Items without any projected path come back as empty items.
			tbl := projTable(h)
			in := scanIn(tbl)
			in.ProjectionExpression = aws.String("nx")
			out := h.MustScan(in)
			h.WantItems(out.Items, []Item{{}})
			h.WantCounts(out.Count, out.ScannedCount, 1, 1)
		}},
		Case{Name: "Projection/QueryError", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.ProjectionExpression = aws.String("n, n")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [n], path two: [n]")
		}},
		Case{Name: "Projection/ScanError", Run: func(t *testing.T, h *H) {
			tbl := projTable(h)
			in := scanIn(tbl)
			in.ProjectionExpression = aws.String("name")
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name")
		}},
		Case{Name: "Projection/NamesSharedWithFilter", Run: func(t *testing.T, h *H) {
			tbl := projTable(h)
			in := scanIn(tbl)
			in.ProjectionExpression = aws.String("#n")
			in.FilterExpression = aws.String("#n = :r AND #m.a = :one")
			in.ExpressionAttributeNames = map[string]string{"#n": "name", "#m": "m"}
			in.ExpressionAttributeValues = Item{":r": S("reserved"), ":one": N("1")}
			h.WantItems(h.ScanAll(in), []Item{{"name": S("reserved")}})
		}},
	)
}
