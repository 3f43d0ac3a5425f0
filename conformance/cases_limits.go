package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Limits (item and key sizes, nesting, expression sizes, index keys) and the
// write capacity that writes report with ReturnConsumedCapacity.
//
// Item size is the sum over attributes of the UTF-8 length of the name and
// the size of the value; a string "x" under the name "pk" is 3 bytes.
// DynamoDB Local returns no ItemCollectionMetrics, even for a table with a
// local secondary index and ReturnItemCollectionMetrics SIZE, so they have no
// case here.

const (
	msgItemTooLarge   = "Item size has exceeded the maximum allowed size"
	msgUpdateTooLarge = "Item size to update has exceeded the maximum allowed size"
	msgKeyTooLarge    = "Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes"
	msgNesting        = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
)

func nestL(depth int) types.AttributeValue {
	v := S("x")
	for range depth {
		v = L(v)
	}
	return v
}

func nestM(depth int) types.AttributeValue {
	v := S("x")
	for range depth {
		v = M(Item{"a": v})
	}
	return v
}

// capTable creates a table keyed by pk, sk with a GSI "all" (g, ALL), a GSI
// "keys" (g, sk, KEYS_ONLY) and an LSI "local" (pk, l, ALL).
func capTable(h *H) string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "g", "S", "l", "S"),
		KeySchema:            keySchema("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			gsi("all", "g", "", types.ProjectionTypeAll),
			gsi("keys", "g", "sk", types.ProjectionTypeKeysOnly),
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("local", "pk", "l", types.ProjectionTypeAll)},
	})
}

// largeItemTable creates a hash table holding item "a" of some 2.5 KB,
// three write units.
func largeItemTable(h *H) string {
	h.t.Helper()
	table := h.HashTable()
	h.Put(table, Item{"pk": S("a"), "v": S(Str(2500))})
	return table
}

// putCapacity puts item into table, asking for the consumed capacity rc,
// and returns the capacity the answer reports; an error fails the case.
func putCapacity(h *H, table string, item Item, rc types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	h.t.Helper()
	out, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item, ReturnConsumedCapacity: rc})
	h.Must(err)
	return out.ConsumedCapacity
}

// deleteCapacity is putCapacity for a delete of the item at key.
func deleteCapacity(h *H, table string, key Item, rc types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	h.t.Helper()
	out, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ReturnConsumedCapacity: rc})
	h.Must(err)
	return out.ConsumedCapacity
}

