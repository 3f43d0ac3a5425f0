package local_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestQueryBatch_SharedShapes: in batches whose requests share a few key
// condition texts but differ in their values (other partitions and
// bounds, values of another type, invalid numbers, bounds out of order,
// one value object for two placeholders), their names (a name that is not
// a key attribute), their placeholders (one missing, one unused) and their
// Limit, each answer is Query's answer to that request, error included.
func TestQueryBatch_SharedShapes(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S", withIndexes)
	for p := range 6 {
		for i := range 20 {
			put(t, db, "tbl", attrs("pk", s(fmt.Sprintf("p%d", p)), "sk", s(fmt.Sprintf("k%02d", i)), "a", n(fmt.Sprint(i%7)),
				"g", n(fmt.Sprint(p%3)), "l", s(fmt.Sprintf("l%02d", (i*7)%20))))
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	skv := func() types.AttributeValue { return s(fmt.Sprintf("k%02d", r.IntN(24))) }
	shapes := []string{"#p = :p AND #s BETWEEN :a AND :b", "#p = :p AND #s >= :a", "#s < :a AND #p = :p",
		"#p = :p AND begins_with(#s, :a)", "#p = :p", ":p = #p AND :a > #s", "#g = :g"}
	randomQuery := func(cond string) *dynamodb.QueryInput {
		if cond == "#g = :g" {
			in := &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"), KeyConditionExpression: aws.String(cond),
				ExpressionAttributeNames:  map[string]string{"#g": "g"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": n(fmt.Sprint(r.IntN(4)))}}
			switch r.IntN(7) {
			case 0:
				in.ExpressionAttributeValues[":g"] = n("x1")
			case 1:
				in.ExpressionAttributeValues[":g"] = n("1e200")
			case 2:
				in.ExpressionAttributeValues[":g"] = n("1.2345678901234567890123456789012345678901")
			}
			return in
		}
		in := &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String(cond),
			ExpressionAttributeNames:  map[string]string{"#p": "pk"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(fmt.Sprintf("p%d", r.IntN(7)))},
			ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal}
		if cond != "#p = :p" {
			in.ExpressionAttributeNames["#s"] = "sk"
			in.ExpressionAttributeValues[":a"] = skv()
			if cond == "#p = :p AND begins_with(#s, :a)" {
				in.ExpressionAttributeValues[":a"] = s(fmt.Sprintf("k%d", r.IntN(3)))
			}
		}
		between := cond == "#p = :p AND #s BETWEEN :a AND :b"
		if between {
			in.ExpressionAttributeValues[":b"] = skv()
		}
		if r.IntN(3) == 0 {
			in.Limit = aws.Int32(int32(r.IntN(6)))
		}
		switch r.IntN(16) {
		case 0:
			in.ExpressionAttributeValues[":p"] = n("1")
		case 1:
			in.ExpressionAttributeValues[":p"] = n("x1")
		case 2:
			if _, ok := in.ExpressionAttributeNames["#s"]; ok {
				in.ExpressionAttributeNames["#s"] = "l"
				in.IndexName = aws.String("lsi")
				in.ExpressionAttributeValues[":a"] = s(fmt.Sprintf("l%02d", r.IntN(20)))
			}
		case 3:
			if _, ok := in.ExpressionAttributeNames["#s"]; ok {
				in.ExpressionAttributeNames["#s"] = "a"
			}
		case 4:
			if between {
				in.ExpressionAttributeValues[":b"] = in.ExpressionAttributeValues[":a"]
			}
		case 5:
			if between {
				in.ExpressionAttributeValues[":a"], in.ExpressionAttributeValues[":b"] = s("k99"), s("k00")
			}
		case 6:
			if between {
				in.ExpressionAttributeValues[":b"] = n("3")
			}
		case 7:
			in.ExpressionAttributeValues[":x"] = s("unused")
		case 8:
			delete(in.ExpressionAttributeValues, ":a")
		case 9:
			in.ExpressionAttributeNames["#x"] = "unused"
		case 10:
			in.ExpressionAttributeValues[":p"] = s(string(make([]byte, 3000)))
		}
		return in
	}
	for round := range 100 {
		ins := make([]*dynamodb.QueryInput, 1+r.IntN(30))
		some := shapes[:1+r.IntN(len(shapes))]
		for i := range ins {
			ins[i] = randomQuery(some[r.IntN(len(some))])
		}
		if round%5 == 0 {
			// The first request of its shape has one value object
			// for two placeholders.
			first := randomQuery(shapes[0])
			first.ExpressionAttributeValues[":b"] = first.ExpressionAttributeValues[":a"]
			ins[0] = first
		}
		outs, errs := db.QueryBatch(ctx, ins)
		for i, in := range ins {
			want, werr := db.Query(ctx, in)
			if (werr == nil) != (errs[i] == nil) || werr != nil && werr.Error() != errs[i].Error() {
				t.Fatalf("round %d, request %d (%s %v %v): error %v, Query's %v", round, i, *in.KeyConditionExpression,
					in.ExpressionAttributeNames, in.ExpressionAttributeValues, errs[i], werr)
			}
			if !reflect.DeepEqual(outs[i], want) {
				t.Fatalf("round %d, request %d (%s %v %v): answer %s\nQuery's %s", round, i, *in.KeyConditionExpression,
					in.ExpressionAttributeNames, in.ExpressionAttributeValues, describe(outs[i]), describe(want))
			}
		}
	}
}
