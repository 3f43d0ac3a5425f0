package wire_test

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/wire"
)

const testAuth = "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc"

type answerJSON struct {
	status int
	header http.Header
	body   string
	typ    string // __type
	msg    string // Message
}

// post sends a raw request; target "" leaves X-Amz-Target out, auth false
// leaves Authorization out.
func post(t *testing.T, url, target, body string, auth bool) answerJSON {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	if auth {
		req.Header.Set("Authorization", testAuth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answerJSON{status: resp.StatusCode, header: resp.Header, body: string(b)}
	var e struct {
		Type    string `json:"__type"`
		Message string
	}
	if json.Unmarshal(b, &e) == nil {
		a.typ, a.msg = e.Type, e.Message
	}
	return a
}

const (
	serialization = "com.amazon.coral.service#SerializationException"
	validation    = "com.amazon.coral.validate#ValidationException"
)

// TestHandler_MalformedRequests checks DynamoDB's answers to requests the
// API never sees.
func TestHandler_MalformedRequests(t *testing.T) {
	s := &stub{}
	_, srv := serve(t, s)
	deep := strings.Repeat(`{"L":[`, 300) + `{"S":"x"}` + strings.Repeat(`]}`, 300)
	for _, c := range []struct {
		name, target, body string
		noAuth             bool
		status             int
		typ, msg           string
	}{
		{name: "BadJSON", target: "PutItem", body: `{`, status: 400, typ: serialization},
		{name: "EmptyBody", target: "PutItem", body: ``, status: 400, typ: serialization},
		{name: "ArrayBody", target: "PutItem", body: `[]`, status: 400, typ: serialization},
		{name: "NullBody", target: "PutItem", body: `null`, status: 400, typ: serialization},
		{name: "TrailingGarbage", target: "PutItem", body: `{} x`, status: 400, typ: serialization},
		{name: "InvalidUTF8", target: "PutItem", body: "{\"TableName\":\"\xff\"}", status: 400, typ: serialization},
		{name: "BadEscape", target: "PutItem", body: `{"TableName":"\q"}`, status: 400, typ: serialization},
		{name: "UnknownOperation", target: "DynamoDB_20120810.Frobnicate", body: `{}`, status: 400,
			typ: "com.amazonaws.dynamodb.v20120810#UnknownOperationException", msg: "An unknown operation was requested."},
		{name: "OtherService", target: "DynamoDBStreams_20120810.ListStreams", body: `{}`, status: 400,
			typ: "com.amazonaws.dynamodb.v20120810#UnknownOperationException"},
		{name: "MissingTarget", body: `{}`, status: 400,
			typ: "com.amazonaws.dynamodb.v20120810#UnknownOperationException"},
		{name: "MissingAuthentication", target: "ListTables", body: `{}`, noAuth: true, status: 400,
			typ: "com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken",
			msg: "Request must contain either a valid (registered) AWS access key ID or X.509 certificate."},
		{name: "StringAsNumber", target: "ListTables", body: `{"Limit":"1"}`, status: 400, typ: serialization,
			msg: "STRING_VALUE cannot be converted to Integer"},
		{name: "NumberAsString", target: "PutItem", body: `{"TableName":1}`, status: 400, typ: serialization,
			msg: "NUMBER_VALUE cannot be converted to String"},
		{name: "StringAsBoolean", target: "GetItem", body: `{"ConsistentRead":"true"}`, status: 400, typ: serialization,
			msg: "STRING_VALUE cannot be converted to Boolean"},
		{name: "ListAsMap", target: "PutItem", body: `{"Item":[]}`, status: 400, typ: serialization,
			msg: "Start of list found where not expected"},
		{name: "MapAsList", target: "CreateTable", body: `{"KeySchema":{}}`, status: 400, typ: serialization,
			msg: "Start of structure or map found where not expected."},
		{name: "ScalarAsList", target: "CreateTable", body: `{"KeySchema":"k"}`, status: 400, typ: serialization,
			msg: "Expected list or null"},
		{name: "ScalarAsMap", target: "PutItem", body: `{"Item":"k"}`, status: 400, typ: serialization,
			msg: "Expected map or null"},
		{name: "ScalarAsStructure", target: "CreateTable", body: `{"ProvisionedThroughput":1}`, status: 400, typ: serialization,
			msg: "Expected null"},
		{name: "NumberAsAttributeString", target: "PutItem", body: `{"Item":{"a":{"S":1}}}`, status: 400, typ: serialization,
			msg: "NUMBER_VALUE cannot be converted to String"},
		{name: "NumberAsAttributeNumber", target: "PutItem", body: `{"Item":{"a":{"N":1}}}`, status: 400, typ: serialization,
			msg: "NUMBER_VALUE cannot be converted to String"},
		{name: "IntegerOverflow", target: "ListTables", body: `{"Limit":99999999999999}`, status: 400, typ: serialization},
		{name: "BadBase64", target: "PutItem", body: `{"Item":{"a":{"B":"!!!"}}}`, status: 400, typ: serialization},
		{name: "EmptyAttributeValue", target: "PutItem", body: `{"Item":{"a":{}}}`, status: 400, typ: validation,
			msg: "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{name: "UnknownAttributeType", target: "PutItem", body: `{"Item":{"a":{"s":"x"}}}`, status: 400, typ: validation,
			msg: "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{name: "TwoAttributeTypes", target: "PutItem", body: `{"Item":{"a":{"S":"x","N":"1"}}}`, status: 400, typ: validation,
			msg: "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{name: "NullInStringSet", target: "PutItem", body: `{"Item":{"a":{"SS":[null]}}}`, status: 400, typ: validation,
			msg: "One or more parameter values were invalid: An string set may not have a null string as a member"},
		{name: "NullExpressionAttributeName", target: "UpdateItem", body: `{"ExpressionAttributeNames":{"#a":null}}`, status: 400, typ: validation,
			msg: "ExpressionAttributeNames contains invalid value: null for key #a"},
		{name: "SerializationBeforeValidation", target: "PutItem", body: `{"Item":{"a":{}},"TableName":1}`, status: 400, typ: serialization},
		{name: "DeepNesting", target: "PutItem", body: `{"Item":{"a":` + deep + `}}`, status: 400, typ: validation,
			msg: "Nesting Levels have exceeded supported limits"},
		{name: "DeepGarbage", target: "PutItem", body: `{"Frobnicate":` + strings.Repeat("[", 100000) + `}`, status: 400, typ: validation},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := c.target
			if target != "" && !strings.Contains(target, ".") {
				target = "DynamoDB_20120810." + target
			}
			s.set(nil, nil)
			a := post(t, srv.URL, target, c.body, !c.noAuth)
			if a.status != c.status || a.typ != c.typ || (c.msg != "" && a.msg != c.msg) {
				t.Errorf("got %d %s", a.status, a.body)
				t.Errorf("want %d %s %q", c.status, c.typ, c.msg)
			}
			if s.input() != nil {
				t.Errorf("the API was called")
			}
			if a.header.Get("X-Amzn-Requestid") == "" {
				t.Errorf("no x-amzn-RequestId")
			}
		})
	}
}

