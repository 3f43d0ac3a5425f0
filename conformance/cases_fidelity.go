package conformance

import (
	"strings"
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
		Case{"NestedKeyPath/TransactWrite", nestedKeyTransactWrite},
		Case{"TransactOrder/OperationByOperation", transactOrderByOperation},
		Case{"TransactOrder/WithinOperation", transactOrderWithinOperation},
		Case{"TransactOrder/DuplicatesAfterEvaluation", transactOrderDuplicates},
		Case{"UpdatedValues/PathMustExist", updatedValuesPathMustExist},
		Case{"CheckOrder/OverlapNaming", checkOrderOverlapNaming},
		Case{"CheckOrder/ParseTimeByPosition", checkOrderParseTime},
		Case{"CheckOrder/OperandsBeforeOperator", checkOrderOperands},
		Case{"CheckOrder/UpdatePathsBeforeValues", checkOrderUpdatePaths},
		Case{"CheckOrder/PlaceholderMaps", checkOrderPlaceholderMaps},
		Case{"UpdateOrder/RuntimeErrors", updateOrderRuntime},
		Case{"UpdateOrder/OperandEvaluation", updateOrderOperands},
		Case{"IndexProjection/MissingAttributesOrder", indexProjectionMissingOrder},
		Case{"QueryOrder/Checks", queryOrderChecks},
		Case{"ScanOrder/SelectSpecificProjectionFirst", scanSelectSpecificOrder},
		Case{"IndexKey/EmptyStringInKeyCondition", indexKeyEmptyString},
		Case{"IndexWrite/NumberRespelled", indexWriteNumberRespelled},
		Case{"ScanOrder/Checks", scanOrderChecks},
		Case{"WriteOrder/ParametersBeforeItem", writeOrderParams},
		Case{"UpdateOrder/KeysOfTheNewItem", updateOrderNewItemKeys},
	)
}

// msgNestedKey is DynamoDB's message for a nested path into a key
// attribute; what is "Key" (table) or "IndexKey".
func msgNestedKey(what, name string) string {
	return "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: " + what + ": " + name
}

// indexedTable creates the table most cases here use: pk (S) and sk (N), and a
// global index gsi on g (S) and gn (N) projecting a, m and ss.
func indexedTable(h *H) string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions:   attrDefs("pk", "S", "sk", "N", "g", "S", "gn", "N"),
		KeySchema:              keySchema("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("gsi", "g", "gn", types.ProjectionTypeInclude, "a", "m", "ss")},
	})
}

// indexedKey is the key of indexedTable with partition pk and sort key sk.
func indexedKey(pk, sk string) Item { return Item{"pk": S(pk), "sk": N(sk)} }

