package auth

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/wire"
)

func TestStatementTable(t *testing.T) {
	f := func(stmt, table string, writes, ok bool) {
		t.Helper()
		gt, gw, gok := statementTable(stmt)
		if gt != table || gw != writes || gok != ok {
			t.Errorf("statementTable(%q) = %q, %v, %v; want %q, %v, %v", stmt, gt, gw, gok, table, writes, ok)
		}
	}
	f(`SELECT * FROM "app" WHERE pk = 'a'`, "app", false, true)
	f(`select a, "from" FROM app.idx`, "app", false, true)
	f(`SELECT * FROM "we""ird"."by_date"`, `we"ird`, false, true)
	f(`SELECT * FROM "app" WHERE s = 'FROM "analytics"'`, "app", false, true) // a string is not a FROM
	f(`EXISTS(SELECT * FROM "app" WHERE pk = 'a')`, "app", false, true)
	f(`INSERT INTO "app" VALUE {'pk': 'a', 'from': 'x'}`, "app", true, true)
	f(`UPDATE "app" SET n = 1 WHERE pk = 'a'`, "app", true, true)
	f(`DELETE FROM app WHERE pk = 'a'`, "app", true, true)
	// Cannot tell: refused unless unlimited admin.
	f(`SELECT * FROM /* "app" */ "analytics"`, "", false, false)
	f(`SELECT * FROM "app" -- x`, "", false, false)
	f(`SELECT * FROM "app" WHERE x IN (SELECT * FROM "analytics")`, "", false, false)
	f(`SELECT * FROM 'app'`, "", false, false)
	f(`SELECT * FROM "app`, "", false, false)
	f(`UPDATE "app" SET a = 1 FROM "analytics"`, "", false, false)
	f(`INSERT "app" VALUE {}`, "", false, false)
	f(`DROP TABLE "app"`, "", false, false)
	f(``, "", false, false)
}

func TestRequestTables(t *testing.T) {
	f := func(body string, tables []string, writes, unknown bool) {
		t.Helper()
		q := requestTables([]byte(body))
		if !slices.Equal(q.tables, tables) || q.writes != writes || q.unknown != unknown {
			t.Errorf("requestTables(%s) = %+v, want %q writes %v unknown %v", body, q, tables, writes, unknown)
		}
	}
	f(`{}`, nil, false, false)
	f(``, nil, false, false)
	f(`{"TableName":"a","Key":{"TableName":{"S":"x"}}}`, []string{"a"}, false, false) // only the top level names a table
	f(`{"TableName":"a","tablename":"b","TABLENAME":"a"}`, []string{"a", "b"}, false, false)
	f(`{"RequestItems":{"a":{"Keys":[]},"b":[{"PutRequest":{}}]}}`, []string{"a", "b"}, false, false)
	f(`{"TransactItems":[{"Get":{"TableName":"a"}},{"ConditionCheck":{"Key":{},"TableName":"b"}}]}`, []string{"a", "b"}, false, false)
	f(`{"StreamArn":"arn:aws:dynamodb:ddblocal:000000000000:table/app/stream/2024-01-01T00:00:00.000"}`, []string{"app"}, false, false)
	f(`{"ShardIterator":"arn:aws:dynamodb:ddblocal:000000000000:table/app/stream/x|001|AAAA"}`, []string{"app"}, false, false)
	f(`{"ResourceArn":"arn:aws:dynamodb:us-east-1:1:table/t"}`, []string{"t"}, false, false)
	f(`{"ResourceArn":"nonsense"}`, nil, false, true)
	f(`{"Statement":"SELECT * FROM a"}`, []string{"a"}, false, false)
	f(`{"Statements":[{"Statement":"SELECT * FROM a"},{"Statement":"DELETE FROM b WHERE k = 1"}]}`, []string{"a", "b"}, true, false)
	f(`{"TransactStatements":[{"Statement":"UPDATE a SET x = 1"}]}`, []string{"a"}, true, false)
	f(`{"TableName":5}`, nil, false, true)
	f(`{"TableName":"a"`, []string{"a"}, false, true)
	f(`[1,2]`, nil, false, false)
}

