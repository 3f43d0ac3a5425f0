package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Multi-attribute keys of global secondary indexes: up to four partition
// key and four sort key attributes per index. Creation and description,
// the key schema's validation, index upkeep on writes (sparse when any key
// attribute is missing), queries under DynamoDB's rules (equality on every
// partition attribute, sort attributes left to right), ordering by the sort
// attributes in turn, paging and LastEvaluatedKey's shape.

// multiKeySchema is an index key schema of the HASH attributes hashes and
// the RANGE attributes ranges, in that order.
func multiKeySchema(hashes []string, ranges ...string) []types.KeySchemaElement {
	var ks []types.KeySchemaElement
	for _, a := range hashes {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeHash})
	}
	for _, a := range ranges {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeRange})
	}
	return ks
}

// multiGSI describes a global secondary index with a multi-attribute key.
func multiGSI(name string, hashes, ranges []string, proj types.ProjectionType, nonKey ...string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: multiKeySchema(hashes, ranges...), Projection: projection(proj, nonKey...)}
}

// mkFixture creates a table keyed by pk (S) and sk (N) with
//
//	GSI "mkall"  partition (league S, tier N), sort (round S, score N), ALL
//	GSI "mkkeys" partition (tier N, league S), sort (score N), KEYS_ONLY
//	GSI "mkincl" partition (league S), sort (round S, score N), INCLUDE note
//
// and the items mkItems.
func mkFixture(h *H) string {
	h.t.Helper()
	tbl := h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: attrDefs("pk", "S", "sk", "N", "league", "S", "tier", "N", "round", "S", "score", "N"),
		KeySchema:            keySchema("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			multiGSI("mkall", []string{"league", "tier"}, []string{"round", "score"}, types.ProjectionTypeAll),
			multiGSI("mkkeys", []string{"tier", "league"}, []string{"score"}, types.ProjectionTypeKeysOnly),
			multiGSI("mkincl", []string{"league"}, []string{"round", "score"}, types.ProjectionTypeInclude, "note"),
		},
	})
	h.PutMany(tbl, mkItems()...)
	return tbl
}

// mkItems: in "mkall", partition (NA, 1) in (round, score) order is 2, 6, 1,
// 3, 0, 9 (1 and 3 tie and follow their table keys; 10 sorts after 5 as a
// number); 4 and 5 are alone in their partitions; 7 (no round) and 8 (no
// tier) are not in it.
func mkItems() []Item {
	it := func(pk, sk, league, tier, round, score string) Item {
		i := Item{"pk": S(pk), "sk": N(sk), "note": S("n-" + pk + "-" + sk), "misc": S("o")}
		for _, kv := range [][2]string{{"league", league}, {"round", round}} {
			if kv[1] != "" {
				i[kv[0]] = S(kv[1])
			}
		}
		for _, kv := range [][2]string{{"tier", tier}, {"score", score}} {
			if kv[1] != "" {
				i[kv[0]] = N(kv[1])
			}
		}
		return i
	}
	return []Item{
		it("p0", "1", "NA", "1", "semi", "10"),
		it("p1", "1", "NA", "1", "semi", "5"),
		it("p2", "1", "NA", "1", "final", "7"),
		it("p3", "1", "NA", "1", "semi", "5"),
		it("p4", "1", "NA", "2", "semi", "1"),
		it("p5", "1", "EU", "1", "semi", "3"),
		it("p6", "1", "NA", "1", "quarter", "-2.5"),
		it("p7", "1", "NA", "1", "", "4"),
		it("p8", "1", "NA", "", "semi", "4"),
		it("p0", "2", "NA", "1", "semis", "0"),
	}
}

// mkQuery is a query of index ix for cond with values.
func mkQuery(tbl, ix, cond string, values Item) *dynamodb.QueryInput {
	in := queryIn(tbl, cond, values)
	in.IndexName = aws.String(ix)
	return in
}

// naTier1 are the values of the partition (NA, 1).
var naTier1 = Item{":r": S("NA"), ":t": N("1")}

const naTier1Cond = "league = :r AND tier = :t"

// mkCase is a case that queries index ix of mkFixture with cond and wants
// the items mkItems()[want...] in that order (restricted to names unless
// names is empty), in one page.
func mkCase(name, ix, cond string, values Item, want []int, names ...string) Case {
	return Case{Name: "MultiKeyGSI/" + name, Run: func(t *testing.T, h *H) {
		tbl := mkFixture(h)
		out := h.MustQuery(mkQuery(tbl, ix, cond, values))
		h.WantItems(out.Items, pickAll(mkItems(), want, names...))
		h.WantNoLastKey(out.LastEvaluatedKey)
	}}
}

