package conformance

import (
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GSI and LSI: what each projection returns, sparse indexes, index upkeep on
// writes, ordering, the shape of index LastEvaluatedKeys and the validation
// of index reads.

// ixFixture creates a table keyed by pk (S) and sk (S) with
//
//	GSI "all"  (g S, gn N) projecting ALL
//	GSI "keys" (g S, gn N) projecting KEYS_ONLY
//	GSI "incl" (g S, gn N) projecting INCLUDE a
//	GSI "hash" (g S) projecting ALL
//	LSI "lsi"  (ls N) projecting INCLUDE a
//	LSI "lsik" (lk S) projecting KEYS_ONLY
//
// and the items ixItems.
func ixFixture(h *H) string {
	h.t.Helper()
	tbl := h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "g", "S", "gn", "N", "ls", "N", "lk", "S"),
		KeySchema:            keySchema("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			gsi("all", "g", "gn", types.ProjectionTypeAll),
			gsi("keys", "g", "gn", types.ProjectionTypeKeysOnly),
			gsi("incl", "g", "gn", types.ProjectionTypeInclude, "a"),
			gsi("hash", "g", "", types.ProjectionTypeAll),
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{
			lsi("lsi", "pk", "ls", types.ProjectionTypeInclude, "a"),
			lsi("lsik", "pk", "lk", types.ProjectionTypeKeysOnly),
		},
	})
	h.PutMany(tbl, ixItems()...)
	return tbl
}

// ixItems: the "G" partition of the GSIs in gn order is p0/s, p1/s, p2/s,
// p0/t; p3/s is alone in "H"; p4/s has no g; p5/s has g but no gn.
func ixItems() []Item {
	return []Item{
		{"pk": S("p0"), "sk": S("s"), "g": S("G"), "gn": N("0"), "ls": N("10"), "lk": S("b"), "a": S("a0"), "b": S("b0")},
		{"pk": S("p1"), "sk": S("s"), "g": S("G"), "gn": N("1"), "ls": N("9"), "a": S("a1"), "b": S("b1")},
		{"pk": S("p2"), "sk": S("s"), "g": S("G"), "gn": N("2.5"), "ls": N("8"), "a": S("a2"), "b": S("b2")},
		{"pk": S("p0"), "sk": S("t"), "g": S("G"), "gn": N("10"), "ls": N("1"), "lk": S("a"), "a": S("a3"), "b": S("b3")},
		{"pk": S("p3"), "sk": S("s"), "g": S("H"), "gn": N("-1.5"), "a": S("a4"), "b": S("b4")},
		{"pk": S("p4"), "sk": S("s"), "gn": N("5"), "ls": N("7"), "a": S("a5")},
		{"pk": S("p5"), "sk": S("s"), "g": S("G"), "b": S("b6")},
	}
}

// ixKey is the table key of ixItems()[i].
func ixKey(i int) Item {
	it := ixItems()[i]
	return Item{"pk": it["pk"], "sk": it["sk"]}
}

