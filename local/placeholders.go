package local

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/expr"
)

// maxPlaceholder is the longest placeholder DynamoDB accepts, # or :
// included.
const maxPlaceholder = 255

// newCompiler returns expr.NewCompiler(names, values) after checking the
// length of the placeholders. (Shim: expr.Compiler.Check is meant to make
// this check with the others on the maps; until it does, the engine makes
// it here, before any expression is compiled.)
func newCompiler(names map[string]string, values map[string]types.AttributeValue) (*expr.Compiler, error) {
	if len(names) > 0 || len(values) > 0 {
		for k := range names {
			if len(k) > maxPlaceholder {
				return nil, validationf("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: %d", len(k))
			}
		}
		for k := range values {
			if len(k) > maxPlaceholder {
				// DynamoDB Local gives no size for values.
				return nil, validationError("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
			}
		}
	}
	return expr.NewCompiler(names, values), nil
}
