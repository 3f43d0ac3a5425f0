package conformance

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BatchGetItem and BatchWriteItem: results, limits, duplicate keys and the
// validation that fails a whole batch.

// batchFixture creates a table with an N sort key holding pk "a", sk 0..n-1
// with v = "v<i>" and a nested document.
func batchFixture(h *H, n int) string {
	h.t.Helper()
	tbl := h.RangeTable(types.ScalarAttributeTypeN)
	h.BatchPut(tbl, batchItems(n)...)
	return tbl
}

func batchItems(n int) []Item {
	items := make([]Item, n)
	for i := range items {
		n := strconv.Itoa(i)
		items[i] = Item{"pk": S("a"), "sk": N(n), "v": S("v" + n), "doc": M(Item{"x": N(n), "l": L(S("l0"), S("l1"))})}
	}
	return items
}

func batchKey(i int) Item { return Item{"pk": S("a"), "sk": N(strconv.Itoa(i))} }

// batchGetError is a BatchGetItem case on batchFixture(h, 3) that must fail
// with a ValidationException.
func batchGetError(name string, req func(tbl string) map[string]types.KeysAndAttributes, msg string) Case {
	return Case{Name: "BatchGetItem/" + name, Run: func(t *testing.T, h *H) {
		tbl := batchFixture(h, 3)
		_, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: req(tbl)})
		h.WantError(err, "ValidationException", msg)
	}}
}

// batchWriteError is a BatchWriteItem case on an empty table with an N sort
// key that must fail with a ValidationException and write nothing.
func batchWriteError(name string, req func(tbl string) map[string][]types.WriteRequest, msg string) Case {
	return Case{Name: "BatchWriteItem/" + name, Run: func(t *testing.T, h *H) {
		tbl := h.RangeTable(types.ScalarAttributeTypeN)
		_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: req(tbl)})
		h.WantError(err, "ValidationException", msg)
		in := scanIn(tbl)
		in.Select = types.SelectCount
		if out := h.MustScan(in); out.Count != 0 {
			t.Fatalf("a failed batch wrote %d items", out.Count)
		}
	}}
}

func keyRange(from, to int) []Item {
	keys := make([]Item, 0, to-from)
	for i := from; i < to; i++ {
		keys = append(keys, batchKey(i))
	}
	return keys
}

func putRange(from, to int) []types.WriteRequest {
	reqs := make([]types.WriteRequest, 0, to-from)
	for i := from; i < to; i++ {
		reqs = append(reqs, putRequest(batchKey(i)))
	}
	return reqs
}

