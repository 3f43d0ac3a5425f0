package series

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// DynamoDB numbers hold 38 significant digits between 1e-130 and
// 9.99...e125 in magnitude. A float64 outside that range (infinities,
// NaN, huge or tiny values) is stored as a string holding its Go form.
// numberLimit is the least magnitude DynamoDB refuses (the float64
// 9.9999999999999999e125 is 1e126, which it refuses too).
const (
	numberLimit = 1e126
	minNumber   = 1e-130
)

func numAV(f float64) types.AttributeValue {
	if isNumber(f) {
		if f == 0 {
			return &types.AttributeValueMemberN{Value: "0"}
		}
		var b [32]byte
		return &types.AttributeValueMemberN{Value: string(appendNumber(b[:0], f))}
	}
	return &types.AttributeValueMemberS{Value: strconv.FormatFloat(f, 'g', -1, 64)}
}

// appendNumber appends strconv.FormatFloat(f, 'g', -1, 64), the shortest
// form that parses back to f, to b. Readings with at most two decimals
// below a million (prices, temperatures, percentages), the most common,
// take a shortcut: when f is the double nearest to m/100 for an integer
// m, the decimal m/100 parses back to f, and no shorter decimal does
// (any other with at most two decimals is 0.01 away, and f's doubles are
// much closer together), so it is the shortest form, which 'g' writes
// without an exponent from 1e-4 up to 1e6.
func appendNumber(b []byte, f float64) []byte {
	if a := math.Abs(f); a >= 0.01 && a < 1e6 {
		if m := math.Round(f * 100); m/100 == f {
			c := int64(m)
			if c < 0 {
				b = append(b, '-')
				c = -c
			}
			b = strconv.AppendInt(b, c/100, 10)
			if c%100 != 0 {
				b = append(b, '.', byte('0'+c%100/10))
				if c%10 != 0 {
					b = append(b, byte('0'+c%10))
				}
			}
			return b
		}
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// isNumber reports whether numAV stores f as a DynamoDB number.
func isNumber(f float64) bool {
	a := math.Abs(f)
	return f == 0 || (a >= minNumber && a < numberLimit)
}

// nums formats the numbers of one item into one buffer, so that their
// attribute values take two allocations (one string, one array) instead
// of two each: add them with float and int, then take their values, in
// the same order, from avs.
type nums struct {
	buf  []byte
	ends []int
}

var numsPool = sync.Pool{New: func() any { return new(nums) }}

// getNums returns an empty nums from numsPool.
func getNums() *nums {
	n := numsPool.Get().(*nums)
	n.buf, n.ends = n.buf[:0], n.ends[:0]
	return n
}

// float adds f, formatted as numAV formats it, and reports whether it is
// a DynamoDB number; if not, nothing is added (numAV stores it as a
// string).
func (n *nums) float(f float64) bool {
	if !isNumber(f) {
		return false
	}
	if f == 0 {
		n.buf = append(n.buf, '0')
	} else {
		n.buf = appendNumber(n.buf, f)
	}
	n.ends = append(n.ends, len(n.buf))
	return true
}

// int adds v, formatted as intAV formats it.
func (n *nums) int(v int64) {
	n.buf = strconv.AppendInt(n.buf, v, 10)
	n.ends = append(n.ends, len(n.buf))
}

// len is the number of numbers added.
func (n *nums) len() int { return len(n.ends) }

// truncate drops the numbers added after the first m.
func (n *nums) truncate(m int) {
	if m == 0 {
		n.buf = n.buf[:0]
	} else {
		n.buf = n.buf[:n.ends[m-1]]
	}
	n.ends = n.ends[:m]
}

// avs returns the attribute values of the numbers added, in order.
func (n *nums) avs() []types.AttributeValueMemberN {
	if len(n.ends) == 0 {
		return nil
	}
	s := string(n.buf)
	out := make([]types.AttributeValueMemberN, len(n.ends))
	from := 0
	for i, end := range n.ends {
		out[i].Value = s[from:end]
		from = end
	}
	return out
}

func avNum(av types.AttributeValue) (float64, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		return strconv.ParseFloat(v.Value, 64)
	case *types.AttributeValueMemberS:
		return strconv.ParseFloat(v.Value, 64)
	}
	return 0, fmt.Errorf("series: want a number, have %T", av)
}

func strAV(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func intAV(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func getS(item table.Item, name string) (string, bool) {
	v, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return v.Value, true
}

func getInt(item table.Item, name string) (int64, bool) {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return n, err == nil
}

func getB(item table.Item, name string) ([]byte, bool) {
	v, ok := item[name].(*types.AttributeValueMemberB)
	if !ok {
		return nil, false
	}
	return v.Value, true
}

// putValues stores the fields and tags of a reading as attributes of m:
// absent values (NaN, "") are left out.
func putValues(m map[string]types.AttributeValue, s *Schema, vals []float64, tags []string) {
	for i, f := range s.Fields {
		if i < len(vals) && !math.IsNaN(vals[i]) {
			m[f] = numAV(vals[i])
		}
	}
	for i, g := range s.Tags {
		if i < len(tags) && tags[i] != "" {
			m[g] = strAV(tags[i])
		}
	}
}

// getValues reads the fields and tags of a reading from m. A field stored
// with another type is an error; absent ones are NaN and "".
func getValues(m map[string]types.AttributeValue, s *Schema) ([]float64, []string, error) {
	vals := make([]float64, len(s.Fields))
	for i, f := range s.Fields {
		av, ok := m[f]
		if !ok {
			vals[i] = math.NaN()
			continue
		}
		v, err := avNum(av)
		if err != nil {
			return nil, nil, fmt.Errorf("field %q: %w", f, err)
		}
		vals[i] = v
	}
	var tags []string
	if len(s.Tags) > 0 {
		tags = make([]string, len(s.Tags))
		for i, g := range s.Tags {
			if v, ok := m[g].(*types.AttributeValueMemberS); ok {
				tags[i] = v.Value
			}
		}
	}
	return vals, tags, nil
}

// Aggregates are stored as one map attribute per field:
// {"count": N, "sum": N, "min": N, "max": N, "first": N, "last": N,
// "first_t": N ms, "last_t": N ms}; a field without values is left out.
func aggAV(a agg) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"count": intAV(a.n), "sum": numAV(a.sum), "min": numAV(a.min), "max": numAV(a.max),
		"first": numAV(a.first), "last": numAV(a.last), "first_t": intAV(a.firstT), "last_t": intAV(a.lastT),
	}}
}

