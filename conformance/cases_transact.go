package conformance

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TransactWriteItems and TransactGetItems: all-or-nothing writes,
// cancellation reasons, idempotency tokens, limits, and ordered reads.

// txFixture creates a hash table holding items "a".."d" with v = 1.
func txFixture(h *H) string {
	h.t.Helper()
	return txItemsIn(h, h.HashTable())
}

// txIndexFixture creates txFixture's table with a global index "by_g" on g
// (S) and returns it.
func txIndexFixture(h *H) string {
	h.t.Helper()
	return txItemsIn(h, h.HashTableByG())
}

// txItemsIn puts items "a".."d" with v = 1 into tbl and returns it.
func txItemsIn(h *H, tbl string) string {
	h.t.Helper()
	for _, k := range []string{"a", "b", "c", "d"} {
		h.Put(tbl, txItem(k, "1"))
	}
	return tbl
}

func txItem(k, v string) Item { return Item{"pk": S(k), "v": N(v)} }
func txKey(k string) Item     { return Item{"pk": S(k)} }

// wantTable fails the case unless a scan of tbl finds exactly want.
func (h *H) wantTable(tbl string, want ...Item) {
	h.t.Helper()
	in := scanIn(tbl)
	in.ConsistentRead = aws.Bool(true)
	h.WantItemSet(h.ScanAll(in), want)
}

// failingOps are one failing operation of each kind on txFixture's items,
// each with condition v = 2, with rv as ReturnValuesOnConditionCheckFailure.
func failingOps(tbl string, rv types.ReturnValuesOnConditionCheckFailure) []types.TransactWriteItem {
	cond, vals := aws.String("v = :two"), Item{":two": N("2")}
	return []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(tbl), Item: txItem("a", "5"), ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv}},
		{Update: &types.Update{TableName: aws.String(tbl), Key: txKey("b"), UpdateExpression: aws.String("SET w = :two"), ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv}},
		{Delete: &types.Delete{TableName: aws.String(tbl), Key: txKey("c"), ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tbl), Key: txKey("d"), ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(tbl), Key: txKey("zz"), ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv}},
	}
}

// DynamoDB Local ends a ConditionCheck's failure message with a period and
// the other operations' without.
const (
	ccfWrite = "The conditional request failed"
	ccfCheck = "The conditional request failed."
)

func txError(name string, items func(tbl string) []types.TransactWriteItem, code, msg string) Case {
	return Case{Name: "TransactWriteItems/" + name, Run: func(t *testing.T, h *H) {
		tbl := txFixture(h)
		err := h.txWrite(items(tbl)...)
		h.WantError(err, code, msg)
		h.wantTable(tbl, txItem("a", "1"), txItem("b", "1"), txItem("c", "1"), txItem("d", "1"))
	}}
}

