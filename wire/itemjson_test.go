package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

var _ timetable.ItemJSONReader = (*local.DB)(nil)

// plainAPI hides the engine's ItemJSONReader, so a Handler over it takes
// the ordinary path: attribute values decoded, then encoded.
type plainAPI struct{ timetable.API }

// TestItemJSON_SameAnswers serves random items through GetItem, Query and
// Scan (table, global and local indexes, both directions, pages, segments,
// capacity, and the requests the engine declines) by a Handler over the engine, which
// transcodes stored items to JSON, and by one over the same engine without
// that capability, and compares the answers as decoded JSON.
func TestItemJSON_SameAnswers(t *testing.T) {
	db := testenv.MemDB(t, &local.Options{TTLInterval: -1})
	ctx := context.Background()
	const table = "itemjson"
	str := func(n string) types.AttributeDefinition { return testenv.AttributeDef(n, types.ScalarAttributeTypeS) }
	key := testenv.KeySchema
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{str("pk"), testenv.AttributeDef("sk", types.ScalarAttributeTypeN),
			str("gp"), str("gs"), str("ls")},
		KeySchema: key("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("gall"), KeySchema: key("gp", "gs"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("gkeys"), KeySchema: key("gp", ""), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{
			{IndexName: aws.String("linc"), KeySchema: key("pk", "ls"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a0"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const parts, perPart = 4, 30
	for p := range parts {
		for s := range perPart {
			item := randomItem(rng)
			item["pk"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("p%d", p)}
			item["sk"] = &types.AttributeValueMemberN{Value: fmt.Sprint(s)}
			if rng.IntN(3) > 0 {
				item["gp"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("g%d", rng.IntN(3))}
				item["gs"] = &types.AttributeValueMemberS{Value: randomString(rng) + "x"}
			}
			if rng.IntN(2) > 0 {
				item["ls"] = &types.AttributeValueMemberS{Value: randomString(rng) + "y"}
			}
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
				t.Fatalf("PutItem %v: %v", item, err)
			}
		}
	}

	fast, plain := wire.New(db, nil), wire.New(plainAPI{db}, nil)
	check := func(op, body string) {
		t.Helper()
		a, sa := postTo(fast, op, body)
		b, sb := postTo(plain, op, body)
		if sa != sb {
			t.Fatalf("%s %s: status %d, ordinary path %d\n%s\n%s", op, body, sa, sb, a, b)
		}
		if ga, gb := decodeJSON(t, a), decodeJSON(t, b); !reflect.DeepEqual(ga, gb) {
			t.Fatalf("%s %s:\n got %s\nwant %s", op, body, a, b)
		}
	}
	capacity := []string{"", `,"ReturnConsumedCapacity":"TOTAL"`, `,"ReturnConsumedCapacity":"INDEXES"`}
	for p := range parts + 1 { // the last partition is empty
		for s := range perPart + 2 {
			check("GetItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"p%d"},"sk":{"N":"%d"}}%s%s}`,
				table, p, s, capacity[rng.IntN(3)], []string{"", `,"ConsistentRead":true`}[rng.IntN(2)]))
		}
		check("GetItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"p%d"},"sk":{"N":"1"}},"ProjectionExpression":"a0, #b","ExpressionAttributeNames":{"#b":"a1"}}`, table, p))
		for _, opts := range []string{
			``, `,"ScanIndexForward":false`, `,"Limit":7`, `,"Limit":30`, `,"Limit":31,"ScanIndexForward":false`,
			`,"Select":"ALL_ATTRIBUTES"`, `,"Select":"COUNT"`, `,"ProjectionExpression":"a0"`, `,"FilterExpression":"attribute_exists(a0)"`,
		} {
			for _, c := range capacity {
				check("Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p%d"}}%s%s}`, table, p, opts, c))
				check("Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p AND sk <= :s","ExpressionAttributeValues":{":p":{"S":"p%d"},":s":{"N":"9"}}%s%s}`, table, p, opts, c))
				check("Query", fmt.Sprintf(`{"TableName":%q,"IndexName":"linc","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p%d"}}%s%s}`, table, p, opts, c))
			}
		}
		// A page ending on the sort key condition's inclusive bound.
		check("Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","ExpressionAttributeValues":{":p":{"S":"p%d"},":a":{"N":"3"},":b":{"N":"5"}},"Limit":3}`, table, p))
		// Continuing from a start key.
		check("Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p%d"}},"Limit":5,"ExclusiveStartKey":{"pk":{"S":"p%d"},"sk":{"N":"4"}}}`, table, p, p))
	}
	for g := range 4 {
		for _, opts := range []string{``, `,"ScanIndexForward":false`, `,"Limit":4`, `,"Select":"ALL_PROJECTED_ATTRIBUTES"`, `,"Select":"ALL_ATTRIBUTES"`} {
			for _, ix := range []string{"gall", "gkeys"} {
				check("Query", fmt.Sprintf(`{"TableName":%q,"IndexName":%q,"KeyConditionExpression":"gp = :g","ExpressionAttributeValues":{":g":{"S":"g%d"}}%s,"ReturnConsumedCapacity":"INDEXES"}`, table, ix, g, opts))
			}
		}
	}
	// Scans of the table and of each index: pages, segments, start keys.
	for _, ix := range []string{"", "gall", "gkeys", "linc"} {
		index := ""
		if ix != "" {
			index = fmt.Sprintf(`,"IndexName":%q`, ix)
		}
		for _, opts := range []string{
			``, `,"Limit":7`, `,"Limit":200`, `,"Segment":1,"TotalSegments":3`, `,"Segment":0,"TotalSegments":2,"Limit":5`,
			`,"Select":"ALL_ATTRIBUTES"`, `,"Select":"ALL_PROJECTED_ATTRIBUTES"`, `,"Select":"COUNT"`, `,"ProjectionExpression":"a0"`,
			`,"FilterExpression":"attribute_exists(a0)"`, `,"ConsistentRead":true`,
		} {
			for _, c := range capacity {
				check("Scan", fmt.Sprintf(`{"TableName":%q%s%s%s}`, table, index, opts, c))
			}
		}
		// Every page of a paged scan, each from the last one's key.
		start := ""
		for page := 0; ; page++ {
			body := fmt.Sprintf(`{"TableName":%q%s,"Limit":11%s}`, table, index, start)
			check("Scan", body)
			a, _ := postTo(fast, "Scan", body)
			var out struct{ LastEvaluatedKey json.RawMessage }
			if err := json.Unmarshal(a, &out); err != nil {
				t.Fatal(err)
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			if page > parts*perPart {
				t.Fatalf("scan of %q does not end", ix)
			}
			start = `,"ExclusiveStartKey":` + string(out.LastEvaluatedKey)
		}
	}

	// Errors: the same answers.
	check("GetItem", `{"TableName":"missing","Key":{"pk":{"S":"p"},"sk":{"N":"1"}}}`)
	check("GetItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"p"}}}`, table))
	check("GetItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"p"},"sk":{"N":"1"}},"ExpressionAttributeNames":{"#a":"a"}}`, table))
	check("Query", `{"TableName":"missing","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}}`)
	check("Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"sk = :p","ExpressionAttributeValues":{":p":{"N":"1"}}}`, table))
	check("Query", fmt.Sprintf(`{"TableName":%q,"IndexName":"nope","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}}`, table))
	check("Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p0"}},"Limit":0}`, table))
	check("Scan", `{"TableName":"missing"}`)
	check("Scan", fmt.Sprintf(`{"TableName":%q,"IndexName":"nope"}`, table))
	check("Scan", fmt.Sprintf(`{"TableName":%q,"Segment":3,"TotalSegments":2}`, table))
	check("Scan", fmt.Sprintf(`{"TableName":%q,"IndexName":"gall","ConsistentRead":true}`, table))
	check("Scan", fmt.Sprintf(`{"TableName":%q,"ExclusiveStartKey":{"pk":{"S":"p0"}}}`, table))
}

func postTo(h http.Handler, op, body string) ([]byte, int) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Body.Bytes(), w.Code
}

func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return v
}

// randomItem returns an item of random attributes of every type, nested,
// with strings that need escapes in JSON and non-ASCII ones.
func randomItem(rng *rand.Rand) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{}
	for i := range rng.IntN(6) {
		item[fmt.Sprintf("a%d", i)] = randomAV(rng, 0)
	}
	if rng.IntN(4) == 0 {
		item[randomString(rng)+"\"é\\"] = randomAV(rng, 0)
	}
	return item
}

func randomAV(rng *rand.Rand, depth int) types.AttributeValue {
	k := rng.IntN(10)
	if depth > 3 && (k == 5 || k == 6) {
		k = 0
	}
	switch k {
	case 0:
		return &types.AttributeValueMemberS{Value: randomString(rng)}
	case 1:
		return &types.AttributeValueMemberN{Value: randomNumber(rng)}
	case 2:
		return &types.AttributeValueMemberB{Value: randomBytes(rng)}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: rng.IntN(2) == 0}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}
	case 5:
		l := make([]types.AttributeValue, rng.IntN(4))
		for i := range l {
			l[i] = randomAV(rng, depth+1)
		}
		return &types.AttributeValueMemberL{Value: l}
	case 6:
		m := map[string]types.AttributeValue{}
		for range rng.IntN(4) {
			m[randomString(rng)+"k"] = randomAV(rng, depth+1)
		}
		return &types.AttributeValueMemberM{Value: m}
	case 7:
		return &types.AttributeValueMemberSS{Value: distinct(rng, randomString)}
	case 8:
		return &types.AttributeValueMemberNS{Value: distinct(rng, randomNumber)}
	default:
		bs := distinct(rng, func(rng *rand.Rand) string { return string(randomBytes(rng)) + "z" })
		l := make([][]byte, len(bs))
		for i, b := range bs {
			l[i] = []byte(b)
		}
		return &types.AttributeValueMemberBS{Value: l}
	}
}

func distinct(rng *rand.Rand, gen func(*rand.Rand) string) []string {
	seen := map[string]bool{}
	var out []string
	for range 1 + rng.IntN(4) {
		if s := gen(rng); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

var pieces = []string{"a", "Z", " ", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "/", "<", "&", "é", "日本", "🎉", "\u2028", "\ufffd", "#", ":"}

func randomString(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(8) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randomNumber(rng *rand.Rand) string {
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprint(rng.IntN(1000) - 500)
	case 1:
		return fmt.Sprintf("%d.%d", rng.IntN(100), rng.IntN(1000))
	case 2:
		return fmt.Sprintf("%de%d", rng.IntN(100)+1, rng.IntN(20)-10)
	default:
		return "12345678901234567890123456789012345678"
	}
}

func randomBytes(rng *rand.Rand) []byte {
	b := make([]byte, rng.IntN(10))
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return b
}