// pick returns it restricted to names (absent names are skipped).
func pick(it Item, names ...string) Item {
	out := Item{}
	for _, n := range names {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}

// pickAll returns items[i] for each i of idx, restricted to names unless
// names is nil.
func pickAll(items []Item, idx []int, names ...string) []Item {
	out := make([]Item, len(idx))
	for i, j := range idx {
		if names == nil {
			out[i] = items[j]
		} else {
			out[i] = pick(items[j], names...)
		}
	}
	return out
}

// gQuery is a query of index ix for g = :g.
func gQuery(tbl, ix, g string) *dynamodb.QueryInput {
	in := queryIn(tbl, "g = :g", Item{":g": S(g)})
	in.IndexName = aws.String(ix)
	return in
}

// lQuery is a query of index ix for pk = :p.
func lQuery(tbl, ix, pk string) *dynamodb.QueryInput {
	in := queryIn(tbl, "pk = :p", Item{":p": S(pk)})
	in.IndexName = aws.String(ix)
	return in
}

func ixError(name string, in func(tbl string) *dynamodb.QueryInput, msg string) Case {
	return queryError(name, ixFixture, in, msg)
}

func init() {
	all := ixItems()
	gOrder := []int{0, 1, 2, 3} // the "G" partition in gn order
	keys := []string{"pk", "sk", "g", "gn"}
	register(
		Case{Name: "GSI/ProjectionAll", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			out := h.MustQuery(gQuery(tbl, "all", "G"))
			h.WantItems(out.Items, pickAll(all, gOrder))
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "GSI/ProjectionKeysOnly", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			out := h.MustQuery(gQuery(tbl, "keys", "G"))
			h.WantItems(out.Items, pickAll(all, gOrder, keys...))
		}},
		Case{Name: "GSI/ProjectionInclude", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			out := h.MustQuery(gQuery(tbl, "incl", "G"))
			h.WantItems(out.Items, pickAll(all, gOrder, "pk", "sk", "g", "gn", "a"))
		}},
		Case{Name: "GSI/SelectAllProjectedAttributes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "incl", "H")
			in.Select = types.SelectAllProjectedAttributes
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{4}, "pk", "sk", "g", "gn", "a"))
		}},
		Case{Name: "GSI/SelectAllAttributesOnAllProjection", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "all", "H")
			in.Select = types.SelectAllAttributes
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{4}))
		}},
		Case{Name: "GSI/ProjectionExpressionOfProjected", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "incl", "G")
			in.ProjectionExpression = aws.String("a, sk")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, gOrder, "a", "sk"))
		}},
		Case{Name: "GSI/HashOnly", Run: func(t *testing.T, h *H) {
			// Items sharing an index key come back in no defined order.
			tbl := ixFixture(h)
			out := h.MustQuery(gQuery(tbl, "hash", "G"))
			h.WantItemSet(out.Items, pickAll(all, []int{0, 1, 2, 3, 6}))
			h.WantCounts(out.Count, out.ScannedCount, 5, 5)
		}},
		Case{Name: "GSI/NumericSortKeyBetween", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "keys", "G")
			in.KeyConditionExpression = aws.String("g = :g AND gn BETWEEN :a AND :b")
			in.ExpressionAttributeValues[":a"], in.ExpressionAttributeValues[":b"] = N("0.5"), N("1e1")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{1, 2, 3}, keys...))
		}},
		Case{Name: "GSI/NumericSortKeyReverse", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "keys", "G")
			in.KeyConditionExpression = aws.String("g = :g AND gn < :b")
			in.ExpressionAttributeValues[":b"] = N("10")
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{2, 1, 0}, keys...))
		}},
		Case{Name: "GSI/OtherPartition", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			out := h.MustQuery(gQuery(tbl, "all", "H"))
			h.WantItems(out.Items, pickAll(all, []int{4}))
			out = h.MustQuery(gQuery(tbl, "all", "nothing"))
			h.WantCounts(out.Count, out.ScannedCount, 0, 0)
		}},
		Case{Name: "GSI/SelectCount", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "keys", "G")
			in.Select = types.SelectCount
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 4, 4)
		}},
		Case{Name: "GSI/FilterOnProjectedAttribute", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "incl", "G")
			in.FilterExpression = aws.String("a <> :a")
			in.ExpressionAttributeValues[":a"] = S("a1")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{0, 2, 3}, "pk", "sk", "g", "gn", "a"))
			h.WantCounts(out.Count, out.ScannedCount, 3, 4)
		}},
		Case{Name: "GSI/FilterOnTableKeyAllowed", Run: func(t *testing.T, h *H) {
			// The table's key attributes are not key attributes of the index.
			tbl := ixFixture(h)
			in := gQuery(tbl, "all", "G")
			in.FilterExpression = aws.String("sk = :s")
			in.ExpressionAttributeValues[":s"] = S("t")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{3}))
			h.WantCounts(out.Count, out.ScannedCount, 1, 4)
		}},

		// Sparse indexes.
		Case{Name: "GSI/Sparse", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("all")
			// p4 has no g and p5 no gn: neither is in the index.
			h.WantItemSet(h.ScanAll(in), pickAll(all, []int{0, 1, 2, 3, 4}))
		}},
		Case{Name: "GSI/SparseHashOnly", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("hash")
			h.WantItemSet(h.ScanAll(in), pickAll(all, []int{0, 1, 2, 3, 4, 6}))
		}},
		Case{Name: "GSI/ScanKeysOnly", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("keys")
			out := h.MustScan(in)
			h.WantItemSet(out.Items, pickAll(all, []int{0, 1, 2, 3, 4}, keys...))
			h.WantCounts(out.Count, out.ScannedCount, 5, 5)
		}},
		Case{Name: "GSI/ScanSegments", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			segs := h.scanSegments(tbl, 3, func(in *dynamodb.ScanInput) { in.IndexName = aws.String("incl") })
			h.WantItemSet(slices.Concat(segs...), pickAll(all, []int{0, 1, 2, 3, 4}, "pk", "sk", "g", "gn", "a"))
		}},
		Case{Name: "GSI/ScanLimitPaging", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("hash")
			in.Limit = aws.Int32(2)
			h.WantItemSet(h.ScanAll(in), pickAll(all, []int{0, 1, 2, 3, 4, 6}))
		}},

		// Index upkeep on writes.
		Case{Name: "GSI/UpdateMovesEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(1),
				UpdateExpression:          aws.String("SET g = :h"),
				ExpressionAttributeValues: Item{":h": S("H")},
			})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "keys", "G"))
			h.WantValues(out.Items, "pk", S("p0"), S("p2"), S("p0"))
			out = h.MustQuery(gQuery(tbl, "keys", "H"))
			h.WantItems(out.Items, []Item{
				{"pk": S("p3"), "sk": S("s"), "g": S("H"), "gn": N("-1.5")},
				{"pk": S("p1"), "sk": S("s"), "g": S("H"), "gn": N("1")},
			})
		}},
		Case{Name: "GSI/UpdateSortKeyReorders", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(0),
				UpdateExpression:          aws.String("SET gn = :n"),
				ExpressionAttributeValues: Item{":n": N("100")},
			})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "keys", "G"))
			h.WantValues(out.Items, "gn", N("1"), N("2.5"), N("10"), N("100"))
		}},
		Case{Name: "GSI/UpdateProjectedAttribute", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(4),
				UpdateExpression:          aws.String("SET a = :a, b = :b"),
				ExpressionAttributeValues: Item{":a": S("new-a"), ":b": S("new-b")},
			})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "incl", "H"))
			h.WantItems(out.Items, []Item{{"pk": S("p3"), "sk": S("s"), "g": S("H"), "gn": N("-1.5"), "a": S("new-a")}})
			out = h.MustQuery(gQuery(tbl, "all", "H"))
			h.WantValues(out.Items, "b", S("new-b"))
		}},
		Case{Name: "GSI/RemoveKeyAttributeRemovesEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(2),
				UpdateExpression: aws.String("REMOVE gn"),
			})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "keys", "G"))
			h.WantValues(out.Items, "gn", N("0"), N("1"), N("10"))
			// Still in the hash-only index, which does not need gn.
			out = h.MustQuery(gQuery(tbl, "hash", "G"))
			h.WantCounts(out.Count, out.ScannedCount, 5, 5)
		}},
		Case{Name: "GSI/AddKeyAttributeAddsEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(5),
				UpdateExpression:          aws.String("SET g = :g"),
				ExpressionAttributeValues: Item{":g": S("G")},
			})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "keys", "G"))
			h.WantValues(out.Items, "gn", N("0"), N("1"), N("2.5"), N("5"), N("10"))
		}},
		Case{Name: "GSI/DeleteRemovesEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tbl), Key: ixKey(3)})
			h.Must(err)
			out := h.MustQuery(gQuery(tbl, "all", "G"))
			h.WantItems(out.Items, pickAll(all, []int{0, 1, 2}))
			in := scanIn(tbl)
			in.IndexName = aws.String("hash")
			h.WantItemSet(h.ScanAll(in), pickAll(all, []int{0, 1, 2, 4, 6}))
		}},
		Case{Name: "GSI/PutOverwriteMovesEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			h.Put(tbl, Item{"pk": S("p0"), "sk": S("s"), "g": S("H"), "gn": N("7")})
			out := h.MustQuery(gQuery(tbl, "all", "H"))
			h.WantItems(out.Items, []Item{all[4], {"pk": S("p0"), "sk": S("s"), "g": S("H"), "gn": N("7")}})
			out = h.MustQuery(gQuery(tbl, "all", "G"))
			h.WantItems(out.Items, pickAll(all, []int{1, 2, 3}))
		}},
		Case{Name: "GSI/DuplicateKeysPaged", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			var extra []Item
			for _, pk := range seq("dup", 5) {
				extra = append(extra, Item{"pk": S(pk), "sk": S("x"), "g": S("D"), "gn": N("1")})
			}
			h.PutMany(tbl, extra...)
			in := gQuery(tbl, "keys", "D")
			in.Limit = aws.Int32(2)
			var got []Item
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("more than 5 pages")
				}
				out := h.MustQuery(in)
				got = append(got, out.Items...)
				if len(out.LastEvaluatedKey) == 0 {
					break
				}
				last := out.Items[len(out.Items)-1]
				h.WantLastKey(out.LastEvaluatedKey, last)
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			h.WantItemSet(got, extra)
		}},
		Case{Name: "GSI/LastEvaluatedKeyShape", Run: func(t *testing.T, h *H) {
			// An index key and the table key: g, gn, pk, sk.
			tbl := ixFixture(h)
			in := gQuery(tbl, "incl", "G")
			in.Limit = aws.Int32(2)
			in.ProjectionExpression = aws.String("a")
			out := h.MustQuery(in)
			h.WantLastKey(out.LastEvaluatedKey, pick(all[1], keys...))
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustQuery(in)
			h.WantItems(out.Items, []Item{{"a": S("a2")}, {"a": S("a3")}})
		}},
		Case{Name: "GSI/LastEvaluatedKeyShapeHashOnly", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "hash", "H")
			in.Limit = aws.Int32(1)
			out := h.MustQuery(in)
			h.WantLastKey(out.LastEvaluatedKey, pick(all[4], "pk", "sk", "g"))
		}},
		Case{Name: "GSI/ScanLastEvaluatedKeyShape", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("keys")
			in.Limit = aws.Int32(1)
			out := h.MustScan(in)
			h.WantLastKey(out.LastEvaluatedKey, out.Items[0])
		}},
		Case{Name: "GSI/BinaryKeys", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "gb", "B", "gs", "B"),
				KeySchema:            keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					gsi("bin", "gb", "gs", types.ProjectionTypeKeysOnly),
				},
			})
			for i := len(sortB) - 1; i >= 0; i-- {
				h.Put(tbl, Item{"pk": S(strconv.Itoa(i)), "gb": B([]byte{0xff}), "gs": B(sortB[i])})
			}
			in := queryIn(tbl, "gb = :g AND gs BETWEEN :a AND :b", Item{":g": B([]byte{0xff}), ":a": B([]byte{0x01}), ":b": B([]byte{0x80})})
			in.IndexName = aws.String("bin")
			out := h.MustQuery(in)
			h.WantValues(out.Items, "gs", bVals(sortB[1:6]...)...)
		}},
		Case{Name: "GSI/StringSortKeyBeginsWith", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "g", "S", "gs", "S"),
				KeySchema:            keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					gsi("byg", "g", "gs", types.ProjectionTypeAll),
				},
			})
			for i, s := range sortS {
				h.Put(tbl, Item{"pk": S(strconv.Itoa(i)), "g": S("x"), "gs": S(s)})
			}
			in := queryIn(tbl, "g = :g AND begins_with(gs, :p)", Item{":g": S("x"), ":p": S("a")})
			in.IndexName = aws.String("byg")
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "gs", S("abc"), S("ab"), S("a"))
		}},
		Case{Name: "GSI/BackfillOnUpdateTable", Run: func(t *testing.T, h *H) {
			tbl := h.HashTable()
			h.PutMany(tbl, Item{"pk": S("a"), "g": S("G")}, Item{"pk": S("b"), "g": S("G")}, Item{"pk": S("c")})
			_, err := h.UpdateTable(&dynamodb.UpdateTableInput{
				TableName:                   aws.String(tbl),
				AttributeDefinitions:        attrDefs("g", "S"),
				GlobalSecondaryIndexUpdates: createGSI("late", "g", "", types.ProjectionTypeAll),
			})
			h.Must(err)
			h.WaitActive(tbl)
			out := h.MustQuery(gQuery(tbl, "late", "G"))
			h.WantItemSet(out.Items, []Item{{"pk": S("a"), "g": S("G")}, {"pk": S("b"), "g": S("G")}})
		}},

		// Errors.
		ixError("GSI/ConsistentReadError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "all", "G")
			in.ConsistentRead = aws.Bool(true)
			return in
		}, "Consistent reads are not supported on global secondary indexes"),
		Case{Name: "GSI/ScanConsistentReadError", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName, in.ConsistentRead = aws.String("keys"), aws.Bool(true)
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "Consistent reads are not supported on global secondary indexes")
		}},
		ixError("GSI/TableKeyNamesError", func(tbl string) *dynamodb.QueryInput {
			return lQuery(tbl, "all", "p0")
		}, "Query condition missed key schema element"),
		ixError("GSI/TableSortKeyInConditionError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "all", "G")
			in.KeyConditionExpression = aws.String("g = :g AND sk = :s")
			in.ExpressionAttributeValues[":s"] = S("s")
			return in
		}, "Query condition missed key schema element"),
		ixError("GSI/IndexSortKeyOnlyError", func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "gn = :n", Item{":n": N("1")})
			in.IndexName = aws.String("all")
			return in
		}, "Query condition missed key schema element"),
		ixError("GSI/KeyTypeMismatchError", func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "g = :g", Item{":g": N("1")})
			in.IndexName = aws.String("all")
			return in
		}, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		ixError("GSI/SelectAllAttributesOnKeysOnlyError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "keys", "G")
			in.Select = types.SelectAllAttributes
			return in
		}, "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index keys because its projection type is not ALL"),
		ixError("GSI/SelectAllAttributesOnIncludeError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "incl", "G")
			in.Select = types.SelectAllAttributes
			return in
		}, "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index incl because its projection type is not ALL"),
		ixError("GSI/ProjectionExpressionNotProjectedError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "incl", "G")
			in.ProjectionExpression = aws.String("a, b")
			return in
		}, "One or more parameter values were invalid: Global secondary index incl does not project [b]"),
		ixError("GSI/FilterNotProjectedError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "keys", "G")
			in.FilterExpression = aws.String("b = :b")
			in.ExpressionAttributeValues[":b"] = S("b")
			return in
		}, "One or more parameter values were invalid: Secondary index keys does not project one or more filter attributes: [b]"),
		ixError("GSI/FilterOnIndexKeyError", func(tbl string) *dynamodb.QueryInput {
			in := gQuery(tbl, "all", "G")
			in.FilterExpression = aws.String("gn > :n")
			in.ExpressionAttributeValues[":n"] = N("1")
			return in
		}, "Filter Expression can only contain non-primary key attributes: Primary key attribute: gn"),
		Case{Name: "GSI/ScanProjectionNotProjectedError", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName, in.ProjectionExpression = aws.String("keys"), aws.String("b")
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Global secondary index keys does not project [b]")
		}},
		Case{Name: "GSI/ScanSelectAllAttributesError", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName, in.Select = aws.String("incl"), types.SelectAllAttributes
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index incl because its projection type is not ALL")
		}},
		Case{Name: "GSI/PutKeyTypeMismatchError", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: Item{"pk": S("x"), "sk": S("x"), "g": N("1")}})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
			h.WantItem(h.Get(tbl, Item{"pk": S("x"), "sk": S("x")}), nil)
		}},
		Case{Name: "GSI/UpdateKeyTypeMismatchError", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(0),
				UpdateExpression:          aws.String("SET gn = :n"),
				ExpressionAttributeValues: Item{":n": S("one")},
			})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
			h.WantItem(h.Get(tbl, ixKey(0)), all[0])
		}},
		Case{Name: "GSI/PutEmptyStringKeyError", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
				KeySchema:              keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("byg", "g", "", types.ProjectionTypeKeysOnly)},
			})
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: Item{"pk": S("x"), "g": S("")}})
			h.WantError(err, "ValidationException", "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byg, IndexKey: g")
		}},
	)

	// Local secondary indexes.
	lsiIncl := []string{"pk", "sk", "ls", "a"}
	register(
		Case{Name: "LSI/QueryOrder", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			out := h.MustQuery(lQuery(tbl, "lsi", "p0"))
			h.WantItems(out.Items, pickAll(all, []int{3, 0}, lsiIncl...))
		}},
		Case{Name: "LSI/Reverse", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p0")
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", S("s"), S("t"))
		}},
		Case{Name: "LSI/RangeCondition", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p0")
			in.KeyConditionExpression = aws.String("pk = :p AND ls >= :n")
			in.ExpressionAttributeValues[":n"] = N("2")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{0}, lsiIncl...))
		}},
		Case{Name: "LSI/ProjectionKeysOnly", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			out := h.MustQuery(lQuery(tbl, "lsik", "p0"))
			h.WantItems(out.Items, pickAll(all, []int{3, 0}, "pk", "sk", "lk"))
		}},
		Case{Name: "LSI/SelectAllAttributesFetchesItem", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsik", "p0")
			in.Select = types.SelectAllAttributes
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{3, 0}))
		}},
		Case{Name: "LSI/ProjectionExpressionFetchesItem", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p0")
			in.ProjectionExpression = aws.String("b, ls")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{3, 0}, "b", "ls"))
		}},
		Case{Name: "LSI/SelectAllProjectedAttributes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p1")
			in.Select = types.SelectAllProjectedAttributes
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{1}, lsiIncl...))
		}},
		Case{Name: "LSI/ConsistentRead", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p2")
			in.ConsistentRead = aws.Bool(true)
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{2}, lsiIncl...))
		}},
		Case{Name: "LSI/Sparse", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("lsik")
			h.WantItemSet(h.ScanAll(in), pickAll(all, []int{0, 3}, "pk", "sk", "lk"))
			out := h.MustQuery(lQuery(tbl, "lsi", "p3"))
			h.WantCounts(out.Count, out.ScannedCount, 0, 0)
		}},
		Case{Name: "LSI/ScanIndex", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("lsi")
			h.WantItemSet(h.ScanAll(in), pickAll(all, []int{0, 1, 2, 3, 5}, lsiIncl...))
		}},
		Case{Name: "LSI/LastEvaluatedKeyShape", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p0")
			in.Limit = aws.Int32(1)
			out := h.MustQuery(in)
			h.WantLastKey(out.LastEvaluatedKey, pick(all[3], "pk", "sk", "ls"))
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{0}, lsiIncl...))
		}},
		Case{Name: "LSI/UpdateMovesEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tbl), Key: ixKey(0),
				UpdateExpression:          aws.String("SET ls = :n"),
				ExpressionAttributeValues: Item{":n": N("0")},
			})
			h.Must(err)
			out := h.MustQuery(lQuery(tbl, "lsi", "p0"))
			h.WantValues(out.Items, "sk", S("s"), S("t"))
			h.WantValues(out.Items, "ls", N("0"), N("1"))
		}},
		Case{Name: "LSI/DeleteRemovesEntry", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tbl), Key: ixKey(3)})
			h.Must(err)
			out := h.MustQuery(lQuery(tbl, "lsik", "p0"))
			h.WantItems(out.Items, pickAll(all, []int{0}, "pk", "sk", "lk"))
		}},
		Case{Name: "LSI/DuplicateSortValues", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			var extra []Item
			for _, sk := range seq("d", 4) {
				extra = append(extra, Item{"pk": S("p9"), "sk": S(sk), "ls": N("5"), "a": S(sk)})
			}
			h.PutMany(tbl, extra...)
			h.Put(tbl, Item{"pk": S("p9"), "sk": S("z"), "ls": N("4")})
			in := lQuery(tbl, "lsi", "p9")
			in.Limit = aws.Int32(2)
			got := h.QueryAll(in)
			h.WantItems(got[:1], []Item{{"pk": S("p9"), "sk": S("z"), "ls": N("4")}})
			h.WantItemSet(got[1:], extra)
		}},
		Case{Name: "LSI/FilterNotProjectedError", Run: func(t *testing.T, h *H) {
			// DynamoDB Local refuses a filter on an attribute the LSI does not
			// project, although it fetches such attributes for projections.
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p0")
			in.FilterExpression = aws.String("b = :b")
			in.ExpressionAttributeValues[":b"] = S("b0")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Secondary index lsi does not project one or more filter attributes: [b]")
		}},
		Case{Name: "LSI/FilterOnProjectedAttribute", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsi", "p0")
			in.FilterExpression = aws.String("a = :a")
			in.ExpressionAttributeValues[":a"] = S("a0")
			out := h.MustQuery(in)
			h.WantItems(out.Items, pickAll(all, []int{0}, lsiIncl...))
			h.WantCounts(out.Count, out.ScannedCount, 1, 2)
		}},
		ixError("LSI/FilterOnIndexKeyError", func(tbl string) *dynamodb.QueryInput {
			in := lQuery(tbl, "lsi", "p0")
			in.FilterExpression = aws.String("ls = :n")
			in.ExpressionAttributeValues[":n"] = N("1")
			return in
		}, "Filter Expression can only contain non-primary key attributes: Primary key attribute: ls"),
		ixError("LSI/TableSortKeyInConditionError", func(tbl string) *dynamodb.QueryInput {
			in := lQuery(tbl, "lsi", "p0")
			in.KeyConditionExpression = aws.String("pk = :p AND sk = :s")
			in.ExpressionAttributeValues[":s"] = S("s")
			return in
		}, "Query condition missed key schema element"),
		ixError("LSI/SortKeyOnlyError", func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "ls = :n", Item{":n": N("1")})
			in.IndexName = aws.String("lsi")
			return in
		}, "Query condition missed key schema element"),
		ixError("LSI/SortKeyTypeMismatchError", func(tbl string) *dynamodb.QueryInput {
			in := lQuery(tbl, "lsi", "p0")
			in.KeyConditionExpression = aws.String("pk = :p AND ls > :s")
			in.ExpressionAttributeValues[":s"] = S("1")
			return in
		}, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		Case{Name: "LSI/PutKeyTypeMismatchError", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: Item{"pk": S("x"), "sk": S("x"), "ls": S("1")}})
			h.WantError(err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key")
		}},
	)
}
