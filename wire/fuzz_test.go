package wire_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/wire"
)

// inputTypes are the input shapes of the operations the handler serves.
var inputTypes = []reflect.Type{
	reflect.TypeFor[dynamodb.CreateTableInput](), reflect.TypeFor[dynamodb.DescribeTableInput](),
	reflect.TypeFor[dynamodb.DeleteTableInput](), reflect.TypeFor[dynamodb.ListTablesInput](),
	reflect.TypeFor[dynamodb.UpdateTableInput](), reflect.TypeFor[dynamodb.UpdateTimeToLiveInput](),
	reflect.TypeFor[dynamodb.DescribeTimeToLiveInput](), reflect.TypeFor[dynamodb.GetItemInput](),
	reflect.TypeFor[dynamodb.PutItemInput](), reflect.TypeFor[dynamodb.UpdateItemInput](),
	reflect.TypeFor[dynamodb.DeleteItemInput](), reflect.TypeFor[dynamodb.QueryInput](),
	reflect.TypeFor[dynamodb.ScanInput](), reflect.TypeFor[dynamodb.BatchGetItemInput](),
	reflect.TypeFor[dynamodb.BatchWriteItemInput](), reflect.TypeFor[dynamodb.TransactGetItemsInput](),
	reflect.TypeFor[dynamodb.TransactWriteItemsInput](),
}

// FuzzDecodeRequest decodes arbitrary bodies as the input of every
// operation. Decoding never panics; it fails only with a *wire.Error; and
// what it accepts encodes and decodes back to the same value.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"TableName":"t","Item":{"a":{"S":"x"},"b":{"N":"1"}}}`, benchPutItem,
		`{"Key":{"a":{"L":[{"M":{"b":{"NULL":true}}},null,{"BS":["AA=="]}]}}}`,
		`{"TransactItems":[{"Put":{"Item":{"a":{"SS":["x",null]}}}},null]}`,
		`{"RequestItems":{"t":[{"PutRequest":{"Item":{"k":{"B":"AQID"}}}}]}}`,
		`{"RequestItems":{"t":{"Keys":[{"k":{"N":"1"}}],"ProjectionExpression":"a"}}}`,
		`{"KeySchema":[{"AttributeName":"k","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":5}}`,
		`{"Limit":1.5e1,"ExclusiveStartKey":{"k":{"S":"\ud83d\ude00\u0000"}}}`,
		`{"ExpressionAttributeNames":{"#a":"a","#b":null},"Expected":{"a":{"Value":{"S":"x"},"Exists":true}}}`,
		`[`, `{"a":`, `{"TableName":"\`, "\x00", `{"Item":{"a":{"S":"x","N":"1"}}}`,
	} {
		f.Add([]byte(s))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		for _, in := range inputs(&filler{rng: rng}) {
			b, err := wire.Marshal(in)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range inputTypes {
			v := reflect.New(typ)
			err := wire.Unmarshal(body, v.Interface())
			if err != nil {
				var we *wire.Error
				if !errors.As(err, &we) || (we.Code != "SerializationException" && we.Code != "ValidationException") {
					t.Fatalf("%s: unexpected error %T %v", typ.Name(), err, err)
				}
				continue
			}
			enc, err := wire.Marshal(v.Interface())
			if err != nil {
				t.Fatalf("%s: Marshal: %v", typ.Name(), err)
			}
			back := reflect.New(typ)
			if err := wire.Unmarshal(enc, back.Interface()); err != nil {
				t.Fatalf("%s: Unmarshal(Marshal(v)): %v\n%s", typ.Name(), err, enc)
			}
			if d := diff(back, v, typ.Name()); d != "" {
				t.Fatalf("%s\nbody %q\nenc  %s", d, body, enc)
			}
		}
	})
}
