package expr

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var benchValues = map[string]types.AttributeValue{
	":lo": n("1"), ":hi": n("10"), ":p": s("st"), ":t": s("S"), ":x": s("b"), ":one": n("1"),
	":tag": &types.AttributeValueMemberSS{Value: []string{"c"}}, ":l": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("9")}},
}

const (
	benchFilter = "n BETWEEN :lo AND :hi AND begins_with(s, :p) AND attribute_type(s, :t) AND (contains(ss, :x) OR size(l) > :one) AND attribute_exists(m.y.z)"
	benchUpdate = "SET m.y.z = :p, l = list_append(l, :l), n = if_not_exists(n, :lo) + :one REMOVE l2[0] ADD ss :tag"
)

func BenchmarkParse_Condition(b *testing.B) {
	benchParse(b, func(c *Compiler) error { _, err := c.Filter(benchFilter); return err })
}

func BenchmarkParse_Update(b *testing.B) {
	benchParse(b, func(c *Compiler) error { _, err := c.Update(benchUpdate); return err })
}

// benchParse measures compiling with a new Compiler each time.
func benchParse(b *testing.B, compile func(*Compiler) error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := compile(NewCompiler(nil, benchValues)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEval_Filter(b *testing.B) { benchEval(b, benchFilter, true) }

func BenchmarkEval_Equal(b *testing.B) { benchEval(b, "n = :hi OR s = :p", false) }

// benchEval measures evaluating the filter f on baseItem; with mustHold,
// f must be true there.
func benchEval(b *testing.B, f string, mustHold bool) {
	c, err := NewCompiler(nil, benchValues).Filter(f)
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	if mustHold && !c.Eval(item) {
		b.Fatal("want true")
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Eval(item)
	}
}

func BenchmarkUpdate_Apply(b *testing.B) { benchApply(b, benchUpdate) }

func BenchmarkUpdate_ApplyCounter(b *testing.B) { benchApply(b, "ADD n :one") }

// benchApply measures applying the update u to baseItem.
func benchApply(b *testing.B, u string) {
	up, err := NewCompiler(nil, benchValues).Update(u)
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := up.Apply(item); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProjection_Apply(b *testing.B) {
	p, err := NewCompiler(nil, nil).Projection("n, s, m.y.z, l[2], l[0]")
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	b.ReportAllocs()
	for b.Loop() {
		p.Apply(item)
	}
}