func nestedKeyGetItem(t *testing.T, h *H) {
	tab := indexedTable(h)
	h.Put(tab, Item{"pk": S("a"), "sk": N("1"), "g": S("x"), "gn": N("2"), "m": M(Item{"x": N("1")})})
	get := func(key Item, proj string, names Names) error {
		in := &dynamodb.GetItemInput{TableName: aws.String(tab), Key: key, ProjectionExpression: aws.String(proj)}
		if names != nil {
			in.ExpressionAttributeNames = names
		}
		_, err := h.API.GetItem(h.Ctx, in)
		return err
	}
	key := indexedKey("a", "1")
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
		AttributeDefinitions:  attrDefs("pk", "S", "sk", "S", "lk", "N", "g1", "S", "g2", "S", "g3", "N"),
		KeySchema:             keySchema("pk", "sk"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("lsi1", "pk", "lk", types.ProjectionTypeAll)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			gsi("gsi2", "g2", "g3", types.ProjectionTypeAll),
			gsi("gsi1", "g1", "", types.ProjectionTypeKeysOnly),
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
	tab := indexedTable(h)
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
	tab := indexedTable(h)
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
	tab := indexedTable(h)
	key := indexedKey("a", "1")
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

	_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: indexedKey("b", "1"),
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
	tab := indexedTable(h)
	key := indexedKey("a", "1")
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

func nestedKeyTransactWrite(t *testing.T, h *H) {
	tab := indexedTable(h)
	k1, k2 := indexedKey("a", "1"), indexedKey("b", "1")
	one := Item{":v": N("1")}
	h.WantError(h.txWrite(txCond(txPut(tab, k1), "attribute_exists(gn.x)")), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(h.txWrite(txUpdate(tab, k1, "SET a = gn.x", nil)), "ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(h.txWrite(txCond(txDelete(tab, k1), "attribute_exists(sk.x)")), "ValidationException", msgNestedKey("Key", "sk"))
	// Not checked in a ConditionCheck.
	h.WantCancelCodes(h.txWrite(txCheck(tab, k1, "attribute_exists(gn.x)", nil)), "ConditionalCheckFailed")
	// Thrown in the order of the operations, over the reasons of earlier
	// ones and before the errors of later ones.
	h.WantError(h.txWrite(txCond(txUpdate(tab, k1, "REMOVE a", nil), "attribute_exists(zz)"), txUpdate(tab, k2, "REMOVE gn.x", nil)),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(h.txWrite(txUpdate(tab, k1, "REMOVE gn.x", nil), txUpdate(tab, k2, "SET sk = :v", one)),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
	_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		txUpdate(tab, k1, "SET sk = :v", one), txUpdate(tab, k2, "REMOVE gn.x", nil),
	}})
	h.WantCancelCodes(err, "ValidationError")
	h.WantError(h.txWrite(txCond(txDelete(tab, k2), "attribute_exists(sk.x)"), txPut(tab, k1), txPut(tab, k1)),
		"ValidationException", msgNestedKey("Key", "sk"))
	h.WantError(h.txWrite(txPut(tab, k1), txPut(tab, k1), txCond(txDelete(tab, k2), "attribute_exists(sk.x)")),
		"ValidationException", "Transaction request cannot include multiple operations on one item")
	// Expressions and items of all operations are checked first.
	h.WantError(h.txWrite(txUpdate(tab, k1, "REMOVE gn.x", nil), txUpdate(tab, k2, "REMOVE a,", nil)),
		"ValidationException", "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\"")
	h.WantError(h.txWrite(txUpdate(tab, k2, "REMOVE gn.x", nil), txPut(tab, Item{"pk": S("a"), "sk": N("1"), "x": SS()})),
		"ValidationException", "One or more parameter values were invalid: An string set  may not be empty")
}

// transactOrderByOperation: after the expressions and items, DynamoDB
// takes the operations one by one, each to its end.
func transactOrderByOperation(t *testing.T, h *H) {
	tab := indexedTable(h)
	k1, k2 := indexedKey("a", "1"), indexedKey("b", "1")
	one := Item{":v": N("1")}
	noExpr := types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tab), Item: indexedKey("w", "1"), ExpressionAttributeNames: Names{"#a": "a"}}}
	const msgNoExpr = "ExpressionAttributeNames can only be specified when using expressions"
	missing := txPut(h.TableName(), Item{"pk": S("a")})
	const msgMissing = "~non-existent table"
	// Placeholders without an expression, against a later or earlier
	// operation's error of each kind.
	h.WantError(h.txWrite(noExpr, missing), "ValidationException", msgNoExpr)
	h.WantError(h.txWrite(missing, noExpr), "ResourceNotFoundException", msgMissing)
	h.WantError(h.txWrite(noExpr, txUpdate(tab, k2, "SET sk = :v", one)), "ValidationException", msgNoExpr)
	h.WantCancelCodes(h.txWrite(txUpdate(tab, k2, "SET sk = :v", one), noExpr), "ValidationError")
	h.WantError(h.txWrite(noExpr, txUpdate(tab, k2, "SET a = zz", nil)), "ValidationException", msgNoExpr)
	h.WantError(h.txWrite(txUpdate(tab, k2, "SET a = zz", nil), noExpr), "ValidationException",
		"The provided expression refers to an attribute that does not exist in the item")
	// Reasons (key types, conditions) do not stop later operations.
	h.WantError(h.txWrite(txPut(tab, Item{"pk": N("1"), "sk": N("1")}), noExpr), "ValidationException", msgNoExpr)
	h.WantError(h.txWrite(txCond(txPut(tab, k1), "attribute_exists(zz)"), noExpr), "ValidationException", msgNoExpr)
	h.WantError(h.txWrite(txCond(txPut(tab, k1), "attribute_exists(zz)"), txUpdate(tab, k2, "SET a = zz", nil)), "ValidationException",
		"The provided expression refers to an attribute that does not exist in the item")
	_, err := h.API.TransactWriteItems(h.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		txCond(txPut(tab, k1), "attribute_exists(zz)"), txUpdate(tab, k2, "SET sk = :v", one),
	}})
	h.WantCancelCodes(err, "ValidationError")
	h.WantError(h.txWrite(txUpdate(tab, k1, "SET a = zz", nil), txUpdate(tab, k2, "SET sk = :v", one)), "ValidationException",
		"The provided expression refers to an attribute that does not exist in the item")
	// Key errors other than type mismatches are thrown.
	h.WantError(h.txWrite(txUpdate(tab, k2, "REMOVE gn.x", nil), txPut(tab, Item{"pk": S("a")})),
		"ValidationException", msgNestedKey("IndexKey", "gn"))
	h.WantError(h.txWrite(txPut(tab, Item{"pk": S("a")}), txUpdate(tab, k2, "REMOVE gn.x", nil)),
		"ValidationException", "One of the required keys was not given a value")
	// Nothing was written.
	if item := h.Get(tab, k2); item != nil {
		h.t.Fatalf("item %s written by a failed transaction", FormatItem(item))
	}
}

// transactOrderWithinOperation: within an operation, key type, condition,
// key attribute update, update.
func transactOrderWithinOperation(t *testing.T, h *H) {
	tab := indexedTable(h)
	k := indexedKey("b", "1")
	one := Item{":v": N("1")}
	h.WantCancelCodes(h.txWrite(txCond(txUpdate(tab, k, "SET sk = :v", one), "attribute_exists(zz)")), "ConditionalCheckFailed")
	h.WantCancelCodes(h.txWrite(txCond(txUpdate(tab, k, "SET a = zz", nil), "attribute_exists(zz)")), "ConditionalCheckFailed")
	h.WantCancelCodes(h.txWrite(txCond(txUpdate(tab, k, "SET a = gn.x", nil), "attribute_exists(zz)")), "ConditionalCheckFailed")
	h.WantCancelCodes(h.txWrite(txUpdate(tab, Item{"pk": N("1"), "sk": N("1")}, "SET a = zz", nil)), "ValidationError")
	h.WantCancelCodes(h.txWrite(txCond(txPut(tab, Item{"pk": N("1"), "sk": N("1")}), "attribute_exists(gn.x)")), "ValidationError")
	h.WantError(h.txWrite(txUpdate(tab, k, "SET a = gn.x, sk = :v", one)), "TransactionCanceledException", "")
}

