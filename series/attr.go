package series

import (
	"fmt"
	"math"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// DynamoDB numbers hold 38 significant digits between 1e-130 and
// 9.99...e125 in magnitude. A float64 outside that range (infinities,
// NaN, huge or tiny values) is stored as a string holding its Go form.
const (
	maxNumber = 9.9999999999999999e125
	minNumber = 1e-130
)

func numAV(f float64) types.AttributeValue {
	if a := math.Abs(f); f == 0 || (a >= minNumber && a <= maxNumber) {
		if f == 0 {
			return &types.AttributeValueMemberN{Value: "0"}
		}
		return &types.AttributeValueMemberN{Value: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	return &types.AttributeValueMemberS{Value: strconv.FormatFloat(f, 'g', -1, 64)}
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

// putUnit stores u's count and per-field aggregates in item.
func putUnit(item table.Item, s *Schema, u unit) {
	item[attrN] = intAV(u.n)
	for i, f := range s.Fields {
		if u.fields[i].n > 0 {
			item[f] = aggAV(u.fields[i])
		}
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
