package wire_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/internal/dynamotest"
)

// referenceClient returns a client, set up as sdkClient's, for the server
// named by TIMETABLE_DYNAMODB_ENDPOINT, or skips the test.
func referenceClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	return sdkClient(dynamotest.Require(t))
}

// pair is the same server reached directly and through the handler.
type pair struct {
	t      *testing.T
	direct *dynamodb.Client
	viaW   *dynamodb.Client
}

// same runs call with in directly and through the handler and fails the
// test unless both give the same output, or the same error. It returns the
// output through the handler.
func same[I, O any](p *pair, what string, call func(*dynamodb.Client, context.Context, *I, ...func(*dynamodb.Options)) (*O, error), in *I, norm ...func(*O)) (*O, error) {
	p.t.Helper()
	ctx := context.Background()
	want, werr := call(p.direct, ctx, in)
	got, gerr := call(p.viaW, ctx, in)
	if d := diffErrors(gerr, werr); d != "" {
		p.t.Fatalf("%s: %s", what, d)
	}
	if werr != nil {
		return nil, gerr
	}
	clearMetadata(want)
	clearMetadata(got)
	for _, f := range norm {
		f(want)
		f(got)
	}
	if d := diff(reflect.ValueOf(got), reflect.ValueOf(want), what); d != "" {
		p.t.Errorf("through the handler vs direct: %s", d)
	}
	return got, nil
}

// diffErrors compares two errors as a caller of the SDK sees them: the
// error code, the message and the members of typed exceptions.
func diffErrors(got, want error) string {
	if (got == nil) != (want == nil) {
		return fmt.Sprintf("error %v, want %v", got, want)
	}
	if got == nil {
		return ""
	}
	var ga, wa smithy.APIError
	if !errors.As(got, &ga) || !errors.As(want, &wa) {
		return fmt.Sprintf("error %v, want %v (not both API errors)", got, want)
	}
	if ga.ErrorCode() != wa.ErrorCode() || ga.ErrorMessage() != wa.ErrorMessage() {
		return fmt.Sprintf("error %s %q, want %s %q", ga.ErrorCode(), ga.ErrorMessage(), wa.ErrorCode(), wa.ErrorMessage())
	}
	if reflect.TypeOf(ga) != reflect.TypeOf(wa) {
		return fmt.Sprintf("error type %T, want %T", ga, wa)
	}
	return diff(reflect.ValueOf(ga), reflect.ValueOf(wa), "error")
}

