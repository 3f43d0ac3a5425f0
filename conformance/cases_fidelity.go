package conformance

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cases for details in which an implementation can easily differ from
// DynamoDB: which error a request with a problem gets, and where in the
// order of DynamoDB's checks.

func init() {
	register(
		Case{"NestedKeyPath/GetItemProjection", nestedKeyGetItem},
		Case{"NestedKeyPath/IndexOrder", nestedKeyIndexOrder},
		Case{"NestedKeyPath/QueryAndScan", nestedKeyQueryScan},
		Case{"NestedKeyPath/KeyCondition", nestedKeyKeyCondition},
		Case{"NestedKeyPath/Writes", nestedKeyWrites},
		Case{"NestedKeyPath/BatchAndTransactGet", nestedKeyBatchGet},
	)
}

// msgNestedKey is DynamoDB's message for a nested path into a key
// attribute; what is "Key" (table) or "IndexKey".
func msgNestedKey(what, name string) string {
	return "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: " + what + ": " + name
}

// fidTable creates the table most cases here use: pk (S) and sk (N), and a
// global index gsi on g (S) and gn (N) projecting a, m and ss.
func fidTable(h *H) string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{
			bDef("pk", types.ScalarAttributeTypeS), bDef("sk", types.ScalarAttributeTypeN),
			bDef("g", types.ScalarAttributeTypeS), bDef("gn", types.ScalarAttributeTypeN),
		},
		KeySchema:              bKeySchema("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{bGSI("gsi", "g", "gn", bProjection(types.ProjectionTypeInclude, "a", "m", "ss"))},
	})
}

func fidKey(pk, sk string) Item { return Item{"pk": S(pk), "sk": N(sk)} }

func nestedKeyGetItem(t *testing.T, h *H) {
	tab := fidTable(h)
	h.Put(tab, Item{"pk": S("a"), "sk": N("1"), "g": S("x"), "gn": N("2"), "m": M(Item{"x": N("1")})})
	get := func(key Item, proj string, names Names) error {
		in := &dynamodb.GetItemInput{TableName: aws.String(tab), Key: key, ProjectionExpression: aws.String(proj)}
		if names != nil {
			in.ExpressionAttributeNames = names
		}
		_, err := h.API.GetItem(h.Ctx, in)
		return err
	}
	key := fidKey("a", "1")
	h.WantError(get(key, "sk.x", nil), "ValidationException", msgNestedKey("Key", "sk"))
	h.WantError(get(key, "#p[0]", Names{"#p": "pk"}), "ValidationException", msgNestedKey("Key", "pk"))
	h.WantError(get(key, "g.x", nil), "ValidationException", msgNestedKey("IndexKey", "g"))
	// Table keys first, hash before range, whatever the order of the paths.
	h.WantError(get(key, "a, gn.y, sk.x", nil), "ValidationException", msgNestedKey("Key", "sk"))
	h.WantError(get(key, "sk.x, pk.x", nil), "ValidationException", msgNestedKey("Key", "pk"))
	h.WantError(get(key, "gn.x, g.x", nil), "ValidationException", msgNestedKey("IndexKey", "g"))
	// After the projection's own checks, before the key's.
	h.WantError(get(key, "sk.x, sk", nil), "ValidationException", "~Two document paths overlap")
	h.WantError(get(key, "sk.x", Names{"#u": "u"}), "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}")
	h.WantError(get(Item{"pk": N("1"), "sk": N("1")}, "sk.x", nil), "ValidationException", msgNestedKey("Key", "sk"))
	// Nested paths into other attributes are fine.
	out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(tab), Key: key, ProjectionExpression: aws.String("m.x, gn")})
	h.Must(err)
	h.WantItem(out.Item, Item{"m": M(Item{"x": N("1")}), "gn": N("2")})
}

// nestedKeyIndexOrder: index keys are looked for index by index, local
// indexes first, each kind in DynamoDB Local's order of index names.
func nestedKeyIndexOrder(t *testing.T, h *H) {
	tab := h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{
			bDef("pk", types.ScalarAttributeTypeS), bDef("sk", types.ScalarAttributeTypeS), bDef("lk", types.ScalarAttributeTypeN),
			bDef("g1", types.ScalarAttributeTypeS), bDef("g2", types.ScalarAttributeTypeS), bDef("g3", types.ScalarAttributeTypeN),
		},
		KeySchema: bKeySchema("pk", "sk"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("lsi1"), KeySchema: bKeySchema("pk", "lk"), Projection: bProjection(types.ProjectionTypeAll),
		}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			bGSI("gsi2", "g2", "g3", bProjection(types.ProjectionTypeAll)),
			bGSI("gsi1", "g1", "", bProjection(types.ProjectionTypeKeysOnly)),
		},
	})
	get := func(proj string) error {
		_, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{
			TableName: aws.String(tab), Key: Item{"pk": S("a"), "sk": S("b")}, ProjectionExpression: aws.String(proj),
		})
		return err
	}
	h.WantError(get("g1.x, g2.x, g3.x, lk.x"), "ValidationException", msgNestedKey("IndexKey", "lk"))
	h.WantError(get("g3.x, g2.x, g1.x"), "ValidationException", msgNestedKey("IndexKey", "g1"))
	h.WantError(get("g3.x, g2.x"), "ValidationException", msgNestedKey("IndexKey", "g2"))
}

