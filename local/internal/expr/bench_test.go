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
	b.ReportAllocs()
	for b.Loop() {
		c := NewCompiler(nil, benchValues)
		if _, err := c.Filter(benchFilter); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse_Update(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c := NewCompiler(nil, benchValues)
		if _, err := c.Update(benchUpdate); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEval_Filter(b *testing.B) {
	c, err := NewCompiler(nil, benchValues).Filter(benchFilter)
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	if !c.Eval(item) {
		b.Fatal("want true")
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Eval(item)
	}
}

func BenchmarkEval_Equal(b *testing.B) {
	c, err := NewCompiler(nil, benchValues).Filter("n = :hi OR s = :p")
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	b.ReportAllocs()
	for b.Loop() {
		c.Eval(item)
	}
}

func BenchmarkUpdate_Apply(b *testing.B) {
	u, err := NewCompiler(nil, benchValues).Update(benchUpdate)
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Apply(item); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdate_ApplyCounter(b *testing.B) {
	u, err := NewCompiler(nil, benchValues).Update("ADD n :one")
	if err != nil {
		b.Fatal(err)
	}
	item := mustItem(b, baseItem)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Apply(item); err != nil {
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