func init() {
	register(
		// Item size
		Case{"Limits/ItemSizeAtLimit", func(t *testing.T, h *H) {
			table := h.HashTable()
			// 3 (pk) + 1 (name v) + 409596 = 409600 bytes.
			it := Item{"pk": S("k"), "v": S(Str(409596))}
			h.Must(h.putErr(table, it))
			h.WantItem(h.Get(table, Item{"pk": S("k")}), it)
		}},
		Case{"Limits/ItemSizeOverLimit", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.WantError(h.putErr(table, Item{"pk": S("k"), "v": S(Str(409597))}), "ValidationException", msgItemTooLarge)
			h.WantItem(h.Get(table, Item{"pk": S("k")}), nil)
		}},
		Case{"Limits/ItemSizeCountsNames", func(t *testing.T, h *H) {
			table := h.HashTable()
			// 3 (pk) + 3 (name vvv) + 409594 = 409600 bytes: fits; one more does not.
			h.Must(h.putErr(table, Item{"pk": S("k"), "vvv": S(Str(409594))}))
			h.WantError(h.putErr(table, Item{"pk": S("k"), "vvv": S(Str(409595))}), "ValidationException", msgItemTooLarge)
		}},
		Case{"Limits/ItemSizeBinary", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Must(h.putErr(table, Item{"pk": S("k"), "v": B(make([]byte, 409596))}))
			h.WantError(h.putErr(table, Item{"pk": S("k"), "v": B(make([]byte, 409597))}), "ValidationException", msgItemTooLarge)
		}},
		Case{"Limits/ItemSizeManyAttributes", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("k")} // 3 bytes
			for i := range 399 {
				it[fmt.Sprintf("a%03d", i)] = S(Str(1020)) // 4 + 1020 bytes each
			}
			it["z"] = S(Str(1019)) // 3 + 399*1024 + 1 + 1019 = 409599 bytes
			h.Must(h.putErr(table, it))
			it["z"] = S(Str(1021))
			h.WantError(h.putErr(table, it), "ValidationException", msgItemTooLarge)
		}},
		Case{"Limits/UpdateOverItemSize", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("k"), "v": S(Str(409000))}
			h.Put(table, it)
			h.WantUpdateError(table, Item{"pk": S("k")}, "SET w = :v", nil, v1(S(Str(1000))), msgUpdateTooLarge)
			h.WantItem(h.Get(table, Item{"pk": S("k")}), it)
		}},
		Case{"Limits/UpdateReplacesWithinSize", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("k"), "v": S(Str(409000))})
			got := h.Update(table, Item{"pk": S("k")}, "SET v = :v", nil, v1(S(Str(409596))))
			if len(got["v"].(*types.AttributeValueMemberS).Value) != 409596 {
				t.Fatalf("v not replaced")
			}
		}},
		Case{"Limits/NestingDepth", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Must(h.putErr(table, Item{"pk": S("l"), "v": nestL(31)}))
			h.Must(h.putErr(table, Item{"pk": S("m"), "v": nestM(31)}))
			h.WantItem(h.Get(table, Item{"pk": S("l")}), Item{"pk": S("l"), "v": nestL(31)})
		}},
		Case{"Limits/NestingTooDeep", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.WantError(h.putErr(table, Item{"pk": S("l"), "v": nestL(32)}), "ValidationException", msgNesting)
			h.WantError(h.putErr(table, Item{"pk": S("m"), "v": nestM(32)}), "ValidationException", msgNesting)
		}},

		// Key sizes
		Case{"Limits/HashKeyAtLimit", func(t *testing.T, h *H) {
			table := h.HashTable()
			key := Item{"pk": S(Str(2048))}
			h.Must(h.putErr(table, key))
			h.WantItem(h.Get(table, key), key)
		}},
		Case{"Limits/HashKeyOverLimit", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.WantError(h.putErr(table, Item{"pk": S(Str(2049))}), "ValidationException", msgKeyTooLarge)
		}},
		Case{"Limits/HashKeyBytesNotCharacters", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Must(h.putErr(table, Item{"pk": S(strings.Repeat("é", 1024))}))
			h.WantError(h.putErr(table, Item{"pk": S(strings.Repeat("é", 1025))}), "ValidationException", msgKeyTooLarge)
		}},
		Case{"Limits/BinaryHashKey", func(t *testing.T, h *H) {
			table := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "B"), KeySchema: keySchema("pk")})
			h.Must(h.putErr(table, Item{"pk": B(make([]byte, 2048))}))
			h.WantError(h.putErr(table, Item{"pk": B(make([]byte, 2049))}), "ValidationException", msgKeyTooLarge)
		}},
		Case{"Limits/RangeKeyAtLimit", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			key := Item{"pk": S("a"), "sk": S(Str(1024))}
			h.Must(h.putErr(table, key))
			h.WantItem(h.Get(table, key), key)
		}},
		Case{"Limits/RangeKeyOverLimit", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			h.WantError(h.putErr(table, Item{"pk": S("a"), "sk": S(Str(1025))}), "ValidationException", msgKeyTooLarge)
		}},
		Case{"Limits/KeyOverLimitOnRead", func(t *testing.T, h *H) {
			table := h.RangeTable(types.ScalarAttributeTypeS)
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(Str(2049)), "sk": S("a")}})
			h.WantError(err, "ValidationException", msgKeyTooLarge)
			_, err = h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "sk": S(Str(1025))}})
			h.WantError(err, "ValidationException", msgKeyTooLarge)
		}},
		Case{"Limits/KeyAttributeNameLength", func(t *testing.T, h *H) {
			h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs(Str(255), "S"), KeySchema: keySchema(Str(255))})
			err := h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs(Str(256), "S"), KeySchema: keySchema(Str(256))})
			h.WantError(err, "ValidationException", "Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive")
		}},

		// Index keys on writes
		Case{"Limits/IndexHashKeySize", func(t *testing.T, h *H) {
			table := h.HashTableByG()
			h.Must(h.putErr(table, Item{"pk": S("a"), "g": S(Str(2048))}))
			h.WantError(h.putErr(table, Item{"pk": S("a"), "g": S(Str(2049))}), "ValidationException", "One or more parameter values were invalid: Size limit exceeded")
		}},
		Case{"Limits/IndexRangeKeySize", func(t *testing.T, h *H) {
			table := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions:  attrDefs("pk", "S", "sk", "S", "l", "S"),
				KeySchema:             keySchema("pk", "sk"),
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("by_l", "pk", "l", types.ProjectionTypeAll)},
			})
			h.Must(h.putErr(table, Item{"pk": S("a"), "sk": S("b"), "l": S(Str(1024))}))
			h.WantError(h.putErr(table, Item{"pk": S("a"), "sk": S("b"), "l": S(Str(1025))}), "ValidationException", "One or more parameter values were invalid: Size limit exceeded")
		}},
		Case{"PutItem/IndexKeyTypeMismatch", func(t *testing.T, h *H) {
			table := h.HashTableByG()
			h.WantError(h.putErr(table, Item{"pk": S("a"), "g": N("1")}), "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
			h.WantUpdateError(table, Item{"pk": S("a")}, "SET g = :v", nil, v1(N("1")), "One or more parameter values were invalid: Type mismatch for Index Key")
			h.WantItem(h.Get(table, Item{"pk": S("a")}), nil)
		}},
		Case{"PutItem/IndexKeyEmptyString", func(t *testing.T, h *H) {
			table := h.HashTableByG()
			h.WantError(h.putErr(table, Item{"pk": S("a"), "g": S("")}), "ValidationException",
				"One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: by_g, IndexKey: g")
		}},

		// Expression sizes
		Case{"Limits/ConditionExpressionSize", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			// "attribute_not_exists(" + name + ")" is 22 bytes plus the name.
			h.WantCond(table, it, "attribute_not_exists("+Str(4074)+")", nil, nil, true)
			h.WantCondError(table, it, "attribute_not_exists("+Str(4075)+")", nil, nil, "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097")
		}},
		Case{"Limits/UpdateExpressionSize", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a")})
			_, err := h.UpdateErr(table, Item{"pk": S("a")}, "REMOVE "+Str(4089), nil, nil, types.ReturnValueNone)
			h.Must(err)
			h.WantUpdateError(table, Item{"pk": S("a")}, "REMOVE "+Str(4090), nil, nil, "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;")
		}},
		Case{"Limits/ValuePlaceholderLength", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			ok := ":" + Str(254)
			h.WantCond(table, it, "pk = "+ok, nil, Item{ok: S("a")}, true)
			long := ":" + Str(255)
			h.WantCondError(table, it, "pk = "+long, nil, Item{long: S("a")}, "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
		}},

		// Write capacity
		Case{"WriteCapacity/NotRequested", func(t *testing.T, h *H) {
			table := h.HashTable()
			cc := putCapacity(h, table, Item{"pk": S("a")}, types.ReturnConsumedCapacityNone)
			if cc != nil {
				t.Fatalf("ConsumedCapacity = %+v, want none", cc)
			}
		}},
		Case{"WriteCapacity/PutTotal", func(t *testing.T, h *H) {
			table := h.HashTable()
			cc := putCapacity(h, table, Item{"pk": S("a"), "n": N("1")}, types.ReturnConsumedCapacityTotal)
			h.WantCapacity(cc, table, 1)
			if cc.Table != nil {
				t.Fatalf("TOTAL reports a Table part: %+v", cc.Table)
			}
		}},
		Case{"WriteCapacity/PutRoundsUpPerKB", func(t *testing.T, h *H) {
			table := h.HashTable()
			// One unit per started KB of item size.
			for size, units := range map[int]float64{1024: 1, 1025: 2, 2048: 2, 2049: 3, 10240: 10, 10241: 11} {
				key := fmt.Sprint(size)
				it := Item{"pk": S(key), "v": S(Str(size - (2 + len(key)) - 1))}
				cc := putCapacity(h, table, it, types.ReturnConsumedCapacityTotal)
				h.WantCapacity(cc, table, units)
			}
		}},
		Case{"WriteCapacity/PutLargerOfOldAndNew", func(t *testing.T, h *H) {
			table := largeItemTable(h)
			cc := putCapacity(h, table, Item{"pk": S("a")}, types.ReturnConsumedCapacityTotal)
			h.WantCapacity(cc, table, 3)
		}},
		Case{"WriteCapacity/UpdateLargerOfOldAndNew", func(t *testing.T, h *H) {
			table := largeItemTable(h)
			for _, expr := range []string{"REMOVE v", "SET v = :v"} {
				in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String(expr), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
				if strings.Contains(expr, ":v") {
					in.ExpressionAttributeValues = v1(S(Str(2500)))
				}
				out, err := h.API.UpdateItem(h.Ctx, in)
				h.Must(err)
				h.WantCapacity(out.ConsumedCapacity, table, 3)
			}
		}},
		Case{"WriteCapacity/UpdateCreates", func(t *testing.T, h *H) {
			table := h.HashTable()
			out, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: v1(S(Str(1500))), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			h.Must(err)
			h.WantCapacity(out.ConsumedCapacity, table, 2)
		}},
		Case{"WriteCapacity/DeleteItemSize", func(t *testing.T, h *H) {
			table := largeItemTable(h)
			cc := deleteCapacity(h, table, Item{"pk": S("a")}, types.ReturnConsumedCapacityTotal)
			h.WantCapacity(cc, table, 3)
		}},
		Case{"WriteCapacity/DeleteMissing", func(t *testing.T, h *H) {
			table := h.HashTable()
			cc := deleteCapacity(h, table, Item{"pk": S("a")}, types.ReturnConsumedCapacityTotal)
			h.WantCapacity(cc, table, 1)
		}},
		Case{"WriteCapacity/IndexesNewItem", func(t *testing.T, h *H) {
			table := capTable(h)
			cc := putCapacity(h, table, Item{"pk": S("p"), "sk": S("a"), "g": S("x"), "l": S("y")}, types.ReturnConsumedCapacityIndexes)
			h.WantCapacity(cc, table, 4)
			wantIndexCapacity(h, cc, 1, map[string]float64{"all": 1, "keys": 1, "local": 1})
		}},
		Case{"WriteCapacity/IndexesSparse", func(t *testing.T, h *H) {
			table := capTable(h)
			cc := putCapacity(h, table, Item{"pk": S("p"), "sk": S("a"), "v": N("1")}, types.ReturnConsumedCapacityIndexes)
			wantIndexCapacity(h, cc, 1, map[string]float64{})
		}},
		Case{"WriteCapacity/IndexesTotal", func(t *testing.T, h *H) {
			table := capTable(h)
			cc := putCapacity(h, table, Item{"pk": S("p"), "sk": S("a"), "g": S("x")}, types.ReturnConsumedCapacityTotal)
			h.WantCapacity(cc, table, 3)
		}},
		Case{"WriteCapacity/IndexKeyChanged", func(t *testing.T, h *H) {
			table := capTable(h)
			h.Put(table, Item{"pk": S("p"), "sk": S("a"), "g": S("x")})
			// A changed index key deletes the old entry and writes a new one.
			cc := putCapacity(h, table, Item{"pk": S("p"), "sk": S("a"), "g": S("y")}, types.ReturnConsumedCapacityIndexes)
			wantIndexCapacity(h, cc, 1, map[string]float64{"all": 2, "keys": 2})
		}},
		Case{"WriteCapacity/IndexUnchanged", func(t *testing.T, h *H) {
			table := capTable(h)
			it := Item{"pk": S("p"), "sk": S("a"), "g": S("x"), "l": S("y")}
			h.Put(table, it)
			cc := putCapacity(h, table, it, types.ReturnConsumedCapacityIndexes)
			wantIndexCapacity(h, cc, 1, map[string]float64{})
		}},
		Case{"WriteCapacity/IndexProjectionChanged", func(t *testing.T, h *H) {
			table := capTable(h)
			h.Put(table, Item{"pk": S("p"), "sk": S("a"), "g": S("x"), "v": N("1")})
			// v is projected into "all" but not into "keys".
			out, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("p"), "sk": S("a")},
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: v1(N("2")), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			h.Must(err)
			wantIndexCapacity(h, out.ConsumedCapacity, 1, map[string]float64{"all": 1})
		}},
		Case{"WriteCapacity/IndexKeyRemoved", func(t *testing.T, h *H) {
			table := capTable(h)
			h.Put(table, Item{"pk": S("p"), "sk": S("a"), "g": S("x"), "l": S("y")})
			out, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("p"), "sk": S("a")},
				UpdateExpression: aws.String("REMOVE g"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			h.Must(err)
			// The local index projects everything, g included.
			wantIndexCapacity(h, out.ConsumedCapacity, 1, map[string]float64{"all": 1, "keys": 1, "local": 1})
		}},
		Case{"WriteCapacity/IndexEntrySize", func(t *testing.T, h *H) {
			table := capTable(h)
			cc := putCapacity(h, table, Item{"pk": S("p"), "sk": S("a"), "g": S("x"), "v": S(Str(2500))}, types.ReturnConsumedCapacityIndexes)
			// "all" holds the whole item (3 units); "keys" only the keys (1).
			wantIndexCapacity(h, cc, 3, map[string]float64{"all": 3, "keys": 1})
		}},
		Case{"WriteCapacity/DeleteWithIndexes", func(t *testing.T, h *H) {
			table := capTable(h)
			h.Put(table, Item{"pk": S("p"), "sk": S("a"), "g": S("x")})
			cc := deleteCapacity(h, table, Item{"pk": S("p"), "sk": S("a")}, types.ReturnConsumedCapacityIndexes)
			wantIndexCapacity(h, cc, 1, map[string]float64{"all": 1, "keys": 1})
		}},
	)
}