func nestedKeyQueryScan(t *testing.T, h *H) {
	tab := fidTable(h)
	p := Item{":p": S("a")}
	query := func(in *dynamodb.QueryInput) error {
		in.TableName = aws.String(tab)
		if in.KeyConditionExpression == nil {
			in.KeyConditionExpression = aws.String("pk = :p")
		}
		in.ExpressionAttributeValues = p
		_, err := h.API.Query(h.Ctx, in)
		return err
	}
	// Per expression: filter, projection, then key condition.
	h.WantError(query(&dynamodb.QueryInput{FilterExpression: aws.String("gn.x = :p"), ProjectionExpression: aws.String("sk.x")}),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk.x = :p"), ProjectionExpression: aws.String("gn.x")}),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
	// Before the filter's check for key attributes.
	h.WantError(query(&dynamodb.QueryInput{FilterExpression: aws.String("sk.x = :p")}), "ValidationException", msgNestedKey("Key", "sk"))
	// After the index and the limit, before Select and consistency.
	h.WantError(query(&dynamodb.QueryInput{IndexName: aws.String("nope"), FilterExpression: aws.String("sk.x = :p")}),
		"ValidationException", "The table does not have the specified index: nope")
	h.WantError(query(&dynamodb.QueryInput{Limit: aws.Int32(0), ProjectionExpression: aws.String("sk.x")}),
		"ValidationException", "Limit must be greater than or equal to 1")
	h.WantError(query(&dynamodb.QueryInput{Select: types.SelectCount, ProjectionExpression: aws.String("sk.x")}),
		"ValidationException", msgNestedKey("Key", "sk"))
	h.WantError(query(&dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("g = :p"),
		ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("gn.x")}),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(query(&dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("g = :p"),
		ConsistentRead: aws.Bool(true), Limit: aws.Int32(0)}),
		"ValidationException", "Limit must be greater than or equal to 1")
	h.WantError(query(&dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("g = :p"),
		ProjectionExpression: aws.String("zz, gn.x")}),
		"ValidationException", msgNestedKey("IndexKey", "gn"))

	scan := func(in *dynamodb.ScanInput) error {
		in.TableName = aws.String(tab)
		_, err := h.API.Scan(h.Ctx, in)
		return err
	}
	h.WantError(scan(&dynamodb.ScanInput{FilterExpression: aws.String("gn.x = :v"), ProjectionExpression: aws.String("sk.x"),
		ExpressionAttributeValues: Item{":v": N("1")}}), "ValidationException", msgNestedKey("IndexKey", "gn"))
	// A Scan checks Select and its start key first.
	h.WantError(scan(&dynamodb.ScanInput{ProjectionExpression: aws.String("gn.x"), Select: types.SelectCount}),
		"ValidationException", "Cannot specify the ProjectionExpression when choosing to get only the Count")
	h.WantError(scan(&dynamodb.ScanInput{ProjectionExpression: aws.String("gn.x"), ExclusiveStartKey: Item{"pk": N("1")}}),
		"ValidationException", "Exclusive Start Key must have same size as table's key schema")
	h.WantError(scan(&dynamodb.ScanInput{IndexName: aws.String("gsi"), ProjectionExpression: aws.String("zz, gn.x")}),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
}

