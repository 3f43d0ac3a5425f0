package wire

import (
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What a decoder expected, for mismatch messages.
const (
	wantList   = "list"
	wantMap    = "map"
	wantStruct = "structure"
)

// mismatch is the SerializationException for a value of the wrong JSON
// type. want is a Java type name for scalars ("String", "Long", ...), or
// wantList, wantMap, wantStruct. The texts are DynamoDB's.
func (d *decoder) mismatch(tok int, want string) error {
	switch tok {
	case tokEOF, tokInvalid:
		return d.syntaxError("a value")
	case tokObject:
		if want != wantMap && want != wantStruct {
			return serializationError("Start of structure or map found where not expected.")
		}
	case tokArray:
		if want != wantList {
			return serializationError("Start of list found where not expected")
		}
	default:
		switch want {
		case wantList:
			return serializationError("Expected list or null")
		case wantMap:
			return serializationError("Expected map or null")
		case wantStruct:
			return serializationError("Expected null")
		}
		return serializationError(tokenName(tok) + " cannot be converted to " + want)
	}
	return serializationError("Unexpected " + tokenName(tok))
}

// null consumes a JSON null if one is next and reports whether it did.
// Decoders treat null as "member absent".
func (d *decoder) null(tok int) (bool, error) {
	if tok != tokNull {
		return false, nil
	}
	return true, d.literal("null")
}

// want reports whether a value of the token kind kind is next. It consumes
// a null instead and returns false; any other value is the mismatch error
// for want (see mismatch).
func (d *decoder) want(kind int, want string) (bool, error) {
	tok := d.peek()
	if tok == kind {
		return true, nil
	}
	if ok, err := d.null(tok); ok || err != nil {
		return false, err
	}
	return false, d.mismatch(tok, want)
}

// optString reads a string; set is false for null.
func (d *decoder) optString() (s string, set bool, err error) {
	if ok, err := d.want(tokString, "String"); !ok {
		return "", false, err
	}
	s, err = d.str()
	return s, err == nil, err
}

// setter is the decoder of a member that read reads (set false for null)
// and set stores; a null leaves the member alone.
func setter[T any](read func(*decoder) (T, bool, error), set func(reflect.Value, T)) decFunc {
	return func(d *decoder, v reflect.Value) error {
		x, ok, err := read(d)
		if ok {
			set(v, x)
		}
		return err
	}
}

// store sets v, of type T, to x without reflection.
func store[T any](v reflect.Value, x T) { *v.Addr().Interface().(*T) = x }

// storePtr sets v, of type *T, to a pointer to x.
func storePtr[T any](v reflect.Value, x T) { *v.Addr().Interface().(**T) = &x }

var (
	decString = setter((*decoder).optString, reflect.Value.SetString)
	decBool   = setter((*decoder).boolean, reflect.Value.SetBool)
	decBlob   = setter((*decoder).blob, reflect.Value.SetBytes)
)

// boolean reads true or false; set is false for null.
func (d *decoder) boolean() (b, set bool, err error) {
	switch tok := d.peek(); tok {
	case tokTrue:
		return true, true, d.literal("true")
	case tokFalse:
		return false, true, d.literal("false")
	case tokNull:
		return false, false, d.literal("null")
	default:
		return false, false, d.mismatch(tok, "Boolean")
	}
}

// intDecoder decodes a JSON number into a signed integer of t's size.
// Fractions are truncated, as DynamoDB's parser does; values out of range
// are a SerializationException.
func intDecoder(t reflect.Type) decFunc {
	bits := t.Bits()
	java := "Long"
	if bits <= 32 {
		java = "Integer"
	}
	return setter(func(d *decoder) (int64, bool, error) { return d.integer(bits, java) }, reflect.Value.SetInt)
}

func (d *decoder) integer(bits int, java string) (n int64, set bool, err error) {
	if ok, err := d.want(tokNumber, java); !ok {
		return 0, false, err
	}
	num, err := d.number()
	if err != nil {
		return 0, false, err
	}
	n, ok := parseInt(num, bits)
	if !ok {
		return 0, false, serializationError("Numeric value (" + truncate(string(num), 64) + ") out of range of " + java)
	}
	return n, true, nil
}

// parseInt parses a JSON number already checked against the grammar,
// truncating any fraction, and reports whether it fits in bits.
func parseInt(num []byte, bits int) (int64, bool) {
	limit := uint64(1)<<(bits-1) - 1
	neg := num[0] == '-'
	digits := num
	if neg {
		digits = num[1:]
		limit++
	}
	var u uint64
	for i, c := range digits {
		if c < '0' || c > '9' {
			// A fraction or an exponent: let the float parser round it.
			f, err := strconv.ParseFloat(string(num), 64)
			_ = i
			if err != nil || math.IsNaN(f) {
				return 0, false
			}
			f = math.Trunc(f)
			if f < -float64(uint64(1)<<(bits-1)) || f >= float64(uint64(1)<<(bits-1)) {
				return 0, false
			}
			return int64(f), true
		}
		if u > (limit-uint64(c-'0'))/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		return -int64(u-1) - 1, true
	}
	return int64(u), true
}

func decFloat(d *decoder, v reflect.Value) error {
	tok := d.peek()
	switch tok {
	case tokNumber:
		num, err := d.number()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			return serializationError("Numeric value (" + truncate(string(num), 64) + ") out of range of Double")
		}
		v.SetFloat(f)
		return nil
	case tokString:
		// Smithy's JSON protocols spell non-finite numbers as strings.
		s, err := d.str()
		if err != nil {
			return err
		}
		switch s {
		case "NaN":
			v.SetFloat(math.NaN())
		case "Infinity":
			v.SetFloat(math.Inf(1))
		case "-Infinity":
			v.SetFloat(math.Inf(-1))
		default:
			return serializationError("STRING_VALUE cannot be converted to Double")
		}
		return nil
	}
	if ok, err := d.null(tok); ok || err != nil {
		return err
	}
	return d.mismatch(tok, "Double")
}