func avAgg(av types.AttributeValue) (agg, error) {
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return agg{}, fmt.Errorf("series: aggregate is %T, want a map", av)
	}
	var a agg
	var err error
	num := func(name string) float64 {
		v, ok := m.Value[name]
		if !ok {
			err = fmt.Errorf("series: aggregate lacks %q", name)
			return 0
		}
		f, e := avNum(v)
		if e != nil {
			err = e
		}
		return f
	}
	a.n = int64(num("count"))
	a.sum, a.min, a.max = num("sum"), num("min"), num("max")
	a.first, a.last = num("first"), num("last")
	a.firstT, a.lastT = int64(num("first_t")), int64(num("last_t"))
	return a, err
}

// aggNames are the keys of an aggregate's map, in the order putUnit adds
// their numbers.
var aggNames = [...]string{"count", "sum", "min", "max", "first", "last", "first_t", "last_t"}

// putUnit stores u's count and per-field aggregates in item, as intAV and
// aggAV would, with the numbers formatted together.
func putUnit(item table.Item, s *Schema, u unit) {
	ns := getNums()
	defer numsPool.Put(ns)
	ns.int(u.n)
	// packed[i] says whether field i's numbers are in ns, in order; the
	// others (with a value that is no DynamoDB number) take aggAV.
	var packedBuf [16]bool
	packed := packedBuf[:0]
	some := 0
	for i := range s.Fields {
		a := &u.fields[i]
		if a.n == 0 {
			packed = append(packed, false)
			continue
		}
		m := ns.len()
		ns.int(a.n)
		if !ns.float(a.sum) || !ns.float(a.min) || !ns.float(a.max) || !ns.float(a.first) || !ns.float(a.last) {
			ns.truncate(m)
			packed = append(packed, false)
			continue
		}
		ns.int(a.firstT)
		ns.int(a.lastT)
		packed = append(packed, true)
		some++
	}
	avs := ns.avs()
	item[attrN] = &avs[0]
	avs = avs[1:]
	var ms []types.AttributeValueMemberM
	if some > 0 {
		ms = make([]types.AttributeValueMemberM, some)
	}
	for i, f := range s.Fields {
		a := &u.fields[i]
		if a.n == 0 {
			continue
		}
		if !packed[i] {
			item[f] = aggAV(*a)
			continue
		}
		m := &ms[0]
		ms = ms[1:]
		m.Value = make(map[string]types.AttributeValue, len(aggNames))
		for j, name := range aggNames {
			m.Value[name] = &avs[j]
		}
		avs = avs[len(aggNames):]
		item[f] = m
	}
}

// getUnit reads a unit stored by putUnit.
func getUnit(item table.Item, s *Schema) (unit, error) {
	u := newUnit(len(s.Fields))
	n, ok := getInt(item, attrN)
	if !ok {
		return u, fmt.Errorf("series: item lacks %s", attrN)
	}
	u.n = n
	for i, f := range s.Fields {
		av, ok := item[f]
		if !ok {
			continue
		}
		a, err := avAgg(av)
		if err != nil {
			return u, fmt.Errorf("field %q: %w", f, err)
		}
		u.fields[i] = a
	}
	return u, nil
}

func binAV(b []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: b} }