// TestProxy_DynamoDBLocal puts the handler in front of a real DynamoDB
// (Local) through the SDK client and runs every operation both directly and
// through the handler, checking that the SDK sees the same outputs and
// errors either way.
func TestProxy_DynamoDBLocal(t *testing.T) {
	direct := referenceClient(t)
	via, _ := serve(t, direct)
	p := &pair{t: t, direct: direct, viaW: via}
	ctx := context.Background()
	table := fmt.Sprintf("wire_proxy_%d", time.Now().UnixNano())
	s, n := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} },
		func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

	created, err := via.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"n"}},
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("byL"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("l"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() {
		_, _ = direct.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	if *created.TableDescription.TableName != table || len(created.TableDescription.GlobalSecondaryIndexes) != 1 ||
		created.TableDescription.CreationDateTime == nil {
		t.Fatalf("CreateTable output %+v", created.TableDescription)
	}
	same(p, "DescribeTable", (*dynamodb.Client).DescribeTable, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	same(p, "ListTables", (*dynamodb.Client).ListTables, &dynamodb.ListTablesInput{})

	if _, err := via.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatalf("UpdateTimeToLive: %v", err)
	}
	same(p, "DescribeTimeToLive", (*dynamodb.Client).DescribeTimeToLive, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})

	// Every attribute type, nested, with strings that need escaping.
	every := map[string]types.AttributeValue{
		"pk": s("p1"), "sk": n("1"), "g": s("g1"), "l": s("l1"),
		"s":    s("quote \" backslash \\ newline \n tab \t nul \x00 é 日本 😀 \u2028"),
		"n":    n("-12345678901234567890.123456789012345678"),
		"b":    &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 0xff, 0xfe}},
		"t":    &types.AttributeValueMemberBOOL{Value: true},
		"f":    &types.AttributeValueMemberBOOL{Value: false},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), n("1"), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}},
		"map": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"deep": s("y")}},
			"empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		}},
	}
	put, err := via.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: every,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	if put.ConsumedCapacity == nil || put.ConsumedCapacity.CapacityUnits == nil {
		t.Errorf("PutItem: no consumed capacity %+v", put.ConsumedCapacity)
	}
	key := map[string]types.AttributeValue{"pk": s("p1"), "sk": n("1")}
	got, _ := same(p, "GetItem", (*dynamodb.Client).GetItem, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if d := diff(reflect.ValueOf(got.Item), reflect.ValueOf(every), "item"); d != "" {
		t.Errorf("GetItem through the handler: %s", d)
	}

	for i := 2; i <= 30; i++ {
		if _, err := via.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": s("p1"), "sk": n(fmt.Sprint(i)), "g": s(fmt.Sprint("g", i%3)), "l": s(fmt.Sprint("l", 40-i)), "n": n(fmt.Sprint(i * i)),
		}}); err != nil {
			t.Fatalf("PutItem %d: %v", i, err)
		}
	}
	up, err := via.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
		UpdateExpression:          aws.String("SET #s = :s ADD cnt :one REMOVE #t"),
		ExpressionAttributeNames:  map[string]string{"#s": "s", "#t": "t"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("new"), ":one": n("1")},
		ReturnValues:              types.ReturnValueUpdatedNew})
	if err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}
	if d := diff(reflect.ValueOf(up.Attributes), reflect.ValueOf(map[string]types.AttributeValue{"s": s("new"), "cnt": n("1")}), "attributes"); d != "" {
		t.Errorf("UpdateItem: %s", d)
	}

	q := &dynamodb.QueryInput{TableName: aws.String(table),
		KeyConditionExpression:    aws.String("pk = :p AND sk BETWEEN :a AND :b"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p1"), ":a": n("3"), ":b": n("20")},
		ScanIndexForward:          aws.Bool(false), Limit: aws.Int32(5), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	page, _ := same(p, "Query", (*dynamodb.Client).Query, q)
	if page.Count != 5 || len(page.LastEvaluatedKey) == 0 {
		t.Errorf("Query page: Count %d, LastEvaluatedKey %v", page.Count, page.LastEvaluatedKey)
	}
	q.ExclusiveStartKey = page.LastEvaluatedKey
	same(p, "Query page 2", (*dynamodb.Client).Query, q)
	same(p, "Query GSI", (*dynamodb.Client).Query, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("g1")}})
	same(p, "Query LSI", (*dynamodb.Client).Query, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byL"),
		KeyConditionExpression:    aws.String("pk = :p AND begins_with(l, :l)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p1"), ":l": s("l1")}, Select: types.SelectCount})
	same(p, "Scan", (*dynamodb.Client).Scan, &dynamodb.ScanInput{TableName: aws.String(table),
		FilterExpression:          aws.String("n > :n AND attribute_exists(g)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": n("100")},
		ProjectionExpression:      aws.String("pk, sk, n"), Segment: aws.Int32(0), TotalSegments: aws.Int32(1)})

	bw, err := via.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("p2"), "sk": n("1")}}},
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("p2"), "sk": n("2")}}},
		{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"pk": s("p1"), "sk": n("30")}}},
	}}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || len(bw.UnprocessedItems) != 0 {
		t.Fatalf("BatchWriteItem: %v %v", err, bw)
	}
	sortResponses := func(o *dynamodb.BatchGetItemOutput) {
		for _, items := range o.Responses {
			sort.Slice(items, func(i, j int) bool {
				return items[i]["sk"].(*types.AttributeValueMemberN).Value < items[j]["sk"].(*types.AttributeValueMemberN).Value
			})
		}
	}
	bg, _ := same(p, "BatchGetItem", (*dynamodb.Client).BatchGetItem, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {
		Keys: []map[string]types.AttributeValue{
			{"pk": s("p2"), "sk": n("1")}, {"pk": s("p2"), "sk": n("2")}, {"pk": s("p1"), "sk": n("30")},
		},
		ConsistentRead: aws.Bool(true),
	}}}, sortResponses)
	if len(bg.Responses[table]) != 2 {
		t.Errorf("BatchGetItem: %d items", len(bg.Responses[table]))
	}

	if _, err := via.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": s("p3"), "sk": n("1")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		{Update: &types.Update{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("p2"), "sk": n("1")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("t")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key, ConditionExpression: aws.String("attribute_exists(pk)")}},
		{Delete: &types.Delete{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("p2"), "sk": n("2")}}},
	}, ClientRequestToken: aws.String(fmt.Sprint("tok", time.Now().UnixNano()))}); err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	same(p, "TransactGetItems", (*dynamodb.Client).TransactGetItems, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("p3"), "sk": n("1")}}},
		{Get: &types.Get{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("p2"), "sk": n("1")}, ProjectionExpression: aws.String("v")}},
		{Get: &types.Get{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("nope"), "sk": n("1")}}},
	}})

	// Errors, typed and generic, with their members.
	_, err = same(p, "PutItem condition fails", (*dynamodb.Client).PutItem, &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: key, ConditionExpression: aws.String("attribute_not_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || ccf.Item["pk"] == nil {
		t.Errorf("PutItem condition fails: %v", err)
	}
	_, err = same(p, "TransactWriteItems cancelled", (*dynamodb.Client).TransactWriteItems, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(table), Item: key, ConditionExpression: aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{Put: &types.Put{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": s("p9"), "sk": n("1")}}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || tce.CancellationReasons[0].Item == nil {
		t.Errorf("TransactWriteItems cancelled: %v", err)
	}
	_, err = same(p, "GetItem missing table", (*dynamodb.Client).GetItem, &dynamodb.GetItemInput{TableName: aws.String(table + "_nope"), Key: key})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("GetItem missing table: %v", err)
	}
	_, err = same(p, "Query invalid", (*dynamodb.Client).Query, &dynamodb.QueryInput{TableName: aws.String(table),
		KeyConditionExpression: aws.String("pk = :p AND AND")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" {
		t.Errorf("Query invalid: %v", err)
	}
	same(p, "CreateTable exists", (*dynamodb.Client).CreateTable, &dynamodb.CreateTableInput{TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})

	del, err := via.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ReturnValues: types.ReturnValueAllOld})
	if err != nil || del.Attributes["pk"] == nil {
		t.Fatalf("DeleteItem: %v %v", err, del)
	}
	if _, err := via.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("h"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byH"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("h"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}}}); err != nil {
		t.Fatalf("UpdateTable: %v", err)
	}
	// Operations outside timetable.API pass through too: the SDK client has
	// them all.
	same(p, "DescribeLimits", (*dynamodb.Client).DescribeLimits, &dynamodb.DescribeLimitsInput{})
	same(p, "DescribeContinuousBackups", (*dynamodb.Client).DescribeContinuousBackups, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})

	if out, err := via.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil || *out.TableDescription.TableName != table {
		t.Fatalf("DeleteTable: %v", err)
	}
}