// mkError is a case whose query of index ix of mkFixture with cond fails
// with a ValidationException saying msg.
func mkError(name, ix, cond string, values Item, msg string) Case {
	return Case{Name: "MultiKeyGSI/" + name, Run: func(t *testing.T, h *H) {
		tbl := mkFixture(h)
		_, err := h.API.Query(h.Ctx, mkQuery(tbl, ix, cond, values))
		h.WantError(err, "ValidationException", msg)
	}}
}

// mkCreateError is a case whose CreateTable, of a table keyed by pk with
// one GSI of key schema ks and a definition for each of pk and the
// attributes of ks among a..i (b, d, f, h as N, the others as S), fails
// with msg.
func mkCreateError(name string, ks []types.KeySchemaElement, msg string) Case {
	return Case{Name: "MultiKeyGSI/Create_" + name, Run: func(t *testing.T, h *H) {
		used := map[string]bool{"pk": true}
		for _, e := range ks {
			used[aws.ToString(e.AttributeName)] = true
		}
		var defs []string
		for _, a := range []string{"pk", "a", "b", "c", "d", "e", "f", "g", "h", "i"} {
			if used[a] {
				typ := "S"
				if a == "b" || a == "d" || a == "f" || a == "h" {
					typ = "N"
				}
				defs = append(defs, a, typ)
			}
		}
		err := h.createErr(&dynamodb.CreateTableInput{
			AttributeDefinitions:   attrDefs(defs...),
			KeySchema:              keySchema("pk"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: ks, Projection: projection(types.ProjectionTypeAll)}},
		})
		h.WantError(err, "ValidationException", msg)
	}}
}

