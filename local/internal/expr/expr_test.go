package expr

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestError_IsValidation(t *testing.T) {
	_, err := NewCompiler(nil, nil).Condition("a = ")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T, want *Error", err)
	}
	want := `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "= "`
	if e.Msg != want || err.Error() != want {
		t.Fatalf("got %q, want %q", e.Msg, want)
	}
}

func TestKeyCondition_Resolve(t *testing.T) {
	values := map[string]types.AttributeValue{":h": s("h"), ":a": n("1"), ":b": n("2")}
	f := func(expr, rangeKey string, op RangeOp, want ...types.AttributeValue) {
		t.Helper()
		c := NewCompiler(map[string]string{"#k": "sk"}, values)
		kc, err := c.KeyCondition(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		r, err := kc.Resolve("pk", rangeKey)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if !value.Equal(r.HashValue, s("h")) || r.Op != op || len(r.Values) != len(want) {
			t.Fatalf("%s: got %v %v %v", expr, r.HashValue, r.Op, r.Values)
		}
		for i := range want {
			if !value.Equal(r.Values[i], want[i]) {
				t.Fatalf("%s: value %d: got %v", expr, i, r.Values[i])
			}
		}
	}
	f("pk = :h", "sk", None)
	f("pk = :h", "", None)
	f(":h = pk", "sk", None)
	f("pk = :h AND sk = :a", "sk", EQ, n("1"))
	f("sk < :a AND pk = :h", "sk", LT, n("1"))
	f("pk = :h AND sk <= :a", "sk", LE, n("1"))
	f("pk = :h AND sk > :a", "sk", GT, n("1"))
	f("pk = :h AND sk >= :a", "sk", GE, n("1"))
	f("pk = :h AND :a < sk", "sk", GT, n("1"))
	f("pk = :h AND :a <= sk", "sk", GE, n("1"))
	f("pk = :h AND :a > sk", "sk", LT, n("1"))
	f("pk = :h AND :a >= #k", "sk", LE, n("1"))
	f("pk = :h AND sk BETWEEN :a AND :b", "sk", Between, n("1"), n("2"))
	f("pk = :h AND begins_with(sk, :h)", "sk", BeginsWith, s("h"))
	f("(pk = :h) AND (begins_with(sk, :h))", "sk", BeginsWith, s("h"))
}

func TestKeyCondition_ResolveErrors(t *testing.T) {
	values := map[string]types.AttributeValue{":h": s("h"), ":a": n("1")}
	f := func(expr, rangeKey, want string) {
		t.Helper()
		kc, err := NewCompiler(nil, values).KeyCondition(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		_, err = kc.Resolve("pk", rangeKey)
		if err == nil || err.Error() != want {
			t.Fatalf("%s: got %v, want %s", expr, err, want)
		}
	}
	f("sk = :a", "sk", "Query condition missed key schema element")
	f("pk = :h AND sk = :a", "", "Query key condition not supported")
	f("pk < :h", "sk", "Query key condition not supported")
	f("pk = :h AND x = :a", "sk", "Query condition missed key schema element")
	f("pk = :h OR sk = :a", "sk", "Invalid operator used in KeyConditionExpression: OR")
	f("pk = :h AND size(sk) = :a", "sk", "KeyConditionExpressions cannot contain nested operations")
	// Nested paths into key attributes are the caller's to refuse (see
	// Nested); Resolve refuses nested paths as such.
	f("pk = :h AND sk.x = :a", "sk", "KeyConditionExpressions cannot have conditions on nested attributes")
	f("pk = :h AND a.x = a.y", "sk", "KeyConditionExpressions cannot have conditions on nested attributes")
	f("pk = :h AND size(a.x) > :a", "sk", "KeyConditionExpressions cannot contain nested operations")
}

func TestNested(t *testing.T) {
	values := map[string]types.AttributeValue{":v": n("1"), ":s": &types.AttributeValueMemberSS{Value: []string{"x"}}}
	names := map[string]string{"#g": "gn"}
	f := func(kind, expr string, want ...string) {
		t.Helper()
		c := NewCompiler(names, values)
		var got []string
		var err error
		switch kind {
		case "condition":
			var x *Condition
			if x, err = c.Condition(expr); err == nil {
				got = x.Nested()
			}
		case "key":
			var x *KeyCondition
			if x, err = c.KeyCondition(expr); err == nil {
				got = x.Nested()
			}
		case "projection":
			var x *Projection
			if x, err = c.Projection(expr); err == nil {
				got = x.Nested()
			}
		case "update":
			var x *Update
			if x, err = c.Update(expr); err == nil {
				got = x.Nested()
			}
		}
		if err != nil {
			t.Fatalf("%s %q: %v", kind, expr, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s %q: Nested() = %q, want %q", kind, expr, got, want)
		}
	}
	f("condition", "a = :v AND b = c")
	f("condition", "NOT #g.x IN (:v, b[1]) OR size(c.d) > :v AND attribute_exists(#g[0])", "gn", "b", "c")
	f("key", "pk = :v AND sk.x = :v", "sk")
	f("projection", "a, b.c, #g[1].d, e[2]", "b", "gn", "e")
	f("projection", "a, b")
	f("update", "SET a = b.c, d.e = if_not_exists(f[0], :v) + :v, g = list_append(h.i, j) REMOVE k.l ADD m.n :v DELETE #g[0] :s", "b", "d", "f", "h", "k", "m", "gn")
	f("update", "SET a = b REMOVE c")
}

func TestUpdate_ApplyKeepsInput(t *testing.T) {
	item := mustItem(t, baseItem)
	before := canonical(item)
	values := map[string]types.AttributeValue{":v": s("x"), ":n": n("1"), ":ss": &types.AttributeValueMemberSS{Value: []string{"a"}}}
	for _, expr := range []string{
		"SET m.y.z = :v, l[0] = :v, l[7] = :v, l2[0].a = :v REMOVE l[1], m.x ADD n :n DELETE ss :ss",
		"SET l2[1] = list_append(l2[1], l) REMOVE l2[0].b",
		"ADD m.q :n, l2[1][5] :n DELETE ss :ss",
	} {
		c := NewCompiler(nil, values)
		u, err := c.Update(expr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.Apply(item); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := canonical(item); got != before {
			t.Fatalf("%s changed its input:\n%s\n%s", expr, got, before)
		}
	}
}

func TestUpdate_TopLevel(t *testing.T) {
	u, err := NewCompiler(map[string]string{"#a": "a"}, map[string]types.AttributeValue{":v": s("x"), ":n": n("1")}).
		Update("SET #a.b = :v, c = :v REMOVE d[0], a.c ADD e :n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.TopLevel(), []string{"a", "c", "d", "e"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestProjection_TopLevel(t *testing.T) {
	p, err := NewCompiler(map[string]string{"#s": "status"}, nil).Projection("a.b, #s, a.c, d[1]")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.TopLevel(), []string{"a", "status", "d"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if p.Apply(nil) != nil {
		t.Fatal("Apply(nil) != nil")
	}
}

func TestAttributesToGet(t *testing.T) {
	p, err := AttributesToGet([]string{"n", "zz", "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := canonical(p.Apply(mustItem(t, baseItem)))
	want := `{"m":{"M":{"x":{"N":"1"},"y":{"M":{"w":{"S":"w"},"z":{"S":"z"}}}}},"n":{"N":"5"}}`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if _, err := AttributesToGet([]string{"a", "a"}); err == nil {
		t.Fatal("duplicate accepted")
	}
}

func TestJavaOrder(t *testing.T) {
	// Orders DynamoDB Local produced for these key sets.
	for _, c := range []struct{ keys, want []string }{
		{[]string{"#n", "#m"}, []string{"#m", "#n"}},
		{[]string{"#a", "#b", "#c"}, []string{"#c", "#a", "#b"}},
		{[]string{":w", ":a", ":b"}, []string{":a", ":b", ":w"}},
	} {
		if got := javaOrder(c.keys, len(c.keys)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("javaOrder(%v) = %v, want %v", c.keys, got, c.want)
		}
	}
}

func TestValidateValue(t *testing.T) {
	// A nil value is JSON null (the wire reports {} itself); DynamoDB
	// Local's words for it, at any depth.
	const null = "The supplied Item contains a null AttributeValue"
	if got := ValidateValue(nil); got != null {
		t.Fatal(got)
	}
	if got := ValidateValue(&types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), nil}}); got != null {
		t.Fatal(got)
	}
	if got := ValidateValue(&types.UnknownUnionMember{Tag: "X"}); got != "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes" {
		t.Fatal(got)
	}
	c := NewCompiler(nil, map[string]types.AttributeValue{":v": nil})
	_, err := c.Condition("a = :v")
	if err == nil || err.Error() != "ExpressionAttributeValues contains invalid value: The supplied Item contains a null AttributeValue for key :v" {
		t.Fatal(err)
	}
}

func TestCondition_Concurrent(t *testing.T) {
	c, err := NewCompiler(nil, map[string]types.AttributeValue{":v": n("3"), ":s": s("st")}).
		Filter("size(l) = :v AND begins_with(s, :s) AND contains(s, :s) OR n BETWEEN :v AND :v")
	if err != nil {
		t.Fatal(err)
	}
	item := mustItem(t, baseItem)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if !c.Eval(item) {
					panic("want true")
				}
			}
		})
	}
	wg.Wait()
}

func TestCompiler_SharedPlaceholders(t *testing.T) {
	// Placeholders used by any expression of the request count as used.
	c := NewCompiler(map[string]string{"#a": "a", "#b": "b"}, map[string]types.AttributeValue{":v": s("x"), ":w": s("y")})
	if _, err := c.Condition("#a = :v"); err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(); err == nil || err.Error() != "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}" {
		t.Fatal(err)
	}
	if _, err := c.Update("SET #b = :w"); err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
}

func ExampleCompiler() {
	c := NewCompiler(map[string]string{"#s": "status"}, map[string]types.AttributeValue{
		":open": &types.AttributeValueMemberS{Value: "open"},
		":one":  &types.AttributeValueMemberN{Value: "1"},
	})
	cond, err := c.Condition("#s = :open")
	if err != nil {
		panic(err)
	}
	upd, err := c.Update("ADD hits :one")
	if err != nil {
		panic(err)
	}
	if err := c.Finish(); err != nil {
		panic(err)
	}
	item := Item{"status": &types.AttributeValueMemberS{Value: "open"}}
	if cond.Eval(item) {
		item, _ = upd.Apply(item)
	}
	fmt.Println(item["hits"].(*types.AttributeValueMemberN).Value)
	// Output: 1
}

func TestCondition_TopLevel(t *testing.T) {
	c, err := NewCompiler(map[string]string{"#s": "sk"}, map[string]types.AttributeValue{":v": s("x"), ":n": n("1")}).
		Filter("a.b = :v AND (size(#s) > :n OR attribute_exists(c[0])) AND :v = a")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.TopLevel(), []string{"a", "sk", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestLegacyFilter_MissingOperator(t *testing.T) {
	// DynamoDB Local's answer (the SDK refuses to send this request).
	_, err := LegacyFilter(map[string]types.Condition{"n": {AttributeValueList: []types.AttributeValue{n("5")}}}, "")
	if err == nil || err.Error() != "Comparison type does not exist in DynamoDB" {
		t.Fatal(err)
	}
}

func TestUpdate_UpdatedIn(t *testing.T) {
	old := mustItem(t, `{"a":{"N":"1"},"m":{"M":{"x":{"N":"1"}}},"l":{"L":[{"N":"1"},{"N":"2"}]}}`)
	values := map[string]types.AttributeValue{":v": n("9")}
	f := func(expr string, wantOld, wantNew []string) {
		t.Helper()
		u, err := NewCompiler(nil, values).Update(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		nu, err := u.Apply(old)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := u.UpdatedIn(old); !slices.Equal(got, wantOld) {
			t.Errorf("%s: UpdatedIn(old) = %q, want %q", expr, got, wantOld)
		}
		if got := u.UpdatedIn(nu); !slices.Equal(got, wantNew) {
			t.Errorf("%s: UpdatedIn(new) = %q, want %q", expr, got, wantNew)
		}
	}
	f("SET a = :v, b = :v", []string{"a"}, []string{"a", "b"})
	f("REMOVE m.x, a", []string{"m", "a"}, nil)
	f("SET m.y = :v", nil, []string{"m"})
	f("REMOVE l[1]", []string{"l"}, nil)
	f("REMOVE l[0]", []string{"l"}, []string{"l"})
	f("SET l[5] = :v", nil, nil)
	f("SET l[2] = :v", nil, []string{"l"})
	if got := mustUpdate(t, "SET a = :v", values).UpdatedIn(nil); got != nil {
		t.Errorf("UpdatedIn(nil) = %q", got)
	}
}

func mustUpdate(t *testing.T, expr string, values map[string]types.AttributeValue) *Update {
	t.Helper()
	u, err := NewCompiler(nil, values).Update(expr)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestHashSetOrder(t *testing.T) {
	// Orders DynamoDB Local gave for these names, added in this order.
	for _, c := range []struct{ names, want []string }{
		{[]string{"mm", "aa", "zz"}, []string{"mm", "aa", "zz"}},
		{[]string{"b", "ba", "c", "lst", "ss1"}, []string{"ss1", "b", "c", "lst", "ba"}},
		{[]string{"nope", "status"}, []string{"nope", "status"}},
		{[]string{"x", "q", "x"}, []string{"q", "x"}},
	} {
		if got := HashSetOrder(c.names); !slices.Equal(got, c.want) {
			t.Errorf("HashSetOrder(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestKeyCondition_ResolveMulti(t *testing.T) {
	values := map[string]types.AttributeValue{":a": s("a"), ":b": n("2"), ":c": s("c"), ":d": n("4"), ":e": n("5")}
	hashes, ranges := []string{"h1", "h2"}, []string{"r1", "r2", "r3"}
	f := func(expr string, prefix []types.AttributeValue, op RangeOp, want ...types.AttributeValue) {
		t.Helper()
		kc, err := NewCompiler(map[string]string{"#r": "r2"}, values).KeyCondition(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		r, err := kc.ResolveMulti(hashes, ranges)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if len(r.HashValues) != 2 || !value.Equal(r.HashValues[0], s("a")) || !value.Equal(r.HashValues[1], n("2")) || !value.Equal(r.HashValue, s("a")) {
			t.Fatalf("%s: hash values %v", expr, r.HashValues)
		}
		if r.Op != op || len(r.Values) != len(want) || len(r.Prefix) != len(prefix) {
			t.Fatalf("%s: got prefix %v, %v %v", expr, r.Prefix, r.Op, r.Values)
		}
		for i := range want {
			if !value.Equal(r.Values[i], want[i]) {
				t.Fatalf("%s: value %d: got %v", expr, i, r.Values[i])
			}
		}
		for i := range prefix {
			if !value.Equal(r.Prefix[i], prefix[i]) {
				t.Fatalf("%s: prefix %d: got %v", expr, i, r.Prefix[i])
			}
		}
	}
	av := func(vs ...types.AttributeValue) []types.AttributeValue { return vs }
	f("h1 = :a AND h2 = :b", nil, None)
	f("h2 = :b AND h1 = :a", nil, None)
	f("h1 = :a AND h2 = :b AND r1 = :c", nil, EQ, s("c"))
	f("h1 = :a AND h2 = :b AND begins_with(r1, :c)", nil, BeginsWith, s("c"))
	f("h1 = :a AND h2 = :b AND r1 = :c AND #r > :d", av(s("c")), GT, n("4"))
	f("r1 = :c AND h1 = :a AND :d < r2 AND h2 = :b", av(s("c")), GT, n("4"))
	f("h1 = :a AND h2 = :b AND r1 = :c AND r2 = :d AND r3 BETWEEN :d AND :e", av(s("c"), n("4")), Between, n("4"), n("5"))
	f("h1 = :a AND h2 = :b AND r1 = :c AND r2 = :d AND r3 = :e", av(s("c"), n("4")), EQ, n("5"))
}

func TestKeyCondition_ResolveMultiErrors(t *testing.T) {
	values := map[string]types.AttributeValue{":a": s("a"), ":b": n("2"), ":c": s("c"), ":d": n("4")}
	hashes, ranges := []string{"h1", "h2"}, []string{"r1", "r2", "r3"}
	f := func(expr, want string) {
		t.Helper()
		kc, err := NewCompiler(nil, values).KeyCondition(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		_, err = kc.ResolveMulti(hashes, ranges)
		if err == nil || err.Error() != want {
			t.Fatalf("%s: got %v, want %s", expr, err, want)
		}
	}
	f("h1 = :a", "HASH key attributes h2 must have equality conditions specified in the query")
	f("r1 = :c", "HASH key attributes h1, h2 must have equality conditions specified in the query")
	f("h1 = :a AND h2 > :b", "HASH key attributes h2 must have equality conditions specified in the query")
	f("begins_with(h1, :a) AND h2 = :b AND x = :c", "HASH key attributes h1 must have equality conditions specified in the query")
	f("h1 = :a AND h2 = :b AND r2 = :d", "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r2")
	f("h1 = :a AND h2 = :b AND r3 = :d", "RANGE key attributes r1, r2 must have equality conditions specified in the query because a condition is present on key attribute r3")
	f("h1 = :a AND h2 = :b AND r1 < :c AND r2 = :d", "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r2")
	f("h1 = :a AND h2 = :b AND x = :c AND r2 = :d", "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r2")
	// DynamoDB Local's two passes: gaps first (at the first attribute
	// after one), then conditions other than equality before the last.
	f("h1 = :a AND h2 = :b AND r2 = :d AND r3 < :d", "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r2")
	f("h1 = :a AND h2 = :b AND r1 < :c AND r3 = :d", "RANGE key attributes r2 must have equality conditions specified in the query because a condition is present on key attribute r3")
	f("h1 = :a AND h2 = :b AND r1 < :c AND r2 = :d AND r3 = :d", "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r3")
	f("h1 = :a AND h2 = :b AND r1 < :c AND r2 < :d AND r3 = :d", "RANGE key attributes r1, r2 must have equality conditions specified in the query because a condition is present on key attribute r3")
	f("h1 = :a AND h2 = :b AND x = :c", "Query condition missed key schema element")
	f("h1 = :a AND h2 = :b AND r1 = :c AND r2 = :d AND r3 = :d AND x = :c", "Query key condition not supported")
	f("h1 = :a AND w = :c AND x = :c AND y = :c AND z = :c AND u = :c", "Query key condition not supported")
	f("h1 = :a AND h2 = :b AND r1 = :c AND pk = :c", "Query condition missed key schema element")
	f("h1 = :a AND h2 = :b AND h1 = :a", "KeyConditionExpressions must only contain one condition per key")
	f("h1 = :a AND h2 = :b OR r1 = :c", "Invalid operator used in KeyConditionExpression: OR")
}

func TestKeyConditions_ResolveMultiLegacy(t *testing.T) {
	eq := func(v types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{v}}
	}
	kc, err := KeyConditions(map[string]types.Condition{"h1": eq(s("a")), "h2": eq(n("2")), "r1": eq(s("c")),
		"r2": {ComparisonOperator: types.ComparisonOperatorContains, AttributeValueList: []types.AttributeValue{n("1")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.ResolveMulti([]string{"h1", "h2"}, []string{"r1", "r2"}); err == nil || err.Error() != "Attempted conditional constraint is not an indexable operation" {
		t.Fatalf("CONTAINS on the last sort attribute: %v", err)
	}
	kc, err = KeyConditions(map[string]types.Condition{"h1": eq(s("a")), "h2": {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{s("1")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.ResolveMulti([]string{"h1", "h2"}, nil); err == nil || err.Error() != "HASH key attributes h2 must have equality conditions specified in the query" {
		t.Fatalf("BEGINS_WITH on a partition attribute: %v", err)
	}
}
