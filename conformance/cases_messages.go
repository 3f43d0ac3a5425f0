package conformance

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Messages: one case per family of error messages whose words the probe of
// the wire package (TestMessages_MatchDynamoDBLocal, testdata/messages.txt)
// found to differ from DynamoDB Local's, now aligned. The probe sends
// every variant; these cases hold the words on all three backends.

func legacyCond(op types.ComparisonOperator, vals ...types.AttributeValue) types.Condition {
	return types.Condition{ComparisonOperator: op, AttributeValueList: vals}
}

func init() {
	register(
		Case{"Messages/KeyConditionsNullOnRangeKey", func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			for _, op := range []types.ComparisonOperator{types.ComparisonOperatorNull, types.ComparisonOperatorNotNull} {
				_, err := h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(tbl), KeyConditions: map[string]types.Condition{
					"pk": legacyCond(types.ComparisonOperatorEq, S("a")), "sk": legacyCond(op),
				}})
				h.WantError(err, "ValidationException", "Only scalar types can be used as Range Key values")
			}
		}},
		Case{"Messages/KeyConditionsEmpty", func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			_, err := h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(tbl), KeyConditions: map[string]types.Condition{}})
			h.WantError(err, "ValidationException", "Conditions must be at least length 1")
		}},
		Case{"Messages/QueryFilterOnKey", func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			for _, key := range []string{"pk", "sk"} {
				arg := S("a")
				if key == "sk" {
					arg = N("1")
				}
				_, err := h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(tbl),
					KeyConditions: map[string]types.Condition{"pk": legacyCond(types.ComparisonOperatorEq, S("a"))},
					QueryFilter:   map[string]types.Condition{key: legacyCond(types.ComparisonOperatorEq, arg)},
				})
				h.WantError(err, "ValidationException", "QueryFilter can only contain non-primary key attributes: Primary key attribute: "+key)
			}
			// A FilterExpression on a key is worded as before.
			in := queryIn(tbl, "pk = :a", Item{":a": S("a"), ":n": N("1")})
			in.FilterExpression = aws.String("sk = :n")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk")
		}},
		Case{"Messages/LegacyInOfMixedTypes", func(t *testing.T, h *H) {
			tbl := h.HashTable()
			h.Put(tbl, Item{"pk": S("a"), "v": N("1")})
			const msg = "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"
			in := scanIn(tbl)
			in.ScanFilter = map[string]types.Condition{"v": legacyCond(types.ComparisonOperatorIn, N("1"), S("1"))}
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", msg)
			_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: Item{"pk": S("a")},
				Expected: map[string]types.ExpectedAttributeValue{"v": {ComparisonOperator: types.ComparisonOperatorIn, AttributeValueList: []types.AttributeValue{S("1"), N("1")}}}})
			h.WantError(err, "ValidationException", msg)
			// The same types are fine.
			in.ScanFilter = map[string]types.Condition{"v": legacyCond(types.ComparisonOperatorIn, N("1"), N("2"))}
			h.WantItems(h.MustScan(in).Items, []Item{{"pk": S("a"), "v": N("1")}})
		}},
		Case{"Messages/ExpectedArgumentList", func(t *testing.T, h *H) {
			tbl := h.HashTable()
			del := func(e types.ExpectedAttributeValue) error {
				_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tbl), Key: Item{"pk": S("a")},
					Expected: map[string]types.ExpectedAttributeValue{"v": e}})
				return err
			}
			// An empty list is a wrong number of arguments; no list at all
			// is a missing one, even for an operator that does not exist.
			h.WantError(del(types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorIn, AttributeValueList: []types.AttributeValue{}}),
				"ValidationException", "One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator")
			h.WantError(del(types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorIn}),
				"ValidationException", "One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: IN for Attribute: v")
			h.WantError(del(types.ExpectedAttributeValue{ComparisonOperator: "FOO"}),
				"ValidationException", "One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: FOO for Attribute: v")
			h.WantError(del(types.ExpectedAttributeValue{ComparisonOperator: "FOO", AttributeValueList: []types.AttributeValue{N("1")}}),
				"ValidationException", "Comparison type does not exist in DynamoDB")
		}},
		Case{"Messages/AttributesToGetDuplicate", func(t *testing.T, h *H) {
			tbl := h.HashTable()
			_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl), Key: Item{"pk": S("a")}, AttributesToGet: []string{"v", "w", "v"}})
			h.WantError(err, "ValidationException", "Cannot have two attributes with the same name")
			in := scanIn(tbl)
			in.AttributesToGet = []string{"v", "v"}
			_, err = h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "Cannot have two attributes with the same name")
			// BatchGetItem words it otherwise.
			ka := keysAndAttrs(Item{"pk": S("a")})
			ka.AttributesToGet = []string{"v", "v"}
			_, err = h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tbl: ka}})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Duplicate value in attribute name: v")
		}},
		createError("EmptyKeyAttributeName", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("", "S"), KeySchema: keySchema("")},
			"Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive"),
		createError("EmptyKeyAttributeNameUndefined", dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("")},
			"Hash Key not specified in Attribute Definitions.  Type unknown."),
		createError("NoAttributeDefinitions", dynamodb.CreateTableInput{AttributeDefinitions: []types.AttributeDefinition{}, KeySchema: keySchema("pk")}, "No Attribute Schema Defined"),
		Case{"Messages/IndexExclusiveStartKey", func(t *testing.T, h *H) {
			tbl := h.HashTableByG()
			q := func(esk Item) error {
				in := queryIn(tbl, "g = :g", Item{":g": S("a")})
				in.IndexName, in.ExclusiveStartKey = aws.String("by_g"), esk
				_, err := h.API.Query(h.Ctx, in)
				return err
			}
			// A global index's start key: one attribute too many is an
			// invalid key, an index key of the wrong type a type mismatch.
			h.WantError(q(Item{"g": S("a"), "pk": S("a"), "x": S("y")}), "ValidationException", "The provided starting key is invalid")
			h.WantError(q(Item{"g": N("1"), "pk": S("a")}), "ValidationException", "Type mismatch for attribute to update")
			h.Must(q(Item{"g": S("a"), "pk": S("a")}))
			// A local index's start key must have all three attributes.
			lt := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "sk", "N", "lk", "S"), KeySchema: keySchema("pk", "sk"),
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("by_lk", "pk", "lk", types.ProjectionTypeAll)},
			})
			in := queryIn(lt, "pk = :p", Item{":p": S("a")})
			in.IndexName, in.ExclusiveStartKey = aws.String("by_lk"), Item{"pk": S("a"), "sk": N("1")}
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Exclusive Start Key must have same size as table's key schema")
		}},
		Case{"Messages/KeyConditionRangeValueTooLarge", func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeS)
			for _, kc := range []string{"pk = :p AND sk > :s", "pk = :p AND begins_with(sk, :s)"} {
				_, err := h.API.Query(h.Ctx, queryIn(tbl, kc, Item{":p": S("a"), ":s": S(Str(1025))}))
				h.WantError(err, "ValidationException", "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
			}
			// A partition key value past its limit matches nothing.
			out, err := h.API.Query(h.Ctx, queryIn(tbl, "pk = :p", Item{":p": S(Str(2049))}))
			h.Must(err)
			if len(out.Items) != 0 {
				t.Fatalf("%d items", len(out.Items))
			}
		}},
		Case{"Messages/ProjectedAttributesLimit", func(t *testing.T, h *H) {
			nk := func(prefix string) []string { return seq(prefix, 60) }
			err := h.createErr(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					gsi("one", "g", "", types.ProjectionTypeInclude, nk("a")...),
					gsi("two", "g", "", types.ProjectionTypeInclude, nk("b")...),
				},
			})
			h.WantError(err, "ValidationException", "No more than 20 attributes per table can be projected into Local Secondary Indices")
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("one", "g", "", types.ProjectionTypeInclude, seq("a", 100)...)},
			})
			if n := len(h.Describe(tbl).GlobalSecondaryIndexes[0].Projection.NonKeyAttributes); n != 100 {
				t.Fatalf("%d projected attributes, want 100", n)
			}
		}},
		Case{"Messages/TooManyLocalIndexes", func(t *testing.T, h *H) {
			defs := []string{"pk", "S", "sk", "S"}
			var lsis []types.LocalSecondaryIndex
			for i := range 6 {
				a := fmt.Sprint("l", i)
				defs = append(defs, a, "S")
				lsis = append(lsis, lsi("by_"+a, "pk", a, types.ProjectionTypeKeysOnly))
			}
			err := h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs(defs...), KeySchema: keySchema("pk", "sk"), LocalSecondaryIndexes: lsis})
			h.WantError(err, "ValidationException", "Cannot have more than 5 local secondary indexes per table")
		}},
		Case{"Messages/ClientRequestTokenTooLong", func(t *testing.T, h *H) {
			tbl := txFixture(h)
			token := Str(37)
			_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token), TransactItems: []types.TransactWriteItem{txPut(tbl, txItem("e", "1"))}})
			h.WantError(err, "ValidationException", "Value "+token+" at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36")
		}},
		Case{"Messages/UpdateTableValidation", func(t *testing.T, h *H) {
			tbl := h.HashTable()
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(tbl), AttributeDefinitions: attrDefs("x", "S")})
			h.WantError(err, "ValidationException", "Nothing to update")
			_, err = h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(tbl), BillingMode: types.BillingModeProvisioned})
			h.WantError(err, "ValidationException", "No provisioned throughput specified for the table")
			_, err = h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(tbl), AttributeDefinitions: attrDefs("pk", "N"),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("by_pk"), KeySchema: keySchema("pk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
			h.WantError(err, "ValidationException", "invalid attribute, SchemaElement redefined should be of same type as previously defined")
		}},
		Case{"Messages/UpdateTableEmptyIndexUpdate", func(t *testing.T, h *H) {
			tbl := h.HashTableByG()
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(tbl), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{}}})
			h.WantError(err, "ValidationException", "Update global secondary index action is null")
			if n := len(h.Describe(tbl).GlobalSecondaryIndexes); n != 1 {
				t.Fatalf("%d global indexes after a refused update, want 1", n)
			}
		}},
	)
}