func init() {
	mkKeys := []string{"pk", "sk", "league", "tier", "round", "score"}
	ks := func(hashes ...string) func(ranges ...string) []types.KeySchemaElement {
		return func(ranges ...string) []types.KeySchemaElement { return multiKeySchema(hashes, ranges...) }
	}
	register(
		// PartiQL reads no index with multi-attribute keys (DynamoDB
		// Local's words name the table); the table itself stays readable
		// and writable by PartiQL.
		Case{Name: "MultiKeyGSI/PartiQLIndexRefused", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			const msg = "PartiQL statements cannot be executed on tables with composite HASH keys or composite RANGE keys."
			h.wantStmtError(`SELECT * FROM "`+tbl+`"."mkall" WHERE league = 'NA' AND tier = 1`, msg)
			h.wantStmtError(`SELECT pk FROM "`+tbl+`"."mkincl"`, msg)
			h.wantStmtError(`SELECT * FROM "`+tbl+`"."nosuch" WHERE league = 'NA'`, "The table does not have the specified index: nosuch")
			got := h.stmt(`SELECT * FROM "` + tbl + `" WHERE pk = 'p5'`)
			h.WantItems(got, pickAll(mkItems(), []int{5}))
			h.stmt(`UPDATE "` + tbl + `" SET note = 'x' WHERE pk = 'p5' AND sk = 1`)
		}},
		Case{Name: "MultiKeyGSI/CreateDescribe", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			d := h.Describe(tbl)
			want := map[string][]types.KeySchemaElement{
				"mkall":  multiKeySchema([]string{"league", "tier"}, "round", "score"),
				"mkkeys": multiKeySchema([]string{"tier", "league"}, "score"),
				"mkincl": multiKeySchema([]string{"league"}, "round", "score"),
			}
			if len(d.GlobalSecondaryIndexes) != len(want) {
				t.Fatalf("%d global secondary indexes, want %d", len(d.GlobalSecondaryIndexes), len(want))
			}
			for _, g := range d.GlobalSecondaryIndexes {
				w, ok := want[aws.ToString(g.IndexName)]
				if !ok {
					t.Fatalf("unexpected index %s", aws.ToString(g.IndexName))
				}
				wantKeySchema(t, aws.ToString(g.IndexName), g.KeySchema, w)
				if g.IndexStatus != types.IndexStatusActive {
					t.Fatalf("index %s status %s", aws.ToString(g.IndexName), g.IndexStatus)
				}
			}
			if len(d.AttributeDefinitions) != 6 {
				t.Fatalf("%d attribute definitions, want 6", len(d.AttributeDefinitions))
			}
		}},
		Case{Name: "MultiKeyGSI/FourAndFour", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "a", "S", "b", "N", "c", "B", "d", "S", "e", "N", "f", "S", "g", "B", "i", "N"),
				KeySchema:            keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					multiGSI("gsi8", []string{"a", "b", "c", "d"}, []string{"e", "f", "g", "i"}, types.ProjectionTypeKeysOnly),
				},
			})
			base := Item{"a": S("a"), "b": N("2"), "c": B([]byte{0, 1}), "d": S("d")}
			for i, tail := range []Item{
				{"e": N("1"), "f": S("x"), "g": B([]byte{2}), "i": N("-1")},
				{"e": N("1"), "f": S("x"), "g": B([]byte{2}), "i": N("3")},
				{"e": N("1"), "f": S("x"), "g": B([]byte{1, 255}), "i": N("9")},
				{"e": N("0.5"), "f": S("y"), "g": B([]byte{9}), "i": N("0")},
				{"e": N("1"), "f": S("w"), "g": B([]byte{9}), "i": N("0")},
			} {
				it := with(base, "pk", S(string(rune('0'+i))))
				for k, v := range tail {
					it[k] = v
				}
				h.Put(tbl, it)
			}
			in := mkQuery(tbl, "gsi8", "a = :a AND b = :b AND c = :c AND d = :d AND e = :e AND f = :f AND g = :g AND i > :i",
				Item{":a": S("a"), ":b": N("2"), ":c": B([]byte{0, 1}), ":d": S("d"), ":e": N("1"), ":f": S("x"), ":g": B([]byte{2}), ":i": N("0")})
			h.WantValues(h.MustQuery(in).Items, "pk", S("1"))
			in = mkQuery(tbl, "gsi8", "a = :a AND b = :b AND c = :c AND d = :d",
				Item{":a": S("a"), ":b": N("2"), ":c": B([]byte{0, 1}), ":d": S("d")})
			h.WantValues(h.MustQuery(in).Items, "pk", S("3"), S("4"), S("2"), S("0"), S("1"))
		}},

		// Queries and ordering.
		mkCase("QueryPartition", "mkall", naTier1Cond, naTier1, []int{2, 6, 1, 3, 0, 9}),
		mkCase("QueryPartitionOtherOrder", "mkall", "tier = :t AND league = :r", naTier1, []int{2, 6, 1, 3, 0, 9}),
		mkCase("QueryOtherPartitions", "mkall", naTier1Cond, Item{":r": S("EU"), ":t": N("1")}, []int{5}),
		mkCase("QueryNoSuchPartition", "mkall", naTier1Cond, Item{":r": S("NA"), ":t": N("3")}, []int{}),
		mkCase("QueryFirstSortEqual", "mkall", naTier1Cond+" AND round = :o", with(naTier1, ":o", S("semi")), []int{1, 3, 0}),
		mkCase("QueryFirstSortLess", "mkall", naTier1Cond+" AND round < :o", with(naTier1, ":o", S("semi")), []int{2, 6}),
		mkCase("QueryFirstSortGreaterEqual", "mkall", naTier1Cond+" AND round >= :o", with(naTier1, ":o", S("semi")), []int{1, 3, 0, 9}),
		mkCase("QueryFirstSortGreater", "mkall", naTier1Cond+" AND round > :o", with(naTier1, ":o", S("semi")), []int{9}),
		mkCase("QueryFirstSortBetween", "mkall", naTier1Cond+" AND round BETWEEN :a AND :b", with(naTier1, ":a", S("quarter"), ":b", S("semi")), []int{6, 1, 3, 0}),
		mkCase("QueryFirstSortBeginsWith", "mkall", naTier1Cond+" AND begins_with(round, :o)", with(naTier1, ":o", S("semi")), []int{1, 3, 0, 9}),
		mkCase("QuerySecondSortEqual", "mkall", naTier1Cond+" AND round = :o AND score = :s", with(naTier1, ":o", S("semi"), ":s", N("5")), []int{1, 3}),
		mkCase("QuerySecondSortGreater", "mkall", naTier1Cond+" AND round = :o AND score > :s", with(naTier1, ":o", S("semi"), ":s", N("5")), []int{0}),
		mkCase("QuerySecondSortLessEqual", "mkall", naTier1Cond+" AND score <= :s AND round = :o", with(naTier1, ":o", S("semi"), ":s", N("5")), []int{1, 3}),
		mkCase("QuerySecondSortBetween", "mkall", naTier1Cond+" AND round = :o AND score BETWEEN :a AND :b", with(naTier1, ":o", S("semi"), ":a", N("6"), ":b", N("10")), []int{0}),
		mkCase("QueryKeysOnly", "mkkeys", "tier = :t AND league = :r", naTier1, []int{6, 9, 7, 1, 3, 2, 0}, "pk", "sk", "league", "tier", "score"),
		mkCase("QueryInclude", "mkincl", "league = :r", Item{":r": S("NA")}, []int{2, 6, 4, 8, 1, 3, 0, 9}, "pk", "sk", "league", "round", "score", "note"),
		mkCase("QuerySingleHashSecondSort", "mkincl", "league = :r AND round = :o AND score < :s", Item{":r": S("NA"), ":o": S("semi"), ":s": N("5")}, []int{4, 8}, "pk", "sk", "league", "round", "score", "note"),
		Case{Name: "MultiKeyGSI/QueryReverse", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			in.ScanIndexForward = aws.Bool(false)
			h.WantItems(h.MustQuery(in).Items, pickAll(mkItems(), []int{9, 0, 3, 1, 6, 2}))
		}},
		Case{Name: "MultiKeyGSI/QueryPaging", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			in.Limit = aws.Int32(2)
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(mkItems(), []int{2, 6}))
			h.WantLastKey(out.LastEvaluatedKey, pick(mkItems()[6], mkKeys...))
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustQuery(in)
			h.WantItems(out.Items, pickAll(mkItems(), []int{1, 3}))
			h.WantLastKey(out.LastEvaluatedKey, pick(mkItems()[3], mkKeys...))
			in.ExclusiveStartKey = nil
			h.WantItems(h.QueryAll(in), pickAll(mkItems(), []int{2, 6, 1, 3, 0, 9}))
		}},
		Case{Name: "MultiKeyGSI/QueryPagingReverse", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond+" AND begins_with(round, :o)", with(naTier1, ":o", S("semi")))
			in.Limit = aws.Int32(3)
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(mkItems(), []int{9, 0, 3}))
			h.WantLastKey(out.LastEvaluatedKey, pick(mkItems()[3], mkKeys...))
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustQuery(in)
			h.WantItems(out.Items, pickAll(mkItems(), []int{1}))
		}},
		Case{Name: "MultiKeyGSI/ExclusiveStartKeyOtherPartition", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			in.ExclusiveStartKey = pick(mkItems()[5], mkKeys...)
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "The provided starting key does not match the range key predicate")
		}},
		Case{Name: "MultiKeyGSI/ExclusiveStartKeyMissingIndexKey", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			in.ExclusiveStartKey = pick(mkItems()[1], "pk", "sk", "league", "tier", "round")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "The provided starting key is invalid")
		}},
		Case{Name: "MultiKeyGSI/LegacyKeyConditions", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := &dynamodb.QueryInput{TableName: aws.String(tbl), IndexName: aws.String("mkall"), KeyConditions: map[string]types.Condition{
				"league": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: sVals("NA")},
				"tier":   {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: nVals("1")},
				"round":  {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: sVals("semi")},
				"score":  {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: nVals("6")},
			}}
			h.WantItems(h.MustQuery(in).Items, pickAll(mkItems(), []int{0}))
			delete(in.KeyConditions, "round")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute score")
		}},
		Case{Name: "MultiKeyGSI/ScanIndex", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("mkall")
			h.WantItemSet(h.ScanAll(in), pickAll(mkItems(), []int{0, 1, 2, 3, 4, 5, 6, 9}))
			in.Limit = aws.Int32(3)
			in.ExclusiveStartKey = nil
			out := h.MustScan(in)
			if len(out.LastEvaluatedKey) != len(mkKeys) {
				t.Fatalf("LastEvaluatedKey = %s, want the attributes %v", FormatItem(out.LastEvaluatedKey), mkKeys)
			}
		}},
		Case{Name: "MultiKeyGSI/FilterOnIndexKey", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond, with(naTier1, ":o", S("semi")))
			in.FilterExpression = aws.String("round = :o")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: round")
			in.FilterExpression = aws.String("misc = :o")
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 6)
		}},

		// Key condition rules.
		mkError("QueryMissingHash", "mkall", "league = :r", Item{":r": S("NA")}, "HASH key attributes tier must have equality conditions specified in the query"),
		mkError("QueryOnlySort", "mkall", "round = :o", Item{":o": S("semi")}, "HASH key attributes league, tier must have equality conditions specified in the query"),
		mkError("QueryHashNotEqual", "mkall", "league = :r AND tier > :t", naTier1, "HASH key attributes tier must have equality conditions specified in the query"),
		mkError("QueryHashBeginsWith", "mkall", "begins_with(league, :r) AND tier = :t", naTier1, "HASH key attributes league must have equality conditions specified in the query"),
		mkError("QuerySkipsSort", "mkall", naTier1Cond+" AND score = :s", with(naTier1, ":s", N("5")), "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute score"),
		mkError("QueryRangeBeforeLast", "mkall", naTier1Cond+" AND round < :o AND score = :s", with(naTier1, ":o", S("semi"), ":s", N("5")), "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute score"),
		mkError("QueryBeginsWithBeforeLast", "mkall", naTier1Cond+" AND begins_with(round, :o) AND score = :s", with(naTier1, ":o", S("semi"), ":s", N("5")), "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute score"),
		mkError("QueryNonKeyAttribute", "mkall", naTier1Cond+" AND misc = :o", with(naTier1, ":o", S("o")), "Query condition missed key schema element"),
		mkError("QueryTableKey", "mkall", naTier1Cond+" AND pk = :o", with(naTier1, ":o", S("p0")), "Query condition missed key schema element"),
		mkError("QueryHashBeforeNonKey", "mkall", "league = :r AND misc = :o", Item{":r": S("NA"), ":o": S("o")}, "HASH key attributes tier must have equality conditions specified in the query"),
		mkError("QueryRangeBeforeNonKey", "mkall", naTier1Cond+" AND misc = :o AND score = :s", with(naTier1, ":o", S("o"), ":s", N("1")), "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute score"),
		mkError("QueryMoreConditionsThanKeys", "mkall", naTier1Cond+" AND round = :o AND score = :s AND misc = :m", with(naTier1, ":o", S("semi"), ":s", N("5"), ":m", S("o")), "Query key condition not supported"),
		mkError("QueryMoreConditionsThanKeysBeforeHash", "mkall", "league = :r AND misc = :m AND note = :m AND sk = :s AND pk = :m", Item{":r": S("NA"), ":m": S("o"), ":s": N("1")}, "Query key condition not supported"),
		mkError("QueryTwoConditionsOneKey", "mkall", naTier1Cond+" AND tier = :t", naTier1, "KeyConditionExpressions must only contain one condition per key"),
		mkError("QueryHashTypeMismatch", "mkall", naTier1Cond, Item{":r": S("NA"), ":t": S("1")}, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		mkError("QuerySortTypeMismatch", "mkall", naTier1Cond+" AND round = :o AND score < :s", with(naTier1, ":o", S("semi"), ":s", S("5")), "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		mkError("QueryBeginsWithNumber", "mkall", naTier1Cond+" AND round = :o AND begins_with(score, :s)", with(naTier1, ":o", S("semi"), ":s", N("5")), "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
		mkError("QueryOr", "mkall", "league = :r OR tier = :t", naTier1, "Invalid operator used in KeyConditionExpression: OR"),

		Case{Name: "MultiKeyGSI/SortConditionPatterns", Run: func(t *testing.T, h *H) {
			// Every pattern of no condition (-), equality (=) and a range
			// condition (<) on three sort attributes, and DynamoDB
			// Local's answer: gaps are reported first, at the first
			// attribute after them; then conditions other than equality
			// before the last attribute with one.
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "hh", "S", "r1", "S", "r2", "N", "r3", "S"),
				KeySchema:            keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					multiGSI("ix3", []string{"hh"}, []string{"r1", "r2", "r3"}, types.ProjectionTypeKeysOnly),
				},
			})
			want := map[string]string{
				"--=": "r1, r2 @ r3", "--<": "r1, r2 @ r3", "-=-": "r1 @ r2", "-==": "r1 @ r2", "-=<": "r1 @ r2",
				"-<-": "r1 @ r2", "-<=": "r1 @ r2", "-<<": "r1 @ r2", "=-=": "r2 @ r3", "=-<": "r2 @ r3",
				"=<=": "r2 @ r3", "=<<": "r2 @ r3", "<-=": "r2 @ r3", "<-<": "r2 @ r3", "<=-": "r1 @ r2",
				"<==": "r1 @ r3", "<=<": "r1 @ r3", "<<-": "r1 @ r2", "<<=": "r1, r2 @ r3", "<<<": "r1, r2 @ r3",
			}
			vals := Item{":h": S("h"), ":r1": S("a"), ":r2": N("1"), ":r3": S("b")}
			for _, a := range "-=<" {
				for _, b := range "-=<" {
					for _, c := range "-=<" {
						pattern := string([]rune{a, b, c})
						cond, values := "hh = :h", Item{":h": vals[":h"]}
						for i, op := range pattern {
							if op == '-' {
								continue
							}
							n := "r" + strconv.Itoa(i+1)
							cond += " AND " + n + " " + string(op) + " :" + n
							values[":"+n] = vals[":"+n]
						}
						_, err := h.API.Query(h.Ctx, mkQuery(tbl, "ix3", cond, values))
						w, bad := want[pattern]
						if !bad {
							if err != nil {
								t.Fatalf("%s: %v", cond, err)
							}
							continue
						}
						names, at, _ := strings.Cut(w, " @ ")
						h.WantError(err, "ValidationException", "RANGE key attributes "+names+" must have equality conditions specified in the query because a condition is present on key attribute "+at)
					}
				}
			}
		}},

		// Writes keep the index.
		Case{Name: "MultiKeyGSI/UpdateMovesAndSparse", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			q := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			// p7 gains its round: it enters the index, first.
			h.Update(tbl, Item{"pk": S("p7"), "sk": N("1")}, "SET round = :o", nil, Item{":o": S("a")})
			// p0/1 moves within the partition; p2 leaves for another one.
			h.Update(tbl, Item{"pk": S("p0"), "sk": N("1")}, "SET score = :s", nil, Item{":s": N("-3")})
			h.Update(tbl, Item{"pk": S("p2"), "sk": N("1")}, "SET tier = :t", nil, Item{":t": N("2")})
			// p6 loses a key attribute: it leaves the index.
			h.Update(tbl, Item{"pk": S("p6"), "sk": N("1")}, "REMOVE score", nil, nil)
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tbl), Key: Item{"pk": S("p3"), "sk": N("1")}})
			h.Must(err)
			h.WantValues(h.MustQuery(q).Items, "pk", S("p7"), S("p0"), S("p1"), S("p0"))
			h.WantValues(h.MustQuery(mkQuery(tbl, "mkall", naTier1Cond, Item{":r": S("NA"), ":t": N("2")})).Items, "pk", S("p2"), S("p4"))
		}},
		Case{Name: "MultiKeyGSI/BatchAndTransactWrites", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tbl: {
				putRequest(Item{"pk": S("b1"), "sk": N("1"), "league": S("NA"), "tier": N("1"), "round": S("b"), "score": N("1")}),
				deleteRequest(Item{"pk": S("p2"), "sk": N("1")}),
			}}})
			h.Must(err)
			h.Must(h.txWrite(
				txPut(tbl, Item{"pk": S("t1"), "sk": N("1"), "league": S("NA"), "tier": N("1"), "round": S("c"), "score": N("1")}),
				txUpdate(tbl, Item{"pk": S("p1"), "sk": N("1")}, "SET round = :o", Item{":o": S("d")}),
				txDelete(tbl, Item{"pk": S("p6"), "sk": N("1")}),
			))
			h.WantValues(h.MustQuery(mkQuery(tbl, "mkall", naTier1Cond, naTier1)).Items, "pk", S("b1"), S("t1"), S("p1"), S("p3"), S("p0"), S("p0"))
		}},
		Case{Name: "MultiKeyGSI/PutWrongKeyType", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			h.WantError(h.putErr(tbl, Item{"pk": S("x"), "sk": N("1"), "league": S("NA"), "tier": S("1")}), "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
			h.WantError(h.putErr(tbl, Item{"pk": S("x"), "sk": N("1"), "round": S("")}), "ValidationException",
				"One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: mkall, IndexKey: round")
		}},

		Case{Name: "MultiKeyGSI/KeySizeSums", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			item := func(kv ...any) Item { return with(Item{"pk": S("big"), "sk": N("1")}, kv...) }
			// Each attribute within its own limit, the sum beyond: puts
			// of every kind are refused, naming the attributes present.
			hashes := item("league", S(Str(2000)), "tier", N("12345678901234567890123456789012345678"), "round", S(Str(30)), "score", N("1"))
			h.Put(tbl, hashes) // 2000 + 20 bytes
			hashes["league"] = S(Str(2030))
			msg := "Aggregate size for HASH key attributes league, tier of index mkall has exceeded limit 2048 bytes, with actual size 2050 bytes"
			h.WantError(h.putErr(tbl, hashes), "ValidationException", msg)
			_, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tbl: {putRequest(hashes)}}})
			h.WantError(err, "ValidationException", msg)
			h.WantError(h.txWrite(txPut(tbl, hashes)), "ValidationException", msg)
			ranges := item("round", S(Str(1023)), "score", N("-0.1234567"))
			h.WantError(h.putErr(tbl, ranges), "ValidationException", "Aggregate size for RANGE key attributes round, score of index mkall has exceeded limit 1024 bytes, with actual size 1029 bytes")
			// An attribute beyond its own limit is refused first.
			h.WantError(h.putErr(tbl, with(hashes, "round", S(Str(1025)))), "ValidationException", "One or more parameter values were invalid: Size limit exceeded")
			// UpdateItem does not check the sums.
			h.Update(tbl, Item{"pk": S("big"), "sk": N("1")}, "SET league = :l", nil, Item{":l": S(Str(2030))})
			h.WantValues(h.MustQuery(mkQuery(tbl, "mkkeys", "tier = :t AND league = :l", Item{":l": S(Str(2030)), ":t": hashes["tier"]})).Items, "pk", S("big"))
		}},
		Case{Name: "MultiKeyGSI/ExclusiveStartKeyTypes", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			in := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			in.ExclusiveStartKey = with(pick(mkItems()[1], mkKeys...), "score", S("5"))
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Type mismatch for attribute to update")
			in.ExclusiveStartKey = with(pick(mkItems()[1], mkKeys...), "round", S(""))
			_, err = h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "The provided starting key is invalid: One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: mkall, IndexKey: round")
		}},

		Case{Name: "MultiKeyGSI/EmptyKeyValueNamesIndex", Run: func(t *testing.T, h *H) {
			// Two global indexes share g: the error names the first in
			// DynamoDB Local's order (of a Java hash map of the names,
			// local indexes first), whatever the order of creation.
			for _, names := range [][2]string{{"gsi", "mgsi"}, {"mgsi", "gsi"}, {"abc", "abd"}} {
				tbl := h.CreateTable(&dynamodb.CreateTableInput{
					AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "g", "S", "lk", "S"),
					KeySchema:            keySchema("pk", "sk"),
					GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
						gsi(names[0], "g", "", types.ProjectionTypeAll),
						multiGSI(names[1], []string{"g"}, []string{"lk", "sk"}, types.ProjectionTypeAll),
					},
				})
				first := map[string]string{"gsi": "mgsi", "mgsi": "mgsi", "abc": "abd"}[names[0]]
				item := Item{"pk": S("p"), "sk": S("s"), "g": S("")}
				msg := "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: " + first + ", IndexKey: g"
				h.WantError(h.putErr(tbl, item), "ValidationException", msg)
				h.WantError(h.txWrite(txPut(tbl, item)), "ValidationException", msg)
			}
		}},

		Case{Name: "MultiKeyGSI/CapacityAndCounts", Run: func(t *testing.T, h *H) {
			tbl := mkFixture(h)
			counts := map[string]int64{}
			for _, g := range h.Describe(tbl).GlobalSecondaryIndexes {
				counts[aws.ToString(g.IndexName)] = aws.ToInt64(g.ItemCount)
			}
			if want := map[string]int64{"mkall": 8, "mkkeys": 9, "mkincl": 9}; fmt.Sprint(counts) != fmt.Sprint(want) {
				t.Fatalf("index item counts %v, want %v", counts, want)
			}
			// A write charges each index whose entry it changes: p7 enters
			// mkall and mkincl; its mkkeys entry does not project round.
			out, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
				Item: with(mkItems()[7], "round", S("z"))})
			h.Must(err)
			wantIndexCapacity(h, out.ConsumedCapacity, 1, map[string]float64{"mkall": 1, "mkincl": 1})
			_, err = h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
				Item: with(mkItems()[5], "score", S("not a number any more"), "tier", N("9"))})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
			in := mkQuery(tbl, "mkall", naTier1Cond, naTier1)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			q := h.MustQuery(in)
			if q.ConsumedCapacity == nil || aws.ToFloat64(q.ConsumedCapacity.CapacityUnits) != 0.5 ||
				q.ConsumedCapacity.GlobalSecondaryIndexes["mkall"].CapacityUnits == nil {
				t.Fatalf("query capacity %s", formatCapacity(q.ConsumedCapacity))
			}
		}},

		// UpdateTable.
		Case{Name: "MultiKeyGSI/UpdateTableCreate", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
			h.PutMany(tbl,
				Item{"pk": S("1"), "x": S("a"), "y": N("2"), "z": S("b")},
				Item{"pk": S("2"), "x": S("a"), "y": N("2"), "z": S("a")},
				Item{"pk": S("3"), "x": S("a"), "y": N("2")},
				Item{"pk": S("4"), "x": S("a"), "y": S("2"), "z": S("c")},
			)
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{
				TableName:            aws.String(tbl),
				AttributeDefinitions: attrDefs("pk", "S", "x", "S", "y", "N", "z", "S"),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("xyz"), KeySchema: multiKeySchema([]string{"x", "y"}, "z"), Projection: projection(types.ProjectionTypeAll),
				}}},
			})
			h.Must(err)
			d := h.WaitActive(tbl)
			if len(d.GlobalSecondaryIndexes) != 1 {
				t.Fatalf("%d global secondary indexes, want 1", len(d.GlobalSecondaryIndexes))
			}
			wantKeySchema(t, "xyz", d.GlobalSecondaryIndexes[0].KeySchema, multiKeySchema([]string{"x", "y"}, "z"))
			h.WantValues(h.MustQuery(mkQuery(tbl, "xyz", "x = :x AND y = :y", Item{":x": S("a"), ":y": N("2")})).Items, "pk", S("2"), S("1"))
			_, err = h.UpdateTable(&dynamodb.UpdateTableInput{
				TableName:            aws.String(tbl),
				AttributeDefinitions: attrDefs("x", "S", "y", "N", "z", "S", "w", "S"),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("bad"), KeySchema: multiKeySchema([]string{"x", "y", "z", "w", "pk"}), Projection: projection(types.ProjectionTypeAll),
				}}},
			})
			h.WantError(err, "ValidationException", "Too many partition keys. GSI can have at most 4 partition keys")
			// Deleting the index drops the definitions only it used.
			_, err = h.UpdateTable(&dynamodb.UpdateTableInput{TableName: aws.String(tbl), GlobalSecondaryIndexUpdates: deleteGSI("xyz")})
			h.Must(err)
			h.WaitIndexGone(tbl, "xyz")
			if d := h.Describe(tbl); len(d.AttributeDefinitions) != 1 || aws.ToString(d.AttributeDefinitions[0].AttributeName) != "pk" {
				t.Fatalf("attribute definitions after the index is gone: %v", d.AttributeDefinitions)
			}
		}},

		// CreateTable's checks of the key schema.
		mkCreateError("TooManyPartitionKeys", ks("a", "b", "c", "d", "e")(), "Too many partition keys. GSI can have at most 4 partition keys"),
		mkCreateError("TooManySortKeys", ks("a")("b", "c", "d", "e", "f"), "Too many sort keys. GSI can have at most 4 sort keys"),
		mkCreateError("TooBig", ks("a", "b", "c", "d")("e", "f", "g", "h", "i"), "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table"),
		mkCreateError("TooManyPartitionKeysBeforeUndefined", ks("a", "zz", "c", "d", "e")(), "Too many partition keys. GSI can have at most 4 partition keys"),
		mkCreateError("DuplicateHash", ks("a", "a")(), "Two keys can not have the same name"),
		mkCreateError("DuplicateAcross", ks("a", "b")("c", "a"), "Two keys can not have the same name"),
		mkCreateError("DuplicateBeforeOrder", multiKeySchema(nil, "a", "a"), "Two keys can not have the same name"),
		mkCreateError("HashAfterRange", append(ks("a")("b"), multiKeySchema([]string{"c"})...), "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second"),
		mkCreateError("RangeFirst", append(multiKeySchema(nil, "a"), multiKeySchema([]string{"b", "c"})...), "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second"),
		mkCreateError("OnlyRanges", multiKeySchema(nil, "a", "b", "c", "d", "e"), "No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key"),
		mkCreateError("Undefined", ks("a", "zz")(), "Attribute zz is not defined in AttributeDefinitions"),
		Case{Name: "MultiKeyGSI/Create_TableKeyStaysSingle", Run: func(t *testing.T, h *H) {
			err := h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "pk2", "S"), KeySchema: multiKeySchema([]string{"pk", "pk2"})})
			h.WantError(err, "ValidationException", "Too many hash keys specified.  All Dynamo DB tables must have exactly one hash key")
			err = h.createErr(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "a", "S"), KeySchema: multiKeySchema([]string{"pk"}, "sk", "a")})
			h.WantError(err, "ValidationException", "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table")
		}},
		Case{Name: "MultiKeyGSI/Create_LocalIndexStaysSingle", Run: func(t *testing.T, h *H) {
			err := h.createErr(&dynamodb.CreateTableInput{
				AttributeDefinitions:  attrDefs("pk", "S", "sk", "S", "a", "S", "c", "S"),
				KeySchema:             keySchema("pk", "sk"),
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: multiKeySchema([]string{"pk"}, "a", "c"), Projection: projection(types.ProjectionTypeAll)}},
			})
			h.WantError(err, "ValidationException", "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table")
		}},
	)
}

// wantKeySchema fails the case unless got is want, element by element.
func wantKeySchema(t *testing.T, index string, got, want []types.KeySchemaElement) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("index %s: key schema %v, want %v", index, got, want)
	}
	for i := range got {
		if aws.ToString(got[i].AttributeName) != aws.ToString(want[i].AttributeName) || got[i].KeyType != want[i].KeyType {
			t.Fatalf("index %s: key schema element %d = %s %s, want %s %s", index, i,
				aws.ToString(got[i].AttributeName), got[i].KeyType, aws.ToString(want[i].AttributeName), want[i].KeyType)
		}
	}
}
