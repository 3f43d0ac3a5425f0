package expr

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fuzzNames and fuzzValues are the placeholders the fuzzed expressions may use.
var (
	fuzzNames  = map[string]string{"#a": "a", "#n": "n", "#s": "status", "#l": "l", "#m": "m"}
	fuzzValues = map[string]types.AttributeValue{
		":v": s("x"), ":n": n("1"), ":s": s("S"), ":e": &types.AttributeValueMemberL{},
		":l":   &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1")}},
		":ss":  &types.AttributeValueMemberSS{Value: []string{"a"}},
		":ns":  &types.AttributeValueMemberNS{Value: []string{"1"}},
		":big": n("99999999999999999999999999999999999999"),
	}
)

// FuzzParse compiles arbitrary text as every kind of expression and runs
// what compiles on an item. Nothing may panic, loop or change the item.
func FuzzParse(f *testing.F) {
	for _, c := range readGolden(f) {
		f.Add(c.expr)
	}
	item := mustItem(f, baseItem)
	before := canonical(item)
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 2*maxExprLen {
			return
		}
		c := NewCompiler(fuzzNames, fuzzValues)
		if cond, err := c.Condition(expr); err == nil {
			cond.Eval(item)
			cond.Eval(nil)
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("error %T", err)
		}
		if cond, err := c.Filter(expr); err == nil {
			cond.Eval(item)
		}
		if kc, err := c.KeyCondition(expr); err == nil {
			_, _ = kc.Resolve("pk", "sk")
			_, _ = kc.Resolve("pk", "")
			_, _ = kc.ResolveMulti([]string{"pk", "a"}, []string{"n", "l", "m"})
			_, _ = kc.ResolveMulti([]string{"a", "n", "l", "m"}, nil)
		}
		if p, err := c.Projection(expr); err == nil {
			p.Apply(item)
			p.TopLevel()
		}
		if u, err := c.Update(expr); err == nil {
			_, _ = u.Apply(item)
			_, _ = u.Apply(nil)
			u.TopLevel()
		}
		_ = c.Finish()
		if canonical(item) != before {
			t.Fatalf("%q changed the item", expr)
		}
	})
}
