package wire_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/wire"
)

// streamsRequest sends body to h as the DynamoDB Streams operation op.
func streamsRequest(h http.Handler, op string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("X-Amz-Target", "DynamoDBStreams_20120810."+op)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestStreams_NotServedWithoutStreamsAPI: an API that is no StreamsAPI
// answers the streams target as an unknown operation.
func TestStreams_NotServedWithoutStreamsAPI(t *testing.T) {
	db := testenv.MemDB(t, nil)
	w := streamsRequest(wire.New(struct{ timetable.API }{db}, nil), "ListStreams", []byte(`{}`))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "UnknownOperationException") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	w = streamsRequest(wire.New(db, nil), "ListStreams", []byte(`{}`))
	if w.Code != http.StatusOK || w.Body.String() != `{"Streams":[]}` {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// FuzzStreamsRequest sends any body to the four streams operations of the
// handler over the engine (with a table whose stream has records): no
// answer is a server error.
func FuzzStreamsRequest(f *testing.F) {
	db := testenv.MemDB(f, nil)
	h := wire.New(db, nil)
	dynamo := func(op, body string) string {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		r.Header.Set("Authorization", "x")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			f.Fatalf("%s: %d %s", op, w.Code, w.Body)
		}
		return w.Body.String()
	}
	dynamo("CreateTable", `{"TableName":"fzt","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`)
	dynamo("PutItem", `{"TableName":"fzt","Item":{"pk":{"S":"a"},"m":{"M":{}},"l":{"L":[{"N":"1"}]}}}`)
	desc := dynamo("DescribeTable", `{"TableName":"fzt"}`)
	arn := desc[strings.Index(desc, `"LatestStreamArn":"`)+len(`"LatestStreamArn":"`):]
	arn = arn[:strings.IndexByte(arn, '"')]
	sd := streamsRequest(h, "DescribeStream", []byte(`{"StreamArn":"`+arn+`"}`)).Body.String()
	shard := sd[strings.Index(sd, `"ShardId":"`)+len(`"ShardId":"`):]
	shard = shard[:strings.IndexByte(shard, '"')]
	it := streamsRequest(h, "GetShardIterator", []byte(`{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"TRIM_HORIZON"}`)).Body.String()
	for _, s := range []string{
		`{}`, `{"TableName":"fzt","Limit":1}`, `{"StreamArn":"` + arn + `","Limit":100}`,
		`{"StreamArn":"` + arn + `","ShardId":"` + shard + `","ShardIteratorType":"AT_SEQUENCE_NUMBER","SequenceNumber":"000000000000000000001"}`,
		it, `{"ShardIterator":"x","Limit":1000}`, `{"ShardIterator":null}`, `[`,
	} {
		f.Add(0, []byte(s))
		f.Add(3, []byte(s))
	}
	ops := []string{"ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"}
	f.Fuzz(func(t *testing.T, op int, body []byte) {
		name := ops[uint(op)%uint(len(ops))]
		if w := streamsRequest(h, name, body); w.Code >= 500 {
			t.Fatalf("%s %q: %d %s", name, body, w.Code, w.Body)
		}
	})
}
