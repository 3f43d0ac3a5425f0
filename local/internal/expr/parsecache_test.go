package expr

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// compileKey compiles key condition src with the given maps as a request
// would, and returns what the request would see: the range resolved for
// hash key pk and range key sk, or the first error (of the compile, the
// placeholders left unused, or Resolve).
func compileKey(src string, names map[string]string, values map[string]types.AttributeValue) string {
	c := NewCompiler(names, values)
	kc, err := c.KeyCondition(src)
	if err != nil {
		return "compile: " + err.Error()
	}
	if err := c.Finish(); err != nil {
		return "finish: " + err.Error()
	}
	r, err := kc.Resolve("pk", "sk")
	if err != nil {
		return "resolve: " + err.Error()
	}
	return fmt.Sprintf("%v %v %v", r.HashValue, r.Op, r.Values)
}

// TestKeyCondition_ParseCacheAnswersAsAFreshParse compiles each key
// condition text with several placeholder maps, the text's first compile
// parsing it and the later ones taking the cached parse: each answer
// (range, syntax error, undefined or unused placeholder) must be the one
// a fresh parse gives, which compileKey with the cache emptied shows.
func TestKeyCondition_ParseCacheAnswersAsAFreshParse(t *testing.T) {
	names := []map[string]string{nil, {"#k": "pk"}, {"#k": "pk", "#x": "other"}}
	values := []map[string]types.AttributeValue{
		nil,
		{":h": s("a")},
		{":h": s("a"), ":lo": s("b"), ":hi": s("c")},
		{":h": s("a"), ":lo": s("b"), ":hi": s("c"), ":unused": s("d")},
		{":h": n("1"), ":lo": s("b")},
	}
	texts := []string{
		"pk = :h",
		"#k = :h",
		"pk = :h AND sk BETWEEN :lo AND :hi",
		"#k = :h AND begins_with(sk, :lo)",
		"pk = :h AND sk > :lo",
		"pk = :h AND sk <",
		"pk = :h OR sk = :lo",
		"(pk = :h)",
		"pk = :missing",
		"#k = :h AND #x = :lo",
	}
	for _, src := range texts {
		for _, nm := range names {
			for _, vs := range values {
				parsedConditions.Delete(parseKey{kindKey, src})
				fresh := compileKey(src, nm, vs)
				_ = compileKey(src, nm, vs) // caches the parse, if it has no syntax error
				for range 2 {
					if got := compileKey(src, nm, vs); got != fresh {
						t.Errorf("%q names %v values %v: cached parse gives %q, a fresh parse %q", src, nm, vs, got, fresh)
					}
				}
			}
		}
	}
	if _, ok := parsedConditions.Load(parseKey{kindKey, "pk = :h AND sk BETWEEN :lo AND :hi"}); !ok {
		t.Error("a key condition without syntax error was not cached")
	}
	if _, ok := parsedConditions.Load(parseKey{kindKey, "pk = :h AND sk <"}); ok {
		t.Error("a key condition with a syntax error was cached")
	}
}

// TestCondition_ParseCacheKeepsKinds checks that a text parsed as one kind
// of expression is not answered from the cache as another: a filter and a
// key condition of the same text give their own errors.
func TestCondition_ParseCacheKeepsKinds(t *testing.T) {
	vs := map[string]types.AttributeValue{":h": s("a")}
	src := "pk = :h OR pk = :h"
	for range 2 {
		c := NewCompiler(nil, vs)
		if _, err := c.Filter(src); err != nil {
			t.Fatalf("filter %q: %v", src, err)
		}
		c = NewCompiler(nil, vs)
		kc, err := c.KeyCondition(src)
		if err == nil {
			_, err = kc.Resolve("pk", "sk")
		}
		if err == nil {
			t.Fatalf("key condition %q: no error", src)
		}
	}
	if !reflect.DeepEqual(compileKey("pk = :h", nil, vs), compileKey("pk = :h", nil, vs)) {
		t.Error("two compiles of one text differ")
	}
}
