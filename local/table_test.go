package local_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

func TestCreateTable_Describe(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "N")
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Table
	if aws.ToString(d.TableName) != "tbl" || d.TableStatus != types.TableStatusActive || len(d.KeySchema) != 2 ||
		d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Fatalf("unexpected description %+v", d)
	}
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tbl"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	wantAPIError(t, err, "ResourceInUseException", "Cannot create preexisting table")
	var riu *types.ResourceInUseException
	if !errorsAs(err, &riu) {
		t.Fatalf("%T is not a *types.ResourceInUseException", err)
	}
}

func TestCreateTable_Validation(t *testing.T) {
	db := openMem(t, nil)
	s := func(v string) *string { return aws.String(v) }
	def := func(name, typ string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: s(name), AttributeType: types.ScalarAttributeType(typ)}
	}
	hash := func(name string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: s(name), KeyType: types.KeyTypeHash}
	}
	rng := func(name string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: s(name), KeyType: types.KeyTypeRange}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	for _, c := range []struct {
		name string
		in   dynamodb.CreateTableInput
		msg  string
	}{
		{"short name", dynamodb.CreateTableInput{TableName: s("ab"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S")}, KeySchema: []types.KeySchemaElement{hash("pk")}, BillingMode: types.BillingModePayPerRequest}, "Invalid table/index name"},
		{"no throughput", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S")}, KeySchema: []types.KeySchemaElement{hash("pk")}}, "No provisioned throughput specified for the table"},
		{"unused def", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S"), def("x", "S")}, KeySchema: []types.KeySchemaElement{hash("pk")}, BillingMode: types.BillingModePayPerRequest}, "The number of attributes in key schema must match"},
		{"no hash", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S")}, KeySchema: []types.KeySchemaElement{rng("pk")}, BillingMode: types.BillingModePayPerRequest}, "No Hash Key specified in schema"},
		{"undefined hash", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S")}, KeySchema: []types.KeySchemaElement{hash("zz")}, BillingMode: types.BillingModePayPerRequest}, "Hash Key not specified in Attribute Definitions"},
		{"bad type", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "BOOL")}, KeySchema: []types.KeySchemaElement{hash("pk")}, BillingMode: types.BillingModePayPerRequest}, "Member must satisfy enum value set: [B, N, S]"},
		{"same key twice", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S")}, KeySchema: []types.KeySchemaElement{hash("pk"), rng("pk")}, BillingMode: types.BillingModePayPerRequest}, "Two keys can not have the same name"},
		{"lsi on hash table", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S"), def("g", "N")}, KeySchema: []types.KeySchemaElement{hash("pk")}, BillingMode: types.BillingModePayPerRequest,
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: s("lsi"), KeySchema: []types.KeySchemaElement{hash("pk"), rng("g")}, Projection: all}}}, "Local Secondary indices are not allowed on hash tables"},
		{"gsi dup", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S"), def("g", "N")}, KeySchema: []types.KeySchemaElement{hash("pk")}, BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: s("gsi"), KeySchema: []types.KeySchemaElement{hash("g")}, Projection: all}, {IndexName: s("gsi"), KeySchema: []types.KeySchemaElement{hash("g")}, Projection: all}}}, "Two global secondary indices have the same name"},
		{"include without attrs", dynamodb.CreateTableInput{TableName: s("t01"), AttributeDefinitions: []types.AttributeDefinition{def("pk", "S"), def("g", "N")}, KeySchema: []types.KeySchemaElement{hash("pk")}, BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: s("gsi"), KeySchema: []types.KeySchemaElement{hash("g")}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude}}}}, "If Projection type INCLUDE is specified"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.CreateTable(ctx, &c.in)
			wantAPIError(t, err, "ValidationException", c.msg)
		})
	}
}

func TestListTables_Paging(t *testing.T) {
	db := openMem(t, nil)
	for _, name := range []string{"ccc", "aaa", "bbb", "ddd"} {
		createTable(t, db, name, "")
	}
	out, err := db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.TableNames; len(got) != 2 || got[0] != "aaa" || got[1] != "bbb" || aws.ToString(out.LastEvaluatedTableName) != "bbb" {
		t.Fatalf("page 1: %v %v", got, aws.ToString(out.LastEvaluatedTableName))
	}
	out, err = db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(3), ExclusiveStartTableName: aws.String("bbb")})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.TableNames; len(got) != 2 || got[0] != "ccc" || out.LastEvaluatedTableName != nil {
		t.Fatalf("page 2: %v %v", got, aws.ToString(out.LastEvaluatedTableName))
	}
	_, err = db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "Limit must be greater than or equal to 1")
}

func TestDeleteTable_RemovesData(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "x", n("1")))
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")}); err != nil {
		t.Fatal(err)
	}
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ResourceNotFoundException", "non-existent table")
	createTable(t, db, "tbl", "")
	if it := get(t, db, "tbl", attrs("pk", s("a"))); it != nil {
		t.Fatalf("recreated table has old item %v", it)
	}
}

func TestCatalog_SurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "S", func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeN})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
	})
	put(t, db, "tbl", attrs("pk", s("a"), "sk", s("b"), "g", n("7")))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Table.GlobalSecondaryIndexes) != 1 || aws.ToInt64(out.Table.ItemCount) != 1 ||
		aws.ToInt64(out.Table.GlobalSecondaryIndexes[0].ItemCount) != 1 {
		t.Fatalf("after reopen: %+v", out.Table)
	}
	createTable(t, db, "tb2", "")
	if it := get(t, db, "tbl", attrs("pk", s("a"), "sk", s("b"))); it == nil {
		t.Fatal("item lost")
	}
}

func TestClose_ThenOperation(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = db.ListTables(ctx, &dynamodb.ListTablesInput{})
	if !errorsIs(err, local.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestUpdateTable_AddAndRemoveGSI(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	for i := range 10 {
		item := attrs("pk", s(fmt.Sprint("k", i)), "v", n(fmt.Sprint(i%3)))
		if i == 9 {
			item["v"] = s("wrong type: left out of the index")
		}
		put(t, db, "tbl", item)
	}
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byv"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := out.TableDescription.GlobalSecondaryIndexes; len(g) != 1 || g[0].IndexStatus != types.IndexStatusCreating {
		t.Fatalf("update output %+v", g)
	}
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("byv"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: attrs(":v", n("0"))})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 3 {
		t.Fatalf("backfilled index has %d items for v=0, want 3", q.Count)
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Table.GlobalSecondaryIndexes[0]; g.IndexStatus != types.IndexStatusActive || aws.ToInt64(g.ItemCount) != 9 {
		t.Fatalf("described index %+v", g)
	}
	// A new write with the wrong type is now rejected.
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("x"), "v", s("no"))})
	wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key")
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byv")}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("byv"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: attrs(":v", n("0"))})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: byv")
	put(t, db, "tbl", attrs("pk", s("x"), "v", s("fine now")))
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ValidationException", "Nothing to update")
}
