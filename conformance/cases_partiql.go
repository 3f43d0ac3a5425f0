package conformance

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// PartiQL: ExecuteStatement (SELECT as Query or Scan, INSERT, UPDATE,
// DELETE), BatchExecuteStatement and ExecuteTransaction, with DynamoDB
// Local's answers and words.

// partiql returns the backend's PartiQL methods; every backend the cases
// run on has them.
func (h *H) partiql() timetable.PartiQLAPI {
	h.t.Helper()
	p, ok := h.API.(timetable.PartiQLAPI)
	if !ok {
		h.t.Fatalf("%T does not implement timetable.PartiQLAPI", h.API)
	}
	return p
}

// stmtErr runs one statement with parameters.
func (h *H) stmtErr(s string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
	return h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(s), Parameters: params})
}

// stmt runs one statement that must succeed and returns its items.
func (h *H) stmt(s string, params ...types.AttributeValue) []Item {
	h.t.Helper()
	out, err := h.stmtErr(s, params...)
	if err != nil {
		h.t.Fatalf("%s: %v", s, err)
	}
	return out.Items
}

// wantStmtError runs a statement that must fail with a ValidationException
// whose message is msg (see WantError for "~").
func (h *H) wantStmtError(s, msg string, params ...types.AttributeValue) {
	h.t.Helper()
	_, err := h.stmtErr(s, params...)
	h.WantError(err, "ValidationException", msg)
}

// wantDuplicate fails the case unless err is the error of an INSERT of an
// existing item: DynamoDB's DuplicateItemException, which DynamoDB Local
// names DuplicateItem.
func (h *H) wantDuplicate(err error) {
	h.t.Helper()
	code := ErrorCode(err)
	if code != "DuplicateItemException" && code != "DuplicateItem" {
		h.t.Fatalf("error code = %q, want DuplicateItemException (message %q)", code, ErrorMessage(err))
	}
	if got := ErrorMessage(err); got != "Duplicate primary key exists in table" {
		h.t.Fatalf("message = %q", got)
	}
}

// pqFixture creates a table keyed by pk (S) and sk (N) with a global index
// by_g on g, holding a/1..a/3 and b/1.
func pqFixture(h *H) string {
	h.t.Helper()
	tbl := h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions:   attrDefs("pk", "S", "sk", "N", "g", "S"),
		KeySchema:              keySchema("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeAll)},
	})
	h.PutMany(tbl, pqItems()...)
	return tbl
}

func pqItems() []Item {
	return []Item{
		{"pk": S("a"), "sk": N("1"), "x": N("5"), "g": S("g1"), "s": S("apple"), "m": M(Item{"b": L(N("1"), N("2"), S("three"))}), "ss": SS("p", "q"), "n": NULL()},
		{"pk": S("a"), "sk": N("2"), "x": N("6"), "g": S("g1"), "s": S("banana"), "l": L(N("1"), N("2"))},
		{"pk": S("a"), "sk": N("3"), "x": N("7"), "s": S("apricot"), "t": BOOL(true)},
		{"pk": S("b"), "sk": N("1"), "x": N("5"), "g": S("g2")},
	}
}

func pqKey(pk, sk string) Item { return Item{"pk": S(pk), "sk": N(sk)} }

// pqItem returns the fixture's item pk/sk.
func pqItem(pk, sk string) Item {
	for _, it := range pqItems() {
		if FormatItem(Item{"pk": it["pk"], "sk": it["sk"]}) == FormatItem(pqKey(pk, sk)) {
			return it
		}
	}
	return nil
}

func pqCase(name string, run func(h *H, tbl string)) Case {
	return Case{Name: "PartiQL/" + name, Run: func(t *testing.T, h *H) { run(h, pqFixture(h)) }}
}

// pqSelectCase checks that a SELECT returns want, in order (ordered) or
// as a set.
func pqSelectCase(name, where string, ordered bool, want ...[2]string) Case {
	return pqCase("Select/"+name, func(h *H, tbl string) {
		got := h.stmt(fmt.Sprintf(`SELECT * FROM "%s" %s`, tbl, where))
		var items []Item
		for _, k := range want {
			items = append(items, pqItem(k[0], k[1]))
		}
		if ordered {
			h.WantItems(got, items)
		} else {
			h.WantItemSet(got, items)
		}
	})
}

func pqErrorCase(name, stmt, msg string) Case {
	return pqCase("Error/"+name, func(h *H, tbl string) {
		h.wantStmtError(fmt.Sprintf(stmt, tbl), msg)
	})
}

