package local_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/local"
)

// pqDB opens an engine with table tbl (pk S, sk N) holding a/1..a/3, b/1.
func pqDB(t testing.TB) *local.DB {
	t.Helper()
	db := openMem(t, &local.Options{NoSync: true})
	createTable(t, db, "tbl", "N")
	for _, k := range [][2]string{{"a", "1"}, {"a", "2"}, {"a", "3"}, {"b", "1"}} {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
			Item: attrs("pk", s(k[0]), "sk", n(k[1]), "x", n("5"))}); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestExecuteStatement_Capacity(t *testing.T) {
	db := pqDB(t)
	out, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`SELECT * FROM tbl WHERE pk = 'a'`), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if cc := out.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.CapacityUnits) != 0.5 || aws.ToString(cc.TableName) != "tbl" {
		t.Fatalf("capacity %+v", cc)
	}
	out, err = db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`UPDATE tbl SET x = 1 WHERE pk = 'a' AND sk = 1`), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if cc := out.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.CapacityUnits) != 1 {
		t.Fatalf("capacity %+v", cc)
	}
}

// A NextToken continues only the statement (its key ranges) that made it.
func TestExecuteStatement_NextToken(t *testing.T) {
	db := pqDB(t)
	page := func(stmt string, token *string) (*dynamodb.ExecuteStatementOutput, error) {
		return db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Limit: aws.Int32(1), NextToken: token})
	}
	out, err := page(`SELECT sk FROM tbl WHERE pk = 'a'`, nil)
	if err != nil || out.NextToken == nil {
		t.Fatalf("%v, %v", out, err)
	}
	if _, err := page(`SELECT sk FROM tbl WHERE pk = 'b'`, out.NextToken); !isValidation(err, "Invalid NextToken") {
		t.Fatalf("token of another partition: %v", err)
	}
	bad := base64.StdEncoding.EncodeToString([]byte("P1\x05"))
	if _, err := page(`SELECT sk FROM tbl WHERE pk = 'a'`, &bad); !isValidation(err, "Invalid NextToken") {
		t.Fatalf("token of a missing part: %v", err)
	}
	next, err := page(`SELECT sk FROM tbl WHERE pk = 'a'`, out.NextToken)
	if err != nil || len(next.Items) != 1 || next.Items[0]["sk"].(*types.AttributeValueMemberN).Value != "2" {
		t.Fatalf("second page %v, %v", next, err)
	}
}

func isValidation(err error, msg string) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" && ae.ErrorMessage() == msg
}

// FuzzExecuteStatement runs arbitrary statements, parameters and tokens
// on a table: every answer is a result or an API error, never a panic.
func FuzzExecuteStatement(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM tbl WHERE pk = ? AND sk > 1 AND x IN [1, 5]`,
		`SELECT x, m.b[1] FROM tbl WHERE pk IN ['a', 'b'] ORDER BY sk DESC`,
		`SELECT * FROM tbl WHERE begins_with(pk, 'a') OR size(x) > 1 OR x IS MISSING OR NOT x IS NULL`,
		`INSERT INTO tbl VALUE {'pk': 'c', 'sk': 1, 'l': [1, <<'a'>>, {'m': NULL}]}`,
		`UPDATE tbl SET x = x + ?, s = set_add(s, <<'a'>>) REMOVE y WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`,
		`DELETE FROM tbl WHERE pk = 'a' AND sk = 2 AND x = ? RETURNING ALL OLD *`,
		`EXISTS(SELECT * FROM tbl WHERE pk = 'a' AND sk = 1)`,
	} {
		f.Add(s, "", uint8(0))
		f.Add(s, "UDEAAA==", uint8(2))
	}
	db := pqDB(f)
	f.Fuzz(func(t *testing.T, stmt, token string, limit uint8) {
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt),
			Parameters: []types.AttributeValue{s("a"), n("1")}}
		if token != "" {
			in.NextToken = aws.String(token)
		}
		if limit > 0 {
			in.Limit = aws.Int32(int32(limit))
		}
		check := func(err error) {
			var ae smithy.APIError
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("%q: %T %v", stmt, err, err)
			}
		}
		_, err := db.ExecuteStatement(ctx, in)
		check(err)
		_, err = db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			{Statement: aws.String(stmt), Parameters: in.Parameters}}})
		check(err)
		_, err = db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(stmt), Parameters: in.Parameters}}})
		check(err)
	})
}

func ExampleDB_ExecuteStatement() {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	_, _ = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("tbl"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	_, _ = db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO tbl VALUE {'pk': 'a', 'n': 1}`)})
	out, _ := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`SELECT n FROM tbl WHERE pk = ?`), Parameters: []types.AttributeValue{&types.AttributeValueMemberS{Value: "a"}}})
	fmt.Println(out.Items[0]["n"].(*types.AttributeValueMemberN).Value)
	// Output: 1
}
