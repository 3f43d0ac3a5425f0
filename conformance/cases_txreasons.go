package conformance

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cancellation reasons of TransactWriteItems by kind of failure, and their
// order and count when kinds mix: one reason per operation, in request
// order, "None" for the operations that did not fail. Two kinds DynamoDB
// documents cannot be produced on purpose: TransactionConflict (the engine
// runs conflicting transactions one after the other) and
// ItemCollectionSizeLimitExceeded (10 GB item collections); docs/compat.md
// says so.

func init() {
	const typeMismatch = "One or more parameter values were invalid: Type mismatch for key"
	register(
		Case{"TransactWriteItems/ReasonsConditionThenValidation", func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(
				txCheck(tbl, txKey("a"), "attribute_not_exists(pk)", nil),
				txDelete(tbl, Item{"pk": N("1")}),
				txPut(tbl, txItem("e", "1")),
			)
			h.WantTxCanceled(err,
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck},
				txReason{code: "ValidationError", msg: typeMismatch},
				txReason{code: "None"},
			)
			h.wantTable(tbl, txItem("a", "1"), txItem("b", "1"), txItem("c", "1"), txItem("d", "1"))
		}},
		Case{"TransactWriteItems/ReasonsValidationThenCondition", func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(
				txPut(tbl, txItem("e", "1")),
				txDelete(tbl, Item{"pk": N("1")}),
				txCond(txUpdate(tbl, txKey("b"), "SET w = :w", Item{":w": N("1")}), "attribute_not_exists(pk)"),
			)
			h.WantTxCanceled(err,
				txReason{code: "None"},
				txReason{code: "ValidationError", msg: typeMismatch},
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite},
			)
			h.WantItem(h.Get(tbl, txKey("e")), nil)
		}},
		Case{"TransactWriteItems/ReasonIndexKeyType", func(t *testing.T, h *H) {
			tbl := txIndexFixture(h)
			err := h.txWrite(
				txCheck(tbl, txKey("a"), "attribute_not_exists(pk)", nil),
				txPut(tbl, Item{"pk": S("e"), "g": N("1")}),
			)
			h.WantTxCanceled(err,
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck},
				txReason{code: "ValidationError", msg: "One or more parameter values were invalid: Type mismatch for Index Key"},
			)
		}},
		Case{"TransactWriteItems/ReasonsAllOldOfMissingAndPresentItems", func(t *testing.T, h *H) {
			tbl := txFixture(h)
			put := txCond(txPut(tbl, txItem("zz", "1")), "attribute_exists(pk)")
			put.Put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
			check := txCheck(tbl, txKey("a"), "attribute_not_exists(pk)", nil)
			check.ConditionCheck.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
			upd := txCond(txUpdate(tbl, txKey("b"), "SET w = :w", Item{":w": N("1")}), "attribute_not_exists(pk)")
			err := h.txWrite(put, check, upd, txDelete(tbl, txKey("c")))
			h.WantTxCanceled(err,
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite}, // nothing to return
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck, item: txItem("a", "1")},
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite}, // ALL_OLD not asked
				txReason{code: "None"},
			)
			h.wantTable(tbl, txItem("a", "1"), txItem("b", "1"), txItem("c", "1"), txItem("d", "1"))
		}},
		// An operand of the wrong type, known from the request alone,
		// fails the whole request rather than giving a reason.
		Case{"TransactWriteItems/UpdateOperandTypeIsNotAReason", func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(
				txCheck(tbl, txKey("a"), "attribute_not_exists(pk)", nil),
				txUpdate(tbl, txKey("b"), "ADD v :s", Item{":s": S("x")}),
			)
			h.WantError(err, "ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND")
		}},
		Case{"TransactGetItems/SucceedsWithoutReasons", func(t *testing.T, h *H) {
			tbl := txFixture(h)
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				txGet(tbl, txKey("a")), {Get: &types.Get{TableName: aws.String(tbl), Key: txKey("zz")}},
			}})
			h.Must(err)
			if len(out.Responses) != 2 || out.Responses[1].Item != nil {
				t.Fatalf("responses %v, want the item and an empty response", out.Responses)
			}
		}},
	)
}
