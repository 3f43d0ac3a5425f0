package wire

import (
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/timetable-db/timetable/internal/jsonstr"
)

// encoder appends JSON to buf. Values handed to it are addressable, so the
// fast paths can reach typed pointers without copying.
type encoder struct {
	buf []byte
}

func encStruct(e *encoder, c *codec, v reflect.Value) {
	e.buf = append(e.buf, '{')
	first := true
	for i := range c.fields {
		f := &c.fields[i]
		fv := v.Field(f.index)
		if f.omit(fv) {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.quoted...)
		f.enc(e, fv)
	}
	e.buf = append(e.buf, '}')
}

func encString(e *encoder, v reflect.Value) { e.buf = jsonstr.Append(e.buf, v.String()) }

func encBool(e *encoder, v reflect.Value) { e.buf = strconv.AppendBool(e.buf, v.Bool()) }

func encInt(e *encoder, v reflect.Value) { e.buf = strconv.AppendInt(e.buf, v.Int(), 10) }

func encFloat(e *encoder, v reflect.Value) { e.buf = appendFloat(e.buf, v.Float()) }

// appendFloat writes f as encoding/json does; non-finite values, which JSON
// cannot hold, are the strings Smithy's JSON protocols use.
func appendFloat(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(buf, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(buf, `"-Infinity"`...)
	}
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.AppendFloat(buf, f, 'e', -1, 64)
	}
	return strconv.AppendFloat(buf, f, 'f', -1, 64)
}

// encTime writes epoch seconds with millisecond precision, as DynamoDB does
// ("CreationDateTime":1700000000.123).
func encTime(e *encoder, v reflect.Value) {
	t := *v.Addr().Interface().(*time.Time)
	ms := t.UnixMilli()
	if ms < 0 {
		e.buf = strconv.AppendFloat(e.buf, float64(ms)/1000, 'f', 3, 64)
		return
	}
	e.buf = strconv.AppendInt(e.buf, ms/1000, 10)
	frac := ms % 1000
	e.buf = append(e.buf, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

func encBlob(e *encoder, v reflect.Value) { e.buf = appendBlob(e.buf, v.Bytes()) }

func ptrEncoder(elem *codec) encFunc {
	return func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		elem.enc(e, v.Elem())
	}
}

func sliceEncoder(elem *codec) encFunc {
	switch elem.typ {
	case reflect.TypeFor[string]():
		return func(e *encoder, v reflect.Value) {
			e.buf = appendStringList(e.buf, *v.Addr().Interface().(*[]string))
		}
	case attributeValueType:
		return func(e *encoder, v reflect.Value) {
			e.buf = appendAVList(e.buf, *v.Addr().Interface().(*[]types.AttributeValue))
		}
	case reflect.TypeFor[map[string]types.AttributeValue]():
		return func(e *encoder, v reflect.Value) {
			list := *v.Addr().Interface().(*[]map[string]types.AttributeValue)
			e.buf = append(e.buf, '[')
			for i, m := range list {
				if i > 0 {
					e.buf = append(e.buf, ',')
				}
				e.buf = appendAVMap(e.buf, m)
			}
			e.buf = append(e.buf, ']')
		}
	}
	return func(e *encoder, v reflect.Value) {
		e.buf = append(e.buf, '[')
		for i := range v.Len() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			elem.enc(e, v.Index(i))
		}
		e.buf = append(e.buf, ']')
	}
}

func mapEncoder(t reflect.Type, elem *codec) encFunc {
	switch t {
	case reflect.TypeFor[map[string]types.AttributeValue]():
		return func(e *encoder, v reflect.Value) {
			e.buf = appendAVMap(e.buf, *v.Addr().Interface().(*map[string]types.AttributeValue))
		}
	case reflect.TypeFor[map[string]string]():
		return func(e *encoder, v reflect.Value) {
			e.buf = append(e.buf, '{')
			first := true
			for k, s := range *v.Addr().Interface().(*map[string]string) {
				if !first {
					e.buf = append(e.buf, ',')
				}
				first = false
				e.buf = jsonstr.Append(e.buf, k)
				e.buf = append(e.buf, ':')
				e.buf = jsonstr.Append(e.buf, s)
			}
			e.buf = append(e.buf, '}')
		}
	}
	return func(e *encoder, v reflect.Value) {
		e.buf = append(e.buf, '{')
		// Map values are not addressable: copy each into a variable that is.
		tmp := reflect.New(t.Elem()).Elem()
		it := v.MapRange()
		first := true
		for it.Next() {
			if !first {
				e.buf = append(e.buf, ',')
			}
			first = false
			e.buf = jsonstr.Append(e.buf, it.Key().String())
			e.buf = append(e.buf, ':')
			tmp.SetIterValue(it)
			elem.enc(e, tmp)
		}
		e.buf = append(e.buf, '}')
	}
}
