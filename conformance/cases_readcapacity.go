package conformance

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ReturnConsumedCapacity for reads: one unit per 4 KB read consistently, half
// of it eventually; Query and Scan round the sum of the sizes of the items
// they read (before the filter), GetItem and BatchGetItem round each item;
// transactions cost double; INDEXES breaks the total down.

// capFixture creates a table with an S sort key holding, in partition "p",
// items "000" of exactly 4096 bytes, "001" of 4097 and "002" of 100.
func capFixture(h *H) string {
	h.t.Helper()
	tbl := h.RangeTable(types.ScalarAttributeTypeS)
	for i, size := range []int{4096, 4097, 100} {
		h.Put(tbl, capItem(i, size))
	}
	return tbl
}

// capItem is an item of exactly size bytes in partition "p" ("pk"+"p",
// "sk"+"00i", "d"+padding).
func capItem(i, size int) Item {
	return with(capKey(i), "d", S(strings.Repeat("x", size-9)))
}

func capKey(i int) Item { return Item{"pk": S("p"), "sk": S("00" + strconv.Itoa(i))} }

// getCap reads key with GetItem and returns its consumed capacity.
func (h *H) getCap(tbl string, key Item, consistent bool, rcc types.ReturnConsumedCapacity, proj string) *types.ConsumedCapacity {
	h.t.Helper()
	in := &dynamodb.GetItemInput{TableName: aws.String(tbl), Key: key, ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: rcc}
	if proj != "" {
		in.ProjectionExpression = aws.String(proj)
	}
	out, err := h.API.GetItem(h.Ctx, in)
	h.Must(err)
	return out.ConsumedCapacity
}

// getCapCase reads capFixture's item i with GetItem and wants total units.
func getCapCase(name string, i int, consistent bool, proj string, want float64) Case {
	return Case{Name: "ReadCapacity/" + name, Run: func(t *testing.T, h *H) {
		tbl := capFixture(h)
		cc := h.getCap(tbl, capKey(i), consistent, types.ReturnConsumedCapacityTotal, proj)
		h.WantReadCapacity(cc, tbl, want, -1, nil, nil)
	}}
}