func nestedKeyKeyCondition(t *testing.T, h *H) {
	tab := fidTable(h)
	query := func(index, kc string) error {
		in := &dynamodb.QueryInput{TableName: aws.String(tab), KeyConditionExpression: aws.String(kc), ExpressionAttributeValues: Item{":p": S("a")}}
		if index != "" {
			in.IndexName = aws.String(index)
		}
		_, err := h.API.Query(h.Ctx, in)
		return err
	}
	h.WantError(query("", "pk.x = :p"), "ValidationException", msgNestedKey("Key", "pk"))
	h.WantError(query("", "pk = :p AND sk.x = :p"), "ValidationException", msgNestedKey("Key", "sk"))
	h.WantError(query("", "pk = :p AND gn.x = :p"), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(query("gsi", "g = :p AND gn.x = :p"), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(query("gsi", "g = :p AND pk.x = :p"), "ValidationException", msgNestedKey("Key", "pk"))
	// Nested paths into other attributes.
	h.WantError(query("", "a.x = :p AND pk = :p"), "ValidationException", "KeyConditionExpressions cannot have conditions on nested attributes")
	h.WantError(query("", "pk = :p AND a.x = a.y"), "ValidationException", "KeyConditionExpressions cannot have conditions on nested attributes")
	h.WantError(query("", "pk = :p AND size(a.x) > :p"), "ValidationException", "KeyConditionExpressions cannot contain nested operations")
	h.WantError(query("", "pk = :p AND a.x <> :p"), "ValidationException", "Invalid operator used in KeyConditionExpression: <>")
}

func nestedKeyWrites(t *testing.T, h *H) {
	tab := fidTable(h)
	key := fidKey("a", "1")
	one := Item{":v": N("1")}
	upd := func(key Item, update, cond string, values Item) error {
		in := &dynamodb.UpdateItemInput{TableName: aws.String(tab), Key: key, UpdateExpression: aws.String(update)}
		if cond != "" {
			in.ConditionExpression = aws.String(cond)
		}
		if values != nil {
			in.ExpressionAttributeValues = values
		}
		_, err := h.API.UpdateItem(h.Ctx, in)
		return err
	}
	h.WantError(upd(key, "SET gn.x = :v", "", one), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(upd(key, "REMOVE gn[0]", "", nil), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(upd(key, "ADD gn.x :v", "", one), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(upd(key, "SET a = if_not_exists(g.x, :v)", "", one), "ValidationException", msgNestedKey("IndexKey", "g"))
	h.WantError(upd(key, "SET b = gn.x, a = sk.x", "", nil), "ValidationException", msgNestedKey("Key", "sk"))
	// A write of a key attribute is refused first.
	h.WantError(upd(key, "SET sk.x = :v", "", one), "ValidationException",
		"One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")
	h.WantError(upd(key, "SET a = gn.x, sk = :v", "", one), "ValidationException",
		"One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")
	// The condition is checked before it is evaluated; the update after.
	h.WantError(upd(key, "SET a = :v", "size(sk.x) > :v", one), "ValidationException", msgNestedKey("Key", "sk"))
	h.WantError(upd(key, "SET sk.x = :v", "size(gn.x) > :v", one), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(upd(key, "SET a = gn.x", "attribute_exists(zz)", nil), "ConditionalCheckFailedException", "")
	h.WantError(upd(key, "SET sk.x = :v", "attribute_exists(zz)", one), "ConditionalCheckFailedException", "")
	// The key is checked before.
	h.WantError(upd(Item{"pk": N("1"), "sk": N("1")}, "SET a = :v", "size(gn.x) > :v", one), "ValidationException",
		"One or more parameter values were invalid: Type mismatch for key")

	_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: fidKey("b", "1"),
		ConditionExpression: aws.String("attribute_exists(gn.x)")})
	h.WantError(err, "ValidationException", msgNestedKey("IndexKey", "gn"))
	_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: Item{"pk": S("b"), "sk": N("1"), "gn": S("x")},
		ConditionExpression: aws.String("attribute_exists(gn.x)")})
	h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
	_, err = h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tab), Key: key,
		ConditionExpression: aws.String("attribute_exists(pk[1])")})
	h.WantError(err, "ValidationException", msgNestedKey("Key", "pk"))
}

func nestedKeyBatchGet(t *testing.T, h *H) {
	tab := fidTable(h)
	key := fidKey("a", "1")
	_, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		tab: {Keys: []Item{key}, ProjectionExpression: aws.String("a, gn.x")},
	}})
	h.WantError(err, "ValidationException", msgNestedKey("IndexKey", "gn"))
	// Keys are checked first.
	_, err = h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		tab: {Keys: []Item{{"pk": N("1"), "sk": N("1")}}, ProjectionExpression: aws.String("gn.x")},
	}})
	h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for key")
	_, err = h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		tab: {Keys: []Item{key, key}, ProjectionExpression: aws.String("a,,")},
	}})
	h.WantError(err, "ValidationException", "Provided list of item keys contains duplicates")

	tget := func(items ...types.TransactGetItem) error {
		_, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
		return err
	}
	g := func(key Item, proj string) types.TransactGetItem {
		return types.TransactGetItem{Get: &types.Get{TableName: aws.String(tab), Key: key, ProjectionExpression: aws.String(proj)}}
	}
	h.WantError(tget(g(key, "sk.x")), "ValidationException", msgNestedKey("Key", "sk"))
	// Item by item: the projection is checked before the key.
	h.WantError(tget(g(key, "a"), g(Item{"pk": N("1"), "sk": N("2")}, "g.x")), "ValidationException", msgNestedKey("IndexKey", "g"))
	h.WantError(tget(g(key, "gn.x"), g(Item{"pk": N("1"), "sk": N("2")}, "a")), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(tget(g(key, "gn.x"), g(key, "a")), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(tget(g(key, "a"), g(key, "gn.x")), "ValidationException", msgNestedKey("IndexKey", "gn"))
}
