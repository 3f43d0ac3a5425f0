package local_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
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

// BatchExecuteStatement reports per table, in first-use order, what the
// same reads cost through BatchGetItem and the same writes through single
// writes (a global index's share included), in both capacity modes.
func TestBatchExecuteStatement_Capacity(t *testing.T) {
	withIndex := func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	}
	open := func() *local.DB {
		db := openMem(t, &local.Options{NoSync: true})
		createTable(t, db, "one", "N", withIndex)
		createTable(t, db, "two", "")
		big := strings.Repeat("x", 5000)
		put(t, db, "one", attrs("pk", s("a"), "sk", n("1"), "g", s("old"), "v", s(big)))
		put(t, db, "one", attrs("pk", s("a"), "sk", n("2"), "v", s("small")))
		put(t, db, "two", attrs("pk", s("p"), "v", s(big+big)))
		return db
	}
	for _, mode := range []types.ReturnConsumedCapacity{types.ReturnConsumedCapacityIndexes, types.ReturnConsumedCapacityTotal} {
		t.Run(string(mode), func(t *testing.T) {
			db, twin := open(), open()
			out, err := db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{ReturnConsumedCapacity: mode, Statements: []types.BatchStatementRequest{
				{Statement: aws.String(`SELECT * FROM two WHERE pk = 'p'`)},
				{Statement: aws.String(`SELECT v FROM one WHERE pk = 'a' AND sk = 1`), ConsistentRead: aws.Bool(true)},
				{Statement: aws.String(`SELECT * FROM one WHERE pk = 'a' AND sk = 9`)},
				{Statement: aws.String(`SELECT * FROM one WHERE pk = 'a' AND sk = 2`)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := twin.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: mode, RequestItems: map[string]types.KeysAndAttributes{
				"two": {Keys: []map[string]types.AttributeValue{attrs("pk", s("p"))}},
				"one": {Keys: []map[string]types.AttributeValue{attrs("pk", s("a"), "sk", n("1"))}, ConsistentRead: aws.Bool(true)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			// In first-use order; the eventually consistent read of a/2
			// costs half a unit more.
			var wantList []types.ConsumedCapacity
			for _, name := range []string{"two", "one"} {
				for _, c := range want.ConsumedCapacity {
					if aws.ToString(c.TableName) == name {
						wantList = append(wantList, c)
					}
				}
			}
			half := *wantList[1].CapacityUnits + 0.5
			wantList[1].CapacityUnits = &half
			if mode == types.ReturnConsumedCapacityIndexes {
				wantList[1].Table.CapacityUnits = &half
			}
			if got, w := fmt.Sprintf("%+v", capacities(out.ConsumedCapacity)), fmt.Sprintf("%+v", capacities(wantList)); got != w || len(wantList) != 2 {
				t.Fatalf("reads:\n got %s\nwant %s", got, w)
			}

			out, err = db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{ReturnConsumedCapacity: mode, Statements: []types.BatchStatementRequest{
				{Statement: aws.String(`UPDATE one SET g = 'new' WHERE pk = 'a' AND sk = 1`)},
				{Statement: aws.String(`DELETE FROM two WHERE pk = 'p'`)},
				{Statement: aws.String(`INSERT INTO one VALUE {'pk': 'a', 'sk': 2}`)}, // exists: DuplicateItem
				{Statement: aws.String(`INSERT INTO one VALUE {'pk': 'b', 'sk': 1, 'g': 'x'}`)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if e := out.Responses[2].Error; e == nil || e.Code != types.BatchStatementErrorCodeEnumDuplicateItem {
				t.Fatalf("INSERT of an existing item: %+v", e)
			}
			var sums [2]float64
			var gsi float64
			for i, w := range []func() (*types.ConsumedCapacity, error){
				func() (*types.ConsumedCapacity, error) {
					o, err := twin.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("one"), Key: attrs("pk", s("a"), "sk", n("1")),
						UpdateExpression: aws.String("SET g = :g"), ExpressionAttributeValues: attrs(":g", s("new")), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
					return o.ConsumedCapacity, err
				},
				func() (*types.ConsumedCapacity, error) {
					o, err := twin.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("two"), Key: attrs("pk", s("p")), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
					return o.ConsumedCapacity, err
				},
				func() (*types.ConsumedCapacity, error) {
					o, err := twin.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("one"), Item: attrs("pk", s("b"), "sk", n("1"), "g", s("x")), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
					return o.ConsumedCapacity, err
				},
			} {
				cc, err := w()
				if err != nil {
					t.Fatal(err)
				}
				sums[[]int{0, 1, 0}[i]] += *cc.CapacityUnits
				if g, ok := cc.GlobalSecondaryIndexes["gsi"]; ok {
					gsi += *g.CapacityUnits
				}
			}
			if gsi != 11 { // the update moves a 5 KB entry (delete and put, 5 units each), the insert puts a small one
				t.Fatalf("twin's index units %v, want 11", gsi)
			}
			cc := out.ConsumedCapacity
			if len(cc) != 2 || aws.ToString(cc[0].TableName) != "one" || aws.ToString(cc[1].TableName) != "two" ||
				*cc[0].CapacityUnits != sums[0] || *cc[1].CapacityUnits != sums[1] {
				t.Fatalf("writes: %+v, want one %v and two %v units", capacities(cc), sums[0], sums[1])
			}
			if mode == types.ReturnConsumedCapacityIndexes && (cc[0].GlobalSecondaryIndexes["gsi"].CapacityUnits == nil || *cc[0].GlobalSecondaryIndexes["gsi"].CapacityUnits != gsi) {
				t.Fatalf("one's index units: %+v, want %v", cc[0].GlobalSecondaryIndexes, gsi)
			}
			if mode == types.ReturnConsumedCapacityTotal && cc[0].GlobalSecondaryIndexes != nil {
				t.Fatalf("TOTAL has index parts: %+v", cc[0])
			}
		})
	}
	out, err := open().BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT * FROM two WHERE pk = 'p'`)}}})
	if err != nil || out.ConsumedCapacity != nil {
		t.Fatalf("not asked for: %+v, %v", out.ConsumedCapacity, err)
	}
}

// capacities renders a list of ConsumedCapacity for comparison.
func capacities(list []types.ConsumedCapacity) []string {
	var out []string
	for _, c := range list {
		r := fmt.Sprintf("%s=%v", aws.ToString(c.TableName), aws.ToFloat64(c.CapacityUnits))
		if c.Table != nil {
			r += fmt.Sprintf(" table=%v", aws.ToFloat64(c.Table.CapacityUnits))
		}
		for name, x := range c.GlobalSecondaryIndexes {
			r += fmt.Sprintf(" %s=%v", name, aws.ToFloat64(x.CapacityUnits))
		}
		out = append(out, r)
	}
	return out
}
