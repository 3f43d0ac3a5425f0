package conformance

import (
	"errors"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Transactions: the operations of TransactWriteItems and TransactGetItems,
// and what a canceled transaction must report.

func txPut(tbl string, it Item) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tbl), Item: it}}
}

func txUpdate(tbl string, key Item, expr string, values Item) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(tbl), Key: key, UpdateExpression: aws.String(expr), ExpressionAttributeValues: values}}
}

func txDelete(tbl string, key Item) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(tbl), Key: key}}
}

func txCheck(tbl string, key Item, cond string, values Item) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tbl), Key: key, ConditionExpression: aws.String(cond), ExpressionAttributeValues: values}}
}

// txCond returns the Put, Update or Delete op with the condition
// expression cond.
func txCond(op types.TransactWriteItem, cond string) types.TransactWriteItem {
	switch {
	case op.Put != nil:
		op.Put.ConditionExpression = aws.String(cond)
	case op.Update != nil:
		op.Update.ConditionExpression = aws.String(cond)
	case op.Delete != nil:
		op.Delete.ConditionExpression = aws.String(cond)
	default:
		panic("conformance: txCond of an operation that is not a Put, Update or Delete")
	}
	return op
}

func txGet(tbl string, key Item) types.TransactGetItem {
	return types.TransactGetItem{Get: &types.Get{TableName: aws.String(tbl), Key: key}}
}

// txWrite runs TransactWriteItems with items and returns its error.
func (h *H) txWrite(items ...types.TransactWriteItem) error {
	_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// txReason is an expected cancellation reason of a transaction: its code
// ("None" for operations that did not fail), message and item (for
// ReturnValuesOnConditionCheckFailure ALL_OLD).
type txReason struct {
	code, msg string
	item      Item
}

// WantTxCanceled fails the case unless err is a *types.TransactionCanceledException
// with DynamoDB's message and exactly the reasons want, in order.
func (h *H) WantTxCanceled(err error, want ...txReason) {
	h.t.Helper()
	codes := make([]string, len(want))
	for i, r := range want {
		codes[i] = r.code
	}
	h.WantError(err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]")
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		h.t.Fatalf("error %T is not a *types.TransactionCanceledException", err)
	}
	if len(tce.CancellationReasons) != len(want) {
		h.t.Fatalf("%d cancellation reasons, want %d", len(tce.CancellationReasons), len(want))
	}
	for i, r := range tce.CancellationReasons {
		if got := aws.ToString(r.Code); got != want[i].code {
			h.t.Fatalf("reason %d: code %q, want %q", i, got, want[i].code)
		}
		if got := aws.ToString(r.Message); got != want[i].msg {
			h.t.Fatalf("reason %d: message %q, want %q", i, got, want[i].msg)
		}
		if (r.Item == nil) != (want[i].item == nil) || FormatItem(r.Item) != FormatItem(want[i].item) {
			h.t.Fatalf("reason %d: item %s, want %s", i, FormatItem(r.Item), FormatItem(want[i].item))
		}
	}
}

// WantCancelCodes fails the case unless err is a
// TransactionCanceledException with these reason codes, in order; unlike
// WantTxCanceled it does not look at the messages.
func (h *H) WantCancelCodes(err error, codes ...string) {
	h.t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		h.t.Fatalf("got %v, want TransactionCanceledException %v", err, codes)
	}
	var got []string
	for _, r := range tce.CancellationReasons {
		got = append(got, aws.ToString(r.Code))
	}
	if !slices.Equal(got, codes) {
		h.t.Fatalf("cancellation reasons %v, want %v", got, codes)
	}
}
