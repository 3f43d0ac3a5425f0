package expr

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

func sortFunc(s []string, less func(a, b string) bool) {
	slices.SortFunc(s, func(a, b string) int {
		if less(a, b) {
			return -1
		}
		if less(b, a) {
			return 1
		}
		return 0
	})
}

// ValidateValue checks an attribute value as DynamoDB checks the values of
// ExpressionAttributeValues and returns DynamoDB's description of the first
// problem, or "" when v is valid: no null (nil) or empty value, NULL only
// true, numbers within DynamoDB's range and precision, sets non-empty and
// without duplicates, recursively in lists and maps.
func ValidateValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberB, *types.AttributeValueMemberBOOL:
		return ""
	case *types.AttributeValueMemberN:
		return numberProblem(v.Value)
	case *types.AttributeValueMemberNULL:
		if !v.Value {
			return "One or more parameter values were invalid: Null attribute value types must have the value of true"
		}
		return ""
	case *types.AttributeValueMemberSS:
		if len(v.Value) == 0 {
			return "One or more parameter values were invalid: An string set  may not be empty"
		}
		if hasDuplicates(v.Value) {
			return "One or more parameter values were invalid: Input collection [" + strings.Join(v.Value, ", ") + "] contains duplicates"
		}
		return ""
	case *types.AttributeValueMemberNS:
		if len(v.Value) == 0 {
			return "One or more parameter values were invalid: An number set  may not be empty"
		}
		for i, s := range v.Value {
			if p := numberProblem(s); p != "" {
				return p
			}
			if value.HasNumber(v.Value[:i], s) {
				return "Input collection contains duplicates"
			}
		}
		return ""
	case *types.AttributeValueMemberBS:
		if len(v.Value) == 0 {
			return "One or more parameter values were invalid: Binary sets should not be empty"
		}
		if hasDuplicates(v.Value) {
			return "One or more parameter values were invalid: Input collection of type BS contains duplicates."
		}
		return ""
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if p := ValidateValue(e); p != "" {
				return p
			}
		}
		return ""
	case *types.AttributeValueMemberM:
		for _, k := range javaOrder(keysOf(v.Value), len(v.Value)) {
			if v.Value[k] == nil {
				return "The supplied Item contains a null AttributeValue: " + k + " is null"
			}
			if p := ValidateValue(v.Value[k]); p != "" {
				return p
			}
		}
		return ""
	}
	if v == nil {
		// JSON null, or a nil interface.
		return "The supplied Item contains a null AttributeValue"
	}
	return "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
}

func numberProblem(s string) string {
	_, problem := value.CheckNumber(s)
	return problem
}

// hasDuplicates reports whether a string or binary set holds an element
// twice.
func hasDuplicates[T string | []byte](set []T) bool {
	seen := make(map[string]bool, len(set))
	for _, e := range set {
		if seen[string(e)] {
			return true
		}
		seen[string(e)] = true
	}
	return false
}
