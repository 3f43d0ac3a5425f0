package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