// transactOrderDuplicates: an operation on the item of an earlier one is
// refused only once it passed its own checks; an operation that failed
// does not count.
func transactOrderDuplicates(t *testing.T, h *H) {
	tab := indexedTable(h)
	k1, k2 := indexedKey("a", "1"), indexedKey("b", "1")
	one := Item{":v": N("1")}
	const msgDup = "Transaction request cannot include multiple operations on one item"
	h.WantError(h.txWrite(txPut(tab, k1), txPut(tab, k1)), "ValidationException", msgDup)
	h.WantCancelCodes(h.txWrite(txPut(tab, k1), txCond(txPut(tab, k1), "attribute_exists(zz)")), "None", "ConditionalCheckFailed")
	h.WantCancelCodes(h.txWrite(txCond(txPut(tab, k1), "attribute_exists(zz)"), txPut(tab, k1)), "ConditionalCheckFailed", "None")
	h.WantCancelCodes(h.txWrite(txPut(tab, k1), txPut(tab, Item{"pk": S("a"), "sk": N("1"), "gn": S("x")})), "None", "ValidationError")
	h.WantCancelCodes(h.txWrite(txPut(tab, k1), txUpdate(tab, k1, "SET sk = :v", one)), "ValidationError")
	h.WantError(h.txWrite(txPut(tab, k1), txUpdate(tab, k1, "SET a = zz", nil)), "ValidationException",
		"The provided expression refers to an attribute that does not exist in the item")
	h.WantError(h.txWrite(txUpdate(tab, k1, "SET a = zz", nil), txPut(tab, k2), txPut(tab, k2)), "ValidationException",
		"The provided expression refers to an attribute that does not exist in the item")
	h.WantError(h.txWrite(txCond(txPut(tab, k1), "attribute_exists(zz)"), txPut(tab, k2), txPut(tab, k2)), "ValidationException", msgDup)
}

// updatedValuesPathMustExist: UPDATED_OLD and UPDATED_NEW return the whole
// top-level attribute of each path the update names, when that path exists
// in the item before (OLD) or after (NEW) the update.
func updatedValuesPathMustExist(t *testing.T, h *H) {
	tab := indexedTable(h)
	key := indexedKey("u", "1")
	m := M(Item{"x": N("1"), "y": N("2"), "z": M(Item{"q": N("1")})})
	l := L(N("1"), N("2"), M(Item{"k": N("3")}))
	base := Item{"pk": S("u"), "sk": N("1"), "a": N("1"), "m": m, "l": l, "ss": SS("a", "b")}
	check := func(update string, values Item, rv types.ReturnValue, want Item) {
		t.Helper()
		h.Put(tab, base)
		out, err := h.UpdateErr(tab, key, update, nil, values, rv)
		h.Must(err)
		if len(want) == 0 {
			if len(out.Attributes) != 0 {
				t.Fatalf("%s %s: Attributes = %s, want none", update, rv, FormatItem(out.Attributes))
			}
			return
		}
		h.WantItem(out.Attributes, want)
	}
	v := Item{":v": N("9")}
	newOnly, oldOnly := types.ReturnValueUpdatedNew, types.ReturnValueUpdatedOld
	// Removed paths have no new value; created paths no old one.
	check("REMOVE m.x", nil, newOnly, nil)
	check("REMOVE m.x", nil, oldOnly, Item{"m": m})
	check("REMOVE m.x, m.y", nil, newOnly, nil)
	check("REMOVE m.nope", nil, oldOnly, nil)
	check("REMOVE m.z.q", nil, newOnly, nil)
	check("SET m.w = :v", v, oldOnly, nil)
	check("SET m.w = :v", v, newOnly, Item{"m": M(Item{"w": N("9"), "x": N("1"), "y": N("2"), "z": M(Item{"q": N("1")})})})
	check("ADD m.nn :v", v, oldOnly, nil)
	check("DELETE ss :s", Item{":s": SS("a", "b")}, newOnly, nil)
	// List elements: by index in the list before or after the update.
	check("REMOVE l[1]", nil, newOnly, Item{"l": L(N("1"), M(Item{"k": N("3")}))})
	check("REMOVE l[2]", nil, newOnly, nil)
	check("REMOVE l[9]", nil, oldOnly, nil)
	check("SET l[7] = :v", v, newOnly, nil)
	check("SET l[7] = :v", v, oldOnly, nil)
	check("SET l[3] = :v", v, newOnly, Item{"l": L(N("1"), N("2"), M(Item{"k": N("3")}), N("9"))})
	check("SET l[2] = :v REMOVE l[0]", v, newOnly, Item{"l": L(N("2"), N("9"))})
	// One present path is enough.
	check("SET m.x = :v REMOVE m.y", v, newOnly, Item{"m": M(Item{"x": N("9"), "z": M(Item{"q": N("1")})})})
}

// projErr returns the error of a GetItem with projection proj.
func (h *H) projErr(tab, proj string, names Names) error {
	in := &dynamodb.GetItemInput{TableName: aws.String(tab), Key: indexedKey("a", "1"), ProjectionExpression: aws.String(proj)}
	if names != nil {
		in.ExpressionAttributeNames = names
	}
	_, err := h.API.GetItem(h.Ctx, in)
	return err
}

func msgOverlap(kind, one, two string) string {
	return "Invalid " + kind + ": Two document paths overlap with each other; must remove or rewrite one of these paths; path one: " + one + ", path two: " + two
}