func init() {
	register(
		Case{Name: "TransactWriteItems/AllOperationsApply", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(
				txPut(tbl, txItem("new", "7")),
				txUpdate(tbl, txKey("a"), "SET w = :w ADD v :one", Item{":w": S("x"), ":one": N("1")}),
				txDelete(tbl, txKey("b")),
				txCheck(tbl, txKey("c"), "v = :one", Item{":one": N("1")}),
			)
			h.Must(err)
			h.wantTable(tbl, txItem("new", "7"), Item{"pk": S("a"), "v": N("2"), "w": S("x")}, txItem("c", "1"), txItem("d", "1"))
		}},
		Case{Name: "TransactWriteItems/MultipleTables", Run: func(t *testing.T, h *H) {
			t1, t2 := txFixture(h), txFixture(h)
			h.Must(h.txWrite(txDelete(t1, txKey("a")), txPut(t2, txItem("a", "9")), txCheck(t1, txKey("b"), "attribute_exists(v)", nil)))
			h.wantTable(t1, txItem("b", "1"), txItem("c", "1"), txItem("d", "1"))
			h.wantTable(t2, txItem("a", "9"), txItem("b", "1"), txItem("c", "1"), txItem("d", "1"))
		}},
		Case{Name: "TransactWriteItems/SameKeyInOtherTables", Run: func(t *testing.T, h *H) {
			t1, t2 := txFixture(h), txFixture(h)
			h.Must(h.txWrite(txUpdate(t1, txKey("a"), "SET v = :v", Item{":v": N("3")}), txUpdate(t2, txKey("a"), "SET v = :v", Item{":v": N("4")})))
			h.WantItem(h.Get(t1, txKey("a")), txItem("a", "3"))
			h.WantItem(h.Get(t2, txKey("a")), txItem("a", "4"))
		}},
		Case{Name: "TransactWriteItems/UpdateCreatesItem", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			h.Must(h.txWrite(txUpdate(tbl, txKey("e"), "ADD v :n", Item{":n": N("5")})))
			h.WantItem(h.Get(tbl, txKey("e")), txItem("e", "5"))
		}},
		Case{Name: "TransactWriteItems/DeleteMissingItem", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			h.Must(h.txWrite(txDelete(tbl, txKey("zz")), txPut(tbl, txItem("e", "1"))))
			h.WantItem(h.Get(tbl, txKey("e")), txItem("e", "1"))
		}},
		Case{Name: "TransactWriteItems/ConditionOnMissingItem", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			put := txPut(tbl, txItem("e", "1"))
			put.Put.ConditionExpression = aws.String("attribute_not_exists(pk)")
			h.Must(h.txWrite(put, txCheck(tbl, txKey("zz"), "attribute_not_exists(v)", nil)))
			h.WantItem(h.Get(tbl, txKey("e")), txItem("e", "1"))
		}},
		Case{Name: "TransactWriteItems/ConditionFailureCancelsAll", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(
				txPut(tbl, txItem("new", "7")),
				txUpdate(tbl, txKey("a"), "SET v = :v", Item{":v": N("9")}),
				txDelete(tbl, txKey("b")),
				txCheck(tbl, txKey("c"), "v > :one", Item{":one": N("1")}),
			)
			h.WantTxCanceled(err, txReason{code: "None"}, txReason{code: "None"}, txReason{code: "None"}, txReason{code: "ConditionalCheckFailed", msg: ccfCheck})
			h.wantTable(tbl, txItem("a", "1"), txItem("b", "1"), txItem("c", "1"), txItem("d", "1"))
		}},
		Case{Name: "TransactWriteItems/ConditionOnPutFails", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			put := txPut(tbl, txItem("a", "5"))
			put.Put.ConditionExpression = aws.String("attribute_not_exists(pk)")
			err := h.txWrite(txDelete(tbl, txKey("b")), put)
			h.WantTxCanceled(err, txReason{code: "None"}, txReason{code: "ConditionalCheckFailed", msg: ccfWrite})
			h.WantItem(h.Get(tbl, txKey("b")), txItem("b", "1"))
		}},
		Case{Name: "TransactWriteItems/ReasonsPerOperation", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(failingOps(tbl, "")...)
			h.WantTxCanceled(err,
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite},
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite},
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite},
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck},
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck},
			)
		}},
		Case{Name: "TransactWriteItems/ReturnValuesOnConditionCheckFailureAllOld", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(failingOps(tbl, types.ReturnValuesOnConditionCheckFailureAllOld)...)
			h.WantTxCanceled(err,
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite, item: txItem("a", "1")},
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite, item: txItem("b", "1")},
				txReason{code: "ConditionalCheckFailed", msg: ccfWrite, item: txItem("c", "1")},
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck, item: txItem("d", "1")},
				txReason{code: "ConditionalCheckFailed", msg: ccfCheck}, // no item to return
			)
		}},
		Case{Name: "TransactWriteItems/ReturnValuesOnConditionCheckFailureNone", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			ops := failingOps(tbl, types.ReturnValuesOnConditionCheckFailureNone)
			err := h.txWrite(txPut(tbl, txItem("e", "1")), ops[1])
			h.WantTxCanceled(err, txReason{code: "None"}, txReason{code: "ConditionalCheckFailed", msg: ccfWrite})
			h.WantItem(h.Get(tbl, txKey("e")), nil)
		}},
		Case{Name: "TransactWriteItems/UpdateKeyAttributeCancels", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			// DynamoDB Local lists only the failing operation's reason here.
			err := h.txWrite(txPut(tbl, txItem("e", "1")), txUpdate(tbl, txKey("a"), "SET pk = :k", Item{":k": S("q")}))
			h.WantTxCanceled(err, txReason{code: "ValidationError", msg: "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"})
			h.WantItem(h.Get(tbl, txKey("e")), nil)
		}},
		Case{Name: "TransactWriteItems/MaintainsIndexes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			h.Must(h.txWrite(
				txPut(tbl, Item{"pk": S("n"), "sk": S("s"), "g": S("H"), "gn": N("0")}),
				txUpdate(tbl, ixKey(4), "SET g = :g", Item{":g": S("G")}),
			))
			out := h.MustQuery(gQuery(tbl, "keys", "H"))
			h.WantItems(out.Items, []Item{{"pk": S("n"), "sk": S("s"), "g": S("H"), "gn": N("0")}})
			out = h.MustQuery(gQuery(tbl, "keys", "G"))
			h.WantValues(out.Items, "gn", N("-1.5"), N("0"), N("1"), N("2.5"), N("10"))
		}},
		Case{Name: "TransactWriteItems/HundredItems", Run: func(t *testing.T, h *H) {
			tbl := h.HashTable()
			var ops []types.TransactWriteItem
			for _, k := range seq("k", 100) {
				ops = append(ops, txPut(tbl, txItem(k, "1")))
			}
			h.Must(h.txWrite(ops...))
			in := scanIn(tbl)
			in.Select = types.SelectCount
			if out := h.MustScan(in); out.Count != 100 {
				t.Fatalf("Count = %d, want 100", out.Count)
			}
		}},
		Case{Name: "TransactWriteItems/ClientRequestTokenReplay", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			in := &dynamodb.TransactWriteItemsInput{
				ClientRequestToken: aws.String("token-" + tbl),
				TransactItems:      []types.TransactWriteItem{txUpdate(tbl, txKey("a"), "ADD v :one", Item{":one": N("1")})},
			}
			for range 3 {
				_, err := h.API.TransactWriteItems(h.Ctx, in)
				h.Must(err)
			}
			// Applied once.
			h.WantItem(h.Get(tbl, txKey("a")), txItem("a", "2"))
		}},
		Case{Name: "TransactWriteItems/ClientRequestTokenMismatch", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			token := aws.String("token-" + tbl)
			_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{
				ClientRequestToken: token,
				TransactItems:      []types.TransactWriteItem{txUpdate(tbl, txKey("a"), "ADD v :n", Item{":n": N("1")})},
			})
			h.Must(err)
			_, err = h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{
				ClientRequestToken: token,
				TransactItems:      []types.TransactWriteItem{txUpdate(tbl, txKey("a"), "ADD v :n", Item{":n": N("2")})},
			})
			h.WantError(err, "IdempotentParameterMismatchException", "")
			h.WantItem(h.Get(tbl, txKey("a")), txItem("a", "2"))
		}},
		Case{Name: "TransactWriteItems/ClientRequestTokenOtherTokens", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			for i := range 2 {
				_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{
					ClientRequestToken: aws.String("token-" + strconv.Itoa(i) + "-" + tbl),
					TransactItems:      []types.TransactWriteItem{txUpdate(tbl, txKey("a"), "ADD v :n", Item{":n": N("1")})},
				})
				h.Must(err)
			}
			h.WantItem(h.Get(tbl, txKey("a")), txItem("a", "3"))
		}},
		Case{Name: "TransactWriteItems/MissingTable", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(txDelete(tbl, txKey("a")), txPut(h.TableName(), txItem("a", "1")))
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
			h.WantItem(h.Get(tbl, txKey("a")), txItem("a", "1"))
		}},
		txError("SameItemTwiceError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("a", "5")), txUpdate(tbl, txKey("a"), "SET w = :w", Item{":w": N("1")})}
		}, "ValidationException", "Transaction request cannot include multiple operations on one item"),
		txError("ConditionCheckAndWriteSameItemError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txCheck(tbl, txKey("b"), "attribute_exists(pk)", nil), txDelete(tbl, txKey("b"))}
		}, "ValidationException", "Transaction request cannot include multiple operations on one item"),
		txError("TooManyItemsError", func(tbl string) []types.TransactWriteItem {
			var ops []types.TransactWriteItem
			for _, k := range seq("k", 101) {
				ops = append(ops, txPut(tbl, txItem(k, "1")))
			}
			return ops
		}, "ValidationException", "Member must have length less than or equal to 100"),
		txError("EmptyError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{}
		}, "ValidationException", "Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"),
		txError("NoOperationError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), {}}
		}, "ValidationException", "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"),
		txError("PutMissingKeyError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txPut(tbl, Item{"v": N("1")})}
		}, "ValidationException", "One of the required keys was not given a value"),
		Case{Name: "TransactWriteItems/KeyTypeMismatchCancels", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			err := h.txWrite(txPut(tbl, txItem("e", "1")), txDelete(tbl, Item{"pk": N("1")}))
			h.WantTxCanceled(err, txReason{code: "None"}, txReason{code: "ValidationError", msg: "One or more parameter values were invalid: Type mismatch for key"})
			h.WantItem(h.Get(tbl, txKey("e")), nil)
		}},
		txError("KeyExtraAttributeError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txDelete(tbl, Item{"pk": S("a"), "x": S("1")})}
		}, "ValidationException", "The number of conditions on the keys is invalid"),
		txError("EmptySetError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txPut(tbl, Item{"pk": S("f"), "s": NS()})}
		}, "ValidationException", "One or more parameter values were invalid: An number set  may not be empty"),
		txError("ItemTooLargeError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txPut(tbl, Item{"pk": S("f"), "d": S(strings.Repeat("x", 409600))})}
		}, "ValidationException", "Item size has exceeded the maximum allowed size"),
		txError("UnusedValueError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txCheck(tbl, txKey("a"), "v = :v", Item{":v": N("1"), ":w": N("2")})}
		}, "ValidationException", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"),
		txError("UndefinedValueError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txUpdate(tbl, txKey("a"), "SET v = :x", nil)}
		}, "ValidationException", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :x"),
		// DynamoDB Local reports an update that fails on the item's contents
		// as a ValidationException, not as a cancellation reason.
		txError("UpdateRuntimeError", func(tbl string) []types.TransactWriteItem {
			return []types.TransactWriteItem{txPut(tbl, txItem("e", "1")), txUpdate(tbl, txKey("a"), "SET w = nope + :x", Item{":x": N("1")})}
		}, "ValidationException", "The provided expression refers to an attribute that does not exist in the item"),
	)

	register(
		Case{Name: "TransactGetItems/Order", Run: func(t *testing.T, h *H) {
			t1, t2 := txFixture(h), txFixture(h)
			h.Put(t2, txItem("c", "3"))
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				txGet(t2, txKey("c")), txGet(t1, txKey("d")), txGet(t1, txKey("a")), txGet(t2, txKey("a")),
			}})
			h.Must(err)
			if len(out.Responses) != 4 {
				t.Fatalf("%d responses, want 4", len(out.Responses))
			}
			for i, want := range []Item{txItem("c", "3"), txItem("d", "1"), txItem("a", "1"), txItem("a", "1")} {
				h.WantItem(out.Responses[i].Item, want)
			}
		}},
		Case{Name: "TransactGetItems/MissingItemsEmpty", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				txGet(tbl, txKey("zz")), txGet(tbl, txKey("b")), txGet(tbl, txKey("yy")),
			}})
			h.Must(err)
			if len(out.Responses) != 3 {
				t.Fatalf("%d responses, want 3", len(out.Responses))
			}
			h.WantItem(out.Responses[0].Item, nil)
			h.WantItem(out.Responses[1].Item, txItem("b", "1"))
			h.WantItem(out.Responses[2].Item, nil)
		}},
		Case{Name: "TransactGetItems/Projection", Run: func(t *testing.T, h *H) {
			tbl := h.HashTable()
			full := Item{"pk": S("a"), "m": M(Item{"x": N("1"), "y": L(S("0"), S("1"), S("2"))}), "z": S("z")}
			h.Put(tbl, full)
			g := txGet(tbl, txKey("a"))
			g.Get.ProjectionExpression = aws.String("#m.y[2], z")
			g.Get.ExpressionAttributeNames = map[string]string{"#m": "m"}
			h.Put(tbl, Item{"pk": S("b"), "z": S("zb")})
			g2 := txGet(tbl, txKey("b"))
			g2.Get.ProjectionExpression = aws.String("z")
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{g, g2}})
			h.Must(err)
			h.WantItem(out.Responses[0].Item, Item{"m": M(Item{"y": L(S("2"))}), "z": S("z")})
			h.WantItem(out.Responses[1].Item, Item{"z": S("zb")})
			h.WantItem(h.Get(tbl, txKey("a")), full)
		}},
		Case{Name: "TransactGetItems/HundredItems", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 100)
			var gets []types.TransactGetItem
			for i := 99; i >= 0; i-- {
				gets = append(gets, txGet(tbl, batchKey(i)))
			}
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
			h.Must(err)
			all := batchItems(100)
			for i, r := range out.Responses {
				h.WantItem(r.Item, all[99-i])
			}
		}},
		Case{Name: "TransactGetItems/SeesCommittedWrite", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			h.Must(h.txWrite(txUpdate(tbl, txKey("a"), "SET v = :v", Item{":v": N("42")}), txDelete(tbl, txKey("b"))))
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet(tbl, txKey("a")), txGet(tbl, txKey("b"))}})
			h.Must(err)
			h.WantItem(out.Responses[0].Item, txItem("a", "42"))
			h.WantItem(out.Responses[1].Item, nil)
		}},
		Case{Name: "TransactGetItems/SameItemTwiceError", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet(tbl, txKey("a")), txGet(tbl, txKey("a"))}})
			h.WantError(err, "ValidationException", "Transaction request cannot include multiple operations on one item")
		}},
		Case{Name: "TransactGetItems/MissingTable", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet(tbl, txKey("a")), txGet(h.TableName(), txKey("a"))}})
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
		}},
		Case{Name: "TransactGetItems/TooManyItemsError", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			var gets []types.TransactGetItem
			for _, k := range seq("k", 101) {
				gets = append(gets, txGet(tbl, txKey(k)))
			}
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
			h.WantError(err, "ValidationException", "Member must have length less than or equal to 100")
		}},
		Case{Name: "TransactGetItems/EmptyError", Run: func(t *testing.T, h *H) {
			// DynamoDB Local words an empty list as a missing one.
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{}})
			h.WantError(err, "ValidationException", "Value null at 'transactItems' failed to satisfy constraint: Member must not be null")
		}},
		Case{Name: "TransactGetItems/UndefinedNameError", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			g := txGet(tbl, txKey("a"))
			g.Get.ProjectionExpression = aws.String("#n")
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{g}})
			h.WantError(err, "ValidationException", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #n")
		}},
		// DynamoDB Local reports an invalid key in TransactGetItems as a
		// TransactionCanceledException without cancellation reasons.
		Case{Name: "TransactGetItems/KeyExtraAttributeError", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet(tbl, Item{"pk": S("a"), "x": S("1")})}})
			h.WantError(err, "TransactionCanceledException", "The number of conditions on the keys is invalid")
		}},
		Case{Name: "TransactGetItems/KeyTypeMismatchError", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet(tbl, Item{"pk": N("1")})}})
			h.WantError(err, "TransactionCanceledException", "One or more parameter values were invalid: Type mismatch for key")
		}},
	)
}

