package conformance

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Condition and update expressions evaluated through PutItem and
// UpdateItem.

// Names is a set of ExpressionAttributeNames.
type Names = map[string]string

// CondHolds reports whether the condition expression holds on the stored
// item, which must be exactly item: it writes item again with expr as its
// ConditionExpression, which leaves the table unchanged either way. A
// ConditionalCheckFailedException means false; any other error is returned.
func (h *H) CondHolds(table string, item Item, expr string, names Names, values Item) (bool, error) {
	h.t.Helper()
	in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: item, ConditionExpression: aws.String(expr)}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	_, err := h.API.PutItem(h.Ctx, in)
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ccf):
		return false, nil
	}
	return false, err
}

// WantCond fails the case unless the condition expression evaluates to want
// on item (see CondHolds).
func (h *H) WantCond(table string, item Item, expr string, names Names, values Item, want bool) {
	h.t.Helper()
	got, err := h.CondHolds(table, item, expr, names, values)
	if err != nil {
		h.t.Fatalf("condition %q: %v", expr, err)
	}
	if got != want {
		h.t.Fatalf("condition %q = %v, want %v", expr, got, want)
	}
}

// WantCondError fails the case unless the condition expression is rejected
// with a ValidationException with message msg (see WantError).
func (h *H) WantCondError(table string, item Item, expr string, names Names, values Item, msg string) {
	h.t.Helper()
	_, err := h.CondHolds(table, item, expr, names, values)
	h.WantError(err, "ValidationException", msg)
}

// UpdateErr runs an UpdateItem with expr on key and returns its output and
// error; names and values are left out when empty.
func (h *H) UpdateErr(table string, key Item, expr string, names Names, values Item, rv types.ReturnValue) (*dynamodb.UpdateItemOutput, error) {
	h.t.Helper()
	in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, ReturnValues: rv}
	if expr != "" {
		in.UpdateExpression = aws.String(expr)
	}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	return h.API.UpdateItem(h.Ctx, in)
}

// Update runs an UpdateItem with expr on key, fails the case on error and
// returns the item as it is afterwards (ReturnValues ALL_NEW).
func (h *H) Update(table string, key Item, expr string, names Names, values Item) Item {
	h.t.Helper()
	out, err := h.UpdateErr(table, key, expr, names, values, types.ReturnValueAllNew)
	if err != nil {
		h.t.Fatalf("UpdateItem %q: %v", expr, err)
	}
	return out.Attributes
}

// WantUpdateError fails the case unless the update expression is rejected
// with a ValidationException with message msg.
func (h *H) WantUpdateError(table string, key Item, expr string, names Names, values Item, msg string) {
	h.t.Helper()
	_, err := h.UpdateErr(table, key, expr, names, values, types.ReturnValueNone)
	h.WantError(err, "ValidationException", msg)
}
