package local_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

// withIndexes adds a GSI "gsi" on g (N, KEYS_ONLY) and an LSI "lsi" on l (S,
// INCLUDE a).
func withIndexes(in *dynamodb.CreateTableInput) {
	in.AttributeDefinitions = append(in.AttributeDefinitions,
		types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeN},
		types.AttributeDefinition{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS})
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
	in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"),
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a"}}}}
}

func query(t testing.TB, db *local.DB, in *dynamodb.QueryInput) *dynamodb.QueryOutput {
	t.Helper()
	out, err := db.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sks(items []map[string]types.AttributeValue, attr string) string {
	var parts []string
	for _, it := range items {
		switch v := it[attr].(type) {
		case *types.AttributeValueMemberS:
			parts = append(parts, v.Value)
		case *types.AttributeValueMemberN:
			parts = append(parts, v.Value)
		default:
			parts = append(parts, "?")
		}
	}
	return strings.Join(parts, ",")
}

func TestQuery_KeyConditions(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "N")
	for _, sk := range []string{"-10", "-1.5", "0", "2", "10", "100"} {
		put(t, db, "tbl", attrs("pk", s("p"), "sk", n(sk)))
		put(t, db, "tbl", attrs("pk", s("other"), "sk", n(sk)))
	}
	for _, c := range []struct {
		cond string
		vals map[string]types.AttributeValue
		fwd  bool
		want string
	}{
		{"pk = :p", nil, true, "-10,-1.5,0,2,10,100"},
		{"pk = :p", nil, false, "100,10,2,0,-1.5,-10"},
		{"pk = :p AND sk < :a", attrs(":a", n("2")), true, "-10,-1.5,0"},
		{"pk = :p AND sk <= :a", attrs(":a", n("2")), true, "-10,-1.5,0,2"},
		{"pk = :p AND sk > :a", attrs(":a", n("2")), true, "10,100"},
		{"pk = :p AND sk >= :a", attrs(":a", n("2")), false, "100,10,2"},
		{"pk = :p AND sk = :a", attrs(":a", n("2.0")), true, "2"},
		{"pk = :p AND sk BETWEEN :a AND :b", attrs(":a", n("-1.5"), ":b", n("10")), true, "-1.5,0,2,10"},
	} {
		vals := attrs(":p", s("p"))
		for k, v := range c.vals {
			vals[k] = v
		}
		out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String(c.cond),
			ExpressionAttributeValues: vals, ScanIndexForward: aws.Bool(c.fwd)})
		if got := sks(out.Items, "sk"); got != c.want {
			t.Errorf("%s fwd=%v: got %s, want %s", c.cond, c.fwd, got, c.want)
		}
	}
}

func TestQuery_BeginsWithAndPaging(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S")
	for _, sk := range []string{"a", "ab", "abc", "abd", "b", "a\x00"} {
		put(t, db, "tbl", attrs("pk", s("p"), "sk", s(sk), "v", n("1")))
	}
	out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :a)"),
		ExpressionAttributeValues: attrs(":p", s("p"), ":a", s("ab"))})
	if got := sks(out.Items, "sk"); got != "ab,abc,abd" {
		t.Fatalf("begins_with: %q", got)
	}
	// Page through with Limit 2, in reverse.
	var all []string
	var esk map[string]types.AttributeValue
	pages := 0
	for {
		out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: attrs(":p", s("p")), Limit: aws.Int32(2), ScanIndexForward: aws.Bool(false), ExclusiveStartKey: esk})
		pages++
		all = append(all, sks(out.Items, "sk"))
		if out.LastEvaluatedKey == nil {
			break
		}
		esk = out.LastEvaluatedKey
	}
	if got := strings.Join(all, "|"); got != "b,abd|abc,ab|a\x00,a|" || pages != 4 {
		t.Fatalf("pages: %q (%d)", got, pages)
	}
	// Limit counts items before the filter.
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
		FilterExpression: aws.String("v = :two"), ExpressionAttributeValues: attrs(":p", s("p"), ":two", n("2")), Limit: aws.Int32(3)})
	if out.Count != 0 || out.ScannedCount != 3 || out.LastEvaluatedKey == nil {
		t.Fatalf("filtered page: count %d scanned %d lek %v", out.Count, out.ScannedCount, out.LastEvaluatedKey)
	}
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: attrs(":p", s("p")), Select: types.SelectCount})
	if out.Count != 6 || out.Items != nil {
		t.Fatalf("COUNT: %d %v", out.Count, out.Items)
	}
}