// Transactional writes cost twice a standard write (1 KB units), and a
// ConditionCheck twice a consistent read (4 KB units). DynamoDB Local's
// totals for transactions that mix several operations do not follow a
// per-operation sum, so these cases hold one operation each.
func init() {
	txCap := func(name string, op func(tbl string) types.TransactWriteItem, rcc types.ReturnConsumedCapacity, total, table float64) Case {
		return Case{Name: "TransactWriteItems/" + name, Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			h.Put(tbl, Item{"pk": S("big"), "d": S(strings.Repeat("x", 5000))})
			out, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{
				TransactItems:          []types.TransactWriteItem{op(tbl)},
				ReturnConsumedCapacity: rcc,
			})
			h.Must(err)
			if len(out.ConsumedCapacity) != 1 {
				t.Fatalf("%d ConsumedCapacity entries, want 1", len(out.ConsumedCapacity))
			}
			h.WantReadCapacity(&out.ConsumedCapacity[0], tbl, total, table, nil, nil)
		}}
	}
	register(
		txCap("CapacityPut", func(tbl string) types.TransactWriteItem { return txPut(tbl, txItem("e", "1")) }, types.ReturnConsumedCapacityTotal, 2, -1),
		txCap("CapacityPutLarge", func(tbl string) types.TransactWriteItem {
			return txPut(tbl, Item{"pk": S("e"), "d": S(strings.Repeat("x", 5000))}) // 5 KB: 5 units, doubled
		}, types.ReturnConsumedCapacityIndexes, 10, 10),
		txCap("CapacityUpdate", func(tbl string) types.TransactWriteItem {
			return txUpdate(tbl, txKey("a"), "SET w = :w", Item{":w": N("1")})
		}, types.ReturnConsumedCapacityTotal, 2, -1),
		txCap("CapacityDelete", func(tbl string) types.TransactWriteItem { return txDelete(tbl, txKey("a")) }, types.ReturnConsumedCapacityIndexes, 2, 2),
		txCap("CapacityConditionCheck", func(tbl string) types.TransactWriteItem {
			return txCheck(tbl, txKey("a"), "attribute_exists(v)", nil)
		}, types.ReturnConsumedCapacityTotal, 2, -1),
		txCap("CapacityConditionCheckLarge", func(tbl string) types.TransactWriteItem {
			return txCheck(tbl, txKey("big"), "attribute_exists(d)", nil) // 2 units of 4 KB, doubled
		}, types.ReturnConsumedCapacityIndexes, 4, 4),
		Case{Name: "TransactWriteItems/CapacityNotRequested", Run: func(t *testing.T, h *H) {
			tbl := txFixture(h)
			out, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{txPut(tbl, txItem("e", "1"))}})
			h.Must(err)
			if len(out.ConsumedCapacity) != 0 {
				t.Fatalf("ConsumedCapacity %v without ReturnConsumedCapacity", out.ConsumedCapacity)
			}
		}},
	)
}
