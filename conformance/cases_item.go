package conformance

import (
	"bytes"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Single-item operations (PutItem, GetItem, DeleteItem) and the attribute
// types: every type written and read back, numbers in canonical form, and
// the values DynamoDB refuses.

const (
	msgBadReturnValues = "Return values set to invalid value"
	msgMissingKey      = "One of the required keys was not given a value"
	msgKeyTypeMismatch = "One or more parameter values were invalid: Type mismatch for key"
	msgKeyConditions   = "The number of conditions on the keys is invalid"
	msgEmptyKeyString  = "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"
	msgNotANumber      = "A value provided cannot be converted into a number"
	msgCondFailed      = "The conditional request failed"
)

// roundTrip writes v as attribute "v" of a fresh item and wants to read back
// want.
func roundTrip(h *H, v, want types.AttributeValue) {
	h.t.Helper()
	table := h.HashTable()
	h.Put(table, Item{"pk": S("k"), "v": v})
	h.WantItem(h.Get(table, Item{"pk": S("k")}), Item{"pk": S("k"), "v": want})
}

// putInvalid wants PutItem of an item with attribute "v" = v to fail with a
// ValidationException with message msg.
func putInvalid(h *H, v types.AttributeValue, msg string) {
	h.t.Helper()
	putInvalidIn(h, h.HashTable(), v, msg)
}

// putInvalidIn is putInvalid on an existing hash table.
func putInvalidIn(h *H, table string, v types.AttributeValue, msg string) {
	h.t.Helper()
	_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "v": v}})
	h.WantError(err, "ValidationException", msg)
	h.WantItem(h.Get(table, Item{"pk": S("k")}), nil)
}

