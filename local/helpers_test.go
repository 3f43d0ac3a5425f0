package local_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	timetable "github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

var _ timetable.API = (*local.DB)(nil)

var ctx = context.Background()

// openMem opens an in-memory DB closed at the end of the test.
var openMem = testenv.MemDB

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
func b(v []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: v} }
func attrs(kv ...any) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return m
}

// createTable creates a table with partition key pk (S) and, if sk != "",
// sort key sk of type skType.
func createTable(t testing.TB, db *local.DB, name, skType string, mod ...func(*dynamodb.CreateTableInput)) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	if skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeType(skType)})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	for _, f := range mod {
		f(in)
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
}

// wantAPIError checks that err is an API error with the code and a message
// containing msg.
func wantAPIError(t testing.TB, err error, code, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s %q", code, msg)
	}
	var oe *smithy.OperationError
	if !errors.As(err, &oe) {
		t.Fatalf("error %v (%T) is not a *smithy.OperationError", err, err)
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not a smithy.APIError", err)
	}
	if ae.ErrorCode() != code || !strings.Contains(ae.ErrorMessage(), msg) {
		t.Fatalf("got %s %q, want %s %q", ae.ErrorCode(), ae.ErrorMessage(), code, msg)
	}
}

func put(t testing.TB, db *local.DB, table string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func get(t testing.TB, db *local.DB, table string, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
func errorsIs(err, target error) bool     { return errors.Is(err, target) }

// reopen closes db and opens its folder dir again, closed when the test
// ends: a restart between a write and a read.
func reopen(t *testing.T, db *local.DB, dir string) *local.DB {
	t.Helper()
	return reopenWith(t, db, dir, nil)
}

// reopenWith is reopen with opts for the new DB.
func reopenWith(t *testing.T, db *local.DB, dir string, opts *local.Options) *local.DB {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := local.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