// checkOrderOverlapNaming: DynamoDB Local adds the paths to a tree in
// reverse order and names the path it was adding and the first path of the
// tree where they meet, in the order of its hash maps.
func checkOrderOverlapNaming(t *testing.T, h *H) {
	tab := indexedTable(h)
	const proj, upd = "ProjectionExpression", "UpdateExpression"
	h.WantError(h.projErr(tab, "c, m, c", nil), "ValidationException", msgOverlap(proj, "[c]", "[m]"))
	h.WantError(h.projErr(tab, "a, a, b", nil), "ValidationException", msgOverlap(proj, "[a]", "[b]"))
	h.WantError(h.projErr(tab, "b, a, a", nil), "ValidationException", msgOverlap(proj, "[a]", "[a]"))
	h.WantError(h.projErr(tab, "a.b, a.c, a", nil), "ValidationException", msgOverlap(proj, "[a, c]", "[a]"))
	h.WantError(h.projErr(tab, "a.b, m.x, a, bb, m", nil), "ValidationException", msgOverlap(proj, "[m, x]", "[m]"))
	h.WantError(h.projErr(tab, "c, a, q, a[0]", nil), "ValidationException", msgOverlap(proj, "[a]", "[a, [0]]"))
	h.WantError(h.projErr(tab, "#n0, lk, g, lk", Names{"#n0": "new"}), "ValidationException", msgOverlap(proj, "[lk]", "[g]"))
	h.WantError(h.projErr(tab, "b, bb, c.x, x.c, bb[0]", nil), "ValidationException", msgOverlap(proj, "[bb]", "[x, c]"))
	key := indexedKey("a", "1")
	_, err := h.UpdateErr(tab, key, "ADD lk :v0, lk :v2 DELETE #n0 :v1", Names{"#n0": "new"},
		Item{":v0": N("1"), ":v1": SS("c", "b"), ":v2": N("0.1")}, "")
	h.WantError(err, "ValidationException", msgOverlap(upd, "[lk]", "[new]"))
	_, err = h.UpdateErr(tab, key, "SET c = :a, m = :b, c = :c", nil, Item{":a": N("1"), ":b": N("2"), ":c": N("3")}, "")
	h.WantError(err, "ValidationException", msgOverlap(upd, "[c]", "[m]"))
	_, err = h.UpdateErr(tab, key, "SET a = :v REMOVE a.c", nil, Item{":v": N("1")}, "")
	h.WantError(err, "ValidationException", msgOverlap(upd, "[a]", "[a, c]"))
	_, err = h.UpdateErr(tab, key, "SET l[0] = :v REMOVE l.x", nil, Item{":v": N("1")}, "")
	h.WantError(err, "ValidationException", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, x]")
}

// condPutErr returns the error of a PutItem with condition cond.
func (h *H) condPutErr(tab, cond string, values Item) error {
	in := &dynamodb.PutItemInput{TableName: aws.String(tab), Item: indexedKey("o", "1"), ConditionExpression: aws.String(cond)}
	if values != nil {
		in.ExpressionAttributeValues = values
	}
	_, err := h.API.PutItem(h.Ctx, in)
	return err
}

// checkOrderParseTime: redundant parentheses, then by position invalid
// function names, list indexes out of range, reserved words and functions
// out of place; then a repeated clause.
func checkOrderParseTime(t *testing.T, h *H) {
	tab := indexedTable(h)
	v := Item{":v": N("1")}
	const cond = "Invalid ConditionExpression: "
	h.WantError(h.condPutErr(tab, "name = :v AND ((a = :v))", v), "ValidationException", cond+"The expression has redundant parentheses;")
	h.WantError(h.condPutErr(tab, "if_not_exists(name, :v) = :v", v), "ValidationException", cond+"The function is not allowed in a condition expression; function: if_not_exists")
	h.WantError(h.condPutErr(tab, "size(a) AND name = :v", v), "ValidationException", cond+"The function is not allowed to be used this way in an expression; function: size")
	h.WantError(h.condPutErr(tab, "name[99999999999] = :v", v), "ValidationException", cond+"Attribute name is a reserved keyword; reserved keyword: name")
	h.WantError(h.condPutErr(tab, "a[99999999999].name = :v", v), "ValidationException", cond+"List index is not within the allowable range; index: [99999999999]")
	h.WantError(h.condPutErr(tab, "foo(a) AND if_not_exists(a, :v) = :v", v), "ValidationException", cond+"Invalid function name; function: foo")
	h.WantError(h.condPutErr(tab, "c = :zz AND size(a)", v), "ValidationException", cond+"The function is not allowed to be used this way in an expression; function: size")
	key := indexedKey("a", "1")
	const upd = "Invalid UpdateExpression: "
	_, err := h.UpdateErr(tab, key, "SET b = size(c), a = name", nil, nil, "")
	h.WantError(err, "ValidationException", upd+"The function is not allowed in an update expression; function: size")
	_, err = h.UpdateErr(tab, key, "SET a = :v SET b = name", nil, v, "")
	h.WantError(err, "ValidationException", upd+"Attribute name is a reserved keyword; reserved keyword: name")
	_, err = h.UpdateErr(tab, key, "SET d = :zz, a = list_append(list_append(a, b), c)", nil, nil, "")
	h.WantError(err, "ValidationException", upd+"The function is not allowed to be used this way in an expression; function: list_append")
}

