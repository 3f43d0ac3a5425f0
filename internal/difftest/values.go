package difftest

import (
	"math/rand/v2"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is a DynamoDB item or key.
type Item = map[string]types.AttributeValue

// Vocabularies. They are small on purpose: operations on a small key space
// collide, and conditions over a small value space are true about as often
// as they are false.
var (
	// strs are non-key string values; "" is legal outside keys.
	strs = []string{"", "a", "ab", "abc", "b", "B", "ba", "x", "x#1", "ü", "日本", "a b", "0", "1", "zz"}

	// nums are numbers in varied spellings: equal values spelled
	// differently ("1", "1.0", "1e0", "01"), signs, exponents, 38 significant
	// digits, and the ends of the range.
	nums = []string{
		"0", "-0", "0.0", "1", "1.0", "1e0", "01", "-1", "2", "2.5", "-2.50", "10", "1E1", "100",
		"0.1", "0.001", "1e-5", "-7.25", "3.14159265358979323846264338327950288",
		"12345678901234567890123456789012345678", "-99999999999999999999999999999999999999",
		"9.9999999999999999999999999999999999999E+125", "1E-130", "-1E-130", "1e20", "5e-3",
	}

	// badNums are numbers DynamoDB refuses, each for a different reason.
	badNums = []string{
		"123456789012345678901234567890123456789", // 39 significant digits
		"1E+126", "1e-131", "abc", "", " 1", "1..2", "0x10", "Infinity", "NaN", "+-1",
	}

	bins = [][]byte{{}, {0}, {1}, {1, 2}, {0xff}, []byte("abc"), {0, 0, 1}, {0x80, 0x7f}}

	// setStrs, setNums, setBins feed sets; small so sets overlap.
	setStrs = []string{"a", "b", "c", "ab", "", "ü"}
	setNums = []string{"1", "2", "3", "-1", "0.5", "1e2", "10"}
	setBins = [][]byte{{1}, {2}, {1, 2}, {0xff}, {}}

	// mapKeys are the keys of nested maps; paths like m.x reach them.
	mapKeys = []string{"x", "y", "z", "a", "b"}
)

// typeNames are the operands attribute_type accepts.
var typeNames = []string{"S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(n string) types.AttributeValue { return &types.AttributeValueMemberN{Value: n} }
func bv(b []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: b} }

// valueGen makes attribute values. bad is the probability of an invalid
// value (a number DynamoDB refuses, an empty or duplicated set), used to
// exercise validation.
type valueGen struct {
	r   *rand.Rand
	bad float64
	// spent is set once the current operation has an invalid value: an
	// operation has at most one, because which of two errors DynamoDB
	// reports depends on the order of map keys, which is random in Go.
	spent bool
}

// invalid reports whether to make the next value invalid.
func (g *valueGen) invalid(p float64) bool {
	if g.spent || !chance(g.r, p) {
		return false
	}
	g.spent = true
	return true
}

func (g *valueGen) num() string {
	if g.invalid(g.bad) {
		return pick(g.r, badNums)
	}
	return pick(g.r, nums)
}

func (g *valueGen) str() types.AttributeValue { return sv(pick(g.r, strs)) }
func (g *valueGen) n() types.AttributeValue   { return nv(g.num()) }
func (g *valueGen) b() types.AttributeValue   { return bv(pick(g.r, bins)) }

func (g *valueGen) ss() types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: subset(g, setStrs)}
}

func (g *valueGen) ns() types.AttributeValue {
	v := subset(g, setNums)
	if g.invalid(g.bad) {
		v = append(v, pick(g.r, badNums))
	}
	return &types.AttributeValueMemberNS{Value: v}
}

func (g *valueGen) bs() types.AttributeValue {
	return &types.AttributeValueMemberBS{Value: subset(g, setBins)}
}

// subset returns 1 to 3 distinct elements of xs in random order; with
// probability bad it returns an empty set or one with a duplicate.
func subset[T any](g *valueGen, xs []T) []T {
	if g.invalid(g.bad) {
		if chance(g.r, 0.5) {
			return []T{}
		}
		x := pick(g.r, xs)
		return []T{x, x}
	}
	idx := g.r.Perm(len(xs))[:1+g.r.IntN(3)]
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// scalar returns a value of a random scalar type.
func (g *valueGen) scalar() types.AttributeValue {
	switch g.r.IntN(6) {
	case 0, 1:
		return g.str()
	case 2, 3:
		return g.n()
	case 4:
		return g.b()
	default:
		if chance(g.r, 0.5) {
			return &types.AttributeValueMemberNULL{Value: true}
		}
		return &types.AttributeValueMemberBOOL{Value: chance(g.r, 0.5)}
	}
}

// any returns a value of any type, nesting lists and maps up to depth.
func (g *valueGen) any(depth int) types.AttributeValue {
	k := g.r.IntN(10)
	if depth <= 0 && k >= 8 {
		k = g.r.IntN(8)
	}
	switch k {
	case 0, 1, 2, 3:
		return g.scalar()
	case 4:
		return g.ss()
	case 5:
		return g.ns()
	case 6:
		return g.bs()
	case 7:
		return g.scalar()
	case 8:
		return g.list(depth - 1)
	default:
		return g.mapv(depth - 1)
	}
}

func (g *valueGen) list(depth int) types.AttributeValue {
	n := g.r.IntN(4)
	v := make([]types.AttributeValue, n)
	for i := range v {
		v[i] = g.any(depth)
	}
	return &types.AttributeValueMemberL{Value: v}
}

func (g *valueGen) mapv(depth int) types.AttributeValue {
	n := g.r.IntN(4)
	m := Item{}
	for range n {
		m[pick(g.r, mapKeys)] = g.any(depth)
	}
	return &types.AttributeValueMemberM{Value: m}
}
