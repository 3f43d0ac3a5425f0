package local

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/codec"
	"github.com/timetable-db/timetable/local/internal/expr"
	"github.com/timetable-db/timetable/local/internal/value"
)

// Item is a DynamoDB item.
type Item = map[string]types.AttributeValue

const (
	maxItemSize = 400 * 1024
	maxHashKey  = 2048
	maxRangeKey = 1024
	maxDepth    = 32
)

// checkNumber validates a number and returns its canonical form.
func checkNumber(s string) (string, error) {
	c, problem := value.CheckNumber(s)
	if problem != "" {
		return "", validationError(problem)
	}
	return c, nil
}

// checkName refuses an attribute name (or a map's key) DynamoDB refuses:
// empty, or longer than expr.MaxNameBytes. The second message is the
// service's; DynamoDB Local fails with an internal error.
func checkName(name string) error {
	switch {
	case name == "":
		return validationError("Empty attribute name")
	case len(name) > expr.MaxNameBytes:
		return validationError(fmt.Sprintf("1 validation error detected: Attribute name is too large, must be less than %d bytes", expr.MaxNameBytes+1))
	}
	return nil
}

// normalizeItem validates every value of an item supplied by a client and
// returns it with numbers in canonical form. The result shares unchanged
// values with item; item itself is never modified.
func normalizeItem(item Item) (Item, error) {
	var out Item
	for name, v := range item {
		if err := checkName(name); err != nil {
			return nil, err
		}
		nv, err := normalizeValue(v, 1)
		if err != nil {
			// DynamoDB finds null values (JSON null, a nil interface)
			// before anything else.
			if nerr := nullAttr(item); nerr != nil {
				return nil, nerr
			}
			return nil, err
		}
		if nv != v {
			if out == nil {
				out = make(Item, len(item))
				for k, x := range item {
					out[k] = x
				}
			}
			out[name] = nv
		}
	}
	if out == nil {
		return item, nil
	}
	return out, nil
}

// normalizeValue validates av; it returns av itself when it is already
// canonical, otherwise a new value.
func normalizeValue(av types.AttributeValue, depth int) (types.AttributeValue, error) {
	if depth > maxDepth {
		return nil, validationError("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")
	}
	switch v := av.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberB, *types.AttributeValueMemberBOOL:
		return av, nil
	case *types.AttributeValueMemberNULL:
		if !v.Value {
			return nil, validationError("One or more parameter values were invalid: Null attribute value types must have the value of true")
		}
		return av, nil
	case *types.AttributeValueMemberN:
		c, err := checkNumber(v.Value)
		if err != nil {
			return nil, err
		}
		if c == v.Value {
			return av, nil
		}
		return &types.AttributeValueMemberN{Value: c}, nil
	case *types.AttributeValueMemberSS:
		if len(v.Value) == 0 {
			return nil, validationError("One or more parameter values were invalid: An string set  may not be empty")
		}
		if hasDup(v.Value) {
			return nil, validationf("One or more parameter values were invalid: Input collection [%s] contains duplicates", strings.Join(v.Value, ", "))
		}
		return av, nil
	case *types.AttributeValueMemberNS:
		if len(v.Value) == 0 {
			return nil, validationError("One or more parameter values were invalid: An number set  may not be empty")
		}
		var ns []string
		for i, s := range v.Value {
			c, err := checkNumber(s)
			if err != nil {
				return nil, err
			}
			if c != s && ns == nil {
				ns = slices.Clone(v.Value[:i])
			}
			if ns != nil {
				ns = append(ns, c)
			}
		}
		canon := v.Value
		if ns != nil {
			canon = ns
		}
		if hasDup(canon) {
			return nil, validationError("Input collection contains duplicates")
		}
		if ns == nil {
			return av, nil
		}
		return &types.AttributeValueMemberNS{Value: ns}, nil
	case *types.AttributeValueMemberBS:
		if len(v.Value) == 0 {
			return nil, validationError("One or more parameter values were invalid: Binary sets should not be empty")
		}
		for i := range v.Value {
			for j := i + 1; j < len(v.Value); j++ {
				if bytes.Equal(v.Value[i], v.Value[j]) {
					return nil, validationError("One or more parameter values were invalid: Input collection of type BS contains duplicates.")
				}
			}
		}
		return av, nil
	case *types.AttributeValueMemberL:
		var nl []types.AttributeValue
		for i, e := range v.Value {
			ne, err := normalizeValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			if ne != e && nl == nil {
				nl = slices.Clone(v.Value)
			}
			if nl != nil {
				nl[i] = ne
			}
		}
		if nl == nil {
			return av, nil
		}
		return &types.AttributeValueMemberL{Value: nl}, nil
	case *types.AttributeValueMemberM:
		var nm map[string]types.AttributeValue
		for k, e := range v.Value {
			if err := checkName(k); err != nil {
				return nil, err
			}
			ne, err := normalizeValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			if ne != e {
				if nm == nil {
					nm = make(map[string]types.AttributeValue, len(v.Value))
					for k2, e2 := range v.Value {
						nm[k2] = e2
					}
				}
				nm[k] = ne
			}
		}
		if nm == nil {
			return av, nil
		}
		return &types.AttributeValueMemberM{Value: nm}, nil
	case nil:
		return nil, validationError(msgNullValue)
	default:
		return nil, validationError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	}
}

// msgNullValue is DynamoDB's message for a null attribute value (JSON
// null, or a nil interface in the Go API) inside a list.
const msgNullValue = "The supplied Item contains a null AttributeValue"

// nullAttr returns DynamoDB's error for the first null attribute value in
// item, at any depth, or nil: the name of the attribute, or of the map key,
// that holds it, except inside a list. Attributes are visited in name order
// (DynamoDB follows the request's, which a Go map does not keep).
func nullAttr(item Item) error {
	for _, name := range sortedKeys(item) {
		if err := nullIn(name, item[name], 1); err != nil {
			return err
		}
	}
	return nil
}

func nullIn(name string, av types.AttributeValue, depth int) error {
	if depth > maxDepth {
		return nil
	}
	switch v := av.(type) {
	case nil:
		if name == "" {
			return validationError(msgNullValue)
		}
		return validationf("%s: %s is null", msgNullValue, name)
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if err := nullIn("", e, depth+1); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberM:
		for _, k := range sortedKeys(v.Value) {
			if err := nullIn(k, v.Value[k], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func hasDup(s []string) bool {
	if len(s) < 2 {
		return false
	}
	if len(s) < 16 {
		for i := range s {
			for j := i + 1; j < len(s); j++ {
				if s[i] == s[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(s))
	for _, x := range s {
		if _, ok := seen[x]; ok {
			return true
		}
		seen[x] = struct{}{}
	}
	return false
}

// keyBytesLen is the length DynamoDB checks against the key size limits.
func keyBytesLen(av types.AttributeValue) int {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return codec.NumberSize(v.Value)
	}
	return 0
}

func isEmptyKeyValue(av types.AttributeValue) (string, bool) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return "string", v.Value == ""
	case *types.AttributeValueMemberB:
		return "binary", len(v.Value) == 0
	}
	return "", false
}

// copyItem returns a shallow copy of item.
func copyItem(item Item) Item {
	if item == nil {
		return nil
	}
	c := make(Item, len(item))
	for k, v := range item {
		c[k] = v
	}
	return c
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