func TestQuery_OneMegabytePages(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true})
	createTable(t, db, "tbl", "N")
	big := strings.Repeat("x", 100*1024)
	for i := range 25 {
		put(t, db, "tbl", attrs("pk", s("p"), "sk", n(fmt.Sprint(i)), "data", s(big)))
	}
	var counts []int32
	var esk map[string]types.AttributeValue
	total := 0.0
	for {
		out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: attrs(":p", s("p")), ExclusiveStartKey: esk, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		counts = append(counts, out.Count)
		total += aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		if out.LastEvaluatedKey == nil {
			break
		}
		esk = out.LastEvaluatedKey
	}
	// Each item is a little over 100 KB: the 11th item of a page crosses 1 MB.
	if fmt.Sprint(counts) != "[11 11 3]" {
		t.Fatalf("page counts %v", counts)
	}
	if total != 138+138+38 { // ceil(11*102406/4096)/2, twice, and ceil(3*102406/4096)/2
		t.Errorf("consumed %v units", total)
	}
}

func TestQuery_Indexes(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S", withIndexes)
	for i := range 5 {
		put(t, db, "tbl", attrs("pk", s("p"), "sk", s(fmt.Sprint(i)), "g", n(fmt.Sprint(i%2)), "l", s(fmt.Sprint(9-i)), "a", s("A"), "z", s("Z")))
	}
	put(t, db, "tbl", attrs("pk", s("q"), "sk", s("x"), "a", s("not indexed")))
	out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: attrs(":g", n("0"))})
	if out.Count != 3 || len(out.Items[0]) != 3 {
		t.Fatalf("gsi: %v", out.Items)
	}
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("lsi"),
		KeyConditionExpression: aws.String("pk = :p AND l > :l"), ExpressionAttributeValues: attrs(":p", s("p"), ":l", s("6")), Limit: aws.Int32(2)})
	if got := sks(out.Items, "l"); got != "7,8" || out.Items[0]["a"] == nil || out.Items[0]["z"] != nil {
		t.Fatalf("lsi: %v", out.Items)
	}
	lek := out.LastEvaluatedKey
	if len(lek) != 3 || lek["l"] == nil {
		t.Fatalf("lsi LastEvaluatedKey %v", lek)
	}
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("lsi"),
		KeyConditionExpression: aws.String("pk = :p AND l > :l"), ExpressionAttributeValues: attrs(":p", s("p"), ":l", s("6")),
		ExclusiveStartKey: lek, Select: types.SelectAllAttributes})
	if got := sks(out.Items, "l"); got != "9" || out.Items[0]["z"] == nil {
		t.Fatalf("lsi page 2: %v", out.Items)
	}
	// Changing the index key moves the entry; removing it drops it.
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("p"), "sk", s("0")),
		UpdateExpression: aws.String("SET g = :one REMOVE l"), ExpressionAttributeValues: attrs(":one", n("1"))})
	if err != nil {
		t.Fatal(err)
	}
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: attrs(":g", n("1"))})
	if out.Count != 3 {
		t.Fatalf("gsi after update: %v", out.Items)
	}
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("lsi"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: attrs(":p", s("p"))})
	if out.Count != 4 {
		t.Fatalf("lsi after update: %v", out.Items)
	}
	// Errors.
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: attrs(":g", n("1"))})
	wantAPIError(t, err, "ValidationException", "Consistent reads are not supported on global secondary indexes")
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"), Select: types.SelectAllAttributes,
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: attrs(":g", n("1"))})
	wantAPIError(t, err, "ValidationException", "Select type ALL_ATTRIBUTES is not supported for global secondary index gsi")
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("nope"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: attrs(":g", n("1"))})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: nope")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("p"), "sk", s("9"), "g", s("x"))})
	wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key")
}
