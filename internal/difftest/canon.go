package difftest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/cockroachdb/apd/v3"
)

// canonizer turns SDK structs (inputs, outputs, errors) into a tree of
// map[string]any, []any and scalars that encoding/json renders stably: map
// keys sorted, attribute values in DynamoDB JSON ({"S": "x"}).
//
// With unordered set, what DynamoDB leaves unordered is sorted: set
// elements, the items of each table in a BatchGetItem response, and lists of
// per-table consumed capacity and item collection metrics.
//
// Nil pointers, nil or empty slices, empty non-item maps and empty strings
// of enum fields are left out, so that an implementation returning an empty
// slice and one returning nil agree. Items (maps of attribute values) keep
// the difference between nil (no item) and empty.
type canonizer struct {
	prefix    string // removed from table names and error messages
	unordered bool
	// numbers, if set, renders numbers by value ("1.0", "1e0" and "01" as
	// "1"), for Config.NumbersByValue.
	numbers bool
}

// numberValue returns a canonical spelling of the number s (any spelling of
// a value gives the same string), or s itself if it is not a number.
func numberValue(s string) string {
	var d apd.Decimal
	if _, _, err := d.SetString(s); err != nil {
		return s
	}
	if d.IsZero() {
		return "0"
	}
	d.Reduce(&d)
	return d.String()
}

func (c *canonizer) num(s string) string {
	if c.numbers {
		return numberValue(s)
	}
	return s
}

var (
	avType       = reflect.TypeFor[types.AttributeValue]()
	itemType     = reflect.TypeFor[map[string]types.AttributeValue]()
	capsType     = reflect.TypeFor[[]types.ConsumedCapacity]()
	batchRspType = reflect.TypeFor[map[string][]map[string]types.AttributeValue]()
	icmListType  = reflect.TypeFor[[]types.ItemCollectionMetrics]()
)

func (c *canonizer) str(s string) string {
	if c.prefix == "" {
		return s
	}
	return strings.ReplaceAll(s, c.prefix, "")
}

// of returns the canonical tree of v (any SDK struct pointer or value).
func (c *canonizer) of(v any) any {
	if v == nil {
		return nil
	}
	return c.value(reflect.ValueOf(v))
}

func (c *canonizer) value(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if v.Type() == avType {
			return c.av(v.Interface().(types.AttributeValue))
		}
		return c.value(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if v.Type().Implements(avType) {
			return c.av(v.Interface().(types.AttributeValue))
		}
		e := v.Elem()
		if e.Kind() == reflect.String {
			return c.str(e.String()) // a *string: "" is a value
		}
		return c.value(e)
	case reflect.Struct:
		m := map[string]any{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Name == "ResultMetadata" {
				continue
			}
			if x := c.value(v.Field(i)); x != nil {
				m[f.Name] = x
			}
		}
		return m
	case reflect.Map:
		if v.Type() == itemType {
			if v.IsNil() {
				return nil
			}
			m := map[string]any{}
			for it := v.MapRange(); it.Next(); {
				m[it.Key().String()] = c.av(it.Value().Interface().(types.AttributeValue))
			}
			return m
		}
		if v.Len() == 0 {
			return nil
		}
		m := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			x := c.value(it.Value())
			if l, ok := x.([]any); ok && c.unordered && v.Type() == batchRspType {
				sortByJSON(l)
			}
			m[c.str(it.Key().String())] = x
		}
		return m
	case reflect.Slice:
		if v.Len() == 0 {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		s := make([]any, v.Len())
		for i := range s {
			s[i] = c.value(v.Index(i))
		}
		if c.unordered && v.Type() == capsType {
			sortByTable(s)
		}
		if c.unordered && v.Type() == icmListType {
			sortByJSON(s)
		}
		return s
	case reflect.String:
		if v.Len() == 0 {
			return nil // an enum field left unset
		}
		return c.str(v.String())
	default:
		return v.Interface()
	}
}

// av returns the DynamoDB JSON form of an attribute value.
func (c *canonizer) av(av types.AttributeValue) any {
	b64 := base64.StdEncoding.EncodeToString
	switch v := av.(type) {
	case nil:
		return nil
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": c.num(v.Value)}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": b64(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": c.set(v.Value)}
	case *types.AttributeValueMemberNS:
		ns := make([]string, len(v.Value))
		for i, e := range v.Value {
			ns[i] = c.num(e)
		}
		return map[string]any{"NS": c.set(ns)}
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = b64(b)
		}
		return map[string]any{"BS": c.set(s)}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = c.av(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range v.Value {
			m[k] = c.av(e)
		}
		return map[string]any{"M": m}
	default:
		return map[string]any{"?": reflect.TypeOf(av).String()}
	}
}

func (c *canonizer) set(s []string) []any {
	if s == nil {
		return nil
	}
	s = append([]string(nil), s...)
	if c.unordered {
		sort.Strings(s)
	}
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

// errorOf returns the canonical form of an error returned by an API call:
// its code, its message and, for the exceptions that carry them, the item
// and the cancellation reasons. ok is false when err is not an API error
// (a transport failure, a canceled context): a failure of the harness, not
// an answer to compare.
func (c *canonizer) errorOf(err error) (m map[string]any, ok bool) {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return nil, false
	}
	m = map[string]any{"error": ae.ErrorCode(), "message": c.str(ae.ErrorMessage())}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && ccf.Item != nil {
		m["Item"] = c.of(ccf.Item)
	}
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) && tc.CancellationReasons != nil {
		m["CancellationReasons"] = c.of(tc.CancellationReasons)
	}
	return m, true
}

// toJSON renders a canonical tree.
func toJSON(x any) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return "<" + err.Error() + ">"
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

func sortByJSON(s []any) {
	keys := make(map[int]string, len(s))
	idx := make([]int, len(s))
	for i := range s {
		idx[i] = i
		keys[i] = toJSON(s[i])
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	out := make([]any, len(s))
	for i, j := range idx {
		out[i] = s[j]
	}
	copy(s, out)
}

// sortByTable sorts canonical ConsumedCapacity values by table name, so
// that a difference in units shows as such.
func sortByTable(s []any) {
	name := func(x any) string {
		m, _ := x.(map[string]any)
		n, _ := m["TableName"].(string)
		return n
	}
	sort.SliceStable(s, func(i, j int) bool { return name(s[i]) < name(s[j]) })
}

// Render returns the JSON form of an SDK input or output, attribute values
// in DynamoDB JSON, for reports.
func Render(v any) string {
	c := &canonizer{}
	return toJSON(c.of(v))
}