// checkOrderOperands: an expression's tree is validated children first, so
// an undefined placeholder in an operand comes before the type check of
// its operator, and after the checks of earlier subtrees.
func checkOrderOperands(t *testing.T, h *H) {
	tab := indexedTable(h)
	const cond = "Invalid ConditionExpression: "
	h.WantError(h.condPutErr(tab, "a BETWEEN :v AND :s AND b = :zz", Item{":v": N("1"), ":s": S("x")}), "ValidationException",
		cond+"The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:x}")
	h.WantError(h.condPutErr(tab, "a < :b AND c = :zz", Item{":b": BOOL(true)}), "ValidationException",
		cond+"Incorrect operand type for operator or function; operator or function: <, operand type: BOOL")
	h.WantError(h.condPutErr(tab, "attribute_exists(a, :zz)", nil), "ValidationException",
		cond+"An expression attribute value used in expression is not defined; attribute value: :zz")
	h.WantError(h.condPutErr(tab, "a = a AND b = :zz", nil), "ValidationException",
		cond+"The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]")
	ops := "a = :v"
	for i := 0; i < 150; i++ {
		ops += " AND a = :v"
	}
	h.WantError(h.condPutErr(tab, ops, Item{":v": N("1")}), "ValidationException", cond+"The expression contains too many operators; operator count: 301")
	h.WantError(h.condPutErr(tab, ops+" AND c = :zz", Item{":v": N("1")}), "ValidationException",
		cond+"An expression attribute value used in expression is not defined; attribute value: :zz")
	key := indexedKey("a", "1")
	_, err := h.UpdateErr(tab, key, "SET a = :s + :zz", nil, Item{":s": S("x")}, "")
	h.WantError(err, "ValidationException", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :zz")
	_, err = h.UpdateErr(tab, key, "SET a = #zz, b = :s + :v", nil, Item{":s": S("x"), ":v": N("1")}, "")
	h.WantError(err, "ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S")
}

// checkOrderUpdatePaths: an update's action paths (depth, names, overlaps)
// are checked before its values, both in reverse order.
func checkOrderUpdatePaths(t *testing.T, h *H) {
	tab := indexedTable(h)
	key := indexedKey("a", "1")
	v := Item{":v": N("1")}
	const upd = "Invalid UpdateExpression: "
	_, err := h.UpdateErr(tab, key, "SET a = :v, a = :v, b = list_append(c, :v)", nil, v, "")
	h.WantError(err, "ValidationException", msgOverlap("UpdateExpression", "[a]", "[b]"))
	_, err = h.UpdateErr(tab, key, "SET a = :zz, a = :v", nil, v, "")
	h.WantError(err, "ValidationException", msgOverlap("UpdateExpression", "[a]", "[a]"))
	_, err = h.UpdateErr(tab, key, "SET #zz = :v, a = :v, a = :v", nil, v, "")
	h.WantError(err, "ValidationException", msgOverlap("UpdateExpression", "[a]", "[a]"))
	_, err = h.UpdateErr(tab, key, "SET a = :v, a = :v, #zz = :v", nil, v, "")
	h.WantError(err, "ValidationException", upd+"An expression attribute name used in the document path is not defined; attribute name: #zz")
	_, err = h.UpdateErr(tab, key, "ADD lst :s SET m = list_append(:b, if_not_exists(lst, :empty))", nil,
		Item{":s": S("x"), ":b": B([]byte{1}), ":empty": L()}, "")
	h.WantError(err, "ValidationException", upd+"Incorrect operand type for operator or function; operator or function: list_append, operand type: B")
	_, err = h.UpdateErr(tab, key, "ADD a :zz SET b = :s + :v", nil, Item{":s": S("x"), ":v": N("1")}, "")
	h.WantError(err, "ValidationException", upd+"Incorrect operand type for operator or function; operator or function: +, operand type: S")
}

// checkOrderPlaceholderMaps: names are checked before values; a key's
// length before its syntax.
func checkOrderPlaceholderMaps(t *testing.T, h *H) {
	tab := indexedTable(h)
	put := func(names Names, values Item) error {
		_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: indexedKey("p", "1"),
			ConditionExpression: aws.String("attribute_not_exists(a)"), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		return err
	}
	long := "#" + strings.Repeat("a", 300)
	longV := ":" + strings.Repeat("a", 300)
	h.WantError(put(Names{"bad": "y"}, Item{}), "ValidationException", "ExpressionAttributeNames contains invalid key: Syntax error; key: \"bad\"")
	h.WantError(put(Names{long: "y"}, Item{}), "ValidationException",
		"ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 301")
	h.WantError(put(Names{"bad": "y"}, Item{longV: S("x")}), "ValidationException", "ExpressionAttributeNames contains invalid key: Syntax error; key: \"bad\"")
	h.WantError(put(Names{"#e": ""}, Item{longV: S("x")}), "ValidationException",
		"ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
	h.WantError(put(Names{"#e": ""}, Item{}), "ValidationException", "ExpressionAttributeValues must not be empty")
}

// runtimeItem is the item the UpdateOrder cases update.
func runtimeItem() Item {
	return Item{"pk": S("rt"), "sk": N("1"), "a": N("1"), "s": S("x"), "bi": B([]byte{0, 1}), "lst": L(),
		"l": L(N("1"), M(Item{"k": N("2")})), "m": M(Item{"x": N("1")}), "ss": SS("a", "b"), "gn2": N("3")}
}

// updateOrderRuntime: when several actions fail, DynamoDB Local reports
// the first it applies, in the order of its tree of paths (hash map order),
// not in the order written; precision is checked as each sum is computed.
func updateOrderRuntime(t *testing.T, h *H) {
	tab := indexedTable(h)
	key := indexedKey("rt", "1")
	run := func(update string, values Item) error {
		h.Put(tab, runtimeItem())
		_, err := h.UpdateErr(tab, key, update, nil, values, "")
		return err
	}
	const (
		missing = "The provided expression refers to an attribute that does not exist in the item"
		badType = "An operand in the update expression has an incorrect data type"
		badPath = "The document path provided in the update expression is invalid for update"
		precise = "DynamoDB only supports precision up to 38 digits"
	)
	big := Item{":a": N("1E+38"), ":b": N("1")}
	h.WantError(run("SET m2 = :a + :b, c = zz", big), "ValidationException", precise)
	h.WantError(run("SET c = :a + :b, m2 = zz", big), "ValidationException", missing)
	h.WantError(run("SET c = :a + :b REMOVE m.x.y", big), "ValidationException", badPath)
	h.WantError(run("SET lst = if_not_exists(zz, :one) - :big, bin = list_append(:l, lst2)",
		Item{":one": N("1"), ":big": N("9.9999999999999999999999999999999999999E+125"), ":l": L()}), "ValidationException", missing)
	h.WantError(run("DELETE m.z.q :ss REMOVE lk SET bs = if_not_exists(zz, :z) - zz", Item{":ss": SS("a"), ":z": N("0")}), "ValidationException", badPath)
	h.WantError(run("DELETE gn2 :ns ADD a :n REMOVE zz.a", Item{":ns": NS("1"), ":n": N("1")}), "ValidationException", badType)
	h.WantError(run("DELETE a :ns ADD gn2 :n REMOVE zz.a", Item{":ns": NS("1"), ":n": N("1")}), "ValidationException", badType)
	h.WantError(run("REMOVE zz.a ADD bb :n", Item{":n": N("1")}), "ValidationException", badPath)
	h.WantError(run("SET zz[1] = if_not_exists(m, :l), bs = :bs DELETE a :ns", Item{":l": L(), ":bs": BS([]byte{1}), ":ns": NS("1")}),
		"ValidationException", badType)
	h.WantError(run("SET lst = zz + :n ADD s :zero", Item{":n": N("1"), ":zero": N("0")}), "ValidationException", badType)
	if item := h.Get(tab, key); item == nil || len(item) != len(runtimeItem()) {
		t.Fatalf("failed updates changed the item: %s", FormatItem(item))
	}
}

// updateOrderOperands: the operands of an operator or function are
// computed first (an absent path is no error yet), then checked in order.
func updateOrderOperands(t *testing.T, h *H) {
	tab := indexedTable(h)
	key := indexedKey("rt", "1")
	run := func(update string) (*dynamodb.UpdateItemOutput, error) {
		h.Put(tab, runtimeItem())
		return h.UpdateErr(tab, key, update, nil, nil, types.ReturnValueUpdatedNew)
	}
	const (
		missing = "The provided expression refers to an attribute that does not exist in the item"
		badType = "An operand in the update expression has an incorrect data type"
	)
	_, err := run("SET x = if_not_exists(a, zz)")
	h.WantError(err, "ValidationException", missing)
	out, err := run("SET x = if_not_exists(zz, a)")
	h.Must(err)
	h.WantItem(out.Attributes, Item{"x": N("1")})
	_, err = run("SET x = list_append(s, zz)")
	h.WantError(err, "ValidationException", badType)
	_, err = run("SET x = list_append(zz, s)")
	h.WantError(err, "ValidationException", missing)
	_, err = run("SET x = s + zz")
	h.WantError(err, "ValidationException", badType)
	_, err = run("SET x = if_not_exists(a, zz) + s")
	h.WantError(err, "ValidationException", missing)
	_, err = run("SET x = if_not_exists(bi, a) - zz")
	h.WantError(err, "ValidationException", badType)
}

// indexProjectionMissingOrder: the attributes a global index does not
// project are listed in the order of a Java HashSet (added in the order of
// the top level of the projection's tree, or of AttributesToGet); those of
// a filter in sorted order.
func indexProjectionMissingOrder(t *testing.T, h *H) {
	tab := indexedTable(h)
	query := func(in *dynamodb.QueryInput) error {
		in.TableName, in.IndexName = aws.String(tab), aws.String("gsi")
		if in.KeyConditions == nil {
			in.KeyConditionExpression = aws.String("g = :v")
			in.ExpressionAttributeValues = Item{":v": S("x")}
		}
		_, err := h.API.Query(h.Ctx, in)
		return err
	}
	const gsi = "One or more parameter values were invalid: Global secondary index gsi does not project "
	h.WantError(query(&dynamodb.QueryInput{ProjectionExpression: aws.String("zz, aa, mm")}), "ValidationException", gsi+"[mm, aa, zz]")
	h.WantError(query(&dynamodb.QueryInput{ProjectionExpression: aws.String("aa, zz, mm")}), "ValidationException", gsi+"[mm, zz, aa]")
	h.WantError(query(&dynamodb.QueryInput{ProjectionExpression: aws.String("ss1, lst, c, ba, b")}), "ValidationException", gsi+"[ss1, b, c, lst, ba]")
	h.WantError(query(&dynamodb.QueryInput{ProjectionExpression: aws.String("#s, nope"), ExpressionAttributeNames: Names{"#s": "status"}}),
		"ValidationException", gsi+"[nope, status]")
	h.WantError(query(&dynamodb.QueryInput{ProjectionExpression: aws.String("x.y, q[0], x.z")}), "ValidationException", gsi+"[q, x]")
	h.WantError(query(&dynamodb.QueryInput{ProjectionExpression: aws.String("lst, a, #s, lk"), ExpressionAttributeNames: Names{"#s": "status"}}),
		"ValidationException", gsi+"[lst, status, lk]")
	keyCond := map[string]types.Condition{"g": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("x")}}}
	h.WantError(query(&dynamodb.QueryInput{KeyConditions: keyCond, AttributesToGet: []string{"zz", "aa", "mm"}}), "ValidationException", gsi+"[zz, aa, mm]")
	h.WantError(query(&dynamodb.QueryInput{FilterExpression: aws.String("zz = :v AND aa = :v AND mm = :v")}), "ValidationException",
		"One or more parameter values were invalid: Secondary index gsi does not project one or more filter attributes: [aa, mm, zz]")
}

