package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/wire"
)

// capture is an HTTP client that records request bodies and answers {}.
type capture struct {
	mu   sync.Mutex
	body []byte
}

func (c *capture) Do(r *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.body = b
	c.mu.Unlock()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

// inputs returns a fresh random input for each of the operations.
func inputs(f *filler) []any {
	ins := []any{
		&dynamodb.CreateTableInput{}, &dynamodb.DescribeTableInput{}, &dynamodb.DeleteTableInput{},
		&dynamodb.ListTablesInput{}, &dynamodb.UpdateTableInput{}, &dynamodb.UpdateTimeToLiveInput{},
		&dynamodb.DescribeTimeToLiveInput{}, &dynamodb.GetItemInput{}, &dynamodb.PutItemInput{},
		&dynamodb.UpdateItemInput{}, &dynamodb.DeleteItemInput{}, &dynamodb.QueryInput{}, &dynamodb.ScanInput{},
		&dynamodb.BatchGetItemInput{}, &dynamodb.BatchWriteItemInput{}, &dynamodb.TransactGetItemsInput{},
		&dynamodb.TransactWriteItemsInput{},
	}
	for _, in := range ins {
		f.fill(reflect.ValueOf(in).Elem())
	}
	return ins
}

// TestMarshal_MatchesSDK checks that Marshal writes the JSON the SDK itself
// sends for the same input: same members, same names, same values.
func TestMarshal_MatchesSDK(t *testing.T) {
	cp := &capture{}
	client := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:  cp, Retryer: aws.NopRetryer{},
	})
	call := func(in any) error {
		m := reflect.ValueOf(client).MethodByName(strings.TrimSuffix(reflect.TypeOf(in).Elem().Name(), "Input"))
		res := m.Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(in)})
		err, _ := res[1].Interface().(error)
		return err
	}
	for seed := range uint64(30) {
		for _, in := range inputs(&filler{rng: rand.New(rand.NewPCG(seed, 3))}) {
			if err := call(in); err != nil {
				t.Fatalf("%T: %v", in, err)
			}
			ours, err := wire.Marshal(in)
			if err != nil {
				t.Fatalf("Marshal %T: %v", in, err)
			}
			var a, b any
			if err := json.Unmarshal(ours, &a); err != nil {
				t.Fatalf("Marshal %T wrote invalid JSON: %v\n%s", in, err, ours)
			}
			if err := json.Unmarshal(cp.body, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%T:\nours %s\nsdk  %s", in, ours, cp.body)
			}
		}
	}
}

// TestUnmarshal_RoundTrip checks Unmarshal(Marshal(v)) == v for random
// values of every input and output shape.
func TestUnmarshal_RoundTrip(t *testing.T) {
	outputs := []any{
		&dynamodb.CreateTableOutput{}, &dynamodb.DescribeTableOutput{}, &dynamodb.QueryOutput{},
		&dynamodb.BatchGetItemOutput{}, &dynamodb.BatchWriteItemOutput{}, &dynamodb.TransactGetItemsOutput{},
		&dynamodb.UpdateItemOutput{}, &dynamodb.DescribeTimeToLiveOutput{}, &types.TransactionCanceledException{},
	}
	for seed := range uint64(30) {
		f := &filler{rng: rand.New(rand.NewPCG(seed, 4))}
		for _, out := range outputs {
			f.fill(reflect.ValueOf(out).Elem())
		}
		for _, v := range append(inputs(f), outputs...) {
			b, err := wire.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			back := reflect.New(reflect.TypeOf(v).Elem())
			if err := wire.Unmarshal(b, back.Interface()); err != nil {
				t.Fatalf("%T: %v\n%s", v, err, b)
			}
			clearMetadata(v)
			if d := diff(back, reflect.ValueOf(v), reflect.TypeOf(v).Elem().Name()); d != "" {
				t.Fatalf("%s\n%s", d, b)
			}
		}
	}
}

func TestMarshal_AttributeValues(t *testing.T) {
	for _, c := range []struct {
		av   types.AttributeValue
		want string
	}{
		{&types.AttributeValueMemberS{Value: "a\"\\\n\x00é\xff"}, `{"S":"a\"\\\n\u0000é\ufffd"}`},
		{&types.AttributeValueMemberN{Value: "-1.5E+3"}, `{"N":"-1.5E+3"}`},
		{&types.AttributeValueMemberB{Value: []byte("hi")}, `{"B":"aGk="}`},
		{&types.AttributeValueMemberBOOL{Value: true}, `{"BOOL":true}`},
		{&types.AttributeValueMemberNULL{Value: true}, `{"NULL":true}`},
		{&types.AttributeValueMemberL{}, `{"L":[]}`},
		{&types.AttributeValueMemberM{}, `{"M":{}}`},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{nil, &types.AttributeValueMemberS{Value: "x"}}}, `{"L":[null,{"S":"x"}]}`},
		{&types.AttributeValueMemberSS{Value: []string{"a", "b"}}, `{"SS":["a","b"]}`},
		{&types.AttributeValueMemberNS{Value: []string{"1"}}, `{"NS":["1"]}`},
		{&types.AttributeValueMemberBS{Value: [][]byte{{0}, {1}}}, `{"BS":["AA==","AQ=="]}`},
		{(*types.AttributeValueMemberS)(nil), `null`},
		{&types.UnknownUnionMember{Tag: "X"}, `{}`},
	} {
		out := dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{"a": c.av}}
		b, err := wire.Marshal(&out)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"Item":{"a":` + c.want + `}}`; string(b) != want {
			t.Errorf("got  %s\nwant %s", b, want)
		}
	}
}

func TestMarshal_Scalars(t *testing.T) {
	out := &dynamodb.DescribeTableOutput{Table: &types.TableDescription{
		CreationDateTime: aws.Time(time.UnixMilli(1700000000043).UTC()),
		ItemCount:        aws.Int64(-9223372036854775808),
		TableStatus:      types.TableStatusActive,
		TableName:        aws.String(""),
	}}
	b, err := wire.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Table":{"CreationDateTime":1700000000.043,"ItemCount":-9223372036854775808,"TableName":"","TableStatus":"ACTIVE"}}`
	if !sameJSON(b, want) {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	q := &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{}}
	b, _ = wire.Marshal(q)
	if string(b) != `{"Count":0,"Items":[],"ScannedCount":0}` {
		t.Errorf("empty query: %s", b)
	}
}