// TestHandler_Lenient checks what DynamoDB accepts: unknown members, nulls
// for absent members, fractions for integers, any content type and path.
func TestHandler_Lenient(t *testing.T) {
	s := &stub{}
	_, srv := serve(t, s)
	a := post(t, srv.URL+"/any/path", "DynamoDB_20120810.Query",
		`{"TableName":"t","Frobnicate":{"x":[1,2,{"y":null}]},"Limit":2.7,"IndexName":null,"ExclusiveStartKey":{"k":null}}`, true)
	if a.status != 200 {
		t.Fatalf("got %d %s", a.status, a.body)
	}
	in, _ := s.input().(*dynamodb.QueryInput)
	if in == nil || *in.TableName != "t" || *in.Limit != 2 || in.IndexName != nil {
		t.Errorf("input %+v", in)
	}
	if v, ok := in.ExclusiveStartKey["k"]; !ok || v != nil {
		t.Errorf("a null attribute value should reach the API as nil, got %v %v", v, ok)
	}
}

// TestHandler_Headers checks the headers the SDKs rely on.
func TestHandler_Headers(t *testing.T) {
	s := &stub{}
	_, srv := serve(t, s)
	s.set(&dynamodb.ListTablesOutput{TableNames: []string{"a", "b"}}, nil)
	for _, body := range []string{`{}`, `{`} {
		a := post(t, srv.URL, "DynamoDB_20120810.ListTables", body, true)
		if got, want := a.header.Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(a.body))), 10); got != want {
			t.Errorf("x-amz-crc32 %q, want %q", got, want)
		}
		if ct := a.header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
			t.Errorf("Content-Type %q", ct)
		}
		if id := a.header.Get("X-Amzn-Requestid"); len(id) != 36 {
			t.Errorf("x-amzn-RequestId %q", id)
		}
	}
	a := post(t, srv.URL, "DynamoDB_20120810.ListTables", `{}`, true)
	if a.body != `{"TableNames":["a","b"]}` {
		t.Errorf("body %s", a.body)
	}
}

