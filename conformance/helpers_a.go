package conformance

import (
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/apd/v3"
)

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

// WantItemNumeric is WantItem with numbers compared by value rather than by
// their text, for results of UpdateItem arithmetic: DynamoDB Local keeps the
// scale of decimal results ("3.00" for 1.50 + 1.50) where DynamoDB returns
// the canonical form ("3").
func (h *H) WantItemNumeric(got, want Item) {
	h.t.Helper()
	wantItem(h.t, canonItem(got), canonItem(want))
}

func canonItem(it Item) Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = canonValue(v)
	}
	return out
}

func canonValue(av types.AttributeValue) types.AttributeValue {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		return N(canonNumber(v.Value))
	case *types.AttributeValueMemberNS:
		ns := make([]string, len(v.Value))
		for i, s := range v.Value {
			ns[i] = canonNumber(s)
		}
		return NS(ns...)
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = canonValue(e)
		}
		return L(l...)
	case *types.AttributeValueMemberM:
		return M(canonItem(v.Value))
	}
	return av
}

// canonNumber returns the canonical text of a DynamoDB number: no exponent,
// no leading or trailing zeros, "0" for zero. Unparsable text is returned
// unchanged.
func canonNumber(s string) string {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return s
	}
	d.Reduce(d)
	if d.IsZero() {
		return "0"
	}
	return d.Text('f')
}

// WaitIndexGone waits until the table no longer lists the global secondary
// index, failing the case after 30 seconds.
func (h *H) WaitIndexGone(table, index string) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			h.t.Fatalf("DescribeTable %s: %v", table, err)
		}
		found := false
		for _, g := range out.Table.GlobalSecondaryIndexes {
			found = found || aws.ToString(g.IndexName) == index
		}
		if !found {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("index %s of %s still present after 30s", index, table)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Describe returns the description of table, failing the case on error.
func (h *H) Describe(table string) *types.TableDescription {
	h.t.Helper()
	out, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		h.t.Fatalf("DescribeTable %s: %v", table, err)
	}
	return out.Table
}

// WantCapacity fails the case unless cc reports total capacity units for
// table (ReturnConsumedCapacity TOTAL or INDEXES).
func (h *H) WantCapacity(cc *types.ConsumedCapacity, table string, total float64) {
	h.t.Helper()
	if cc == nil {
		h.t.Fatalf("ConsumedCapacity is nil, want %v units", total)
	}
	if got := aws.ToString(cc.TableName); got != table {
		h.t.Fatalf("ConsumedCapacity.TableName = %q, want %q", got, table)
	}
	if got := aws.ToFloat64(cc.CapacityUnits); got != total {
		h.t.Fatalf("ConsumedCapacity.CapacityUnits = %v, want %v", got, total)
	}
}

// Str returns a string of n copies of "x".
func Str(n int) string { return strings.Repeat("x", n) }

// sleepShort pauses between polls of a backend.
func sleepShort() { time.Sleep(50 * time.Millisecond) }