func TestAuthorizeDynamoDB(t *testing.T) {
	protected := []string{"analytics", DefaultTable}
	key := func(scope Scope, tables ...string) *Principal {
		return newKeyPrincipal(AccessKey{ID: "TTAKTEST", Scopes: []Scope{scope}, Tables: tables})
	}
	f := func(p *Principal, op, body string, allowed bool) {
		t.Helper()
		err := authorizeDynamoDB(p, "DynamoDB_20120810."+op, []byte(body), protected)
		if (err == nil) != allowed {
			t.Errorf("%s %s %s: %v, want allowed %v", p, op, body, err, allowed)
		}
		var we *wire.Error
		if err != nil && (!errors.As(err, &we) || we.Code != "AccessDeniedException" || we.Status != 400 ||
			!strings.Contains(we.Message, "is not authorized to perform: dynamodb:"+op)) {
			t.Errorf("%s %s: %v, want DynamoDB's AccessDeniedException", p, op, err)
		}
	}
	read, write, admin := key(ScopeRead), key(ScopeWrite), key(ScopeAdmin)
	f(read, "GetItem", `{"TableName":"app"}`, true)
	f(read, "PutItem", `{"TableName":"app"}`, false)
	f(write, "PutItem", `{"TableName":"app"}`, true)
	f(write, "GetItem", `{"TableName":"app"}`, false)
	f(write, "DeleteTable", `{"TableName":"app"}`, false)
	f(admin, "DeleteTable", `{"TableName":"app"}`, true)
	f(read, "GetItem", `{"TableName":"analytics"}`, false)
	f(write, "UpdateItem", `{"TableName":"analytics"}`, false)
	f(admin, "UpdateItem", `{"TableName":"analytics"}`, true)
	f(read, "GetItem", `{"TableName":"`+DefaultTable+`"}`, false)
	f(read, "BatchGetItem", `{"RequestItems":{"app":{},"analytics":{}}}`, false)
	f(read, "ListTables", `{}`, true)
	f(read, "ExecuteStatement", `{"Statement":"SELECT * FROM app"}`, true)
	f(read, "ExecuteStatement", `{"Statement":"DELETE FROM app WHERE pk = 1"}`, false)
	f(write, "ExecuteStatement", `{"Statement":"DELETE FROM app WHERE pk = 1"}`, true)
	f(admin, "ExecuteStatement", `{"Statement":"SELECT * FROM app -- x"}`, true)
	f(key(ScopeAdmin, "app"), "ExecuteStatement", `{"Statement":"SELECT * FROM app -- x"}`, false)
	f(key(ScopeAdmin, "app"), "DeleteTable", `{"TableName":"app"}`, true)
	f(key(ScopeAdmin, "app"), "DeleteTable", `{"TableName":"other"}`, false)
	f(key(ScopeAdmin, "app"), "DescribeLimits", `{}`, true)          // a read of no table
	f(key(ScopeAdmin, "app"), "RestoreTableFromBackup", `{}`, false) // administers no table named: the endpoint's
	f(admin, "RestoreTableFromBackup", `{}`, true)
	f(key(ScopeRead, "app"), "GetItem", `{"TableName":"app","tablename":"other"}`, false)
	f(nil, "GetItem", `{"TableName":"app"}`, false)
	// Streams reads.
	if err := authorizeDynamoDB(read, "DynamoDBStreams_20120810.GetRecords", []byte(`{"ShardIterator":"arn:aws:dynamodb:x:0:table/analytics/stream/s|001|AA"}`), protected); err == nil {
		t.Error("a read key reads the analytics table's stream")
	}
	if err := authorizeDynamoDB(read, "DynamoDBStreams_20120810.GetRecords", []byte(`{"ShardIterator":"arn:aws:dynamodb:x:0:table/app/stream/s|001|AA"}`), protected); err != nil {
		t.Errorf("a read key reading app's stream: %v", err)
	}
}

// FuzzStatementTable: any statement is read without a panic, and a table
// found is one the statement spells (unquoted) after FROM, INTO or UPDATE.
func FuzzStatementTable(f *testing.F) {
	for _, s := range []string{`SELECT * FROM "app" WHERE pk = 'a'`, `INSERT INTO "a""b" VALUE {'k': 'v'}`,
		`UPDATE t SET x = 1`, `DELETE FROM "t" WHERE k = 'x'`, `EXISTS(SELECT * FROM t)`, `SELECT "from" FROM "t"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stmt string) {
		table, _, ok := statementTable(stmt)
		if !ok {
			if table != "" {
				t.Fatalf("statementTable(%q) = %q but not ok", stmt, table)
			}
			return
		}
		if table == "" || !strings.Contains(stmt, strings.ReplaceAll(table, `"`, `""`)) && !strings.Contains(stmt, table) {
			t.Fatalf("statementTable(%q) = %q, not in the statement", stmt, table)
		}
	})
}

// FuzzRequestTables: any body is read without a panic; every table name
// found is one the body holds.
func FuzzRequestTables(f *testing.F) {
	for _, s := range []string{`{"TableName":"a"}`, `{"RequestItems":{"a":{},"b":[]}}`,
		`{"TransactItems":[{"Put":{"TableName":"a"}}]}`, `{"Statements":[{"Statement":"SELECT * FROM a"}]}`,
		`{"ShardIterator":"arn:aws:dynamodb:x:0:table/a/stream/s|001|AA"}`, `{"TableName":"a","tablename":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		q := requestTables(body)
		for _, tb := range q.tables {
			if len(tb) > len(body) {
				t.Fatalf("requestTables(%q): table %q longer than the body", body, tb)
			}
		}
	})
}