func init() {
	a1, a2, a3, b1 := [2]string{"a", "1"}, [2]string{"a", "2"}, [2]string{"a", "3"}, [2]string{"b", "1"}
	register(
		pqSelectCase("Query", `WHERE pk = 'a'`, true, a1, a2, a3),
		pqSelectCase("QueryKeyFirst", `WHERE sk >= 2 AND pk = 'a'`, true, a2, a3),
		pqSelectCase("QueryBetween", `WHERE pk = 'a' AND sk BETWEEN 2 AND 3`, true, a2, a3),
		pqSelectCase("QueryBeginsWithFilter", `WHERE pk = 'a' AND begins_with(s, 'ap')`, true, a1, a3),
		pqSelectCase("QuerySortKeyIn", `WHERE pk = 'a' AND sk IN [1, 3]`, true, a1, a3),
		pqSelectCase("QueryOrderByDesc", `WHERE pk = 'a' ORDER BY sk DESC`, true, a3, a2, a1),
		pqSelectCase("QueryIn", `WHERE pk IN ['b', 'a'] AND sk = 1`, true, a1, b1),
		pqSelectCase("QueryMissingPartition", `WHERE pk = 'zz'`, true),
		pqSelectCase("ScanAll", ``, false, a1, a2, a3, b1),
		pqSelectCase("ScanFilter", `WHERE x = 5`, false, a1, b1),
		pqSelectCase("ScanOr", `WHERE pk = 'b' OR x = 7`, false, a3, b1),
		pqSelectCase("ScanNot", `WHERE NOT x = 5 AND x <> 6`, false, a3),
		pqSelectCase("ScanInFilter", `WHERE x IN [6, 7]`, false, a2, a3),
		pqSelectCase("ScanBetween", `WHERE x BETWEEN 6 AND 10`, false, a2, a3),
		pqSelectCase("IsMissing", `WHERE g IS MISSING`, false, a3),
		pqSelectCase("IsNotMissing", `WHERE t IS NOT MISSING`, false, a3),
		pqSelectCase("IsNull", `WHERE n IS NULL`, false, a1),
		pqSelectCase("IsNotNull", `WHERE n IS NOT NULL`, false, a2, a3, b1),
		pqSelectCase("Bool", `WHERE t = true`, false, a3),
		pqSelectCase("Contains", `WHERE contains(ss, 'q')`, false, a1),
		pqSelectCase("Size", `WHERE size(l) = 2`, false, a2),
		pqSelectCase("AttributeType", `WHERE attribute_type(t, 'BOOL')`, false, a3),
		pqSelectCase("NestedPath", `WHERE m.b[2] = 'three'`, false, a1),
		pqSelectCase("MapLiteral", `WHERE m = {'b': [1, 2, 'three']}`, false, a1),
		pqSelectCase("SetLiteral", `WHERE ss = <<'q', 'p'>>`, false, a1),
		pqSelectCase("QuotedNames", `WHERE "pk" = 'b' AND "x" = 5`, false, b1),

		pqCase("Select/Projection", func(h *H, tbl string) {
			got := h.stmt(fmt.Sprintf(`SELECT x, m.b[1], "l"[0], nope FROM "%s" WHERE pk = 'a' AND sk <= 2`, tbl))
			h.WantItems(got, []Item{{"x": N("5"), "b[1]": N("2")}, {"x": N("6"), "l[0]": N("1")}})
		}),
		pqCase("Select/Parameters", func(h *H, tbl string) {
			got := h.stmt(fmt.Sprintf(`SELECT sk FROM "%s" WHERE pk = ? AND sk > ?`, tbl), S("a"), N("1"), S("extra"))
			h.WantItems(got, []Item{{"sk": N("2")}, {"sk": N("3")}})
		}),
		pqCase("Select/Index", func(h *H, tbl string) {
			got := h.stmt(fmt.Sprintf(`SELECT pk, sk FROM "%s"."by_g" WHERE g = 'g1'`, tbl))
			h.WantItemSet(got, []Item{pqKey("a", "1"), pqKey("a", "2")})
		}),
		pqCase("Select/IndexConsistentRead", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s"."by_g" WHERE g = 'g1'`, tbl)), ConsistentRead: aws.Bool(true)})
			h.WantError(err, "ValidationException", "Consistent reads are not supported on global secondary indexes")
		}),
		// The WHERE clause is checked before ConsistentRead on a global
		// index.
		pqCase("Select/IndexConsistentReadAfterWhere", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement:      aws.String(fmt.Sprintf(`SELECT * FROM "%s"."by_g" WHERE g = 'g1' AND x BETWEEN 5 AND 1`, tbl)),
				ConsistentRead: aws.Bool(true)})
			h.WantError(err, "ValidationException", "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}")
		}),
		pqCase("Select/ConsistentRead", func(h *H, tbl string) {
			out, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'b'`, tbl)), ConsistentRead: aws.Bool(true)})
			h.Must(err)
			h.WantItems(out.Items, []Item{pqItem("b", "1")})
		}),
		pqCase("Select/QueryPages", func(h *H, tbl string) {
			got := h.pqAllPages(fmt.Sprintf(`SELECT sk FROM "%s" WHERE pk IN ['a', 'b']`, tbl), 1)
			h.WantItems(got, []Item{{"sk": N("1")}, {"sk": N("2")}, {"sk": N("3")}, {"sk": N("1")}})
		}),
		pqCase("Select/QueryPagesOfTwo", func(h *H, tbl string) {
			got := h.pqAllPages(fmt.Sprintf(`SELECT sk FROM "%s" WHERE pk = 'a'`, tbl), 2)
			h.WantItems(got, []Item{{"sk": N("1")}, {"sk": N("2")}, {"sk": N("3")}})
		}),
		pqCase("Select/ScanPages", func(h *H, tbl string) {
			got := h.pqAllPages(fmt.Sprintf(`SELECT * FROM "%s" WHERE x >= 5`, tbl), 1)
			h.WantItemSet(got, pqItems())
		}),
		pqCase("Select/LimitFirstPage", func(h *H, tbl string) {
			out, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT sk FROM "%s" WHERE pk = 'a' AND x > 5`, tbl)), Limit: aws.Int32(2)})
			h.Must(err)
			// Limit counts the items read, before the filter.
			h.WantItems(out.Items, []Item{{"sk": N("2")}})
			if out.NextToken == nil {
				h.t.Fatal("no NextToken")
			}
		}),
		pqCase("Error/InvalidNextToken", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s"`, tbl)), NextToken: aws.String("garbage")})
			h.WantError(err, "ValidationException", "Invalid NextToken")
		}),
		pqCase("Error/Limit", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s"`, tbl)), Limit: aws.Int32(0)})
			h.WantError(err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		}),
		pqCase("Error/UnknownTable", func(h *H, tbl string) {
			_, err := h.stmtErr(`SELECT * FROM "` + tbl + `_none"`)
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
		}),
		pqCase("Error/TooFewParameters", func(h *H, tbl string) {
			h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = ? AND sk = ?`, tbl), "Number of parameters in request and statement don't match.", S("a"))
		}),
		pqErrorCase("Syntax", `SELECT * FROM "%s" WHERE`, "~Statement wasn't well formed, can't be processed: SELECT * FROM"),
		pqErrorCase("NotAStatement", `SELEC * FROM "%s"`, "~Statement wasn't well formed, can't be processed: SELEC * FROM"),
		pqErrorCase("UnknownIndex", `SELECT * FROM "%s"."nope" WHERE g = 'x'`, "The table does not have the specified index: nope"),
		pqErrorCase("NotBoolean", `SELECT * FROM "%s" WHERE x`, "WHERE clause must contain an expression that resolves to a boolean"),
		pqErrorCase("EmptyIn", `SELECT * FROM "%s" WHERE pk IN []`, "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"),
		pqErrorCase("CompareMissing", `SELECT * FROM "%s" WHERE x = MISSING`, "MISSING must be compared using IS operator"),
		pqErrorCase("UnknownFunction", `SELECT * FROM "%s" WHERE exists(x)`, "Unrecognized function: exists"),
		pqErrorCase("PartitionKeyType", `SELECT * FROM "%s" WHERE pk = 1`, "Key attribute's data type should match its data type in table's schema: Key pk"),
		pqErrorCase("SortKeyType", `SELECT * FROM "%s" WHERE pk = 'a' AND sk = 'x'`, "Key attribute's data type should match its data type in table's schema: Key sk"),
		pqErrorCase("BeginsWithNumber", `SELECT * FROM "%s" WHERE pk = 'a' AND begins_with(sk, 1)`, "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
		pqErrorCase("OrderByWithoutWhere", `SELECT * FROM "%s" ORDER BY sk`, "Must have WHERE clause in the statement when using ORDER BY clause."),
		pqErrorCase("OrderByNonKey", `SELECT * FROM "%s" WHERE pk = 'a' ORDER BY x DESC`, "Variable reference x in ORDER BY clause must be part of the primary key"),
		pqErrorCase("OrderByScan", `SELECT * FROM "%s" WHERE x > 0 ORDER BY pk`, "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."),
		pqErrorCase("DuplicateProjection", `SELECT nope, m.nope FROM "%s"`, "Duplicate identifiers in select clause: nope"),
		pqErrorCase("OverlappingProjection", `SELECT m.b[1], m.b FROM "%s"`, "~Two document paths overlap with each other"),
		pqErrorCase("ExistsAlone", `EXISTS(SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1)`, "EXISTS can only be used in ExecuteTransaction write requests."),

		pqCase("Select/HashOnlyPages", func(h *H, _ string) {
			tbl := h.HashTable()
			h.PutMany(tbl, Item{"pk": S("a")}, Item{"pk": S("b")})
			// A page that reaches Limit has a NextToken, though nothing
			// follows; the next page is empty.
			out, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a'`, tbl)), Limit: aws.Int32(1)})
			h.Must(err)
			h.WantItems(out.Items, []Item{{"pk": S("a")}})
			if out.NextToken == nil {
				h.t.Fatal("no NextToken")
			}
			out, err = h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a'`, tbl)), Limit: aws.Int32(1), NextToken: out.NextToken})
			h.Must(err)
			h.WantItems(out.Items, []Item{})
			if out.NextToken != nil {
				h.t.Fatal("NextToken after the last page")
			}
		}),
		Case{Name: "PartiQL/Select/KeysOnlyIndex", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
				KeySchema:              keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeKeysOnly)},
			})
			h.PutMany(tbl, Item{"pk": S("a"), "g": S("x"), "y": N("1")}, Item{"pk": S("b"), "g": S("x"), "y": N("2")})
			// The condition on y, which the index does not project, is
			// evaluated on the table's item; the index's entry is returned.
			got := h.stmt(fmt.Sprintf(`SELECT * FROM "%s"."by_g" WHERE g = 'x' AND y = 2`, tbl))
			h.WantItems(got, []Item{{"pk": S("b"), "g": S("x")}})
			h.wantStmtError(fmt.Sprintf(`SELECT y FROM "%s"."by_g" WHERE g = 'x'`, tbl),
				"One or more parameter values were invalid: Global secondary index by_g does not project [y]")
		}},
		pqCase("Delete/MissingWithCondition", func(h *H, tbl string) {
			// The conditions of a DELETE hold on the item when it exists.
			h.WantItems(h.stmt(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'zz' AND sk = 1 AND x = 99`, tbl)), []Item{})
		}),
		pqCase("Error/InvalidParameter", func(h *H, tbl string) {
			h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND x = ?`, tbl), "A value provided cannot be converted into a number", N("NaN"))
			h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND x = ?`, tbl), "One or more parameter values were invalid: An string set  may not be empty", SS())
		}),
		pqCase("Error/StatementTooLong", func(h *H, tbl string) {
			h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE x = '%s'`, tbl, Str(8200)), "Member must have length less than or equal to 8192")
		}),
		pqCase("Error/TooManyInOperands", func(h *H, tbl string) {
			list := "1"
			for i := 2; i <= 120; i++ {
				list += fmt.Sprintf(", %d", i)
			}
			h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE x IN [%s]`, tbl, list), "The IN operator is provided with too many operands; number of operands: 120")
		}),
		pqErrorCase("SortKeyIsNull", `SELECT * FROM "%s" WHERE pk = 'a' AND sk IS NULL`, "Key attribute's data type should match its data type in table's schema: Key sk"),
		pqErrorCase("SortKeyEqualsNull", `SELECT * FROM "%s" WHERE pk = 'a' AND sk = NULL`, "Key attribute's data type should match its data type in table's schema: Key sk"),
		pqErrorCase("PartitionKeyIsNull", `SELECT * FROM "%s" WHERE pk IS NULL`, "Key attribute's data type should match its data type in table's schema: Key pk"),
		pqErrorCase("KeyIsNotNull", `SELECT * FROM "%s" WHERE pk = 'a' AND (sk IS NOT NULL OR x = 1)`, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		pqErrorCase("ScanSortKeyIsNull", `SELECT * FROM "%s" WHERE sk IS NULL`, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		pqCase("Error/KeyValueNotScalar", func(h *H, tbl string) {
			h.wantStmtError(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = ? AND sk = 1`, tbl), "Key value must be of type S, N, or B. Key name: pk, Key type: BOOL", BOOL(true))
		}),
		pqCase("Error/KeyTypesOrder", func(h *H, tbl string) {
			// Both wrong: DynamoDB Local names sk first, whatever the order.
			h.wantStmtError(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 1 AND sk = 'x'`, tbl), "Key attribute's data type should match its data type in table's schema: Key sk")
			h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 1 AND sk = 'x'`, tbl), "Key attribute's data type should match its data type in table's schema: Key sk")
			h.wantStmtError(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 1, 'sk': 'x'}`, tbl), "Key attribute's data type should match its data type in table's schema: Key pk")
		}),
		pqCase("Error/ConditionBeforeKeyType", func(h *H, tbl string) {
			h.wantStmtError(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 1 AND sk = 1 AND x BETWEEN 'b' AND 'a'`, tbl),
				"The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}")
		}),
		pqCase("Insert/Literals", func(h *H, tbl string) {
			items := h.stmt(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1.50, 's': 'it''s', 'n': -2e2, 'b': false, 'z': NULL, 'l': [1, 'x', [true]], 'm': {'k': {'j': 'v'}}, 'ss': <<'x', 'y'>>, 'ns': <<1, 2>>}`, tbl))
			h.WantItems(items, []Item{})
			h.WantItemNumeric(h.Get(tbl, pqKey("c", "1.5")), Item{
				"pk": S("c"), "sk": N("1.5"), "s": S("it's"), "n": N("-200"), "b": BOOL(false), "z": NULL(),
				"l": L(N("1"), S("x"), L(BOOL(true))), "m": M(Item{"k": M(Item{"j": S("v")})}), "ss": SS("x", "y"), "ns": NS("1", "2"),
			})
		}),
		pqCase("Insert/Parameters", func(h *H, tbl string) {
			h.stmt(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': ?, 'sk': ?, 'v': ?}`, tbl), S("c"), N("2"), BS([]byte("x")))
			h.WantItem(h.Get(tbl, pqKey("c", "2")), Item{"pk": S("c"), "sk": N("2"), "v": BS([]byte("x"))})
		}),
		pqCase("Insert/Duplicate", func(h *H, tbl string) {
			_, err := h.stmtErr(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'a', 'sk': 1}`, tbl))
			h.wantDuplicate(err)
			h.WantItem(h.Get(tbl, pqKey("a", "1")), pqItem("a", "1"))
		}),
		pqErrorCase("InsertMissingKey", `INSERT INTO "%s" VALUE {'pk': 'c'}`, "Key attribute should be present in the item: Key sk"),
		pqErrorCase("InsertKeyType", `INSERT INTO "%s" VALUE {'pk': 'c', 'sk': '1'}`, "Key attribute's data type should match its data type in table's schema: Key sk"),
		pqErrorCase("InsertNotStruct", `INSERT INTO "%s" VALUE 5`, "~Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."),
		pqErrorCase("InsertEmptyBag", `INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1, 's': <<>>}`, "~Empty bags are not supported"),
		pqErrorCase("InsertMixedBag", `INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1, 's': <<'a', 1>>}`, "~Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"),

		pqCase("Update/SetRemove", func(h *H, tbl string) {
			items := h.stmt(fmt.Sprintf(`UPDATE "%s" SET x = x + 10, y = 'new', m.b[1] = 20 REMOVE ss WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`, tbl))
			want := with(pqItem("a", "1"), "x", N("15"), "y", S("new"), "m", M(Item{"b": L(N("1"), N("20"), S("three"))}))
			delete(want, "ss")
			h.WantItems(items, []Item{want})
			h.WantItem(h.Get(tbl, pqKey("a", "1")), want)
		}),
		pqCase("Update/SetFunctions", func(h *H, tbl string) {
			items := h.stmt(fmt.Sprintf(`UPDATE "%s" SET ss = set_add(ss, <<'r'>>) SET l = list_append([0], [1]) WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *`, tbl))
			h.WantItems(items, []Item{{"ss": SS("p", "q", "r"), "l": L(N("0"), N("1"))}})
			items = h.stmt(fmt.Sprintf(`UPDATE "%s" SET ss = set_delete(ss, <<'p'>>) WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED OLD *`, tbl))
			h.WantItems(items, []Item{{"ss": SS("p", "q", "r")}})
		}),
		pqCase("Update/NoReturning", func(h *H, tbl string) {
			h.WantItems(h.stmt(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'b' AND sk = 1 AND x = 5`, tbl)), []Item{})
			h.WantItem(h.Get(tbl, pqKey("b", "1")), with(pqItem("b", "1"), "x", N("1")))
		}),
		pqCase("Update/Missing", func(h *H, tbl string) {
			_, err := h.stmtErr(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'zz' AND sk = 1`, tbl))
			h.WantError(err, "ConditionalCheckFailedException", "The conditional request failed")
			h.WantItem(h.Get(tbl, pqKey("zz", "1")), nil)
		}),
		pqCase("Update/ConditionFailsAllOld", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement:                           aws.String(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'b' AND sk = 1 AND x = 99`, tbl)),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			})
			h.WantError(err, "ConditionalCheckFailedException", "The conditional request failed")
			var cf *types.ConditionalCheckFailedException
			if !errors.As(err, &cf) {
				h.t.Fatalf("%T", err)
			}
			h.WantItem(cf.Item, pqItem("b", "1"))
		}),
		pqErrorCase("UpdateWithoutKey", `UPDATE "%s" SET x = 1 WHERE pk = 'a'`, "Where clause does not contain a mandatory equality on all key attributes"),
		pqErrorCase("UpdateScanWhere", `UPDATE "%s" SET x = 1 WHERE x = 5`, "Where clause does not contain a mandatory equality on all key attributes"),
		pqErrorCase("UpdateKey", `UPDATE "%s" SET pk = 'q' WHERE pk = 'a' AND sk = 1`, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"),
		pqErrorCase("UpdateIndex", `UPDATE "%s"."by_g" SET x = 1 WHERE pk = 'a' AND sk = 1`, "This operation is not supported on an index"),

		pqCase("Delete/Returning", func(h *H, tbl string) {
			items := h.stmt(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'b' AND sk = 1 RETURNING ALL OLD *`, tbl))
			h.WantItems(items, []Item{pqItem("b", "1")})
			h.WantItem(h.Get(tbl, pqKey("b", "1")), nil)
		}),
		pqCase("Delete/Missing", func(h *H, tbl string) {
			h.WantItems(h.stmt(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'zz' AND sk = 1`, tbl)), []Item{})
		}),
		pqCase("Delete/ConditionFails", func(h *H, tbl string) {
			_, err := h.stmtErr(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2 AND x = 99`, tbl))
			h.WantError(err, "ConditionalCheckFailedException", "The conditional request failed")
			h.WantItem(h.Get(tbl, pqKey("a", "2")), pqItem("a", "2"))
		}),
		pqCase("Delete/ConditionHolds", func(h *H, tbl string) {
			h.stmt(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = ? AND sk = ? AND begins_with(s, ?)`, tbl), S("a"), N("2"), S("ban"))
			h.WantItem(h.Get(tbl, pqKey("a", "2")), nil)
		}),
		pqErrorCase("DeleteWithoutKey", `DELETE FROM "%s" WHERE pk = 'b'`, "Where clause does not contain a mandatory equality on all key attributes"),

		pqCase("Batch/Reads", func(h *H, tbl string) {
			out, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = ? AND sk = ?`, tbl)), Parameters: []types.AttributeValue{S("a"), N("2")}},
				{Statement: aws.String(fmt.Sprintf(`SELECT x FROM "%s" WHERE pk = 'b' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'zz' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s_none" WHERE pk = 'a' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1 AND x = 5`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a'`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = ?`, tbl))},
			}})
			h.Must(err)
			h.wantBatch(out.Responses,
				batchResp{table: tbl, item: pqItem("a", "2")},
				batchResp{table: tbl, item: Item{"x": N("5")}},
				batchResp{table: tbl},
				batchResp{code: "ResourceNotFound", msg: "Cannot do operations on a non-existent table"},
				batchResp{code: "ValidationError", msg: "Only single item select is supported"},
				batchResp{code: "ValidationError", msg: "Only single item select is supported"},
				batchResp{code: "ValidationError", msg: "Number of parameters in request and statement don't match."},
			)
		}),
		pqCase("Batch/Writes", func(h *H, tbl string) {
			out, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'a', 'sk': 2}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'zz' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 1 AND x = 0`, tbl)), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'd', 'sk': 2}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s_none" WHERE pk = 'a' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'b' AND sk = 1 RETURNING ALL NEW *`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'b'`, tbl))},
				{Statement: aws.String(`SELEC`)},
			}})
			h.Must(err)
			if len(out.Responses) != 8 {
				h.t.Fatalf("%d responses", len(out.Responses))
			}
			// DynamoDB Local codes a duplicate DuplicateItem, as DynamoDB does.
			h.wantBatch(out.Responses,
				batchResp{table: tbl, code: "DuplicateItem", msg: "Duplicate primary key exists in table"},
				batchResp{table: tbl, code: "ConditionalCheckFailed", msg: "The conditional request failed"},
				batchResp{table: tbl, code: "ConditionalCheckFailed", msg: "The conditional request failed", item: pqItem("a", "1")},
				batchResp{table: tbl},
				batchResp{code: "ResourceNotFound", msg: "Cannot do operations on a non-existent table"},
				batchResp{table: tbl, item: with(pqItem("b", "1"), "x", N("1"))},
				batchResp{code: "ValidationError", msg: "Where clause does not contain a mandatory equality on all key attributes"},
				batchResp{code: "ValidationError", msg: "Invalid operation. Only select, insert, update and delete operations are valid"},
			)
			h.WantItem(h.Get(tbl, pqKey("d", "2")), pqKey("d", "2"))
			h.WantItem(h.Get(tbl, pqKey("b", "1")), with(pqItem("b", "1"), "x", N("1")))
		}),
		pqCase("Batch/Mixed", func(h *H, tbl string) {
			_, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2`, tbl))},
			}})
			h.WantError(err, "ValidationException", "Read and write requests together in the same batch is not supported.")
		}),
		pqCase("Batch/DuplicateKeys", func(h *H, tbl string) {
			_, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 2}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'c' AND sk = 2`, tbl))},
			}})
			h.WantError(err, "ValidationException", "Provided list of item keys contains duplicates")
			h.WantItem(h.Get(tbl, pqKey("c", "2")), nil)
		}),
		// An invalid parameter value refuses the whole batch, before the
		// statements are parsed, and nothing is written.
		pqCase("Batch/InvalidParameter", func(h *H, tbl string) {
			_, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1} xx`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 2}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 3, 'x': ?}`, tbl)), Parameters: []types.AttributeValue{NS("1", "")}},
			}})
			h.WantError(err, "ValidationException", "A value provided cannot be converted into a number")
			h.WantItem(h.Get(tbl, pqKey("c", "2")), nil)
		}),
		// The SELECTs of a batch or a transaction project nested values in
		// their documents, as a ProjectionExpression (ExecuteStatement names
		// them after their last step).
		pqCase("Batch/NestedProjection", func(h *H, tbl string) {
			stmt := fmt.Sprintf(`SELECT "m"."b"[2], l[1], x FROM "%s" WHERE pk = 'a' AND sk = 1`, tbl)
			want := Item{"m": M(Item{"b": L(S("three"))}), "x": N("5")}
			out, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{{Statement: aws.String(stmt)}}})
			h.Must(err)
			h.WantItem(out.Responses[0].Item, want)
			tx, err := h.pqTx(stmt)
			h.Must(err)
			h.WantItem(tx.Responses[0].Item, want)
		}),
		// Reads of one item twice (1 and 1.0 are one number) fail the whole
		// batch, as BatchGetItem.
		pqCase("Batch/DuplicateReads", func(h *H, tbl string) {
			_, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT "x" FROM "%s" WHERE sk = 1.0 AND pk = 'a'`, tbl))},
			}})
			h.WantError(err, "ValidationException", "Provided list of item keys contains duplicates")
		}),
		pqCase("Batch/TooMany", func(h *H, tbl string) {
			var ss []types.BatchStatementRequest
			for i := range 26 {
				ss = append(ss, types.BatchStatementRequest{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = %d`, tbl, i))})
			}
			_, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: ss})
			h.WantError(err, "ValidationException", "BatchGetItem cannot fetch more than 25 items")
		}),
		// A WHERE clause without an equality on each key attribute, with an
		// operand of the wrong type in its other conditions: the operand is
		// reported, in each API.
		pqCase("Error/OperandTypeBeforeKeyEquality", func(h *H, tbl string) {
			const msg = "Incorrect operand type for operator or function; operator or function: <=, operand type: BOOL"
			_, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND x <= true`, tbl))})
			h.WantError(err, "ValidationException", msg)
			_, err = h.partiql().ExecuteTransaction(h.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
				{Statement: aws.String(fmt.Sprintf(`EXISTS(SELECT * FROM "%s" WHERE pk = 'a' AND x <= true)`, tbl))}}})
			h.WantError(err, "ValidationException", "Validation failed in TransactStatements[0]: "+msg)
			for _, stmt := range []string{`SELECT * FROM "%s" WHERE pk = 'a' AND x <= true`, `UPDATE "%s" SET y = 1 WHERE pk = 'a' AND x <= true`} {
				out, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
					{Statement: aws.String(fmt.Sprintf(stmt, tbl))}}})
				h.Must(err)
				if r := out.Responses[0]; r.Error == nil || r.Error.Code != types.BatchStatementErrorCodeEnumValidationError || aws.ToString(r.Error.Message) != msg {
					h.t.Fatalf("batch of %s: %+v, want ValidationError %q", stmt, r.Error, msg)
				}
			}
		}),
		pqCase("Batch/TooManyWrites", func(h *H, tbl string) {
			var ss []types.BatchStatementRequest
			for i := range 26 {
				ss = append(ss, types.BatchStatementRequest{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'w', 'sk': %d}`, tbl, i))})
			}
			_, err := h.partiql().BatchExecuteStatement(h.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: ss})
			h.WantError(err, "ValidationException", "BatchWriteItem cannot write more than 25 items")
			h.WantItem(h.Get(tbl, pqKey("w", "0")), nil)
		}),

		pqCase("Transaction/Writes", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteTransaction(h.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1, 'x': 1}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`UPDATE "%s" SET x = x + 1 WHERE pk = 'a' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = ? AND sk = ?`, tbl)), Parameters: []types.AttributeValue{S("a"), N("2")}},
				{Statement: aws.String(fmt.Sprintf(`EXISTS(SELECT * FROM "%s" WHERE pk = 'b' AND sk = 1 AND x = 5)`, tbl))},
			}})
			h.Must(err)
			h.WantItem(h.Get(tbl, pqKey("c", "1")), with(pqKey("c", "1"), "x", N("1")))
			h.WantItem(h.Get(tbl, pqKey("a", "1")), with(pqItem("a", "1"), "x", N("6")))
			h.WantItem(h.Get(tbl, pqKey("a", "2")), nil)
		}),
		pqCase("Transaction/Canceled", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteTransaction(h.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'zz' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 1 AND x = 0`, tbl)), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
				{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'a', 'sk': 2}`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`EXISTS(SELECT * FROM "%s" WHERE pk = 'b' AND sk = 1 AND x = 6)`, tbl))},
			}})
			h.WantTxCanceled(err,
				txReason{code: "None"},
				txReason{code: "ConditionalCheckFailed", msg: "The conditional request failed"},
				txReason{code: "ConditionalCheckFailed", msg: "The conditional request failed", item: pqItem("a", "1")},
				txReason{code: "ValidationError", msg: "Duplicate primary key exists in table"},
				txReason{code: "ConditionalCheckFailed", msg: "The conditional request failed."},
			)
			h.WantItem(h.Get(tbl, pqKey("c", "1")), nil)
		}),
		pqCase("Transaction/Reads", func(h *H, tbl string) {
			out, err := h.partiql().ExecuteTransaction(h.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT x, nope FROM "%s" WHERE sk = ? AND pk = ?`, tbl)), Parameters: []types.AttributeValue{N("1"), S("b")}},
				{Statement: aws.String(fmt.Sprintf(`SELECT nope FROM "%s" WHERE pk = 'a' AND sk = 2`, tbl))},
				{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'zz' AND sk = 1`, tbl))},
			}})
			h.Must(err)
			want := []Item{pqItem("a", "1"), {"x": N("5")}, {}, nil}
			if len(out.Responses) != len(want) {
				h.t.Fatalf("%d responses", len(out.Responses))
			}
			for i, r := range out.Responses {
				h.WantItem(r.Item, want[i])
			}
		}),
		pqTxErrorCase("Mixed", "ExecuteTransaction API does not support both read and write operations in the same request.",
			`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, `DELETE FROM "%s" WHERE pk = 'a' AND sk = 2`),
		pqTxErrorCase("Returning", "Validation failed in TransactStatements[1]: RETURNING clause is not supported in ExecuteTransaction.",
			`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2`, `UPDATE "%s" SET x = 1 WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`),
		pqTxErrorCase("SelectWithoutKey", "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause.",
			`SELECT * FROM "%s" WHERE pk = 'a'`),
		pqTxErrorCase("Parameters", "Validation failed in TransactStatements[0]: Number of parameters in request and statement don't match.",
			`SELECT * FROM "%s" WHERE pk = ? AND sk = 1`),
		pqTxErrorCase("OverlappingSet", "Validation failed in TransactStatements[1]: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [x], path two: [x]",
			`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2`, `UPDATE "%s" SET x = 1 SET x = 2 WHERE pk = 'a' AND sk = 1`),
		pqTxErrorCase("SameItem", "Transaction request cannot include multiple operations on one item",
			`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2`, `UPDATE "%s" SET x = 1 WHERE pk = 'a' AND sk = 2`),
		// Even when the first of them would fail its condition: the keys
		// are compared first. (DynamoDB Local compares numbers as written:
		// docs/compat.md, PartiQL.)
		pqTxErrorCase("SameItemAfterFailure", "Transaction request cannot include multiple operations on one item",
			`UPDATE "%s" SET x = 1 WHERE pk = 'zz' AND sk = 1`, `INSERT INTO "%s" VALUE {'pk': 'zz', 'sk': 1}`),
		pqCase("Transaction/UnknownTable", func(h *H, tbl string) {
			for _, s := range []string{`SELECT * FROM "%s_none" WHERE pk = 'a' AND sk = 1`, `DELETE FROM "%s_none" WHERE pk = 'a' AND sk = 1`} {
				_, err := h.pqTx(fmt.Sprintf(s, tbl))
				h.WantError(err, "ResourceNotFoundException", "Requested resource not found")
			}
		}),
		pqCase("Transaction/WriteWithoutKey", func(h *H, tbl string) {
			_, err := h.pqTx(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'a'`, tbl))
			h.WantError(err, "TransactionCanceledException", "ValidationError Where clause does not contain a mandatory equality on all key attributes")
		}),
		// A failed EXISTS carries no item, even with ALL_OLD.
		pqCase("Transaction/ExistsAllOld", func(h *H, tbl string) {
			_, err := h.partiql().ExecuteTransaction(h.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
				{Statement: aws.String(fmt.Sprintf(`EXISTS(SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1 AND x = 6)`, tbl)), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
			}})
			h.WantTxCanceled(err, txReason{code: "ConditionalCheckFailed", msg: "The conditional request failed."})
		}),
		// An empty key value in a read cancels it too; in a write it is a
		// ValidationException.
		pqCase("Transaction/EmptyKey", func(h *H, tbl string) {
			_, err := h.pqTx(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, tbl), fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = '' AND sk = 1`, tbl))
			h.WantTxCanceled(err,
				txReason{code: "None"},
				txReason{code: "ValidationError", msg: "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
			)
			_, err = h.pqTx(fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = '' AND sk = 1`, tbl))
			h.WantError(err, "ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk")
		}),
		// A statement's key and conditions are checked before its
		// RETURNING clause, and statements in order.
		pqTxErrorCase("ReturningAfterConditions", "Validation failed in TransactStatements[0]: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L",
			`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2 AND x BETWEEN [1] AND [2] RETURNING ALL OLD *`),
		pqTxErrorCase("ReturningBeforeLaterStatements", "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction.",
			`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2 RETURNING ALL OLD *`, `UPDATE "%s" SET x = 1 SET x = 2 WHERE pk = 'a' AND sk = 1`),
		pqCase("Transaction/ReturningAfterKeyType", func(h *H, tbl string) {
			_, err := h.pqTx(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 'x' RETURNING ALL OLD *`, tbl))
			h.WantTxCanceled(err, txReason{code: "ValidationError", msg: "Key attribute's data type should match its data type in table's schema: Key sk"})
		}),
		// attribute_type on the sort key: refused, whatever the type named,
		// in a Query and in a Scan; on the partition key allowed.
		pqCase("Select/SortKeyTypeTest", func(h *H, tbl string) {
			for _, w := range []string{`pk = 'a' AND attribute_type(sk, 'N')`, `attribute_type(sk, 'BOOL') OR x = 1`} {
				h.wantStmtError(fmt.Sprintf(`SELECT * FROM "%s" WHERE %s`, tbl, w), "One or more parameter values were invalid: Condition parameter type does not match schema type")
			}
			h.WantItems(h.stmt(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND attribute_type(pk, 'BOOL')`, tbl)), nil)
		}),
		pqTxErrorCase("ExistsWithoutCondition", "Validation failed in TransactStatements[1]: EXISTS() must contain a single item read with additional condition",
			`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2`, `EXISTS(SELECT * FROM "%s" WHERE pk = 'a' AND sk = 'x')`),
		// A key of the wrong type cancels the transaction with a reason
		// for the first such statement (not for the later one of the
		// second write, nor for the read without its key in the third).
		pqCase("Transaction/KeyType", func(h *H, tbl string) {
			_, err := h.pqTx(fmt.Sprintf(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 1 AND x = 0`, tbl),
				fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'a' AND sk = 'x'`, tbl),
				fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 2, 'sk': 1}`, tbl),
				fmt.Sprintf(`UPDATE "%s" SET x = 1 WHERE pk = 'a'`, tbl))
			h.WantTxCanceled(err,
				txReason{code: "None"},
				txReason{code: "ValidationError", msg: "Key attribute's data type should match its data type in table's schema: Key sk"},
				txReason{code: "None"},
				txReason{code: "None"},
			)
			_, err = h.pqTx(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, tbl), fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 1 AND sk = 1`, tbl))
			h.WantTxCanceled(err,
				txReason{code: "None"},
				txReason{code: "ValidationError", msg: "Key attribute's data type should match its data type in table's schema: Key pk"},
			)
			h.WantItem(h.Get(tbl, pqKey("a", "1")), pqItem("a", "1"))
		}),
		pqCase("Transaction/Empty", func(h *H, tbl string) {
			_, err := h.pqTx()
			h.WantError(err, "ValidationException", "ExecutePartiQLTransaction can not have empty statement.")
		}),
	)
}

func pqTxErrorCase(name, msg string, stmts ...string) Case {
	return pqCase("Transaction/Error/"+name, func(h *H, tbl string) {
		ss := make([]string, len(stmts))
		for i, s := range stmts {
			ss[i] = fmt.Sprintf(s, tbl)
		}
		_, err := h.pqTx(ss...)
		h.WantError(err, "ValidationException", msg)
	})
}

func (h *H) pqTx(stmts ...string) (*dynamodb.ExecuteTransactionOutput, error) {
	ps := make([]types.ParameterizedStatement, len(stmts))
	for i, s := range stmts {
		ps[i] = types.ParameterizedStatement{Statement: aws.String(s)}
	}
	return h.partiql().ExecuteTransaction(h.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: ps})
}

// pqAllPages runs a SELECT page by page with Limit limit and returns all
// the items.
func (h *H) pqAllPages(s string, limit int32) []Item {
	h.t.Helper()
	var items []Item
	var token *string
	for pages := 0; ; pages++ {
		if pages > 100 {
			h.t.Fatal("more than 100 pages")
		}
		out, err := h.partiql().ExecuteStatement(h.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(s), Limit: aws.Int32(limit), NextToken: token})
		h.Must(err)
		if len(out.Items) > int(limit) {
			h.t.Fatalf("page of %d items with Limit %d", len(out.Items), limit)
		}
		items = append(items, out.Items...)
		if token = out.NextToken; token == nil {
			return items
		}
	}
}

// batchResp is an expected BatchStatementResponse: its table, item, and
// error code and message ("" for none).
type batchResp struct {
	table, code, msg string
	item             Item
}

func (h *H) wantBatch(got []types.BatchStatementResponse, want ...batchResp) {
	h.t.Helper()
	if len(got) != len(want) {
		h.t.Fatalf("%d responses, want %d", len(got), len(want))
	}
	for i, r := range got {
		w := want[i]
		if aws.ToString(r.TableName) != w.table {
			h.t.Fatalf("response %d: table %q, want %q", i, aws.ToString(r.TableName), w.table)
		}
		if w.code == "" {
			if r.Error != nil {
				h.t.Fatalf("response %d: error %s %q", i, r.Error.Code, aws.ToString(r.Error.Message))
			}
			h.WantItem(r.Item, w.item)
			continue
		}
		if r.Error == nil {
			h.t.Fatalf("response %d: no error, want %s", i, w.code)
		}
		if string(r.Error.Code) != w.code || aws.ToString(r.Error.Message) != w.msg {
			h.t.Fatalf("response %d: error %s %q, want %s %q", i, r.Error.Code, aws.ToString(r.Error.Message), w.code, w.msg)
		}
		h.WantItem(r.Error.Item, w.item)
	}
}