func init() {
	items := batchItems(5)
	register(
		Case{Name: "BatchGetItem/SingleTable", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 5)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				tbl: keysAndAttrs(batchKey(4), batchKey(0), batchKey(2)),
			}})
			h.Must(err)
			h.WantItemSet(out.Responses[tbl], []Item{items[0], items[2], items[4]})
			if len(out.UnprocessedKeys) != 0 {
				t.Fatalf("UnprocessedKeys = %v", out.UnprocessedKeys)
			}
		}},
		Case{Name: "BatchGetItem/MultipleTables", Run: func(t *testing.T, h *H) {
			t1 := batchFixture(h, 3)
			t2 := h.HashTable()
			h.PutMany(t2, Item{"pk": S("x"), "n": N("1")}, Item{"pk": S("y"), "n": N("2")})
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				t1: keysAndAttrs(batchKey(1)),
				t2: keysAndAttrs(Item{"pk": S("x")}, Item{"pk": S("y")}),
			}})
			h.Must(err)
			if len(out.Responses) != 2 {
				t.Fatalf("Responses has %d tables, want 2", len(out.Responses))
			}
			h.WantItems(out.Responses[t1], []Item{items[1]})
			h.WantItemSet(out.Responses[t2], []Item{{"pk": S("x"), "n": N("1")}, {"pk": S("y"), "n": N("2")}})
		}},
		Case{Name: "BatchGetItem/MissingItemsOmitted", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 3)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				tbl: keysAndAttrs(batchKey(7), batchKey(1), Item{"pk": S("zz"), "sk": N("1")}),
			}})
			h.Must(err)
			h.WantItems(out.Responses[tbl], []Item{items[1]})
		}},
		Case{Name: "BatchGetItem/AllMissing", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 3)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				tbl: keysAndAttrs(batchKey(7), batchKey(8)),
			}})
			h.Must(err)
			if got, ok := out.Responses[tbl]; !ok || len(got) != 0 {
				t.Fatalf("Responses = %v, want an empty list for the table", out.Responses)
			}
		}},
		Case{Name: "BatchGetItem/ProjectionExpression", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 3)
			ka := keysAndAttrs(batchKey(0), batchKey(2))
			ka.ProjectionExpression = aws.String("v, doc.l[1], #k")
			ka.ExpressionAttributeNames = map[string]string{"#k": "sk"}
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tbl: ka}})
			h.Must(err)
			h.WantItemSet(out.Responses[tbl], []Item{
				{"sk": N("0"), "v": S("v0"), "doc": M(Item{"l": L(S("l1"))})},
				{"sk": N("2"), "v": S("v2"), "doc": M(Item{"l": L(S("l1"))})},
			})
		}},
		Case{Name: "BatchGetItem/ProjectionPerTable", Run: func(t *testing.T, h *H) {
			t1 := batchFixture(h, 2)
			t2 := batchFixture(h, 2)
			a, b := keysAndAttrs(batchKey(0)), keysAndAttrs(batchKey(0))
			a.ProjectionExpression = aws.String("v")
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{t1: a, t2: b}})
			h.Must(err)
			h.WantItems(out.Responses[t1], []Item{{"v": S("v0")}})
			h.WantItems(out.Responses[t2], []Item{items[0]})
		}},
		Case{Name: "BatchGetItem/ConsistentRead", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 3)
			ka := keysAndAttrs(batchKey(2))
			ka.ConsistentRead = aws.Bool(true)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tbl: ka}})
			h.Must(err)
			h.WantItems(out.Responses[tbl], []Item{items[2]})
		}},
		Case{Name: "BatchGetItem/HundredKeys", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 100)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				tbl: keysAndAttrs(keyRange(0, 100)...),
			}})
			h.Must(err)
			h.WantItemSet(out.Responses[tbl], batchItems(100))
		}},
		Case{Name: "BatchGetItem/DuplicateKeysInOtherTables", Run: func(t *testing.T, h *H) {
			t1, t2 := batchFixture(h, 1), batchFixture(h, 1)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				t1: keysAndAttrs(batchKey(0)), t2: keysAndAttrs(batchKey(0)),
			}})
			h.Must(err)
			h.WantItems(out.Responses[t1], []Item{items[0]})
			h.WantItems(out.Responses[t2], []Item{items[0]})
		}},
		Case{Name: "BatchGetItem/DuplicateNumberNotation", Run: func(t *testing.T, h *H) {
			// DynamoDB Local compares BatchGetItem keys as written: "1" and
			// "1.00" are not duplicates, and the item comes back twice.
			tbl := batchFixture(h, 3)
			out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				tbl: keysAndAttrs(batchKey(1), Item{"pk": S("a"), "sk": N("1.00")}),
			}})
			h.Must(err)
			h.WantItems(out.Responses[tbl], []Item{items[1], items[1]})
		}},
		Case{Name: "BatchGetItem/MissingTable", Run: func(t *testing.T, h *H) {
			_, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				h.TableName(): keysAndAttrs(batchKey(0)),
			}})
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
		}},
		Case{Name: "BatchGetItem/MissingTableAmongOthers", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 1)
			_, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				tbl: keysAndAttrs(batchKey(0)), h.TableName(): keysAndAttrs(batchKey(0)),
			}})
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
		}},
		batchGetError("TooManyKeysError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(keyRange(0, 101)...)}
		}, "Too many items requested for the BatchGetItem call"),
		Case{Name: "BatchGetItem/TooManyKeysAcrossTablesError", Run: func(t *testing.T, h *H) {
			t1, t2 := h.RangeTable(types.ScalarAttributeTypeN), h.RangeTable(types.ScalarAttributeTypeN)
			_, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				t1: keysAndAttrs(keyRange(0, 60)...), t2: keysAndAttrs(keyRange(0, 41)...),
			}})
			h.WantError(err, "ValidationException", "Too many items requested for the BatchGetItem call")
		}},
		batchGetError("DuplicateKeysError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(batchKey(0), batchKey(1), batchKey(0))}
		}, "Provided list of item keys contains duplicates"),
		batchGetError("EmptyRequestError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{}
		}, "BatchGetItem must have some requests set"),
		batchGetError("EmptyKeysError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: {Keys: []Item{}}}
		}, "~The list of keys in RequestItems for BatchGetItem is required: "),
		batchGetError("KeyMissingSortKeyError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(Item{"pk": S("a")})}
		}, "The number of conditions on the keys is invalid"),
		batchGetError("KeyExtraAttributeError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(Item{"pk": S("a"), "sk": N("1"), "v": S("v1")})}
		}, "The number of conditions on the keys is invalid"),
		batchGetError("KeyWrongNameError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(Item{"pk": S("a"), "v": N("1")})}
		}, "One of the required keys was not given a value"),
		batchGetError("KeyTypeMismatchError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(Item{"pk": S("a"), "sk": S("1")})}
		}, "One or more parameter values were invalid: Type mismatch for key"),
		batchGetError("EmptyStringKeyError", func(tbl string) map[string]types.KeysAndAttributes {
			return map[string]types.KeysAndAttributes{tbl: keysAndAttrs(Item{"pk": S(""), "sk": N("1")})}
		}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"),
		batchGetError("UnusedNameError", func(tbl string) map[string]types.KeysAndAttributes {
			ka := keysAndAttrs(batchKey(0))
			ka.ProjectionExpression = aws.String("v")
			ka.ExpressionAttributeNames = map[string]string{"#u": "x"}
			return map[string]types.KeysAndAttributes{tbl: ka}
		}, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}"),
		batchGetError("UndefinedNameError", func(tbl string) map[string]types.KeysAndAttributes {
			ka := keysAndAttrs(batchKey(0))
			ka.ProjectionExpression = aws.String("#n")
			return map[string]types.KeysAndAttributes{tbl: ka}
		}, "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #n"),
		batchGetError("ReservedWordError", func(tbl string) map[string]types.KeysAndAttributes {
			ka := keysAndAttrs(batchKey(0))
			ka.ProjectionExpression = aws.String("name")
			return map[string]types.KeysAndAttributes{tbl: ka}
		}, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
	)

	register(
		Case{Name: "BatchWriteItem/PutsAndDeletes", Run: func(t *testing.T, h *H) {
			t1 := batchFixture(h, 3)
			t2 := h.HashTable()
			h.Put(t2, Item{"pk": S("gone")})
			out, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				t1: {deleteRequest(batchKey(0)), putRequest(Item{"pk": S("a"), "sk": N("9"), "v": S("new")}), deleteRequest(batchKey(2))},
				t2: {putRequest(Item{"pk": S("x"), "l": L(NULL())}), deleteRequest(Item{"pk": S("gone")})},
			}})
			h.Must(err)
			if len(out.UnprocessedItems) != 0 {
				t.Fatalf("UnprocessedItems = %v", out.UnprocessedItems)
			}
			h.WantItems(h.QueryAll(queryIn(t1, "pk = :p", Item{":p": S("a")})), []Item{items[1], {"pk": S("a"), "sk": N("9"), "v": S("new")}})
			h.WantItems(h.ScanAll(scanIn(t2)), []Item{{"pk": S("x"), "l": L(NULL())}})
		}},
		Case{Name: "BatchWriteItem/PutReplacesItem", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 2)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				tbl: {putRequest(Item{"pk": S("a"), "sk": N("1"), "w": BOOL(true)})},
			}})
			h.Must(err)
			h.WantItem(h.Get(tbl, batchKey(1)), Item{"pk": S("a"), "sk": N("1"), "w": BOOL(true)})
		}},
		Case{Name: "BatchWriteItem/DeleteMissingItem", Run: func(t *testing.T, h *H) {
			tbl := batchFixture(h, 1)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				tbl: {deleteRequest(batchKey(5)), deleteRequest(Item{"pk": S("nobody"), "sk": N("0")})},
			}})
			h.Must(err)
			h.WantItem(h.Get(tbl, batchKey(0)), items[0])
		}},
		Case{Name: "BatchWriteItem/TwentyFive", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tbl: putRange(0, 25)}})
			h.Must(err)
			in := queryIn(tbl, "pk = :p", Item{":p": S("a")})
			in.Select = types.SelectCount
			if out := h.MustQuery(in); out.Count != 25 {
				t.Fatalf("Count = %d, want 25", out.Count)
			}
		}},
		Case{Name: "BatchWriteItem/DuplicateKeysInOtherTables", Run: func(t *testing.T, h *H) {
			t1, t2 := h.RangeTable(types.ScalarAttributeTypeN), h.RangeTable(types.ScalarAttributeTypeN)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				t1: putRange(0, 1), t2: putRange(0, 1),
			}})
			h.Must(err)
			h.WantItem(h.Get(t2, batchKey(0)), batchKey(0))
		}},
		Case{Name: "BatchWriteItem/MaintainsIndexes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				tbl: {putRequest(Item{"pk": S("n"), "sk": S("s"), "g": S("H"), "gn": N("0")}), deleteRequest(ixKey(4))},
			}})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "keys", "H"))
			h.WantItems(out.Items, []Item{{"pk": S("n"), "sk": S("s"), "g": S("H"), "gn": N("0")}})
		}},
		Case{Name: "BatchWriteItem/MissingTable", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				tbl: putRange(0, 1), h.TableName(): putRange(0, 1),
			}})
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
			h.WantItem(h.Get(tbl, batchKey(0)), nil)
		}},
		batchWriteError("TooManyError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: putRange(0, 26)}
		}, "Too many items requested for the BatchWriteItem call"),
		Case{Name: "BatchWriteItem/TooManyAcrossTablesError", Run: func(t *testing.T, h *H) {
			t1, t2 := h.RangeTable(types.ScalarAttributeTypeN), h.RangeTable(types.ScalarAttributeTypeN)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				t1: putRange(0, 13), t2: putRange(0, 13),
			}})
			h.WantError(err, "ValidationException", "Too many items requested for the BatchWriteItem call")
		}},
		batchWriteError("DuplicatePutError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), putRange(1, 2)...)}
		}, "Provided list of item keys contains duplicates"),
		batchWriteError("PutAndDeleteSameKeyError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: {putRequest(Item{"pk": S("a"), "sk": N("1")}), deleteRequest(batchKey(1))}}
		}, "Provided list of item keys contains duplicates"),
		batchWriteError("DuplicateNumberNotationError", func(tbl string) map[string][]types.WriteRequest {
			// Unlike BatchGetItem's, these keys are compared as numbers.
			return map[string][]types.WriteRequest{tbl: {putRequest(Item{"pk": S("a"), "sk": N("1")}), putRequest(Item{"pk": S("a"), "sk": N("1.0")})}}
		}, "Provided list of item keys contains duplicates"),
		batchWriteError("EmptyRequestError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{}
		}, "BatchWriteItem cannot have a null or no requests set"),
		batchWriteError("EmptyTableListError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: {}}
		}, "~The batch write request list for a table cannot be null or empty: "),
		batchWriteError("InvalidItemFailsWholeBatch", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), putRequest(Item{"pk": S("a")}))}
		}, "One of the required keys was not given a value"),
		batchWriteError("KeyTypeMismatchFailsWholeBatch", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), putRequest(Item{"pk": S("a"), "sk": S("x")}))}
		}, "One or more parameter values were invalid: Type mismatch for key"),
		batchWriteError("EmptySetFailsWholeBatch", func(tbl string) map[string][]types.WriteRequest {
			// Sic: DynamoDB's message has two spaces.
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), putRequest(Item{"pk": S("a"), "sk": N("9"), "s": SS()}))}
		}, "One or more parameter values were invalid: An string set  may not be empty"),
		batchWriteError("EmptyStringKeyFailsWholeBatch", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), putRequest(Item{"pk": S(""), "sk": N("9")}))}
		}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"),
		batchWriteError("ItemTooLargeFailsWholeBatch", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), putRequest(Item{"pk": S("a"), "sk": N("9"), "d": S(strings.Repeat("x", 409600))}))}
		}, "Item size has exceeded the maximum allowed size"),
		batchWriteError("DeleteKeyExtraAttributeError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), deleteRequest(Item{"pk": S("a"), "sk": N("9"), "v": S("x")}))}
		}, "The number of conditions on the keys is invalid"),
		batchWriteError("DeleteKeyTypeMismatchError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), deleteRequest(Item{"pk": S("a"), "sk": S("9")}))}
		}, "One or more parameter values were invalid: Type mismatch for key"),
		batchWriteError("PutAndDeleteInOneRequestError", func(tbl string) map[string][]types.WriteRequest {
			both := putRequest(Item{"pk": S("a"), "sk": N("9")})
			both.DeleteRequest = &types.DeleteRequest{Key: batchKey(9)}
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), both)}
		}, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"),
		batchWriteError("EmptyWriteRequestError", func(tbl string) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{tbl: append(putRange(0, 3), types.WriteRequest{})}
		}, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"),
		Case{Name: "BatchWriteItem/IndexKeyTypeMismatchFailsWholeBatch", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				tbl: {putRequest(Item{"pk": S("n1"), "sk": S("s")}), putRequest(Item{"pk": S("n2"), "sk": S("s"), "gn": S("x")})},
			}})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
			h.WantItem(h.Get(tbl, Item{"pk": S("n1"), "sk": S("s")}), nil)
		}},
	)
}
