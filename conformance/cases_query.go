package conformance

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Query: key conditions on S, N and B sort keys, direction, Limit, filters,
// Select, and the validation errors of key conditions.

// sortS is the sort order of the S fixture's partition "p".
var sortS = []string{"a", "ab", "abc", "b", "ba", "c"}

// sFixture creates a table with an S sort key holding partition "p" (sortS,
// each item with n = its position) and a neighbour partition "q".
func sFixture(h *H) string {
	h.t.Helper()
	tbl := h.RangeTable(types.ScalarAttributeTypeS)
	for i, sk := range sortS {
		h.Put(tbl, Item{"pk": S("p"), "sk": S(sk), "n": N(strconv.Itoa(i))})
	}
	h.PutMany(tbl, Item{"pk": S("q"), "sk": S("a")}, Item{"pk": S("q"), "sk": S("b")}, Item{"pk": S("o"), "sk": S("c")})
	return tbl
}

// nWritten are the N fixture's sort keys as written; nCanon as DynamoDB
// returns them (canonical form), in numeric order.
var (
	nWritten = []string{"-1E+10", "-5.5", "-1", "0", "0.001", "1", "2", "10", "1e2", "1.5E3"}
	nCanon   = []string{"-10000000000", "-5.5", "-1", "0", "0.001", "1", "2", "10", "100", "1500"}
)

// nFixture creates a table with an N sort key holding partition "p" with
// nWritten, written in reverse order.
func nFixture(h *H) string {
	h.t.Helper()
	tbl := h.RangeTable(types.ScalarAttributeTypeN)
	for i := len(nWritten) - 1; i >= 0; i-- {
		h.Put(tbl, Item{"pk": S("p"), "sk": N(nWritten[i])})
	}
	h.Put(tbl, Item{"pk": S("q"), "sk": N("0")})
	return tbl
}

// sortB are the B fixture's sort keys in unsigned byte order.
var sortB = [][]byte{{0x00}, {0x01}, {0x01, 0x02}, {0x01, 0xff}, {0x7f}, {0x80}, {0xff}, {0xff, 0x00}}

func binFixture(h *H) string {
	h.t.Helper()
	tbl := h.RangeTable(types.ScalarAttributeTypeB)
	for i := len(sortB) - 1; i >= 0; i-- {
		h.Put(tbl, Item{"pk": S("p"), "sk": B(sortB[i])})
	}
	h.Put(tbl, Item{"pk": S("q"), "sk": B([]byte{0x01})})
	return tbl
}

// keyCase is a query case over a fixture: a key condition and the sort keys
// it must return, in order.
func keyCase(name string, fixture func(*H) string, cond string, values Item, want []types.AttributeValue) Case {
	return Case{Name: name, Run: func(t *testing.T, h *H) {
		tbl := fixture(h)
		out := h.MustQuery(queryIn(tbl, cond, values))
		h.WantValues(out.Items, "sk", want...)
		h.WantCounts(out.Count, out.ScannedCount, int32(len(want)), int32(len(want)))
		h.WantNoLastKey(out.LastEvaluatedKey)
	}}
}

// queryError is a query case that must fail with a ValidationException.
func queryError(name string, fixture func(*H) string, in func(tbl string) *dynamodb.QueryInput, msg string) Case {
	return Case{Name: name, Run: func(t *testing.T, h *H) {
		tbl := fixture(h)
		_, err := h.API.Query(h.Ctx, in(tbl))
		h.WantError(err, "ValidationException", msg)
	}}
}