// queryOrderChecks: DynamoDB checks a Query's Limit first, then the index,
// the expressions (filter, projection, key condition), the key condition
// against the schema, the start key, the filter's attributes, Select, and
// last the projection's attributes.
func queryOrderChecks(t *testing.T, h *H) {
	tab := indexedTable(h)
	query := func(in *dynamodb.QueryInput) error {
		in.TableName = aws.String(tab)
		_, err := h.API.Query(h.Ctx, in)
		return err
	}
	p := Item{":p": S("a")}
	const invalid = "One or more parameter values were invalid: "
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("contains(a, a)"),
		Limit: aws.Int32(0), ExpressionAttributeValues: p}), "ValidationException", "Limit must be greater than or equal to 1")
	h.WantError(query(&dynamodb.QueryInput{Limit: aws.Int32(0)}), "ValidationException", "Limit must be greater than or equal to 1")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("contains(a, a)"),
		IndexName: aws.String("nope"), ExpressionAttributeValues: p}), "ValidationException", "The table does not have the specified index: nope")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = "), ProjectionExpression: aws.String("a,,"), ExpressionAttributeValues: p}),
		"ValidationException", "~Invalid ProjectionExpression: Syntax error")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String(""), FilterExpression: aws.String("a BETWEEN :n AND :m"),
		ExpressionAttributeValues: Item{":n": N("1"), ":m": N("0")}}), "ValidationException", "~Invalid FilterExpression: The BETWEEN operator requires upper bound")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :p)"), Select: types.SelectAllProjectedAttributes,
		ExpressionAttributeValues: p}), "ValidationException", invalid+"Condition parameter type does not match schema type")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExclusiveStartKey: Item{"pk": N("1")}, Select: "BOGUS",
		ExpressionAttributeValues: p}), "ValidationException", "Exclusive Start Key must have same size as table's key schema")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExclusiveStartKey: Item{"pk": N("1"), "sk": N("1")},
		FilterExpression: aws.String("sk = :p"), ExpressionAttributeValues: p}), "ValidationException", "Type mismatch for attribute to update")
	h.WantError(query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectSpecificAttributes,
		FilterExpression: aws.String("sk = :p"), ExpressionAttributeValues: p}), "ValidationException",
		"Filter Expression can only contain non-primary key attributes: Primary key attribute: sk")
	gsi := func(in *dynamodb.QueryInput) error {
		in.IndexName, in.KeyConditionExpression = aws.String("gsi"), aws.String("g = :p")
		if in.ExpressionAttributeValues == nil {
			in.ExpressionAttributeValues = p
		}
		return query(in)
	}
	h.WantError(gsi(&dynamodb.QueryInput{FilterExpression: aws.String("a2 = :n"), ProjectionExpression: aws.String("nope"),
		ExpressionAttributeValues: Item{":p": S("a"), ":n": N("1")}}), "ValidationException",
		invalid+"Secondary index gsi does not project one or more filter attributes: [a2]")
	h.WantError(gsi(&dynamodb.QueryInput{FilterExpression: aws.String("a2 = :p AND gn = :p")}), "ValidationException",
		"Filter Expression can only contain non-primary key attributes: Primary key attribute: gn")
	h.WantError(gsi(&dynamodb.QueryInput{FilterExpression: aws.String("a2 = :p"), Select: types.SelectAllAttributes}), "ValidationException",
		invalid+"Secondary index gsi does not project one or more filter attributes: [a2]")
	h.WantError(gsi(&dynamodb.QueryInput{ProjectionExpression: aws.String("nope"), Select: "BOGUS"}), "ValidationException",
		"Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES")
	h.WantError(gsi(&dynamodb.QueryInput{ProjectionExpression: aws.String("nope"), ExclusiveStartKey: Item{"pk": N("1")}}), "ValidationException",
		"The provided starting key is invalid")
	h.WantError(gsi(&dynamodb.QueryInput{ProjectionExpression: aws.String("nope"), ConsistentRead: aws.Bool(true)}), "ValidationException",
		"Consistent reads are not supported on global secondary indexes")
}

