package table

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/conformance"
)

func TestUpdate_Operations(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		k := K("SENSOR#1#HOURLY", "2024-12-01-14")
		u := NewUpdate().
			Set("name", "probe").
			SetIfNotExists("created", "2024-12-01").
			Increment("count", 1).
			Add("sum", 2.5).
			Add("tags", &types.AttributeValueMemberSS{Value: []string{"a", "b"}}).
			Append("log", "x", "y").
			Set("nested", map[string]any{"a": 1})
		it, err := tbl.Update(ctx, k, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if str(it, "name") != "probe" || str(it, "created") != "2024-12-01" || num(it, "count") != 1 || num(it, "sum") != 2.5 {
			t.Fatalf("after first update: %s", conformance.FormatItem(it))
		}
		u = NewUpdate().
			SetIfNotExists("created", "2099-01-01").
			Increment("count", 1).
			Add("sum", -0.5).
			Delete("tags", &types.AttributeValueMemberSS{Value: []string{"a"}}).
			Append("log", "z").
			Set("nested.a", 2).
			Remove("name")
		it, err = tbl.Update(ctx, k, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := it["name"]; ok || str(it, "created") != "2024-12-01" || num(it, "count") != 2 || num(it, "sum") != 2 {
			t.Fatalf("after second update: %s", conformance.FormatItem(it))
		}
		if ss := it["tags"].(*types.AttributeValueMemberSS).Value; len(ss) != 1 || ss[0] != "b" {
			t.Fatalf("tags = %v", ss)
		}
		var got struct {
			Log    []string       `dynamodbav:"log"`
			Nested map[string]int `dynamodbav:"nested"`
		}
		if err := Unmarshal(it, &got); err != nil || strings.Join(got.Log, ",") != "x,y,z" || got.Nested["a"] != 2 {
			t.Fatalf("log, nested = %+v, %v", got, err)
		}

		// A condition that fails leaves the item alone.
		_, err = tbl.Update(ctx, k, NewUpdate().Increment("count", 1), &UpdateOptions{If: Attr("count").Gt(5)})
		if !IsConditionFailed(err) {
			t.Fatalf("failed condition: %v", err)
		}
		// An update with no operation creates the item (only its key).
		it, err = tbl.Update(ctx, K("SENSOR#2", "x"), nil, nil)
		if err != nil || len(it) != 2 {
			t.Fatalf("empty update = %v, %v", it, err)
		}
	})
}

