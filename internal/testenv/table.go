package testenv

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// KeySchema returns the key schema of the hash key hash and, unless rng
// is "", the range key rng.
func KeySchema(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

// AttributeDef returns the definition of the attribute name of type typ.
func AttributeDef(name string, typ types.ScalarAttributeType) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: typ}
}

// CreateTable creates table on api, on demand, with the string hash key
// pk and, unless skType is "", the range key sk of type skType. It fails
// tb on an error.
func CreateTable(tb testing.TB, api timetable.API, table string, skType types.ScalarAttributeType) {
	tb.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{AttributeDef("pk", types.ScalarAttributeTypeS)},
		KeySchema:            KeySchema("pk", ""),
	}
	if skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, AttributeDef("sk", skType))
		in.KeySchema = KeySchema("pk", "sk")
	}
	if _, err := api.CreateTable(context.Background(), in); err != nil {
		tb.Fatalf("cannot create table %s: %v", table, err)
	}
}