func init() {
	p := S("p")
	register(
		// S sort keys: byte order of UTF-8.
		keyCase("Query/S_PartitionOnly", sFixture, "pk = :p", Item{":p": p}, sVals(sortS...)),
		keyCase("Query/S_EQ", sFixture, "pk = :p AND sk = :s", Item{":p": p, ":s": S("ab")}, sVals("ab")),
		keyCase("Query/S_EQ_NoMatch", sFixture, "pk = :p AND sk = :s", Item{":p": p, ":s": S("aa")}, nil),
		keyCase("Query/S_LT", sFixture, "pk = :p AND sk < :s", Item{":p": p, ":s": S("b")}, sVals("a", "ab", "abc")),
		keyCase("Query/S_LE", sFixture, "pk = :p AND sk <= :s", Item{":p": p, ":s": S("b")}, sVals("a", "ab", "abc", "b")),
		keyCase("Query/S_GT", sFixture, "pk = :p AND sk > :s", Item{":p": p, ":s": S("b")}, sVals("ba", "c")),
		keyCase("Query/S_GE", sFixture, "pk = :p AND sk >= :s", Item{":p": p, ":s": S("b")}, sVals("b", "ba", "c")),
		keyCase("Query/S_Between", sFixture, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": S("ab"), ":b": S("b")}, sVals("ab", "abc", "b")),
		keyCase("Query/S_BetweenEqualBounds", sFixture, "pk = :p AND sk BETWEEN :a AND :a", Item{":p": p, ":a": S("ba")}, sVals("ba")),
		keyCase("Query/S_BeginsWith", sFixture, "pk = :p AND begins_with(sk, :s)", Item{":p": p, ":s": S("ab")}, sVals("ab", "abc")),
		keyCase("Query/S_BeginsWithWholeKey", sFixture, "pk = :p AND begins_with(sk, :s)", Item{":p": p, ":s": S("abc")}, sVals("abc")),
		keyCase("Query/S_BeginsWithNoMatch", sFixture, "pk = :p AND begins_with(sk, :s)", Item{":p": p, ":s": S("abcd")}, nil),
		keyCase("Query/S_ReversedOperands", sFixture, ":p = pk AND :s < sk", Item{":p": p, ":s": S("b")}, sVals("ba", "c")),
		keyCase("Query/S_ConditionOrderSwapped", sFixture, "sk >= :s AND pk = :p", Item{":p": p, ":s": S("b")}, sVals("b", "ba", "c")),
		keyCase("Query/S_Parentheses", sFixture, "(pk = :p) AND (sk <= :s)", Item{":p": p, ":s": S("ab")}, sVals("a", "ab")),
		keyCase("Query/EmptyPartition", sFixture, "pk = :p", Item{":p": S("nothing")}, nil),

		// N sort keys: numeric order, whatever the notation.
		keyCase("Query/N_NumericOrder", nFixture, "pk = :p", Item{":p": p}, nVals(nCanon...)),
		keyCase("Query/N_EQ_OtherNotation", nFixture, "pk = :p AND sk = :n", Item{":p": p, ":n": N("100.000")}, nVals("100")),
		keyCase("Query/N_LT", nFixture, "pk = :p AND sk < :n", Item{":p": p, ":n": N("0")}, nVals("-10000000000", "-5.5", "-1")),
		keyCase("Query/N_LE", nFixture, "pk = :p AND sk <= :n", Item{":p": p, ":n": N("1E-3")}, nVals("-10000000000", "-5.5", "-1", "0", "0.001")),
		keyCase("Query/N_GT", nFixture, "pk = :p AND sk > :n", Item{":p": p, ":n": N("2")}, nVals("10", "100", "1500")),
		keyCase("Query/N_GE", nFixture, "pk = :p AND sk >= :n", Item{":p": p, ":n": N("-1")}, nVals("-1", "0", "0.001", "1", "2", "10", "100", "1500")),
		keyCase("Query/N_Between", nFixture, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": N("-5.5"), ":b": N("1")}, nVals("-5.5", "-1", "0", "0.001", "1")),
		keyCase("Query/N_BetweenDecimals", nFixture, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": N("0.0001"), ":b": N("9.99")}, nVals("0.001", "1", "2")),
		keyCase("Query/N_BetweenNegative", nFixture, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": N("-1e11"), ":b": N("-2")}, nVals("-10000000000", "-5.5")),

		// B sort keys: unsigned byte order.
		keyCase("Query/B_ByteOrder", binFixture, "pk = :p", Item{":p": p}, bVals(sortB...)),
		keyCase("Query/B_EQ", binFixture, "pk = :p AND sk = :b", Item{":p": p, ":b": B([]byte{0x01, 0x02})}, bVals([]byte{0x01, 0x02})),
		keyCase("Query/B_LT", binFixture, "pk = :p AND sk < :b", Item{":p": p, ":b": B([]byte{0x01, 0x02})}, bVals([]byte{0x00}, []byte{0x01})),
		keyCase("Query/B_LE", binFixture, "pk = :p AND sk <= :b", Item{":p": p, ":b": B([]byte{0x01, 0x02})}, bVals([]byte{0x00}, []byte{0x01}, []byte{0x01, 0x02})),
		keyCase("Query/B_GT", binFixture, "pk = :p AND sk > :b", Item{":p": p, ":b": B([]byte{0x7f})}, bVals([]byte{0x80}, []byte{0xff}, []byte{0xff, 0x00})),
		keyCase("Query/B_GE", binFixture, "pk = :p AND sk >= :b", Item{":p": p, ":b": B([]byte{0xff})}, bVals([]byte{0xff}, []byte{0xff, 0x00})),
		keyCase("Query/B_Between", binFixture, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": B([]byte{0x01, 0x00}), ":b": B([]byte{0x80})}, bVals([]byte{0x01, 0x02}, []byte{0x01, 0xff}, []byte{0x7f}, []byte{0x80})),
		keyCase("Query/B_BeginsWith", binFixture, "pk = :p AND begins_with(sk, :b)", Item{":p": p, ":b": B([]byte{0x01})}, bVals([]byte{0x01}, []byte{0x01, 0x02}, []byte{0x01, 0xff})),
	)

	register(
		Case{Name: "Query/S_UTF8ByteOrder", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeS)
			// UTF-8 byte order: ASCII upper before lower, then two-, three- and
			// four-byte sequences (so U+1F600 sorts after U+FFFD, unlike UTF-16).
			order := []string{" ", "Z", "a", "ab", "~", "é", "\ufffd", "\U0001F600"}
			for i := len(order) - 1; i >= 0; i-- {
				h.Put(tbl, Item{"pk": S("p"), "sk": S(order[i])})
			}
			out := h.MustQuery(queryIn(tbl, "pk = :p", Item{":p": S("p")}))
			h.WantValues(out.Items, "sk", sVals(order...)...)
		}},
		Case{Name: "Query/N_LargeExponents", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeN)
			written := []string{"1e100", "-1e100", "1e-130", "9.9999999999999999999999999999999999999E+125", "123456789012345678901234567890123456780000", "-1e-130"}
			h.PutMany(tbl, func() []Item {
				var items []Item
				for _, w := range written {
					items = append(items, Item{"pk": S("p"), "sk": N(w)})
				}
				return items
			}()...)
			out := h.MustQuery(queryIn(tbl, "pk = :p", Item{":p": S("p")}))
			h.WantValues(out.Items, "sk", nVals(
				"-10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
				"-0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
				"0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
				"123456789012345678901234567890123456780000",
				"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
				"999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
			)...)
			out = h.MustQuery(queryIn(tbl, "pk = :p AND sk > :n", Item{":p": S("p"), ":n": N("1E+100")}))
			h.WantValues(out.Items, "sk", N("999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"))
			out = h.MustQuery(queryIn(tbl, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": S("p"), ":a": N("-1E-129"), ":b": N("1E-129")}))
			h.WantCounts(out.Count, out.ScannedCount, 2, 2)
		}},
		Case{Name: "Query/HashOnlyTable", Run: func(t *testing.T, h *H) {
			tbl := h.HashTable()
			h.PutMany(tbl, Item{"pk": S("a"), "v": N("1")}, Item{"pk": S("b"), "v": N("2")})
			out := h.MustQuery(queryIn(tbl, "pk = :p", Item{":p": S("b")}))
			h.WantItems(out.Items, []Item{{"pk": S("b"), "v": N("2")}})
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Query/AttributeNamePlaceholders", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "#p = :p AND begins_with(#s, :s)", Item{":p": S("p"), ":s": S("b")})
			in.ExpressionAttributeNames = map[string]string{"#p": "pk", "#s": "sk"}
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", S("b"), S("ba"))
		}},
		Case{Name: "Query/ReturnsWholeItems", Run: func(t *testing.T, h *H) {
			tbl := h.RangeTable(types.ScalarAttributeTypeS)
			it := Item{"pk": S("p"), "sk": S("1"), "m": M(Item{"l": L(N("1"), SS("x", "y"))}), "b": BOOL(false), "z": NULL(), "bs": BS([]byte("a"))}
			h.Put(tbl, it)
			out := h.MustQuery(queryIn(tbl, "pk = :p", Item{":p": S("p")}))
			h.WantItems(out.Items, []Item{it})
		}},

		// Direction and Limit.
		Case{Name: "Query/ScanIndexForwardFalse", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", sVals("c", "ba", "b", "abc", "ab", "a")...)
		}},
		Case{Name: "Query/ScanIndexForwardFalse_N", Run: func(t *testing.T, h *H) {
			tbl := nFixture(h)
			in := queryIn(tbl, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": S("p"), ":a": N("-1"), ":b": N("10")})
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", nVals("10", "2", "1", "0.001", "0", "-1")...)
		}},
		Case{Name: "Query/ScanIndexForwardFalse_BeginsWith", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND begins_with(sk, :s)", Item{":p": S("p"), ":s": S("a")})
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", sVals("abc", "ab", "a")...)
		}},
		Case{Name: "Query/Limit", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Limit = aws.Int32(2)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", S("a"), S("ab"))
			h.WantCounts(out.Count, out.ScannedCount, 2, 2)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": S("p"), "sk": S("ab")})
		}},
		Case{Name: "Query/LimitReverse", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND sk < :s", Item{":p": S("p"), ":s": S("c")})
			in.Limit = aws.Int32(2)
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", S("ba"), S("b"))
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": S("p"), "sk": S("b")})
		}},
		Case{Name: "Query/LimitAboveResultSize", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Limit = aws.Int32(7)
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 6, 6)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Query/LimitEqualsResultSize", Run: func(t *testing.T, h *H) {
			// A page that stops at Limit returns a LastEvaluatedKey even when
			// nothing is left; the next page is empty and ends the walk.
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Limit = aws.Int32(6)
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 6, 6)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": S("p"), "sk": S("c")})
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 0)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},

		// Filters: applied after the read; Limit counts items read.
		Case{Name: "Query/FilterCountVsScannedCount", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p"), ":lo": N("2")})
			in.FilterExpression = aws.String("n >= :lo")
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", sVals("abc", "b", "ba", "c")...)
			h.WantCounts(out.Count, out.ScannedCount, 4, 6)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Query/FilterMatchesNothing", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p"), ":x": S("x")})
			in.FilterExpression = aws.String("n = :x")
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 6)
			if out.Items == nil || len(out.Items) != 0 {
				t.Fatalf("Items = %v, want an empty list", out.Items)
			}
		}},
		Case{Name: "Query/FilterLimitCountsBeforeFilter", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p"), ":n": N("4")})
			in.FilterExpression = aws.String("n = :n")
			in.Limit = aws.Int32(3)
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 3)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": S("p"), "sk": S("abc")})
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustQuery(in)
			h.WantValues(out.Items, "sk", S("ba"))
			h.WantCounts(out.Count, out.ScannedCount, 1, 3)
		}},
		Case{Name: "Query/FilterWithKeyRange", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND sk > :s", Item{":p": S("p"), ":s": S("ab"), ":n": N("3")})
			in.FilterExpression = aws.String("attribute_exists(n) AND n <> :n")
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", S("abc"), S("ba"), S("c"))
			h.WantCounts(out.Count, out.ScannedCount, 3, 4)
		}},
		Case{Name: "Query/FilterOnSortKeyError", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p"), ":s": S("a")})
			in.FilterExpression = aws.String("sk = :s")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk")
		}},
		Case{Name: "Query/FilterOnPartitionKeyError", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.FilterExpression = aws.String("begins_with(pk, :p)")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk")
		}},
		Case{Name: "Query/FilterUndefinedValueError", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.FilterExpression = aws.String("n = :nope")
			_, err := h.API.Query(h.Ctx, in)
			h.WantError(err, "ValidationException", "Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :nope")
		}},

		// Select.
		Case{Name: "Query/SelectCount", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND sk >= :s", Item{":p": S("p"), ":s": S("b")})
			in.Select = types.SelectCount
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 3, 3)
			if len(out.Items) != 0 {
				t.Fatalf("Select COUNT returned %d items", len(out.Items))
			}
		}},
		Case{Name: "Query/SelectCountWithFilter", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p"), ":n": N("1")})
			in.Select = types.SelectCount
			in.FilterExpression = aws.String("n > :n")
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 4, 6)
		}},
		Case{Name: "Query/SelectCountWithLimit", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Select = types.SelectCount
			in.Limit = aws.Int32(4)
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 4, 4)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": S("p"), "sk": S("b")})
		}},
		Case{Name: "Query/SelectAllAttributes", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND sk = :s", Item{":p": S("p"), ":s": S("b")})
			in.Select = types.SelectAllAttributes
			out := h.MustQuery(in)
			h.WantItems(out.Items, []Item{{"pk": S("p"), "sk": S("b"), "n": N("3")}})
		}},
		Case{Name: "Query/SelectSpecificAttributes", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p AND sk < :s", Item{":p": S("p"), ":s": S("ab")})
			in.Select = types.SelectSpecificAttributes
			in.ProjectionExpression = aws.String("n, nx")
			out := h.MustQuery(in)
			h.WantItems(out.Items, []Item{{"n": N("0")}})
		}},
		queryError("Query/SelectSpecificWithoutProjectionError", sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Select = types.SelectSpecificAttributes
			return in
		}, "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"),
		queryError("Query/SelectAllProjectedOnTableError", sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Select = types.SelectAllProjectedAttributes
			return in
		}, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"),
		queryError("Query/SelectCountWithProjectionError", sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Select = types.SelectCount
			in.ProjectionExpression = aws.String("n")
			return in
		}, "Cannot specify the ProjectionExpression when choosing to get only the Count"),
		queryError("Query/SelectAllAttributesWithProjectionError", sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Select = types.SelectAllAttributes
			in.ProjectionExpression = aws.String("n")
			return in
		}, "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES"),
		queryError("Query/SelectInvalidValueError", sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Select = types.Select("EVERYTHING")
			return in
		}, "Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES"),
		queryError("Query/LimitZeroError", sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": S("p")})
			in.Limit = aws.Int32(0)
			return in
		}, "Limit must be greater than or equal to 1"),
	)

	// Key condition errors, with DynamoDB's messages.
	kc := func(name, cond string, values Item, msg string) Case {
		return queryError("Query/KeyCondition_"+name, nFixture, func(tbl string) *dynamodb.QueryInput {
			return queryIn(tbl, cond, values)
		}, msg)
	}
	register(
		kc("MissingPartitionKey", "sk = :n", Item{":n": N("1")}, "Query condition missed key schema element"),
		kc("NonKeyAttribute", "pk = :p AND v = :v", Item{":p": p, ":v": S("1")}, "Query condition missed key schema element"),
		kc("NonKeyAttributeOnly", "v = :v", Item{":v": S("1")}, "Query condition missed key schema element"),
		kc("PartitionKeyRange", "pk < :p", Item{":p": p}, "Query key condition not supported"),
		kc("PartitionKeyBeginsWith", "begins_with(pk, :p)", Item{":p": p}, "Query key condition not supported"),
		kc("NotEqualOperator", "pk = :p AND sk <> :n", Item{":p": p, ":n": N("1")}, "Invalid operator used in KeyConditionExpression: <>"),
		kc("OrOperator", "pk = :p OR sk = :n", Item{":p": p, ":n": N("1")}, "Invalid operator used in KeyConditionExpression: OR"),
		kc("InOperator", "pk = :p AND sk IN (:n)", Item{":p": p, ":n": N("1")}, "Invalid operator used in KeyConditionExpression: IN"),
		kc("NotOperator", "pk = :p AND NOT sk = :n", Item{":p": p, ":n": N("1")}, "Invalid operator used in KeyConditionExpression: NOT"),
		kc("AttributeExists", "pk = :p AND attribute_exists(sk)", Item{":p": p}, "Invalid operator used in KeyConditionExpression: attribute_exists"),
		kc("SizeFunction", "pk = :p AND size(sk) > :n", Item{":p": p, ":n": N("1")}, "KeyConditionExpressions cannot contain nested operations"),
		kc("BeginsWithOnNumber", "pk = :p AND begins_with(sk, :n)", Item{":p": p, ":n": N("1")}, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
		kc("PartitionTypeMismatch", "pk = :p", Item{":p": N("1")}, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		kc("SortTypeMismatch", "pk = :p AND sk = :n", Item{":p": p, ":n": S("1")}, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		kc("SetValue", "pk = :p AND sk = :n", Item{":p": p, ":n": NS("1")}, "One or more parameter values were invalid: Condition parameter type does not match schema type"),
		kc("BetweenReversedBounds", "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": N("3"), ":b": N("1")}, "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:3}, upper bound operand: AttributeValue: {N:1}"),
		kc("BetweenMixedTypes", "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": N("1"), ":b": S("1")}, "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:1}"),
		kc("PartitionKeyTwice", "pk = :p AND pk = :p", Item{":p": p}, "KeyConditionExpressions must only contain one condition per key"),
		kc("SortKeyTwice", "pk = :p AND sk > :n AND sk < :n", Item{":p": p, ":n": N("1")}, "KeyConditionExpressions must only contain one condition per key"),
		kc("SameAttributeBothSides", "pk = :p AND sk = sk", Item{":p": p}, "Invalid KeyConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [sk]"),
		kc("TwoAttributes", "pk = :p AND sk > pk", Item{":p": p}, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
		kc("UndefinedValue", "pk = :x", Item{":p": p}, "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"),
		kc("UnusedValue", "pk = :p", Item{":p": p, ":q": p}, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:q}"),
		kc("UndefinedName", "#k = :p", Item{":p": p}, "Invalid KeyConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #k"),
		kc("SyntaxError", "pk = ", Item{":p": p}, "Invalid KeyConditionExpression: Syntax error; token: \"<EOF>\", near: \"= \""),
		kc("EmptyStringPartitionKey", "pk = :p", Item{":p": S("")}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"),
		queryError("Query/KeyCondition_EmptyStringSortKey", sFixture, func(tbl string) *dynamodb.QueryInput {
			return queryIn(tbl, "pk = :p AND begins_with(sk, :s)", Item{":p": p, ":s": S("")})
		}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk"),
		queryError("Query/KeyCondition_SortKeyOnHashOnlyTable", func(h *H) string { return h.HashTable() }, func(tbl string) *dynamodb.QueryInput {
			return queryIn(tbl, "pk = :p AND sk = :s", Item{":p": p, ":s": S("x")})
		}, "Query key condition not supported"),
		queryError("Query/KeyCondition_Missing", nFixture, func(tbl string) *dynamodb.QueryInput {
			return &dynamodb.QueryInput{TableName: aws.String(tbl)}
		}, "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."),
		queryError("Query/MissingIndexError", nFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.IndexName = aws.String("nope")
			return in
		}, "The table does not have the specified index: nope"),
		Case{Name: "Query/MissingTable", Run: func(t *testing.T, h *H) {
			_, err := h.API.Query(h.Ctx, queryIn(h.TableName(), "pk = :p", Item{":p": p}))
			h.WantError(err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
			var rnf *types.ResourceNotFoundException
			if !errors.As(err, &rnf) {
				t.Fatalf("error %T is not a *types.ResourceNotFoundException", err)
			}
		}},
	)
}

// bigFixture creates a table with an S sort key holding n items of exactly
// size bytes each (DynamoDB's item size: names plus values) in partition
// "p", sort keys "000", "001", ...
func bigFixture(h *H, n, size int) string {
	h.t.Helper()
	tbl := h.RangeTable(types.ScalarAttributeTypeS)
	pad := strings.Repeat("x", size-9) // "pk"+"p" + "sk"+"000" + "d"
	for _, sk := range seq("", n) {
		h.Put(tbl, Item{"pk": S("p"), "sk": S(sk), "d": S(pad)})
	}
	return tbl
}

// walkQuery runs in page by page and returns the pages' items.
func (h *H) walkQuery(in *dynamodb.QueryInput, maxPages int) [][]Item {
	h.t.Helper()
	var pages [][]Item
	for {
		if len(pages) == maxPages {
			h.t.Fatalf("more than %d pages", maxPages)
		}
		out := h.MustQuery(in)
		pages = append(pages, out.Items)
		if len(out.LastEvaluatedKey) == 0 {
			return pages
		}
		if n := len(out.Items); n > 0 && in.FilterExpression == nil && out.Items[n-1]["pk"] != nil {
			last := out.Items[n-1]
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": last["pk"], "sk": last["sk"]})
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func pageSizes(pages [][]Item) []int {
	n := make([]int, len(pages))
	for i, p := range pages {
		n[i] = len(p)
	}
	return n
}

func wantPageSizes(t *testing.T, pages [][]Item, want ...int) {
	t.Helper()
	got := pageSizes(pages)
	if len(got) != len(want) {
		t.Fatalf("page sizes %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("page sizes %v, want %v", got, want)
		}
	}
}

func init() {
	p := S("p")
	startKeyError := func(name, cond string, values Item, esk Item, msg string) Case {
		return queryError("Pagination/QueryStartKey"+name, sFixture, func(tbl string) *dynamodb.QueryInput {
			in := queryIn(tbl, cond, values)
			in.ExclusiveStartKey = esk
			return in
		}, msg)
	}
	register(
		Case{Name: "Pagination/QueryLimit1Forward", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.Limit = aws.Int32(1)
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 1, 1, 1, 1, 1, 1, 0)
			h.WantValues(slices.Concat(pages...), "sk", sVals(sortS...)...)
		}},
		Case{Name: "Pagination/QueryLimit1Backward", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.Limit = aws.Int32(1)
			in.ScanIndexForward = aws.Bool(false)
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 1, 1, 1, 1, 1, 1, 0)
			h.WantValues(slices.Concat(pages...), "sk", sVals("c", "ba", "b", "abc", "ab", "a")...)
		}},
		Case{Name: "Pagination/QueryLimit4Forward", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.Limit = aws.Int32(4)
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 4, 2)
			h.WantValues(slices.Concat(pages...), "sk", sVals(sortS...)...)
		}},
		Case{Name: "Pagination/QueryLimit2BetweenBackward", Run: func(t *testing.T, h *H) {
			tbl := nFixture(h)
			in := queryIn(tbl, "pk = :p AND sk BETWEEN :a AND :b", Item{":p": p, ":a": N("-5.5"), ":b": N("10")})
			in.Limit = aws.Int32(2)
			in.ScanIndexForward = aws.Bool(false)
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 2, 2, 2, 1)
			h.WantValues(slices.Concat(pages...), "sk", nVals("10", "2", "1", "0.001", "0", "-1", "-5.5")...)
		}},
		Case{Name: "Pagination/QueryFilterLimit2Forward", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p, ":a": N("1"), ":b": N("4")})
			in.FilterExpression = aws.String("n IN (:a, :b)")
			in.Limit = aws.Int32(2)
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 1, 0, 1, 0)
			h.WantValues(slices.Concat(pages...), "sk", S("ab"), S("ba"))
		}},
		Case{Name: "Pagination/QueryFilterLimit2Backward", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p, ":a": N("1"), ":b": N("4")})
			in.FilterExpression = aws.String("n IN (:a, :b)")
			in.Limit = aws.Int32(2)
			in.ScanIndexForward = aws.Bool(false)
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 1, 0, 1, 0)
			h.WantValues(slices.Concat(pages...), "sk", S("ba"), S("ab"))
		}},
		Case{Name: "Pagination/QueryStartKeyNotAnItem", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ExclusiveStartKey = Item{"pk": p, "sk": S("aa")}
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", sVals("ab", "abc", "b", "ba", "c")...)
		}},
		Case{Name: "Pagination/QueryStartKeyNotAnItemBackward", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ExclusiveStartKey = Item{"pk": p, "sk": S("b0")}
			in.ScanIndexForward = aws.Bool(false)
			out := h.MustQuery(in)
			h.WantValues(out.Items, "sk", sVals("b", "abc", "ab", "a")...)
		}},
		Case{Name: "Pagination/QueryStartKeyLastItem", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ExclusiveStartKey = Item{"pk": p, "sk": S("c")}
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 0)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Pagination/QueryLastKeyIgnoresProjection", Run: func(t *testing.T, h *H) {
			tbl := sFixture(h)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ProjectionExpression = aws.String("n")
			in.Limit = aws.Int32(3)
			out := h.MustQuery(in)
			h.WantItems(out.Items, []Item{{"n": N("0")}, {"n": N("1")}, {"n": N("2")}})
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": p, "sk": S("abc")})
		}},
		Case{Name: "Pagination/QueryHashOnlyTableNoLastKey", Run: func(t *testing.T, h *H) {
			// A hash-only table has one item per partition: a query that
			// stops at Limit 1 has nothing left and says so.
			tbl := h.HashTable()
			h.Put(tbl, Item{"pk": p, "v": N("1")})
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.Limit = aws.Int32(1)
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 1, 1)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Pagination/ScanHashOnlyTableLastKey", Run: func(t *testing.T, h *H) {
			tbl := h.HashTable()
			h.Put(tbl, Item{"pk": p, "v": N("1")})
			in := scanIn(tbl)
			in.Limit = aws.Int32(1)
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 1, 1)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": p})
			in.ExclusiveStartKey = out.LastEvaluatedKey
			out = h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 0)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		// DynamoDB Local's wordings for start keys that do not fit the query.
		startKeyError("OutsideRangeError", "pk = :p AND sk > :s", Item{":p": p, ":s": S("b")}, Item{"pk": p, "sk": S("a")},
			"The provided starting key does not match the range key predicate"),
		startKeyError("OtherPartitionError", "pk = :p", Item{":p": p}, Item{"pk": S("q"), "sk": S("a")},
			"The provided starting key does not match the range key predicate"),
		startKeyError("WrongSizeError", "pk = :p", Item{":p": p}, Item{"pk": p},
			"Exclusive Start Key must have same size as table's key schema"),
		startKeyError("ExtraAttributeError", "pk = :p", Item{":p": p}, Item{"pk": p, "sk": S("a"), "n": N("1")},
			"Exclusive Start Key must have same size as table's key schema"),
		startKeyError("TypeMismatchError", "pk = :p", Item{":p": p}, Item{"pk": p, "sk": N("1")},
			"Type mismatch for attribute to update"),
		startKeyError("NotKeyError", "pk = :p", Item{":p": p}, Item{"pk": p, "n": S("a")},
			"The provided starting key is invalid"),

		// The 1 MB page: a page stops after the item that brings the size
		// read to 1 MB or more.
		Case{Name: "Pagination/Query1MBPage", Run: func(t *testing.T, h *H) {
			tbl := bigFixture(h, 30, 100000)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			pages := h.walkQuery(in, 10)
			wantPageSizes(t, pages, 11, 11, 8)
			h.WantValues(slices.Concat(pages...), "sk", sVals(seq("", 30)...)...)
		}},
		Case{Name: "Pagination/Query1MBPageBackward", Run: func(t *testing.T, h *H) {
			tbl := bigFixture(h, 30, 100000)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ScanIndexForward = aws.Bool(false)
			in.ProjectionExpression = aws.String("sk")
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 11, 11)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": p, "sk": S("019")})
			if _, ok := out.Items[0]["d"]; ok {
				t.Fatal("projection not applied")
			}
		}},
		Case{Name: "Pagination/Query1MBPageSelectCount", Run: func(t *testing.T, h *H) {
			tbl := bigFixture(h, 30, 100000)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.Select = types.SelectCount
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 11, 11)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": p, "sk": S("010")})
		}},
		Case{Name: "Pagination/Query1MBPageLimitFirst", Run: func(t *testing.T, h *H) {
			tbl := bigFixture(h, 30, 100000)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.Limit = aws.Int32(5)
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 5, 5)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": p, "sk": S("004")})
		}},
		Case{Name: "Pagination/Query1MBPageFilteredOut", Run: func(t *testing.T, h *H) {
			// DynamoDB Local counts only the items that pass the filter toward
			// the 1 MB page (real DynamoDB counts every item read), so a filter
			// that drops everything reads the whole partition in one page.
			tbl := bigFixture(h, 30, 100000)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.FilterExpression = aws.String("attribute_not_exists(d)")
			out := h.MustQuery(in)
			h.WantCounts(out.Count, out.ScannedCount, 0, 30)
			h.WantNoLastKey(out.LastEvaluatedKey)
		}},
		Case{Name: "Pagination/Query1MBBoundaryExact", Run: func(t *testing.T, h *H) {
			// 4 items of 256 KB make exactly 1 MB: the page ends there.
			tbl := bigFixture(h, 6, 262144)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ProjectionExpression = aws.String("sk")
			pages := h.walkQuery(in, 5)
			wantPageSizes(t, pages, 4, 2)
		}},
		Case{Name: "Pagination/Query1MBBoundaryBelow", Run: func(t *testing.T, h *H) {
			// 4 items one byte short of 256 KB stay under 1 MB: a fifth is read.
			tbl := bigFixture(h, 6, 262143)
			in := queryIn(tbl, "pk = :p", Item{":p": p})
			in.ProjectionExpression = aws.String("sk")
			pages := h.walkQuery(in, 5)
			wantPageSizes(t, pages, 5, 1)
		}},
		Case{Name: "Pagination/Scan1MBPage", Run: func(t *testing.T, h *H) {
			tbl := bigFixture(h, 30, 100000)
			in := scanIn(tbl)
			in.ProjectionExpression = aws.String("pk, sk")
			out := h.MustScan(in)
			h.WantCounts(out.Count, out.ScannedCount, 11, 11)
			h.WantLastKey(out.LastEvaluatedKey, Item{"pk": p, "sk": S("010")})
			in.ExclusiveStartKey = nil
			all := h.ScanAll(in)
			h.WantValues(all, "sk", sVals(seq("", 30)...)...)
		}},
	)
}
