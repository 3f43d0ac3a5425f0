package expr

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// RangeOp is the condition a key condition puts on the range key.
type RangeOp int

// Range key conditions.
const (
	None       RangeOp = iota // no condition on the range key
	EQ                        // sk = v
	LT                        // sk < v
	LE                        // sk <= v
	GT                        // sk > v
	GE                        // sk >= v
	Between                   // sk BETWEEN v0 AND v1
	BeginsWith                // begins_with(sk, v)
)

// KeyCondition is a compiled KeyConditionExpression, not yet checked against
// a key schema.
type KeyCondition struct{}

// KeyRange is a key condition resolved against a key schema: the partition
// key's value and the condition on the sort key. Values holds one value for
// EQ, LT, LE, GT, GE and BeginsWith, two for Between and none for None.
type KeyRange struct {
	HashValue types.AttributeValue
	Op        RangeOp
	Values    []types.AttributeValue
}

// KeyCondition compiles a KeyConditionExpression.
func (c *Compiler) KeyCondition(s string) (*KeyCondition, error) {
	return nil, errorf("expr: not implemented")
}

// Resolve checks the key condition against the key schema of the table or
// index queried (rangeKey is "" when it has none) and returns the range to
// read.
func (k *KeyCondition) Resolve(hashKey, rangeKey string) (*KeyRange, error) {
	return nil, errorf("expr: not implemented")
}