// scanSelectSpecificOrder: with Select SPECIFIC_ATTRIBUTES given, a Scan
// of an index checks that the index projects the projection's attributes
// before it looks for nested paths into key attributes (in the filter or
// the projection); without Select, after. A Query checks nested paths
// first either way.
func scanSelectSpecificOrder(t *testing.T, h *H) {
	tab := indexedTable(h)
	scan := func(proj, filter string, sel types.Select) error {
		in := &dynamodb.ScanInput{TableName: aws.String(tab), IndexName: aws.String("gsi"),
			ProjectionExpression: aws.String(proj), Select: sel}
		if filter != "" {
			in.FilterExpression = aws.String(filter)
		}
		_, err := h.API.Scan(h.Ctx, in)
		return err
	}
	const notProjected = "One or more parameter values were invalid: Global secondary index gsi does not project [zz]"
	spec := types.SelectSpecificAttributes
	h.WantError(scan("zz, g.x", "", spec), "ValidationException", notProjected)
	h.WantError(scan("pk.x, zz", "", spec), "ValidationException", notProjected)
	h.WantError(scan("zz", "attribute_exists(g.x)", spec), "ValidationException", notProjected)
	h.WantError(scan("a", "attribute_exists(g.x)", spec), "ValidationException", msgNestedKey("IndexKey", "g"))
	h.WantError(scan("zz, g.x", "", ""), "ValidationException", msgNestedKey("IndexKey", "g"))
	h.WantError(scan("zz", "attribute_exists(g.x)", ""), "ValidationException", msgNestedKey("IndexKey", "g"))
	_, err := h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(tab), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("g = :v"), ExpressionAttributeValues: Item{":v": S("x")},
		ProjectionExpression: aws.String("zz, g.x"), Select: spec})
	h.WantError(err, "ValidationException", msgNestedKey("IndexKey", "g"))
}

// indexKeyEmptyString: an empty string for a key of the index queried gets
// the index's message, even for the table's hash key of a local index.
func indexKeyEmptyString(t *testing.T, h *H) {
	tab := indexedTable(h)
	_, err := h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(tab), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("g = :v"), ExpressionAttributeValues: Item{":v": S("")}})
	h.WantError(err, "ValidationException", "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gsi, IndexKey: g")
	_, err = h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(tab),
		KeyConditionExpression: aws.String("pk = :v"), ExpressionAttributeValues: Item{":v": S("")}})
	h.WantError(err, "ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk")
}

