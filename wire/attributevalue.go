package wire

import (
	"encoding/base64"
	"math/bits"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/timetable-db/timetable/internal/jsonstr"
)

// Hand-written paths for types.AttributeValue and the maps and lists of
// them that items are made of: they are most of every request and response,
// and going through reflection for each value would cost several times more.

// Validation messages DynamoDB gives for malformed attribute values.
var (
	errAVEmpty    = validationError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	errAVMultiple = validationError("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	errSSNull     = validationError("One or more parameter values were invalid: An string set may not have a null string as a member")
	errNSNull     = validationError("A value provided cannot be converted into a number")
	errBSNull     = validationError("One or more parameter values were invalid: Binary sets may not contain null or empty values")
)

const (
	avS = 1 << iota
	avN
	avB
	avBOOL
	avNULL
	avL
	avM
	avSS
	avNS
	avBS
)

// av reads one attribute value. JSON null gives a nil AttributeValue, which
// the API judges in context (DynamoDB's message names where it was). A value
// with no or several types set records DynamoDB's validation error and gives
// nil.
func (d *decoder) av() (types.AttributeValue, error) {
	tok := d.peek()
	if tok != tokObject {
		if ok, err := d.null(tok); ok || err != nil {
			return nil, err
		}
		return nil, d.mismatch(tok, wantStruct)
	}
	if err := d.enter('{'); err != nil {
		return nil, err
	}
	var (
		out  types.AttributeValue
		seen uint
	)
	for name, err := range d.members() {
		if err != nil {
			return nil, err
		}
		var (
			v   types.AttributeValue
			bit uint
		)
		switch string(name) {
		case "S", "N":
			s, set, err := d.optString()
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			if name[0] == 'S' {
				v, bit = d.newS(s), avS
			} else {
				v, bit = d.newN(s), avN
			}
		case "B":
			b, set, err := d.blob()
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			v, bit = &types.AttributeValueMemberB{Value: b}, avB
		case "BOOL", "NULL":
			isNull := name[0] == 'N'
			b, set, err := d.boolean()
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			if isNull {
				v, bit = &types.AttributeValueMemberNULL{Value: b}, avNULL
			} else {
				v, bit = &types.AttributeValueMemberBOOL{Value: b}, avBOOL
			}
		case "L":
			list, set, err := d.avList()
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			v, bit = &types.AttributeValueMemberL{Value: list}, avL
		case "M":
			m, set, err := d.avMap()
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			v, bit = &types.AttributeValueMemberM{Value: m}, avM
		case "SS", "NS":
			isSS := name[0] == 'S'
			nullErr := errNSNull
			if isSS {
				nullErr = errSSNull
			}
			list, set, err := d.stringList(nullErr)
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			if isSS {
				v, bit = &types.AttributeValueMemberSS{Value: list}, avSS
			} else {
				v, bit = &types.AttributeValueMemberNS{Value: list}, avNS
			}
		case "BS":
			list, set, err := d.blobList()
			if err != nil {
				return nil, err
			}
			if !set {
				continue
			}
			v, bit = &types.AttributeValueMemberBS{Value: list}, avBS
		default:
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		out = v
		seen |= bit
	}
	switch bits.OnesCount(seen) {
	case 0:
		d.invalid(errAVEmpty)
		return nil, nil
	case 1:
		return out, nil
	default:
		d.invalid(errAVMultiple)
		return nil, nil
	}
}

// avMap reads a map of attribute values (an item, a key, the values of an
// expression); set is false for null.
func (d *decoder) avMap() (m map[string]types.AttributeValue, set bool, err error) {
	return d.avMapOf(nil)
}

// avMapOf is avMap; when reword is set, the first validation error a
// member's value records is replaced by reword's answer for the member's
// name and that error.
func (d *decoder) avMapOf(reword func(name string, verr *Error) *Error) (m map[string]types.AttributeValue, set bool, err error) {
	ok, err := d.openMap(wantMap)
	if !ok {
		return nil, false, err
	}
	m = map[string]types.AttributeValue{}
	for name, err := range d.members() {
		if err != nil {
			return nil, false, err
		}
		k := d.intern(name)
		before := d.verr
		v, err := d.av()
		if err != nil {
			return nil, false, err
		}
		if reword != nil && before == nil && d.verr != nil {
			d.verr = reword(k, d.verr)
		}
		m[k] = v
	}
	return m, true, nil
}

// avList reads a list of attribute values; set is false for null.
func (d *decoder) avList() (list []types.AttributeValue, set bool, err error) {
	ok, err := d.openList()
	if !ok {
		return nil, false, err
	}
	list = []types.AttributeValue{}
	for err := range d.elems() {
		if err != nil {
			return nil, false, err
		}
		v, err := d.av()
		if err != nil {
			return nil, false, err
		}
		list = append(list, v)
	}
	return list, true, nil
}

// blobList reads a list of binaries, null elements being invalid.
func (d *decoder) blobList() ([][]byte, bool, error) {
	return list(d, (*decoder).blob, errBSNull)
}

// decAVValue decodes a member of interface type types.AttributeValue.
func decAVValue(d *decoder, v reflect.Value) error {
	av, err := d.av()
	if err != nil {
		return err
	}
	if av != nil {
		*v.Addr().Interface().(*types.AttributeValue) = av
	}
	return nil
}

// appendAV appends the JSON of av; a nil AttributeValue is written as null.
func appendAV(buf []byte, av types.AttributeValue) []byte {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if v != nil {
			buf = append(buf, `{"S":`...)
			buf = jsonstr.Append(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberN:
		if v != nil {
			buf = append(buf, `{"N":`...)
			buf = jsonstr.Append(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberB:
		if v != nil {
			buf = append(buf, `{"B":`...)
			buf = appendBlob(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberBOOL:
		if v != nil {
			if v.Value {
				return append(buf, `{"BOOL":true}`...)
			}
			return append(buf, `{"BOOL":false}`...)
		}
	case *types.AttributeValueMemberNULL:
		if v != nil {
			if v.Value {
				return append(buf, `{"NULL":true}`...)
			}
			return append(buf, `{"NULL":false}`...)
		}
	case *types.AttributeValueMemberL:
		if v != nil {
			buf = append(buf, `{"L":`...)
			buf = appendAVList(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberM:
		if v != nil {
			buf = append(buf, `{"M":`...)
			buf = appendAVMap(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberSS:
		if v != nil {
			buf = append(buf, `{"SS":`...)
			buf = appendStringList(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberNS:
		if v != nil {
			buf = append(buf, `{"NS":`...)
			buf = appendStringList(buf, v.Value)
			return append(buf, '}')
		}
	case *types.AttributeValueMemberBS:
		if v != nil {
			buf = append(buf, `{"BS":[`...)
			for i, b := range v.Value {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = appendBlob(buf, b)
			}
			return append(buf, "]}"...)
		}
	case nil:
	default:
		// A member this package does not know (types.UnknownUnionMember):
		// nothing DynamoDB could send.
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || !rv.IsNil() {
			return append(buf, "{}"...)
		}
	}
	// nil, or a nil pointer to a member type.
	return append(buf, "null"...)
}

// appendAVMap appends an item as a JSON object; a nil map is written as {}.
func appendAVMap(buf []byte, m map[string]types.AttributeValue) []byte {
	buf = append(buf, '{')
	first := true
	for k, v := range m {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = jsonstr.Append(buf, k)
		buf = append(buf, ':')
		buf = appendAV(buf, v)
	}
	return append(buf, '}')
}

func appendAVList(buf []byte, list []types.AttributeValue) []byte {
	buf = append(buf, '[')
	for i, v := range list {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendAV(buf, v)
	}
	return append(buf, ']')
}

func appendStringList(buf []byte, list []string) []byte {
	buf = append(buf, '[')
	for i, s := range list {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonstr.Append(buf, s)
	}
	return append(buf, ']')
}

func appendBlob(buf []byte, b []byte) []byte {
	buf = append(buf, '"')
	buf = base64.StdEncoding.AppendEncode(buf, b)
	return append(buf, '"')
}

func encAVValue(e *encoder, v reflect.Value) {
	e.buf = appendAV(e.buf, *v.Addr().Interface().(*types.AttributeValue))
}
