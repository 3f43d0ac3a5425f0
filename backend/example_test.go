package backend_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/backend"
)

// ExampleOpen opens the embedded engine in memory and uses it with the
// SDK's own types. README.md shows the body of this function;
// TestREADME_Example keeps the two the same.
func ExampleOpen() {
	ctx := context.Background()
	db, err := backend.Open(ctx, "mem:") // or file:./data, http://127.0.0.1:8000, dynamodb://us-east-1
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	S := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	table := aws.String("readings")
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("ts"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: "HASH"}, {AttributeName: aws.String("ts"), KeyType: "RANGE"}}})
	if err != nil {
		log.Fatal(err)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: map[string]types.AttributeValue{
		"pk": S("SENSOR#1"), "ts": S("2024-12-01T14:30:00Z"), "temp": &types.AttributeValueMemberN{Value: "21.5"}}})
	if err != nil {
		log.Fatal(err)
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: table,
		KeyConditionExpression:    aws.String("pk = :pk AND begins_with(ts, :day)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": S("SENSOR#1"), ":day": S("2024-12-01")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Count, out.Items[0]["temp"].(*types.AttributeValueMemberN).Value)
	// Output: 1 21.5
}

// TestREADME_Example checks that README.md shows ExampleOpen's body
// verbatim.
func TestREADME_Example(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "func ExampleOpen() {\n")
	body, _, ok2 := strings.Cut(body, "\t// Output:")
	if !ok || !ok2 {
		t.Fatal("cannot find ExampleOpen's body")
	}
	var want strings.Builder
	for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	if !strings.Contains(string(readme), "```go\n"+want.String()+"```\n") {
		t.Errorf("README.md does not show ExampleOpen's body; want this go block:\n%s", want.String())
	}
}