func TestHandler_HealthCheck(t *testing.T) {
	_, srv := serve(t, &stub{})
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /: %d", resp.StatusCode)
	}
}

// TestHandler_BodyTooLarge checks the 16 MB bound, with and without a
// Content-Length.
func TestHandler_BodyTooLarge(t *testing.T) {
	h := wire.New(&stub{}, &wire.Options{MaxBodyBytes: 1000})
	big := `{"TableName":"` + strings.Repeat("x", 2000) + `"}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(big)
		if chunked {
			body = io.MultiReader(body) // hides the length
		}
		req := httptest.NewRequest(http.MethodPost, "/", body)
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
		req.Header.Set("Authorization", testAuth)
		if chunked {
			req.ContentLength = -1
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked=%v: status %d %s", chunked, w.Code, w.Body)
		}
	}
}

// panicky is an API whose GetItem panics.
type panicky struct{ stub }

func (*panicky) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	panic("boom")
}

func TestHandler_PanicIsInternalServerError(t *testing.T) {
	_, srv := serve(t, &panicky{})
	a := post(t, srv.URL, "DynamoDB_20120810.GetItem", `{"TableName":"t","Key":{"k":{"S":"x"}}}`, true)
	if a.status != 500 || a.typ != "com.amazonaws.dynamodb.v20120810#InternalServerError" || strings.Contains(a.body, "boom") {
		t.Errorf("got %d %s", a.status, a.body)
	}
}

// TestHandler_ErrorShapes checks the JSON of the errors that carry more
// than a message, member by member.
func TestHandler_ErrorShapes(t *testing.T) {
	s := &stub{}
	_, srv := serve(t, s)
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&types.ConditionalCheckFailedException{Message: new("The conditional request failed"), Item: item},
			`{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","Message":"The conditional request failed","Item":{"pk":{"S":"a"}}}`},
		{&types.ConditionalCheckFailedException{Message: new("The conditional request failed")},
			`{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","Message":"The conditional request failed"}`},
		{&types.TransactionCanceledException{
			Message: new("Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]"),
			CancellationReasons: []types.CancellationReason{
				{Code: new("ConditionalCheckFailed"), Message: new("The conditional request failed"), Item: item},
				{Code: new("None")},
			}},
			`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"ConditionalCheckFailed","Item":{"pk":{"S":"a"}},"Message":"The conditional request failed"},{"Code":"None"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]"}`},
		{&types.ResourceNotFoundException{Message: new("Cannot do operations on a non-existent table")},
			`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Cannot do operations on a non-existent table"}`},
	} {
		s.set(nil, c.err)
		a := post(t, srv.URL, "DynamoDB_20120810.ListTables", `{}`, true)
		if a.status != 400 || a.body != c.want {
			t.Errorf("got  %d %s\nwant 400 %s", a.status, a.body, c.want)
		}
	}
}

// withLimits is an API that also has the SDK client's DescribeLimits, an
// operation outside timetable.API.
type withLimits struct{ stub }

func (*withLimits) DescribeLimits(_ context.Context, in *dynamodb.DescribeLimitsInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error) {
	return &dynamodb.DescribeLimitsOutput{AccountMaxReadCapacityUnits: new(int64(80000)), TableMaxWriteCapacityUnits: new(int64(40000))}, nil
}

// TestHandler_ExtraOperations checks that a method of the API's concrete
// type shaped like an SDK client operation is served too.
func TestHandler_ExtraOperations(t *testing.T) {
	c, srv := serve(t, &withLimits{})
	out, err := c.DescribeLimits(context.Background(), &dynamodb.DescribeLimitsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if *out.AccountMaxReadCapacityUnits != 80000 || *out.TableMaxWriteCapacityUnits != 40000 || out.AccountMaxWriteCapacityUnits != nil {
		t.Errorf("DescribeLimits: %+v", out)
	}
	a := post(t, srv.URL, "DynamoDB_20120810.ListTagsOfResource", `{}`, true)
	if a.status != 400 || a.typ != "com.amazonaws.dynamodb.v20120810#UnknownOperationException" {
		t.Errorf("an operation the API lacks: %d %s", a.status, a.body)
	}
}