// decTime decodes epoch seconds, with up to millisecond precision, into a
// UTC time.Time.
func decTime(d *decoder, v reflect.Value) error {
	if ok, err := d.want(tokNumber, "Date"); !ok {
		return err
	}
	num, err := d.number()
	if err != nil {
		return err
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.Abs(f) > 1e14 {
		return serializationError("Numeric value (" + truncate(string(num), 64) + ") out of range of Date")
	}
	t := time.UnixMilli(int64(math.Round(f * 1000))).UTC()
	v.Set(reflect.ValueOf(t))
	return nil
}

// blob reads a base64 string; set is false for null.
func (d *decoder) blob() (b []byte, set bool, err error) {
	if ok, err := d.want(tokString, "Blob"); !ok {
		return nil, false, err
	}
	raw, escaped, err := d.rawString()
	if err != nil {
		return nil, false, err
	}
	if escaped {
		if d.buf, err = unescape(d.buf[:0], raw); err != nil {
			return nil, false, err
		}
		raw = d.buf
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(out, raw)
	if err != nil {
		return nil, false, serializationError("'" + truncate(string(raw), 64) + "' can not be converted to a Blob: " + err.Error())
	}
	return out[:n:n], true, nil
}

func ptrDecoder(t reflect.Type, elem *codec) decFunc {
	switch t.Elem() {
	case reflect.TypeFor[string]():
		return setter((*decoder).optString, storePtr[string])
	case reflect.TypeFor[int32]():
		return setter(func(d *decoder) (int32, bool, error) {
			n, set, err := d.integer(32, "Integer")
			return int32(n), set, err
		}, storePtr[int32])
	case reflect.TypeFor[int64]():
		return setter(func(d *decoder) (int64, bool, error) { return d.integer(64, "Long") }, storePtr[int64])
	case reflect.TypeFor[bool]():
		return setter((*decoder).boolean, storePtr[bool])
	}
	et := t.Elem()
	return func(d *decoder, v reflect.Value) error {
		tok := d.peek()
		if ok, err := d.null(tok); ok || err != nil {
			return err
		}
		p := reflect.New(et)
		if err := elem.dec(d, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
}

// openList consumes '[' or a null; it returns false (and no error) for null.
func (d *decoder) openList() (bool, error) {
	if ok, err := d.want(tokArray, wantList); !ok {
		return false, err
	}
	return true, d.enter('[')
}

// openMap consumes '{' or a null; it returns false (and no error) for null.
func (d *decoder) openMap(want string) (bool, error) {
	if ok, err := d.want(tokObject, want); !ok {
		return false, err
	}
	return true, d.enter('{')
}

func sliceDecoder(t reflect.Type, elem *codec) decFunc {
	switch t {
	case reflect.TypeFor[[]string]():
		return setter(func(d *decoder) ([]string, bool, error) { return d.stringList(nil) }, store[[]string])
	case reflect.TypeFor[[]types.AttributeValue]():
		return setter((*decoder).avList, store[[]types.AttributeValue])
	case reflect.TypeFor[[]map[string]types.AttributeValue]():
		return func(d *decoder, v reflect.Value) error {
			ok, err := d.openList()
			if !ok {
				return err
			}
			list := []map[string]types.AttributeValue{}
			for err := range d.elems() {
				if err != nil {
					return err
				}
				m, _, err := d.avMap()
				if err != nil {
					return err
				}
				list = append(list, m)
			}
			*v.Addr().Interface().(*[]map[string]types.AttributeValue) = list
			return nil
		}
	}
	return func(d *decoder, v reflect.Value) error {
		ok, err := d.openList()
		if !ok {
			return err
		}
		s := reflect.MakeSlice(t, 0, 0)
		zero := reflect.Zero(t.Elem())
		for err := range d.elems() {
			if err != nil {
				return err
			}
			s = reflect.Append(s, zero)
			if err := elem.dec(d, s.Index(s.Len()-1)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
}

// list reads a list of the values read reads (set false for null); set is
// false for a null list. A null element is the validation error nullErr,
// or with a nil nullErr the zero E.
func list[E any](d *decoder, read func(*decoder) (E, bool, error), nullErr *Error) (list []E, set bool, err error) {
	ok, err := d.openList()
	if !ok {
		return nil, false, err
	}
	list = []E{}
	for err := range d.elems() {
		if err != nil {
			return nil, false, err
		}
		x, set, err := read(d)
		if err != nil {
			return nil, false, err
		}
		if !set && nullErr != nil {
			d.invalid(nullErr)
			continue
		}
		list = append(list, x)
	}
	return list, true, nil
}

// stringList reads a list of strings. A null element is kept as "" unless
// nullErr is set, in which case it is that validation error.
func (d *decoder) stringList(nullErr *Error) ([]string, bool, error) {
	return list(d, (*decoder).optString, nullErr)
}

func mapDecoder(t reflect.Type, elem *codec) decFunc {
	switch t {
	case reflect.TypeFor[map[string]types.AttributeValue]():
		return setter((*decoder).avMap, store[map[string]types.AttributeValue])
	case reflect.TypeFor[map[string]string]():
		return stringMapDecoder("Map")
	}
	kt := t.Key()
	return func(d *decoder, v reflect.Value) error {
		ok, err := d.openMap(wantMap)
		if !ok {
			return err
		}
		m := reflect.MakeMap(t)
		k := reflect.New(kt).Elem()
		e := reflect.New(t.Elem()).Elem()
		for name, err := range d.members() {
			if err != nil {
				return err
			}
			k.SetString(d.intern(name))
			e.SetZero()
			if err := elem.dec(d, e); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		return nil
	}
}

// stringMapDecoder decodes a map[string]string, such as
// ExpressionAttributeNames. A null value cannot be represented in the SDK's
// type, so it is the validation error DynamoDB gives, naming the member.
func stringMapDecoder(member string) decFunc {
	return func(d *decoder, v reflect.Value) error {
		ok, err := d.openMap(wantMap)
		if !ok {
			return err
		}
		m := map[string]string{}
		for name, err := range d.members() {
			if err != nil {
				return err
			}
			k := d.intern(name)
			s, set, err := d.optString()
			if err != nil {
				return err
			}
			if !set {
				d.invalid(validationError(member + " contains invalid value: null for key " + k))
				continue
			}
			m[k] = s
		}
		*v.Addr().Interface().(*map[string]string) = m
		return nil
	}
}

// fieldDecoder returns a decoder specific to a struct member, or nil to use
// the one of the member's type.
func fieldDecoder(sf reflect.StructField) decFunc {
	if sf.Type == reflect.TypeFor[map[string]string]() {
		return stringMapDecoder(sf.Name)
	}
	if sf.Name == "ExpressionAttributeValues" && sf.Type == reflect.TypeFor[map[string]types.AttributeValue]() {
		return setter((*decoder).valuesMap, store[map[string]types.AttributeValue])
	}
	return nil
}

// valuesMap reads ExpressionAttributeValues: avMap, with DynamoDB's words
// for a value without a type or with several, at any depth, which name the
// member it is in: "ExpressionAttributeValues contains invalid value: ...
// for key :v".
func (d *decoder) valuesMap() (map[string]types.AttributeValue, bool, error) {
	return d.avMapOf(func(k string, verr *Error) *Error {
		if verr != errAVEmpty && verr != errAVMultiple {
			return verr
		}
		return validationError("ExpressionAttributeValues contains invalid value: " + verr.Message + " for key " + k)
	})
}

func decStruct(d *decoder, c *codec, v reflect.Value) error {
	ok, err := d.openMap(wantStruct)
	if !ok {
		return err
	}
	for name, err := range d.members() {
		if err != nil {
			return err
		}
		f := c.byName[string(name)]
		if f == nil {
			if err := d.skip(); err != nil {
				return err
			}
			continue
		}
		if err := f.dec(d, v.Field(f.index)); err != nil {
			return err
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