func TestUpdate_MinMax(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		k := K("SENSOR#1#HOURLY", "2024-12-01-14")
		apply := func(v float64) Item {
			t.Helper()
			it, err := tbl.Update(ctx, k, NewUpdate().Increment("count", 1).Add("sum", v).Min("min", v).Max("max", v), nil)
			if err != nil {
				t.Fatalf("update with %v: %v", v, err)
			}
			return it
		}
		it := apply(10)
		if str(it, "min") != "10" || str(it, "max") != "10" {
			t.Fatalf("first: %v", it)
		}
		apply(12.5)
		apply(-3)
		it = apply(4)
		if num(it, "min") != -3 || num(it, "max") != 12.5 || num(it, "count") != 4 || num(it, "sum") != 23.5 {
			t.Fatalf("after 10, 12.5, -3, 4: %s", conformance.FormatItem(it))
		}
		// Numbers compare by value, not as strings: 9 < 10, 100 > 12.5.
		it = apply(100)
		if str(it, "max") != "100" {
			t.Fatalf("max after 100: %v", it)
		}

		// Only Min and Max, already beaten: nothing to write, current item back.
		it, err := tbl.Update(ctx, k, NewUpdate().Min("min", 0).Max("max", 1), nil)
		if err != nil || str(it, "min") != "-3" || str(it, "max") != "100" {
			t.Fatalf("no-op min/max = %v, %v", it, err)
		}
		// Strings compare by bytes.
		it, err = tbl.Update(ctx, k, NewUpdate().Min("first", "2024-12-01T14:05:00.000Z").Max("last", "2024-12-01T14:05:00.000Z"), nil)
		if err == nil {
			it, err = tbl.Update(ctx, k, NewUpdate().Min("first", "2024-12-01T14:01:00.000Z").Max("last", "2024-12-01T14:09:00.000Z"), nil)
		}
		if err != nil || str(it, "first") != "2024-12-01T14:01:00.000Z" || str(it, "last") != "2024-12-01T14:09:00.000Z" {
			t.Fatalf("string min/max = %v, %v", it, err)
		}
		// Another type in the attribute is an error, not an endless retry.
		if _, err := tbl.Update(ctx, k, NewUpdate().Min("first", 5), nil); err == nil || IsConditionFailed(err) {
			t.Fatalf("Min of a number over a string: %v", err)
		}
		// A user condition that fails is reported as such.
		_, err = tbl.Update(ctx, k, NewUpdate().Max("max", 1000), &UpdateOptions{If: Attr("count").Gt(99)})
		if !IsConditionFailed(err) {
			t.Fatalf("Max with a failing condition: %v", err)
		}
		_, err = tbl.Update(ctx, K("absent", "x"), NewUpdate().Max("max", 1), &UpdateOptions{If: Attr("P").Exists()})
		if !IsConditionFailed(err) {
			t.Fatalf("Max on an absent item with a failing condition: %v", err)
		}
		it, err = tbl.Update(ctx, k, NewUpdate().Max("max", 1000), &UpdateOptions{If: Attr("count").Eq(5)})
		if err != nil || str(it, "max") != "1000" {
			t.Fatalf("Max with a holding condition = %v, %v", it, err)
		}
		// With a hint of the current item, a Min that does not win costs one
		// request; a stale hint still gives the right result.
		tbl.ResetStats()
		cur, _ := tbl.Get(ctx, k, &GetOptions{Consistent: true})
		it, err = tbl.Update(ctx, k, NewUpdate().Increment("count", 1).Min("min", 50).Max("max", 50), &UpdateOptions{Hint: cur})
		if err != nil || num(it, "min") != -3 || num(it, "max") != 1000 {
			t.Fatalf("hinted update = %s, %v", conformance.FormatItem(it), err)
		}
		if st := tbl.Stats().Ops["UpdateItem"]; st.Calls != 1 {
			t.Fatalf("hinted update made %d calls", st.Calls)
		}
		stale := Item{"min": N("-100"), "max": N("-100")}
		it, err = tbl.Update(ctx, k, NewUpdate().Min("min", -50).Max("max", 2000), &UpdateOptions{Hint: stale})
		if err != nil || num(it, "min") != -50 || num(it, "max") != 2000 {
			t.Fatalf("stale hint update = %s, %v", conformance.FormatItem(it), err)
		}
		// Min and Max are refused in transactions.
		if err := tbl.Tx().Update(k, NewUpdate().Min("min", 1), Cond{}).Commit(ctx); err == nil {
			t.Fatal("Min in a transaction accepted")
		}
	})
}

// TestUpdate_MinMaxConcurrent: writers race on one item; no extreme and no
// count is lost.
func TestUpdate_MinMaxConcurrent(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		k := K("SENSOR#hot", "2024-12-01-14")
		const writers, each = 6, 15
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			min, max = 1e18, -1e18
			errs     []error
		)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 7))
				for range each {
					v := float64(r.IntN(2000000)-1000000) / 100
					_, err := tbl.Update(ctx, k, NewUpdate().Increment("count", 1).Min("min", v).Max("max", v), nil)
					mu.Lock()
					if err != nil {
						errs = append(errs, err)
					}
					if v < min {
						min = v
					}
					if v > max {
						max = v
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d updates failed, first: %v", len(errs), errs[0])
		}
		it, err := tbl.Get(ctx, k, &GetOptions{Consistent: true})
		if err != nil {
			t.Fatal(err)
		}
		gotMin, _ := strconv.ParseFloat(str(it, "min"), 64)
		gotMax, _ := strconv.ParseFloat(str(it, "max"), 64)
		if gotMin != min || gotMax != max || str(it, "count") != fmt.Sprint(writers*each) {
			t.Fatalf("item %v; want min %v max %v count %d", it, min, max, writers*each)
		}
		t.Logf("UpdateItem stats %+v", tbl.Stats().Ops["UpdateItem"])
	})
}

func TestCompareValues(t *testing.T) {
	for _, c := range []struct {
		a, b types.AttributeValue
		want int
		ok   bool
	}{
		{N("9"), N("10"), -1, true},
		{N("1E+2"), N("100"), 0, true},
		{N("-0.001"), N("-1e-3"), 0, true},
		{N("12345678901234567890123456789012345678"), N("12345678901234567890123456789012345679"), -1, true},
		{N("1e125"), N("-1e-130"), 1, true},
		{S("b"), S("a"), 1, true},
		{&types.AttributeValueMemberB{Value: []byte{1}}, &types.AttributeValueMemberB{Value: []byte{1, 0}}, -1, true},
		{S("1"), N("1"), 0, false},
		{N("x"), N("1"), 0, false},
		{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: true}, 0, false},
	} {
		got, ok := compareValues(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("compareValues(%v, %v) = %d, %v", c.a, c.b, got, ok)
		}
	}
}