func init() {
	register(
		// PutItem
		Case{"PutItem/Basic", func(t *testing.T, h *H) {
			table := h.HashTable()
			out, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "x": N("1")}})
			h.Must(err)
			if len(out.Attributes) != 0 || out.ConsumedCapacity != nil {
				t.Fatalf("PutItem output: attributes %s capacity %v", FormatItem(out.Attributes), out.ConsumedCapacity)
			}
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "x": N("1")})
		}},
		Case{"PutItem/ReplacesWholeItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1"), "y": S("old")})
			h.Put(table, Item{"pk": S("a"), "z": BOOL(true)})
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "z": BOOL(true)})
		}},
		Case{"PutItem/CompositeKey", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			h.Put(table, Item{"pk": S("a"), "sk": S("1"), "v": N("1")})
			h.Put(table, Item{"pk": S("a"), "sk": S("2"), "v": N("2")})
			h.WantItem(h.Get(table, Item{"pk": S("a"), "sk": S("1")}), Item{"pk": S("a"), "sk": S("1"), "v": N("1")})
			h.WantItem(h.Get(table, Item{"pk": S("a"), "sk": S("2")}), Item{"pk": S("a"), "sk": S("2"), "v": N("2")})
		}},
		Case{"PutItem/ReturnAllOld", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1")})
			out, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "y": N("2")}, ReturnValues: types.ReturnValueAllOld})
			h.Must(err)
			h.WantItem(out.Attributes, Item{"pk": S("a"), "x": N("1")})
		}},
		Case{"PutItem/ReturnAllOldNewItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			out, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ReturnValues: types.ReturnValueAllOld})
			h.Must(err)
			if len(out.Attributes) != 0 {
				t.Fatalf("Attributes = %s, want none", FormatItem(out.Attributes))
			}
		}},
		Case{"PutItem/ReturnNone", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1")})
			out, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ReturnValues: types.ReturnValueNone})
			h.Must(err)
			if len(out.Attributes) != 0 {
				t.Fatalf("Attributes = %s, want none", FormatItem(out.Attributes))
			}
		}},
		Case{"PutItem/InvalidReturnValues", func(t *testing.T, h *H) {
			table := h.HashTable()
			for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew, "FOO"} {
				_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ReturnValues: rv})
				h.WantError(err, "ValidationException", msgBadReturnValues)
			}
			h.WantItem(h.Get(table, Item{"pk": S("a")}), nil)
		}},
		Case{"PutItem/MissingKey", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"x": S("a")}})
			h.WantError(err, "ValidationException", msgMissingKey)
		}},
		Case{"PutItem/MissingRangeKey", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}})
			h.WantError(err, "ValidationException", msgMissingKey)
		}},
		Case{"PutItem/KeyTypeMismatch", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": N("1")}})
			h.WantError(err, "ValidationException", msgKeyTypeMismatch)
		}},
		Case{"PutItem/KeyOfSetType", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": SS("a")}})
			h.WantError(err, "ValidationException", "Invalid attribute value type")
		}},
		Case{"PutItem/EmptyStringKey", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("")}})
			h.WantError(err, "ValidationException", msgEmptyKeyString)
		}},
		Case{"PutItem/EmptyBinaryKey", func(t *testing.T, h *H) {
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "B"), KeySchema: keySchema("pk")})
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": B([]byte{})}})
			h.WantError(err, "ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: pk")
		}},
		Case{"PutItem/EmptyRangeKey", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "sk": S("")}})
			h.WantError(err, "ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk")
		}},
		Case{"PutItem/EmptyStringAndBinaryAttributes", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a"), "s": S(""), "b": B([]byte{}), "l": L(S("")), "m": M(Item{"e": S("")})}
			h.Put(table, it)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), it)
		}},
		Case{"PutItem/EmptyAttributeName", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "": S("x")}})
			h.WantError(err, "ValidationException", "Empty attribute name")
		}},
		Case{"PutItem/SameNameDifferentTypes", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			h.Put(table, Item{"pk": S("b"), "v": S("1")})
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("1")})
			h.WantItem(h.Get(table, Item{"pk": S("b")}), Item{"pk": S("b"), "v": S("1")})
		}},
		Case{"PutItem/NumberKeyCanonical", func(t *testing.T, h *H) {
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "N"), KeySchema: keySchema("pk")})
			h.Put(table, Item{"pk": N("1.50"), "v": S("x")})
			h.WantItem(h.Get(table, Item{"pk": N("015e-1")}), Item{"pk": N("1.5"), "v": S("x")})
			h.Put(table, Item{"pk": N("1.5"), "v": S("y")}) // the same key
			h.WantItem(h.Get(table, Item{"pk": N("1.5")}), Item{"pk": N("1.5"), "v": S("y")})
		}},
		Case{"PutItem/BinaryKey", func(t *testing.T, h *H) {
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "B"), KeySchema: keySchema("pk")})
			h.Put(table, Item{"pk": B([]byte{0xff, 0}), "v": N("1")})
			h.Put(table, Item{"pk": B([]byte{0xff}), "v": N("2")})
			h.WantItem(h.Get(table, Item{"pk": B([]byte{0xff, 0})}), Item{"pk": B([]byte{0xff, 0}), "v": N("1")})
			h.WantItem(h.Get(table, Item{"pk": B([]byte{0xff})}), Item{"pk": B([]byte{0xff}), "v": N("2")})
		}},
		Case{"PutItem/TableNotFound", func(t *testing.T, h *H) {
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(h.TableName()), Item: Item{"pk": S("a")}})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"PutItem/ConditionAttributeNotExists", func(t *testing.T, h *H) {
			table := h.HashTable()
			in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "v": N("1")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}
			_, err := h.API.PutItem(h.Ctx, in)
			h.Must(err)
			in.Item = Item{"pk": S("a"), "v": N("2")}
			_, err = h.API.PutItem(h.Ctx, in)
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("1")})
		}},
		Case{"PutItem/LegacyExpected", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "v": N("2")},
				Expected: map[string]types.ExpectedAttributeValue{"v": {Value: N("1")}}})
			h.Must(err)
			_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "v": N("3")},
				Expected: map[string]types.ExpectedAttributeValue{"v": {Exists: aws.Bool(false)}}})
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("2")})
		}},

		// GetItem
		Case{"GetItem/Missing", func(t *testing.T, h *H) {
			table := h.HashTable()
			out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("nope")}})
			h.Must(err)
			if out.Item != nil {
				t.Fatalf("Item = %s, want none", FormatItem(out.Item))
			}
		}},
		Case{"GetItem/EventuallyConsistent", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}})
			h.Must(err)
			// DynamoDB may return a stale read here; DynamoDB Local and the
			// engine never do.
			h.WantItem(out.Item, Item{"pk": S("a"), "v": N("1")})
		}},
		Case{"GetItem/Projection", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1"), "y": N("2"), "m": M(Item{"p": S("1"), "q": L(S("a"), S("b"))})})
			out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				ProjectionExpression: aws.String("x, m.q[1], nope")})
			h.Must(err)
			h.WantItem(out.Item, Item{"x": N("1"), "m": M(Item{"q": L(S("b"))})})
		}},
		Case{"GetItem/ProjectionNothingMatches", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1")})
			out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ProjectionExpression: aws.String("nope")})
			h.Must(err)
			// The item exists, so Item is present and empty.
			h.WantItem(out.Item, Item{})
		}},
		Case{"GetItem/ProjectionWithNames", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "name": S("n"), "a.b": S("dotted"), "x": N("1")})
			out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				ProjectionExpression: aws.String("#n, #d"), ExpressionAttributeNames: Names{"#n": "name", "#d": "a.b"}})
			h.Must(err)
			h.WantItem(out.Item, Item{"name": S("n"), "a.b": S("dotted")})
		}},
		Case{"GetItem/ProjectionOverlap", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ProjectionExpression: aws.String("m, m.x")})
			h.WantError(err, "ValidationException", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, x]")
		}},
		Case{"GetItem/ProjectionEmpty", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ProjectionExpression: aws.String("")})
			h.WantError(err, "ValidationException", "Invalid ProjectionExpression: The expression can not be empty;")
		}},
		Case{"GetItem/ProjectionSyntaxError", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ProjectionExpression: aws.String("a,")})
			h.WantError(err, "ValidationException", `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`)
		}},
		Case{"GetItem/LegacyAttributesToGet", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1"), "y": N("2")})
			out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, AttributesToGet: []string{"y"}})
			h.Must(err)
			h.WantItem(out.Item, Item{"y": N("2")})
		}},
		Case{"GetItem/AttributesToGetWithProjection", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, AttributesToGet: []string{"y"}, ProjectionExpression: aws.String("y")})
			h.WantError(err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
		}},
		Case{"GetItem/ExtraKeyAttribute", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "x": S("b")}})
			h.WantError(err, "ValidationException", msgKeyConditions)
		}},
		Case{"GetItem/MissingRangeKey", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}})
			h.WantError(err, "ValidationException", msgKeyConditions)
		}},
		Case{"GetItem/WrongKeyName", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"x": S("a")}})
			h.WantError(err, "ValidationException", msgMissingKey)
		}},
		Case{"GetItem/KeyTypeMismatch", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": N("1")}})
			h.WantError(err, "ValidationException", msgKeyTypeMismatch)
		}},
		Case{"GetItem/EmptyKeyString", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("")}})
			h.WantError(err, "ValidationException", msgEmptyKeyString)
		}},
		Case{"GetItem/TableNotFound", func(t *testing.T, h *H) {
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(h.TableName()), Key: Item{"pk": S("a")}})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"GetItem/NamesWithoutExpression", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ExpressionAttributeNames: Names{"#x": "x"}})
			h.WantError(err, "ValidationException", "ExpressionAttributeNames can only be specified when using expressions")
		}},

		// DeleteItem
		Case{"DeleteItem/Basic", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1")})
			h.Put(table, Item{"pk": S("b")})
			out, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}})
			h.Must(err)
			if len(out.Attributes) != 0 {
				t.Fatalf("Attributes = %s, want none", FormatItem(out.Attributes))
			}
			h.WantItem(h.Get(table, Item{"pk": S("a")}), nil)
			h.WantItem(h.Get(table, Item{"pk": S("b")}), Item{"pk": S("b")})
		}},
		Case{"DeleteItem/Missing", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("nope")}})
			h.Must(err)
		}},
		Case{"DeleteItem/ReturnAllOld", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "x": N("1"), "l": L(N("1"))})
			out, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ReturnValues: types.ReturnValueAllOld})
			h.Must(err)
			h.WantItem(out.Attributes, Item{"pk": S("a"), "x": N("1"), "l": L(N("1"))})
		}},
		Case{"DeleteItem/ReturnAllOldMissing", func(t *testing.T, h *H) {
			table := h.HashTable()
			out, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("nope")}, ReturnValues: types.ReturnValueAllOld})
			h.Must(err)
			if len(out.Attributes) != 0 {
				t.Fatalf("Attributes = %s, want none", FormatItem(out.Attributes))
			}
		}},
		Case{"DeleteItem/InvalidReturnValues", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a")})
			for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew, "FOO"} {
				_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ReturnValues: rv})
				h.WantError(err, "ValidationException", msgBadReturnValues)
			}
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a")})
		}},
		Case{"DeleteItem/Condition", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			in := &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: Item{":v": N("2")}}
			_, err := h.API.DeleteItem(h.Ctx, in)
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("1")})
			in.ExpressionAttributeValues = Item{":v": N("1")}
			_, err = h.API.DeleteItem(h.Ctx, in)
			h.Must(err)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), nil)
		}},
		Case{"DeleteItem/ConditionOnMissingItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ConditionExpression: aws.String("attribute_exists(pk)")})
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
		}},
		Case{"DeleteItem/CompositeKey", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeN)
			h.Put(table, Item{"pk": S("a"), "sk": N("1")})
			h.Put(table, Item{"pk": S("a"), "sk": N("2")})
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "sk": N("1.0")}})
			h.Must(err)
			h.WantItem(h.Get(table, Item{"pk": S("a"), "sk": N("1")}), nil)
			h.WantItem(h.Get(table, Item{"pk": S("a"), "sk": N("2")}), Item{"pk": S("a"), "sk": N("2")})
		}},
		Case{"DeleteItem/ExtraKeyAttribute", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "x": S("b")}})
			h.WantError(err, "ValidationException", msgKeyConditions)
		}},
		Case{"DeleteItem/KeyTypeMismatch", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": B([]byte("a"))}})
			h.WantError(err, "ValidationException", msgKeyTypeMismatch)
		}},
		Case{"DeleteItem/TableNotFound", func(t *testing.T, h *H) {
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(h.TableName()), Key: Item{"pk": S("a")}})
			h.WantError(err, "ResourceNotFoundException", msgNoTable)
		}},
		Case{"DeleteItem/ValuesWithoutExpression", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ExpressionAttributeValues: Item{":v": N("1")}})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
		}},

		// Types: every attribute type written and read back.
		Case{"Types/String", func(t *testing.T, h *H) { roundTrip(h, S("héllo, 世界 \x00 🙂"), S("héllo, 世界 \x00 🙂")) }},
		Case{"Types/Number", func(t *testing.T, h *H) { roundTrip(h, N("-12.5"), N("-12.5")) }},
		Case{"Types/Number38Digits", func(t *testing.T, h *H) {
			roundTrip(h, N("12345678901234567890123456789012345678"), N("12345678901234567890123456789012345678"))
		}},
		Case{"Types/Number38DigitsFraction", func(t *testing.T, h *H) {
			roundTrip(h, N("-0.12345678901234567890123456789012345678"), N("-0.12345678901234567890123456789012345678"))
		}},
		Case{"Types/NumberTrailingZerosNotSignificant", func(t *testing.T, h *H) {
			roundTrip(h, N("1234567890123456789012345678901234567800000"), N("1234567890123456789012345678901234567800000"))
		}},
		Case{"Types/NumberCanonicalForms", func(t *testing.T, h *H) {
			table := h.HashTable()
			for in, want := range map[string]string{
				"1.50": "1.5", "-0": "0", "0.000": "0", "1E+2": "100", "1e2": "100", "+5": "5", ".5": "0.5",
				"5.": "5", "00012.3400": "12.34", "-1.0e-3": "-0.001", "12E-1": "1.2",
			} {
				h.Put(table, Item{"pk": S(in), "v": N(in)})
				h.WantItem(h.Get(table, Item{"pk": S(in)}), Item{"pk": S(in), "v": N(want)})
			}
		}},
		Case{"Types/NumberLargest", func(t *testing.T, h *H) {
			roundTrip(h, N("9.9999999999999999999999999999999999999E+125"), N("999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"))
		}},
		Case{"Types/NumberSmallest", func(t *testing.T, h *H) {
			roundTrip(h, N("-1E-130"), N("-0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"))
		}},
		Case{"Types/NumberTooPrecise", func(t *testing.T, h *H) {
			putInvalid(h, N("123456789012345678901234567890123456789"), "DynamoDB only supports precision up to 38 digits")
		}},
		Case{"Types/NumberOverflow", func(t *testing.T, h *H) {
			putInvalid(h, N("1E+126"), "Number overflow. Attempting to store a number with magnitude larger than supported range")
		}},
		Case{"Types/NumberUnderflow", func(t *testing.T, h *H) {
			putInvalid(h, N("1e-131"), "Number underflow. Attempting to store a number with magnitude smaller than supported range")
		}},
		Case{"Types/NumberInvalid", func(t *testing.T, h *H) {
			table := h.HashTable()
			for _, s := range []string{"abc", "", " 5", "0x10", "Infinity", "NaN", "1e", "1,5", "--1"} {
				putInvalidIn(h, table, N(s), msgNotANumber)
			}
		}},
		Case{"Types/Binary", func(t *testing.T, h *H) {
			b := []byte{0, 1, 2, 0xfe, 0xff}
			roundTrip(h, B(b), B(b))
		}},
		Case{"Types/Bool", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "t": BOOL(true), "f": BOOL(false)})
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "t": BOOL(true), "f": BOOL(false)})
		}},
		Case{"Types/Null", func(t *testing.T, h *H) { roundTrip(h, NULL(), NULL()) }},
		Case{"Types/NullFalse", func(t *testing.T, h *H) {
			putInvalid(h, &types.AttributeValueMemberNULL{Value: false}, "One or more parameter values were invalid: Null attribute value types must have the value of true")
		}},
		Case{"Types/List", func(t *testing.T, h *H) {
			l := L(S("a"), N("1"), B([]byte{1}), BOOL(false), NULL(), L(), M(nil), SS("x"), NS("2"), BS([]byte{3}), S("a"))
			roundTrip(h, l, l)
		}},
		Case{"Types/Map", func(t *testing.T, h *H) {
			m := M(Item{"s": S("a"), "n": N("1"), "empty": M(nil), "l": L(), "a.b": S("dotted"), "#x": S("hash"), " ": S("space")})
			roundTrip(h, m, m)
		}},
		Case{"Types/EmptyListAndMap", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "l": L(), "m": M(nil)})
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "l": L(), "m": M(nil)})
		}},
		Case{"Types/Nested", func(t *testing.T, h *H) {
			v := M(Item{"a": L(M(Item{"b": L(L(N("1"), S("x")), M(Item{"c": SS("p", "q")}))}))})
			roundTrip(h, v, v)
		}},
		Case{"Types/StringSet", func(t *testing.T, h *H) { roundTrip(h, SS("b", "a", "c"), SS("a", "b", "c")) }},
		Case{"Types/StringSetWithEmptyString", func(t *testing.T, h *H) { roundTrip(h, SS("a", ""), SS("", "a")) }},
		Case{"Types/NumberSet", func(t *testing.T, h *H) { roundTrip(h, NS("10", "-1", "2.5"), NS("-1", "10", "2.5")) }},
		Case{"Types/NumberSetCanonical", func(t *testing.T, h *H) { roundTrip(h, NS("1.50", "2E1"), NS("1.5", "20")) }},
		Case{"Types/BinarySet", func(t *testing.T, h *H) {
			roundTrip(h, BS([]byte{2}, []byte{1, 0}), BS([]byte{1, 0}, []byte{2}))
		}},
		Case{"Types/EmptyStringSet", func(t *testing.T, h *H) {
			putInvalid(h, SS(), "One or more parameter values were invalid: An string set  may not be empty")
		}},
		Case{"Types/EmptyNumberSet", func(t *testing.T, h *H) {
			putInvalid(h, NS(), "One or more parameter values were invalid: An number set  may not be empty")
		}},
		Case{"Types/EmptyBinarySet", func(t *testing.T, h *H) {
			putInvalid(h, BS(), "One or more parameter values were invalid: Binary sets should not be empty")
		}},
		Case{"Types/EmptySetNested", func(t *testing.T, h *H) {
			putInvalid(h, M(Item{"a": L(SS())}), "One or more parameter values were invalid: An string set  may not be empty")
		}},
		Case{"Types/DuplicateStringSet", func(t *testing.T, h *H) {
			putInvalid(h, SS("a", "a"), "One or more parameter values were invalid: Input collection [a, a] contains duplicates")
		}},
		Case{"Types/DuplicateNumberSet", func(t *testing.T, h *H) {
			// 1 and 1.0 are the same number.
			putInvalid(h, NS("1", "1.0"), "Input collection contains duplicates")
		}},
		Case{"Types/DuplicateBinarySet", func(t *testing.T, h *H) {
			putInvalid(h, BS([]byte{1}, []byte{1}), "One or more parameter values were invalid: Input collection of type BS contains duplicates.")
		}},
		Case{"Types/InvalidNumberInSet", func(t *testing.T, h *H) {
			putInvalid(h, NS("1", "x"), msgNotANumber)
		}},
		Case{"Types/InvalidNumberInList", func(t *testing.T, h *H) {
			putInvalid(h, L(N("x")), msgNotANumber)
		}},
		Case{"Types/EmptyNameInMap", func(t *testing.T, h *H) {
			putInvalid(h, M(Item{"": S("x")}), "Empty attribute name")
		}},
		Case{"Types/BinaryBytesExact", func(t *testing.T, h *H) {
			table := h.HashTable()
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			h.Put(table, Item{"pk": S("a"), "b": B(b)})
			got := h.Get(table, Item{"pk": S("a")})["b"].(*types.AttributeValueMemberB).Value
			if !bytes.Equal(got, b) {
				t.Fatalf("binary value changed: %x", got)
			}
		}},
	)
}