func sameJSON(a []byte, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

func TestUnmarshal_Strings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"\u00e9\n\t\"\\\/\b\f\r"`, "é\n\t\"\\/\b\f\r"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\ufffd"},
		{`"\ud83dx"`, "\ufffdx"},
		{`"\ude00\ud83d"`, "\ufffd\ufffd"},
		{`"日本"`, "日本"},
	} {
		var in dynamodb.DescribeTableInput
		if err := wire.Unmarshal([]byte(`{"TableName":`+c.in+`}`), &in); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if *in.TableName != c.want {
			t.Errorf("%s: got %q, want %q", c.in, *in.TableName, c.want)
		}
	}
	for _, bad := range []string{`"\u12"`, `"\x"`, "\"\x01\"", `"abc`, "\"\xc3\x28\""} {
		var in dynamodb.DescribeTableInput
		err := wire.Unmarshal([]byte(`{"TableName":`+bad+`}`), &in)
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != "SerializationException" {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

func TestUnmarshal_Numbers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int32
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"2147483647", 2147483647, true}, {"-2147483648", -2147483648, true},
		{"2147483648", 0, false}, {"-2147483649", 0, false}, {"1.9", 1, true}, {"-1.9", -1, true},
		{"1e3", 1000, true}, {"1e10", 0, false}, {"01", 0, false}, {"1.", 0, false}, {"-", 0, false}, {"1e", 0, false},
	} {
		var in dynamodb.ListTablesInput
		err := wire.Unmarshal([]byte(`{"Limit":`+c.in+`}`), &in)
		if (err == nil) != c.ok || (c.ok && *in.Limit != c.want) {
			t.Errorf("%s: got %v %v", c.in, in.Limit, err)
		}
	}
}

func TestUnmarshal_NotAPointer(t *testing.T) {
	if err := wire.Unmarshal([]byte(`{}`), dynamodb.ListTablesInput{}); err == nil {
		t.Error("no error for a non-pointer")
	}
}

// BenchmarkUnmarshal_PutItem decodes a typical PutItem request.
func BenchmarkUnmarshal_PutItem(b *testing.B) {
	body := []byte(benchPutItem)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var in dynamodb.PutItemInput
		if err := wire.Unmarshal(body, &in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshal_QueryOutput encodes a page of 20 items.
func BenchmarkMarshal_QueryOutput(b *testing.B) {
	var item dynamodb.PutItemInput
	if err := wire.Unmarshal([]byte(benchPutItem), &item); err != nil {
		b.Fatal(err)
	}
	out := &dynamodb.QueryOutput{Count: 20, ScannedCount: 20, LastEvaluatedKey: item.Item}
	for range 20 {
		out.Items = append(out.Items, item.Item)
	}
	body, _ := wire.Marshal(out)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := wire.Marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}

const benchPutItem = `{"TableName":"bench","Item":{"pk":{"S":"device#0042"},"sk":{"N":"1700000000123"},` +
	`"temp":{"N":"21.5"},"hum":{"N":"40"},"ok":{"BOOL":true},"tags":{"SS":["a","b","c"]},` +
	`"loc":{"M":{"lat":{"N":"52.52"},"lon":{"N":"13.405"}}},"readings":{"L":[{"N":"1"},{"N":"2"},{"N":"3"}]},` +
	`"note":{"S":"a somewhat longer string value with \"escapes\" in it"},"raw":{"B":"AAECAwQFBgcICQ=="}},` +
	`"ConditionExpression":"attribute_not_exists(pk)","ReturnValues":"NONE"}`

// BenchmarkHandler_PutItem measures one request through ServeHTTP, without
// the network, over an API that does nothing.
func BenchmarkHandler_PutItem(b *testing.B) {
	h := wire.New(&stub{}, nil)
	body := []byte(benchPutItem)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
		req.Header.Set("Authorization", testAuth)
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.code != 200 {
			b.Fatalf("status %d", w.code)
		}
	}
}

type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