// indexWriteNumberRespelled: rewriting a projected number with the same
// value in another spelling changes no index entry, so no index write is
// charged.
func indexWriteNumberRespelled(t *testing.T, h *H) {
	tab := indexedTable(h)
	key := indexedKey("c15", "1")
	h.Put(tab, Item{"pk": S("c15"), "sk": N("1"), "g": S("x"), "gn": N("1"), "a": N("-2.5")})
	for _, c := range []struct{ update, value string }{{"SET a = :v", "-2.50"}, {"SET gn = :v", "1.0"}} {
		out, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tab), Key: key,
			UpdateExpression: aws.String(c.update), ExpressionAttributeValues: Item{":v": N(c.value)},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		h.Must(err)
		cc := out.ConsumedCapacity
		if cc == nil || aws.ToFloat64(cc.CapacityUnits) != 1 || len(cc.GlobalSecondaryIndexes) != 0 {
			t.Fatalf("%s with %s: consumed %+v, want 1 unit and no index write", c.update, c.value, cc)
		}
	}
}

// scanOrderChecks: a Scan's index and ConsistentRead come first, then its
// parameters, Limit, expressions, start key, Select and segments.
func scanOrderChecks(t *testing.T, h *H) {
	tab := indexedTable(h)
	scan := func(in *dynamodb.ScanInput) error {
		in.TableName = aws.String(tab)
		_, err := h.API.Scan(h.Ctx, in)
		return err
	}
	const selectMsg = "Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES"
	h.WantError(scan(&dynamodb.ScanInput{FilterExpression: aws.String("a = "), IndexName: aws.String("nope")}), "ValidationException",
		"The table does not have the specified index: nope")
	h.WantError(scan(&dynamodb.ScanInput{IndexName: aws.String("gsi"), ConsistentRead: aws.Bool(true), Limit: aws.Int32(0)}), "ValidationException",
		"Consistent reads are not supported on global secondary indexes")
	h.WantError(scan(&dynamodb.ScanInput{ConditionalOperator: types.ConditionalOperatorOr, Limit: aws.Int32(0)}), "ValidationException",
		"ConditionalOperator cannot be used without Filter or Expected")
	h.WantError(scan(&dynamodb.ScanInput{ExpressionAttributeValues: Item{":u": N("1")}, ProjectionExpression: aws.String("a"), Limit: aws.Int32(0)}),
		"ValidationException", "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null")
	h.WantError(scan(&dynamodb.ScanInput{FilterExpression: aws.String("contains(a, a)"), Limit: aws.Int32(0)}), "ValidationException",
		"Limit must be greater than or equal to 1")
	h.WantError(scan(&dynamodb.ScanInput{AttributesToGet: []string{"a", "a"}, Limit: aws.Int32(0)}), "ValidationException",
		"Limit must be greater than or equal to 1")
	h.WantError(scan(&dynamodb.ScanInput{Select: "BOGUS", FilterExpression: aws.String("a = ")}), "ValidationException",
		"~Invalid FilterExpression: Syntax error")
	h.WantError(scan(&dynamodb.ScanInput{ExclusiveStartKey: Item{"pk": N("1")}, Select: "BOGUS", Segment: aws.Int32(0), TotalSegments: aws.Int32(2)}),
		"ValidationException", "Exclusive Start Key must have same size as table's key schema")
	h.WantError(scan(&dynamodb.ScanInput{Select: "BOGUS", TotalSegments: aws.Int32(2)}), "ValidationException", selectMsg)
}

// writeOrderParams: a write's parameters (mixed expression and legacy
// parameters, placeholders without expressions) are checked before its
// item or key; its expressions after.
func writeOrderParams(t *testing.T, h *H) {
	tab := indexedTable(h)
	badNumber := Item{"pk": S("o"), "sk": N("1"), "x": N(" 1")}
	_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: badNumber, ExpressionAttributeValues: Item{":u": N("1")}})
	h.WantError(err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
	_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: Item{"pk": S("o"), "sk": N("1"), "x": SS()},
		ConditionExpression: aws.String("a = :v"), Expected: map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}}})
	h.WantError(err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")
	_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: Item{"pk": S("o"), "sk": N("1"), "x": SS()},
		ConditionExpression: aws.String("a,,")})
	h.WantError(err, "ValidationException", "One or more parameter values were invalid: An string set  may not be empty")
	badKey := Item{"pk": N("1"), "sk": N("1")}
	_, err = h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tab), Key: badKey, ExpressionAttributeValues: Item{":u": N("1")}})
	h.WantError(err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
	_, err = h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tab), Key: badKey, UpdateExpression: aws.String("SET a = ")})
	h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for key")
	_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: indexedKey("o", "1"), ConditionalOperator: types.ConditionalOperatorAnd})
	h.WantError(err, "ValidationException", "ConditionalOperator cannot be used without Filter or Expected")
}

// updateOrderNewItemKeys: an update that writes both table keys names the
// hash key; one that leaves an index key empty gets DynamoDB's update
// message, before the index keys' types, and is thrown in a transaction.
func updateOrderNewItemKeys(t *testing.T, h *H) {
	tab := indexedTable(h)
	key := indexedKey("ie", "1")
	_, err := h.UpdateErr(tab, key, "SET sk = :e REMOVE pk", nil, Item{":e": N("1")}, "")
	h.WantError(err, "ValidationException", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")
	const empty = "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value."
	_, err = h.UpdateErr(tab, key, "SET g = :e, gn = :s", nil, Item{":e": S(""), ":s": S("x")}, "")
	h.WantError(err, "ValidationException", empty)
	_, err = h.UpdateErr(tab, key, "SET g = :e, gn = :s", nil, Item{":e": S("a"), ":s": S("x")}, "")
	h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
	h.WantError(h.txWrite(txUpdate(tab, key, "SET g = :e", Item{":e": S("")}), txUpdate(tab, indexedKey("ie", "2"), "SET a = zz", nil)),
		"ValidationException", empty)
}
