package conformance

import (
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Scan: filters, Limit, Select, parallel scan segments and their validation.
// Scan order is the order of partition key hashes, which differs between
// implementations, so results are compared as sets unless one partition is
// involved.

const scanN = 20

// scanItems are the items of scanFixture: pk "k000".."k019", n = index.
func scanItems() []Item {
	items := make([]Item, scanN)
	for i, k := range seq("k", scanN) {
		items[i] = Item{"pk": S(k), "n": N(strconv.Itoa(i))}
	}
	return items
}

func scanFixture(h *H) string {
	h.t.Helper()
	tbl := h.HashTable()
	h.PutMany(tbl, scanItems()...)
	return tbl
}

// scanError is a scan case that must fail with a ValidationException.
func scanError(name string, mod func(in *dynamodb.ScanInput), msg string) Case {
	return Case{Name: name, Run: func(t *testing.T, h *H) {
		tbl := scanFixture(h)
		in := scanIn(tbl)
		mod(in)
		_, err := h.API.Scan(h.Ctx, in)
		h.WantError(err, "ValidationException", msg)
	}}
}

// scanSegments scans every segment of total to its end and returns the items
// of each segment.
func (h *H) scanSegments(tbl string, total int32, mod func(in *dynamodb.ScanInput)) [][]Item {
	h.t.Helper()
	segs := make([][]Item, total)
	for s := int32(0); s < total; s++ {
		in := scanIn(tbl)
		in.Segment, in.TotalSegments = aws.Int32(s), aws.Int32(total)
		if mod != nil {
			mod(in)
		}
		segs[s] = h.ScanAll(in)
	}
	return segs
}

func init() {
	register(
		Case{Name: "Scan/All", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			out := h.MustScan(scanIn(tbl))
			h.WantItemSet(out.Items, scanItems())
			h.WantCounts(out.Count, out.ScannedCount, scanN, scanN)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Scan/EmptyTable", Run: func(t *testing.T, h *H) {
			tbl := h.HashTable()
			out := h.MustScan(scanIn(tbl))
			h.WantCounts(out.Count, out.ScannedCount, 0, 0)
			if out.Items == nil || len(out.Items) != 0 {
				t.Fatalf("Items = %v, want an empty list", out.Items)
			}
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Scan/RangeTableSinglePartitionInOrder", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := scanIn(tbl)
			in.FilterExpression = aws.String("pk = :p")
			in.ExpressionAttributeValues = Item{":p": S("p")}
			out := h.MustScan(in)
			// Items of one partition come out in sort key order.
			h.WantValues(out.Items, "sk", sVals(sortS...)...)
			h.WantCounts(out.Count, out.ScannedCount, 6, 9)
		}},
		Case{Name: "Scan/Filter", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.FilterExpression = aws.String("n >= :lo")
			in.ExpressionAttributeValues = Item{":lo": N("15")}
			out := h.MustScan(in)
			h.WantItemSet(out.Items, scanItems()[15:])
			h.WantCounts(out.Count, out.ScannedCount, 5, scanN)
		}},
		Case{Name: "Scan/FilterOnKeyAttribute", Run: func(t *testing.T, h *H) {
			// Unlike Query, Scan filters may use key attributes.
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.FilterExpression = aws.String("pk = :k OR begins_with(pk, :p)")
			in.ExpressionAttributeValues = Item{":k": S("k003"), ":p": S("k01")}
			out := h.MustScan(in)
			want := append([]Item{scanItems()[3]}, scanItems()[10:]...)
			h.WantItemSet(out.Items, want)
		}},
		Case{Name: "Scan/FilterTypeMismatchMatchesNothing", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.FilterExpression = aws.String("pk = :p")
			in.ExpressionAttributeValues = Item{":p": N("1")}
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, scanN)
		}},
		Case{Name: "Scan/Limit", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Limit = aws.Int32(5)
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 5, 5)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": out.Items[4]["pk"]})
		}},
		Case{Name: "Scan/LimitWithFilter", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Limit = aws.Int32(5)
			in.FilterExpression = aws.String("n < :z")
			in.ExpressionAttributeValues = Item{":z": N("0")}
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 5)
			if len(out.LastEvaluatedKey) != 1 {
				t.Fatalf("LastEvaluatedKey = %s, want a table key", FormatItem(out.LastEvaluatedKey))
			}
		}},
		Case{Name: "Scan/SelectCount", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Select = types.SelectCount
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, scanN, scanN)
			if len(out.Items) != 0 {
				t.Fatalf("Select COUNT returned %d items", len(out.Items))
			}
		}},
		Case{Name: "Scan/SelectCountWithFilter", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Select = types.SelectCount
			in.FilterExpression = aws.String("n BETWEEN :a AND :b")
			in.ExpressionAttributeValues = Item{":a": N("3"), ":b": N("9")}
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 7, scanN)
		}},
		Case{Name: "Scan/SelectSpecificAttributes", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Select = types.SelectSpecificAttributes
			in.ProjectionExpression = aws.String("n")
			in.FilterExpression = aws.String("n < :b")
			in.ExpressionAttributeValues = Item{":b": N("2")}
			out := h.MustScan(in)
			h.WantItemSet(out.Items, []Item{{"n": N("0")}, {"n": N("1")}})
		}},
		Case{Name: "Scan/ConsistentRead", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.ConsistentRead = aws.Bool(true)
			h.WantItemSet(h.ScanAll(in), scanItems())
		}},
		scanError("Scan/SelectSpecificWithoutProjectionError", func(in *dynamodb.ScanInput) {
			in.Select = types.SelectSpecificAttributes
		}, "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"),
		scanError("Scan/SelectAllProjectedOnTableError", func(in *dynamodb.ScanInput) {
			in.Select = types.SelectAllProjectedAttributes
		}, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"),
		scanError("Scan/SelectCountWithProjectionError", func(in *dynamodb.ScanInput) {
			in.Select = types.SelectCount
			in.ProjectionExpression = aws.String("n")
		}, "Cannot specify the ProjectionExpression when choosing to get only the Count"),
		scanError("Scan/LimitZeroError", func(in *dynamodb.ScanInput) {
			in.Limit = aws.Int32(0)
		}, "Limit must be greater than or equal to 1"),
		scanError("Scan/MissingIndexError", func(in *dynamodb.ScanInput) {
			in.IndexName = aws.String("nope")
		}, "The table does not have the specified index: nope"),
		scanError("Scan/FilterUndefinedValueError", func(in *dynamodb.ScanInput) {
			in.FilterExpression = aws.String("n = :p")
		}, "Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :p"),
		scanError("Scan/UnusedValueError", func(in *dynamodb.ScanInput) {
			in.FilterExpression = aws.String("n = :p")
			in.ExpressionAttributeValues = Item{":p": N("1"), ":q": N("2")}
		}, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:q}"),
		Case{Name: "Scan/MissingTable", Run: func(t *testing.T, h *H) {
			_, err := h.API.Scan(h.Ctx, scanIn(h.TableName()))
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
		}},

		// Parallel scan.
		Case{Name: "Scan/Segments4EveryItemOnce", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			segs := h.scanSegments(tbl, 4, nil)
			h.WantItemSet(slices.Concat(segs...), scanItems())
		}},
		Case{Name: "Scan/Segments1", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			segs := h.scanSegments(tbl, 1, nil)
			h.WantItemSet(segs[0], scanItems())
		}},
		Case{Name: "Scan/SegmentsMoreThanItems", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			segs := h.scanSegments(tbl, 64, nil)
			h.WantItemSet(slices.Concat(segs...), scanItems())
		}},
		Case{Name: "Scan/SegmentsPagedWithLimit", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			segs := h.scanSegments(tbl, 3, func(in *dynamodb.ScanInput) { in.Limit = aws.Int32(2) })
			h.WantItemSet(slices.Concat(segs...), scanItems())
		}},
		Case{Name: "Scan/SegmentsWithFilter", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			segs := h.scanSegments(tbl, 5, func(in *dynamodb.ScanInput) {
				in.FilterExpression = aws.String("n < :x")
				in.ExpressionAttributeValues = Item{":x": N("10")}
			})
			h.WantItemSet(slices.Concat(segs...), scanItems()[:10])
		}},
		Case{Name: "Scan/SegmentsStable", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			a := h.scanSegments(tbl, 4, nil)
			b := h.scanSegments(tbl, 4, nil)
			for i := range a {
				h.WantItemSet(b[i], a[i])
			}
		}},
		Case{Name: "Scan/SegmentsKeepPartitionsTogether", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			var all []Item
			for _, pk := range seq("p", 8) {
				for i := range 4 {
					it := Item{"pk": S(pk), "sk": N(strconv.Itoa(i))}
					all = append(all, it)
				}
			}
			h.PutMany(tbl, all...)
			segs := h.scanSegments(tbl, 3, func(in *dynamodb.ScanInput) { in.Limit = aws.Int32(3) })
			h.WantItemSet(slices.Concat(segs...), all)
			owner := map[string]int{}
			for s, items := range segs {
				for _, it := range items {
					pk := Format(it["pk"])
					if o, ok := owner[pk]; ok && o != s {
						t.Fatalf("partition %s is in segments %d and %d", pk, o, s)
					}
					owner[pk] = s
				}
			}
		}},
		scanError("Scan/SegmentWithoutTotalError", func(in *dynamodb.ScanInput) {
			in.Segment = aws.Int32(0)
		}, "If segment is specified, total segment must also be specified"),
		scanError("Scan/TotalWithoutSegmentError", func(in *dynamodb.ScanInput) {
			in.TotalSegments = aws.Int32(2)
		}, "If total segments is specified, a particular segment must also be specified for this request"),
		scanError("Scan/SegmentEqualsTotalError", func(in *dynamodb.ScanInput) {
			in.Segment, in.TotalSegments = aws.Int32(2), aws.Int32(2)
		}, "1 validation error detected: Value '2' at 'segment' failed to satisfy constraint: Member must have value less than or equal to 1"),
		scanError("Scan/SegmentNegativeError", func(in *dynamodb.ScanInput) {
			in.Segment, in.TotalSegments = aws.Int32(-1), aws.Int32(3)
		}, "1 validation error detected: Value '-1' at 'segment' failed to satisfy constraint: Member must have value less than or equal to 2"),
		// DynamoDB Local checks the segment against TotalSegments-1 before
		// checking TotalSegments itself, hence "less than or equal to -1".
		scanError("Scan/TotalSegmentsZeroError", func(in *dynamodb.ScanInput) {
			in.Segment, in.TotalSegments = aws.Int32(0), aws.Int32(0)
		}, "1 validation error detected: Value '0' at 'segment' failed to satisfy constraint: Member must have value less than or equal to -1"),
		scanError("Scan/TotalSegmentsTooLargeError", func(in *dynamodb.ScanInput) {
			in.Segment, in.TotalSegments = aws.Int32(0), aws.Int32(1000001)
		}, "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000"),
		Case{Name: "Scan/TotalSegmentsMaximum", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Segment, in.TotalSegments = aws.Int32(999999), aws.Int32(1000000)
			h.MustScan(in)
		}},
	)

	// Scan pagination.
	register(
		Case{Name: "Pagination/ScanLimit1", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Limit = aws.Int32(1)
			var all []Item
			for pages := 0; ; pages++ {
				if pages > scanN+1 {
					t.Fatalf("more than %d pages", scanN+1)
				}
				out := h.MustScan(in)
				if len(out.Items) > 1 {
					t.Fatalf("page of %d items with Limit 1", len(out.Items))
				}
				if len(out.Items) == 1 {
					h.WantLastKey(out.LastEvaluatedKey, Item{"pk": out.Items[0]["pk"]})
				}
				all = append(all, out.Items...)
				if len(out.LastEvaluatedKey) == 0 {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			h.WantItemSet(all, scanItems())
		}},
		Case{Name: "Pagination/ScanFilterLimit3", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Limit = aws.Int32(3)
			in.FilterExpression = aws.String("n >= :a")
			in.ExpressionAttributeValues = Item{":a": N("12")}
			var all []Item
			var scanned int32
			for {
				out := h.MustScan(in)
				if out.ScannedCount > 3 {
					t.Fatalf("ScannedCount %d with Limit 3", out.ScannedCount)
				}
				scanned += out.ScannedCount
				all = append(all, out.Items...)
				if len(out.LastEvaluatedKey) == 0 {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			h.WantItemSet(all, scanItems()[12:])
			if scanned != scanN {
				t.Fatalf("ScannedCount summed to %d, want %d", scanned, scanN)
			}
		}},
		Case{Name: "Pagination/ScanCountPages", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.Limit = aws.Int32(6)
			in.Select = types.SelectCount
			var counts []int32
			for {
				out := h.MustScan(in)
				counts = append(counts, out.Count)
				if len(out.LastEvaluatedKey) == 0 {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			if len(counts) != 4 || counts[0] != 6 || counts[1] != 6 || counts[2] != 6 || counts[3] != 2 {
				t.Fatalf("page counts %v, want [6 6 6 2]", counts)
			}
		}},
		Case{Name: "Pagination/ScanRangeTableResume", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			first := h.ScanAll(scanIn(tbl))
			for cut := 1; cut < len(first); cut++ {
				in := scanIn(tbl)
				in.ExclusiveStartKey = Item{"pk": first[cut-1]["pk"], "sk": first[cut-1]["sk"]}
				h.WantItems(h.ScanAll(in), first[cut:])
			}
		}},
		Case{Name: "Pagination/ScanStartKeyNotAnItem", Run: func(t *testing.T, h *H) {
			// A start key inside an existing partition need not be an item.
			tbl := sFixture(h)
			in := scanIn(tbl)
			in.ExclusiveStartKey = Item{"pk": S("p"), "sk": S("abz")}
			in.Select = types.SelectCount
			in.FilterExpression = aws.String("pk = :p")
			in.ExpressionAttributeValues = Item{":p": S("p")}
			out := h.MustScan(in)
			if out.Count != 3 {
				t.Fatalf("Count = %d, want 3 (b, ba, c)", out.Count)
			}
		}},
		Case{Name: "Pagination/ScanStartKeyWrongSizeError", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := scanIn(tbl)
			in.ExclusiveStartKey = Item{"pk": S("p")}
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "Exclusive Start Key must have same size as table's key schema")
		}},
		Case{Name: "Pagination/ScanStartKeyNotKeyError", Run: func(t *testing.T, h *H) {
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.ExclusiveStartKey = Item{"n": S("p")}
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "The provided starting key is invalid")
		}},
		Case{Name: "Pagination/ScanStartKeyTypeMismatchError", Run: func(t *testing.T, h *H) {
			// DynamoDB Local's wording for a start key of the wrong type.
			tbl := scanFixture(h)
			in := scanIn(tbl)
			in.ExclusiveStartKey = Item{"pk": N("1")}
			_, err := h.API.Scan(h.Ctx, in)
			h.WantError(err, "ValidationException", "Type mismatch for attribute to update")
		}},
	)
}
