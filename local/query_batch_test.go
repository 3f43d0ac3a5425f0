package local_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestQueryBatch_AnswersAsQuery: each answer of a batch of random queries
// (partitions of two tables, key conditions, limits, both directions,
// start keys, indexes, filters, projections, pages cut at 1 MB, requests
// that fail) is Query's answer to that request: the same items, counts,
// LastEvaluatedKey and consumed capacity, or the same error.
func TestQueryBatch_AnswersAsQuery(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S", withIndexes)
	createTable(t, db, "two", "S")
	r := rand.New(rand.NewPCG(1, 2))
	big := strings.Repeat("x", 200_000)
	for p := range 12 {
		for i := range r.IntN(30) {
			item := attrs("pk", s(fmt.Sprintf("p%02d", p)), "sk", s(fmt.Sprintf("k%03d", i*3)), "a", n(fmt.Sprint(r.IntN(100))),
				"g", n(fmt.Sprint(r.IntN(3))), "l", s(fmt.Sprintf("l%02d", r.IntN(20))))
			if r.IntN(8) == 0 {
				item["big"] = s(big)
			}
			put(t, db, "tbl", item)
			if p%3 == 0 {
				put(t, db, "two", attrs("pk", s(fmt.Sprintf("p%02d", p)), "sk", s(fmt.Sprintf("k%03d", i)), "a", n("1")))
			}
		}
	}
	randomQuery := func() *dynamodb.QueryInput {
		in := &dynamodb.QueryInput{TableName: aws.String("tbl"), ExpressionAttributeNames: map[string]string{"#p": "pk"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(fmt.Sprintf("p%02d", r.IntN(13)))}}
		if r.IntN(6) == 0 {
			in.TableName = aws.String("two")
		}
		cond := "#p = :p"
		switch r.IntN(5) {
		case 1:
			cond += " AND #s BETWEEN :a AND :b"
			in.ExpressionAttributeNames["#s"] = "sk"
			in.ExpressionAttributeValues[":a"] = s(fmt.Sprintf("k%03d", r.IntN(60)))
			in.ExpressionAttributeValues[":b"] = s(fmt.Sprintf("k%03d", 30+r.IntN(60)))
		case 2:
			cond += " AND #s >= :a"
			in.ExpressionAttributeNames["#s"] = "sk"
			in.ExpressionAttributeValues[":a"] = s(fmt.Sprintf("k%03d", r.IntN(90)))
		case 3:
			cond += " AND begins_with(#s, :a)"
			in.ExpressionAttributeNames["#s"] = "sk"
			in.ExpressionAttributeValues[":a"] = s(fmt.Sprintf("k0%d", r.IntN(10)))
		case 4:
			if *in.TableName == "tbl" && r.IntN(2) == 0 {
				in.IndexName = aws.String("lsi")
			}
		}
		in.KeyConditionExpression = aws.String(cond)
		if r.IntN(3) == 0 {
			in.Limit = aws.Int32(int32(1 + r.IntN(10)))
		}
		if r.IntN(3) == 0 {
			in.ScanIndexForward = aws.Bool(false)
		}
		if r.IntN(4) == 0 {
			in.FilterExpression = aws.String("a < :f")
			in.ExpressionAttributeValues[":f"] = n("50")
		}
		if r.IntN(4) == 0 {
			in.ProjectionExpression = aws.String("#p, a")
		}
		if r.IntN(2) == 0 {
			in.ConsistentRead = aws.Bool(true)
		}
		in.ReturnConsumedCapacity = []types.ReturnConsumedCapacity{"", types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes}[r.IntN(3)]
		if r.IntN(4) == 0 {
			// Resumed from the page of a Query.
			first := *in
			first.Limit = aws.Int32(2)
			if out, err := db.Query(ctx, &first); err == nil {
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		}
		switch r.IntN(20) {
		case 0:
			in.TableName = aws.String("missing")
		case 1:
			in.KeyConditionExpression = aws.String("#p = :nope")
		case 2:
			in.Limit = aws.Int32(0)
		}
		return in
	}
	for round := range 60 {
		ins := make([]*dynamodb.QueryInput, r.IntN(40))
		for i := range ins {
			ins[i] = randomQuery()
		}
		outs, errs := db.QueryBatch(ctx, ins)
		if len(outs) != len(ins) || len(errs) != len(ins) {
			t.Fatalf("round %d: %d requests, %d answers and %d errors", round, len(ins), len(outs), len(errs))
		}
		for i, in := range ins {
			want, werr := db.Query(ctx, in)
			if (werr == nil) != (errs[i] == nil) || werr != nil && werr.Error() != errs[i].Error() {
				t.Fatalf("round %d, request %d: error %v, Query's %v", round, i, errs[i], werr)
			}
			if !reflect.DeepEqual(outs[i], want) {
				t.Fatalf("round %d, request %d (%s %s on %s): answer %s\nQuery's %s", round, i, *in.KeyConditionExpression,
					in.ExpressionAttributeValues[":p"].(*types.AttributeValueMemberS).Value, *in.TableName, describe(outs[i]), describe(want))
			}
		}
	}
}

func describe(out *dynamodb.QueryOutput) string {
	if out == nil {
		return "nil"
	}
	cc := "none"
	if out.ConsumedCapacity != nil {
		cc = fmt.Sprint(aws.ToFloat64(out.ConsumedCapacity.CapacityUnits))
	}
	return fmt.Sprintf("%d items (%s), %d scanned, last %v, capacity %s", out.Count, sks(out.Items, "sk"), out.ScannedCount, out.LastEvaluatedKey, cc)
}

// TestQueryBatch_Empty: a batch of no requests answers nothing.
func TestQueryBatch_Empty(t *testing.T) {
	db := openMem(t, nil)
	outs, errs := db.QueryBatch(ctx, nil)
	if len(outs) != 0 || len(errs) != 0 {
		t.Fatalf("got %v, %v", outs, errs)
	}
}