func init() {
	register(
		getCapCase("GetItemEventual", 2, false, "", 0.5),
		getCapCase("GetItemConsistent", 2, true, "", 1),
		getCapCase("GetItemExactly4KBConsistent", 0, true, "", 1),
		getCapCase("GetItemExactly4KBEventual", 0, false, "", 0.5),
		getCapCase("GetItemOver4KBConsistent", 1, true, "", 2),
		getCapCase("GetItemOver4KBEventual", 1, false, "", 1),
		getCapCase("GetItemMissingConsistent", 7, true, "", 1),
		getCapCase("GetItemMissingEventual", 7, false, "", 0.5),
		getCapCase("GetItemProjectionDoesNotReduce", 1, true, "sk", 2),
		Case{Name: "ReadCapacity/GetItemLarge", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeS)
			h.Put(tbl, capItem(0, 100000)) // 25 units of 4 KB
			h.WantReadCapacity(h.getCap(tbl, capKey(0), true, types.ReturnConsumedCapacityTotal, ""), tbl, 25, -1, nil, nil)
			h.WantReadCapacity(h.getCap(tbl, capKey(0), false, types.ReturnConsumedCapacityTotal, ""), tbl, 12.5, -1, nil, nil)
		}},
		Case{Name: "ReadCapacity/GetItemIndexes", Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			cc := h.getCap(tbl, capKey(1), true, types.ReturnConsumedCapacityIndexes, "")
			h.WantReadCapacity(cc, tbl, 2, 2, nil, nil)
		}},
		Case{Name: "ReadCapacity/NotRequested", Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			if cc := h.getCap(tbl, capKey(1), true, "", ""); cc != nil {
				t.Fatalf("ConsumedCapacity %s without ReturnConsumedCapacity", formatCapacity(cc))
			}
			if cc := h.getCap(tbl, capKey(1), true, types.ReturnConsumedCapacityNone, ""); cc != nil {
				t.Fatalf("ConsumedCapacity %s with NONE", formatCapacity(cc))
			}
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			if out := h.MustQuery(in); out.ConsumedCapacity != nil {
				t.Fatalf("Query ConsumedCapacity %s without ReturnConsumedCapacity", formatCapacity(out.ConsumedCapacity))
			}
		}},
	)

	// Query and Scan: the sum of the sizes read, rounded up once.
	qcap := func(name string, mod func(in *dynamodb.QueryInput), total float64) Case {
		return Case{Name: "ReadCapacity/" + name, Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			mod(in)
			out := h.MustQuery(in)
			h.WantReadCapacity(out.ConsumedCapacity, tbl, total, -1, nil, nil)
		}}
	}
	register(
		// 4096+4097+100 bytes are 3 units of 4 KB (per item it would be 4).
		qcap("QuerySumsSizes", func(in *dynamodb.QueryInput) {}, 1.5),
		qcap("QuerySumsSizesConsistent", func(in *dynamodb.QueryInput) { in.ConsistentRead = aws.Bool(true) }, 3),
		qcap("QueryFilterCountsItemsRead", func(in *dynamodb.QueryInput) {
			in.FilterExpression = aws.String("attribute_not_exists(d)")
		}, 1.5),
		qcap("QuerySelectCount", func(in *dynamodb.QueryInput) { in.Select = types.SelectCount }, 1.5),
		qcap("QueryProjectionDoesNotReduce", func(in *dynamodb.QueryInput) { in.ProjectionExpression = aws.String("sk") }, 1.5),
		qcap("QueryLimit1", func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(1) }, 0.5),
		qcap("QueryLimit2", func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(2) }, 1.5),
		qcap("QueryKeyRange", func(in *dynamodb.QueryInput) {
			in.KeyConditionExpression = aws.String("pk = :p AND sk >= :s")
			in.ExpressionAttributeValues[":s"] = S("001")
			in.ConsistentRead = aws.Bool(true)
		}, 2),
		// DynamoDB Local charges nothing for a query that reads nothing.
		qcap("QueryEmpty", func(in *dynamodb.QueryInput) { in.ExpressionAttributeValues[":p"] = S("none") }, 0),
		Case{Name: "ReadCapacity/QueryIndexes", Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 1.5, 1.5, nil, nil)
		}},
		Case{Name: "ReadCapacity/Query1MBPage", Run: func(t *testing.T, h *H) {
			// 11 items of 100,000 bytes: 269 units of 4 KB, halved.
			tbl := bigFixture(h, 30, 100000)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			in.ProjectionExpression = aws.String("sk")
			out := h.MustQuery(in)
			h.WantReadCapacity(out.ConsumedCapacity, tbl, 134.5, -1, nil, nil)
		}},
		Case{Name: "ReadCapacity/ScanSumsSizes", Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			in := scanIn(tbl)
			h.WantReadCapacity(scanCapacity(h, in, types.ReturnConsumedCapacityTotal), tbl, 1.5, -1, nil, nil)
			in.ConsistentRead = aws.Bool(true)
			in.FilterExpression = aws.String("attribute_not_exists(d)")
			h.WantReadCapacity(scanCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 3, 3, nil, nil)
		}},
		Case{Name: "ReadCapacity/ScanEmptyTable", Run: func(t *testing.T, h *H) {
			// DynamoDB Local charges nothing for a scan that reads nothing.
			tbl := h.HashTable()
			in := scanIn(tbl)
			h.WantReadCapacity(scanCapacity(h, in, types.ReturnConsumedCapacityTotal), tbl, 0, -1, nil, nil)
		}},
	)

	// Indexes: reads of an index are charged to it, LSI fetches to the table.
	register(
		Case{Name: "ReadCapacity/QueryGSIIndexes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "keys", "G")
			h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 0.5, 0, map[string]float64{"keys": 0.5}, nil)
		}},
		Case{Name: "ReadCapacity/QueryGSITotal", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := gQuery(tbl, "keys", "G")
			h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityTotal), tbl, 0.5, -1, nil, nil)
		}},
		Case{Name: "ReadCapacity/QueryGSIProjectedSize", Run: func(t *testing.T, h *H) {
			tbl := h.CreateTable(&dynamodb.CreateTableInput{
				AttributeDefinitions: attrDefs("pk", "S", "g", "S"),
				KeySchema:            keySchema("pk"),
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					gsi("gall", "g", "", types.ProjectionTypeAll),
					gsi("gkeys", "g", "", types.ProjectionTypeKeysOnly),
				},
			})
			for _, k := range []string{"a", "b"} {
				h.Put(tbl, Item{"pk": S(k), "g": S("G"), "d": S(strings.Repeat("x", 5000))})
			}
			for ix, want := range map[string]float64{"gall": 1.5, "gkeys": 0.5} {
				in := gQuery(tbl, ix, "G")
				h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, want, 0, map[string]float64{ix: want}, nil)
			}
		}},
		Case{Name: "ReadCapacity/ScanGSIIndexes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := scanIn(tbl)
			in.IndexName = aws.String("incl")
			h.WantReadCapacity(scanCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 0.5, 0, map[string]float64{"incl": 0.5}, nil)
		}},
		Case{Name: "ReadCapacity/QueryLSIIndexes", Run: func(t *testing.T, h *H) {
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsik", "p0")
			h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 0.5, 0, nil, map[string]float64{"lsik": 0.5})
		}},
		Case{Name: "ReadCapacity/QueryLSIFetchesCharged", Run: func(t *testing.T, h *H) {
			// Each item fetched from the table for attributes the LSI does not
			// project is charged to the table as a read of its own.
			tbl := ixFixture(h)
			in := lQuery(tbl, "lsik", "p0")
			in.Select = types.SelectAllAttributes
			h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 1.5, 1, nil, map[string]float64{"lsik": 0.5})
			in.ConsistentRead = aws.Bool(true)
			h.WantReadCapacity(queryCapacity(h, in, types.ReturnConsumedCapacityIndexes), tbl, 3, 2, nil, map[string]float64{"lsik": 1})
		}},
	)

	// BatchGetItem: per table, each item rounded on its own.
	register(
		Case{Name: "ReadCapacity/BatchGetItemPerItemRounding", Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			ccs := batchGetCapacity(h, map[string]types.KeysAndAttributes{tbl: keysAndAttrs(capKey(0), capKey(1), capKey(2))}, types.ReturnConsumedCapacityTotal)
			if len(ccs) != 1 {
				t.Fatalf("%d ConsumedCapacity entries, want 1", len(ccs))
			}
			h.WantReadCapacity(&ccs[0], tbl, 2, -1, nil, nil)
		}},
		Case{Name: "ReadCapacity/BatchGetItemConsistentIndexes", Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			ka := keysAndAttrs(capKey(0), capKey(1), capKey(2))
			ka.ConsistentRead = aws.Bool(true)
			ccs := batchGetCapacity(h, map[string]types.KeysAndAttributes{tbl: ka}, types.ReturnConsumedCapacityIndexes)
			h.WantReadCapacity(h.capOf(ccs, tbl), tbl, 4, 4, nil, nil)
		}},
		Case{Name: "ReadCapacity/BatchGetItemPerTable", Run: func(t *testing.T, h *H) {
			t1, t2 := capFixture(h), capFixture(h)
			ccs := batchGetCapacity(h, map[string]types.KeysAndAttributes{
				t1: keysAndAttrs(capKey(1)),
				t2: keysAndAttrs(capKey(0), capKey(2)),
			}, types.ReturnConsumedCapacityTotal)
			if len(ccs) != 2 {
				t.Fatalf("%d ConsumedCapacity entries, want 2", len(ccs))
			}
			h.WantReadCapacity(h.capOf(ccs, t1), t1, 1, -1, nil, nil)
			h.WantReadCapacity(h.capOf(ccs, t2), t2, 1, -1, nil, nil)
		}},
		Case{Name: "ReadCapacity/BatchGetItemMissingItems", Run: func(t *testing.T, h *H) {
			// DynamoDB Local charges nothing for keys that find no item in a
			// BatchGetItem (GetItem is charged for them).
			tbl := capFixture(h)
			ccs := batchGetCapacity(h, map[string]types.KeysAndAttributes{tbl: keysAndAttrs(capKey(2), capKey(7), capKey(8))}, types.ReturnConsumedCapacityTotal)
			h.WantReadCapacity(h.capOf(ccs, tbl), tbl, 0.5, -1, nil, nil)
		}},
	)

	// TransactGetItems: twice a consistent read, missing items included.
	tget := func(name string, keys []Item, rcc types.ReturnConsumedCapacity, total, table float64) Case {
		return Case{Name: "ReadCapacity/" + name, Run: func(t *testing.T, h *H) {
			tbl := capFixture(h)
			var gets []types.TransactGetItem
			for _, k := range keys {
				gets = append(gets, txGet(tbl, k))
			}
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets, ReturnConsumedCapacity: rcc})
			h.Must(err)
			if len(out.ConsumedCapacity) != 1 {
				t.Fatalf("%d ConsumedCapacity entries, want 1", len(out.ConsumedCapacity))
			}
			h.WantReadCapacity(&out.ConsumedCapacity[0], tbl, total, table, nil, nil)
		}}
	}
	register(
		tget("TransactGetItemsSmall", []Item{capKey(2)}, types.ReturnConsumedCapacityTotal, 2, -1),
		tget("TransactGetItemsOver4KB", []Item{capKey(1)}, types.ReturnConsumedCapacityTotal, 4, -1),
		tget("TransactGetItemsExactly4KB", []Item{capKey(0)}, types.ReturnConsumedCapacityTotal, 2, -1),
		tget("TransactGetItemsMissing", []Item{capKey(7)}, types.ReturnConsumedCapacityTotal, 2, -1),
		tget("TransactGetItemsSum", []Item{capKey(0), capKey(1), capKey(2), capKey(7)}, types.ReturnConsumedCapacityIndexes, 10, 10),
		Case{Name: "ReadCapacity/TransactGetItemsPerTable", Run: func(t *testing.T, h *H) {
			t1, t2 := capFixture(h), capFixture(h)
			out, err := h.API.TransactGetItems(h.Ctx, &dynamodb.TransactGetItemsInput{
				TransactItems:          []types.TransactGetItem{txGet(t1, capKey(1)), txGet(t2, capKey(0)), txGet(t1, capKey(2))},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			h.Must(err)
			h.WantReadCapacity(h.capOf(out.ConsumedCapacity, t1), t1, 6, -1, nil, nil)
			h.WantReadCapacity(h.capOf(out.ConsumedCapacity, t2), t2, 2, -1, nil, nil)
		}},
	)
}

// queryCapacity runs the query in, asking for the consumed capacity rc,
// and returns the capacity the answer reports; an error fails the case.
func queryCapacity(h *H, in *dynamodb.QueryInput, rc types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	h.t.Helper()
	in.ReturnConsumedCapacity = rc
	return h.MustQuery(in).ConsumedCapacity
}

// batchGetCapacity runs a BatchGetItem of req, asking for the consumed
// capacity rc, and returns the capacities the answer reports; an error fails
// the case.
func batchGetCapacity(h *H, req map[string]types.KeysAndAttributes, rc types.ReturnConsumedCapacity) []types.ConsumedCapacity {
	h.t.Helper()
	out, err := h.API.BatchGetItem(h.Ctx, &dynamodb.BatchGetItemInput{RequestItems: req, ReturnConsumedCapacity: rc})
	h.Must(err)
	return out.ConsumedCapacity
}

// scanCapacity is queryCapacity for a scan.
func scanCapacity(h *H, in *dynamodb.ScanInput, rc types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	h.t.Helper()
	in.ReturnConsumedCapacity = rc
	return h.MustScan(in).ConsumedCapacity
}
