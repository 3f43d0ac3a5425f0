package difftest

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

func canonOut(prefix string, out any) any {
	c := &canonizer{prefix: prefix, unordered: true}
	return map[string]any{"out": c.of(out)}
}

func canonErr(t *testing.T, prefix string, err error) any {
	t.Helper()
	c := &canonizer{prefix: prefix, unordered: true}
	m, ok := c.errorOf(err)
	if !ok {
		t.Fatalf("errorOf(%v): not an API error", err)
	}
	return m
}

func TestCompare(t *testing.T) {
	item := func(kv ...any) Item {
		m := Item{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return m
	}
	ss := func(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
	bs := func(v ...[]byte) types.AttributeValue { return &types.AttributeValueMemberBS{Value: v} }
	l := func(v ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: v} }
	get := func(it Item) any { return canonOut("", &dynamodb.GetItemOutput{Item: it}) }
	query := func(its ...Item) any { return canonOut("", &dynamodb.QueryOutput{Items: its, Count: int32(len(its))}) }

	tests := []struct {
		name string
		a, b any
		want string // "" for equal, else the path of the first difference
	}{
		{"SameItem", get(item("a", nv("1"), "b", sv("x"))), get(item("b", sv("x"), "a", nv("1"))), ""},
		{"PlantedNumber", get(item("a", nv("1"))), get(item("a", nv("1.0"))), ".out.Item.a.N"},
		{"PlantedType", get(item("a", nv("1"))), get(item("a", sv("1"))), ".out.Item.a.N"},
		{"ExtraAttribute", get(item("a", nv("1"))), get(item("a", nv("1"), "z", sv(""))), ".out.Item.z"},
		{"SetOrder", get(item("s", ss("a", "b", "c"))), get(item("s", ss("c", "a", "b"))), ""},
		{"BinarySetOrder", get(item("s", bs([]byte{1}, []byte{2}))), get(item("s", bs([]byte{2}, []byte{1}))), ""},
		{"SetElement", get(item("s", ss("a", "b"))), get(item("s", ss("a", "c"))), ".out.Item.s.SS[1]"},
		{"ListOrder", get(item("l", l(nv("1"), nv("2")))), get(item("l", l(nv("2"), nv("1")))), ".out.Item.l.L[0].N"},
		{"NoItemVsEmptyItem", get(nil), get(Item{}), ".out.Item"},
		{"QueryOrder", query(item("sk", sv("a")), item("sk", sv("b"))), query(item("sk", sv("b")), item("sk", sv("a"))), ".out.Items[0].sk.S"},
		{"QueryLength", query(item("sk", sv("a"))), query(item("sk", sv("a")), item("sk", sv("b"))), ".out.Count"},
		{"NilVsEmptyItems", query(), canonOut("", &dynamodb.QueryOutput{Items: []Item{}}), ""},
		{
			"BatchGetOrder",
			canonOut("", &dynamodb.BatchGetItemOutput{Responses: map[string][]Item{"t": {item("pk", sv("a")), item("pk", sv("b"))}}}),
			canonOut("", &dynamodb.BatchGetItemOutput{Responses: map[string][]Item{"t": {item("pk", sv("b")), item("pk", sv("a"))}}}),
			"",
		},
		{
			"BatchGetMissing",
			canonOut("", &dynamodb.BatchGetItemOutput{Responses: map[string][]Item{"t": {item("pk", sv("a")), item("pk", sv("b"))}}}),
			canonOut("", &dynamodb.BatchGetItemOutput{Responses: map[string][]Item{"t": {item("pk", sv("b"))}}}),
			".out.Responses.t[0].pk.S",
		},
		{
			"CapacityPrefixAndOrder",
			canonOut("p1_", &dynamodb.BatchWriteItemOutput{ConsumedCapacity: []types.ConsumedCapacity{
				{TableName: aws.String("p1_t0"), CapacityUnits: aws.Float64(1)}, {TableName: aws.String("p1_t1"), CapacityUnits: aws.Float64(2)}}}),
			canonOut("p2_", &dynamodb.BatchWriteItemOutput{ConsumedCapacity: []types.ConsumedCapacity{
				{TableName: aws.String("p2_t1"), CapacityUnits: aws.Float64(2)}, {TableName: aws.String("p2_t0"), CapacityUnits: aws.Float64(1)}}}),
			"",
		},
		{
			"CapacityUnits",
			canonOut("", &dynamodb.PutItemOutput{ConsumedCapacity: &types.ConsumedCapacity{TableName: aws.String("t"), CapacityUnits: aws.Float64(1)}}),
			canonOut("", &dynamodb.PutItemOutput{ConsumedCapacity: &types.ConsumedCapacity{TableName: aws.String("t"), CapacityUnits: aws.Float64(2)}}),
			".out.ConsumedCapacity.CapacityUnits",
		},
		{
			"ErrorMessage",
			canonErr(t, "", &smithy.GenericAPIError{Code: "ValidationException", Message: "one"}),
			canonErr(t, "", &smithy.GenericAPIError{Code: "ValidationException", Message: "two"}),
			".message",
		},
		{
			"ErrorCode",
			canonErr(t, "", &smithy.GenericAPIError{Code: "ValidationException", Message: "m"}),
			canonErr(t, "", &types.ResourceNotFoundException{Message: aws.String("m")}),
			".error",
		},
		{
			"ErrorWrappedAndPrefixed",
			canonErr(t, "pa_", &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "GetItem",
				Err: &types.ResourceNotFoundException{Message: aws.String("Table pa_t0 not found")}}),
			canonErr(t, "pb_", &types.ResourceNotFoundException{Message: aws.String("Table pb_t0 not found")}),
			"",
		},
		{
			"ConditionFailedItem",
			canonErr(t, "", &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed"), Item: item("a", nv("1"))}),
			canonErr(t, "", &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}),
			".Item",
		},
		{
			"CancellationReasons",
			canonErr(t, "", &types.TransactionCanceledException{Message: aws.String("x"), CancellationReasons: []types.CancellationReason{
				{Code: aws.String("None")}, {Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed")}}}),
			canonErr(t, "", &types.TransactionCanceledException{Message: aws.String("x"), CancellationReasons: []types.CancellationReason{
				{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed")}, {Code: aws.String("None")}}}),
			".CancellationReasons[0].Code",
		},
		{"ErrorVsAnswer", canonErr(t, "", &smithy.GenericAPIError{Code: "ValidationException", Message: "m"}), get(nil), ".error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.a, tt.b)
			if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("Compare = %q, want %q\na: %s\nb: %s", got, tt.want, toJSON(tt.a), toJSON(tt.b))
			}
		})
	}
}

func TestErrorOf_NotAnAPIError(t *testing.T) {
	c := &canonizer{}
	if _, ok := c.errorOf(errors.New("connection refused")); ok {
		t.Fatal("a transport error was taken for an answer")
	}
}

func TestRename(t *testing.T) {
	in := &dynamodb.TransactWriteItemsInput{
		ClientRequestToken: aws.String("tok1"),
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("t0"), Item: Item{"pk": sv("a"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{nv("1")}}}}},
			{Delete: &types.Delete{TableName: aws.String("t1"), Key: Item{"pk": sv("b")}}},
		},
	}
	before := Render(in)
	out := rename(in, "p_").(*dynamodb.TransactWriteItemsInput)
	if Render(in) != before {
		t.Fatal("rename modified its input")
	}
	if got := *out.TransactItems[0].Put.TableName; got != "p_t0" {
		t.Errorf("Put.TableName = %q", got)
	}
	if got := *out.TransactItems[1].Delete.TableName; got != "p_t1" {
		t.Errorf("Delete.TableName = %q", got)
	}
	if got := *out.ClientRequestToken; got != "p_tok1" {
		t.Errorf("ClientRequestToken = %q", got)
	}
	// A deep copy: changing the copy's nested values leaves the original.
	out.TransactItems[0].Put.Item["l"].(*types.AttributeValueMemberL).Value[0] = sv("changed")
	if Render(in) != before {
		t.Fatal("the copy shares attribute values with the original")
	}

	bg := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"t0": {Keys: []Item{{"pk": sv("a")}}}}}
	if _, ok := rename(bg, "p_").(*dynamodb.BatchGetItemInput).RequestItems["p_t0"]; !ok {
		t.Error("BatchGetItem RequestItems keys not renamed")
	}
}

func TestSortTies(t *testing.T) {
	it := func(g, pk string) any {
		return map[string]any{"g": map[string]any{"S": g}, "pk": map[string]any{"S": pk}}
	}
	a := []any{it("x", "b"), it("x", "a"), it("y", "c")}
	b := []any{it("x", "a"), it("x", "b"), it("y", "c")}
	sortTies(a, []string{"g"})
	sortTies(b, []string{"g"})
	if p := Compare(a, b); p != "" {
		t.Errorf("equal index keys in another order: difference at %s", p)
	}
	// Items with different index keys stay in the order they came in.
	c := []any{it("y", "c"), it("x", "a"), it("x", "b")}
	sortTies(c, []string{"g"})
	if p := Compare(b, c); p == "" {
		t.Error("index order not compared")
	}
}
