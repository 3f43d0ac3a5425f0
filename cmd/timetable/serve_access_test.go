package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// firstToken waits for the banner's admin token and returns it.
func firstToken(t *testing.T, stdout *syncBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for line := range strings.Lines(stdout.String()) {
			if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "export TIMETABLE_TOKEN="); ok {
				return tok
			}
		}
	}
	t.Fatalf("no token in the banner:\n%s", stdout.String())
	return ""
}

func dynamoClient(base, id, secret string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(base),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

// wantRefused fails the test unless err is DynamoDB's error code.
func wantRefused(t *testing.T, what string, err error, code string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// TestServe_DynamoDBRefusesUnsignedFromTheFirstStart (issue 21, finding
// 1): on a fresh serve with tokens on, the DynamoDB endpoint served any
// request until an access key existed: an unsigned DeleteTable deleted the
// series table, a GetItem read the analytics visitor salt, an UpdateItem
// made a private site public. Now every request must be signed by a known
// key from the first start, whose banner prints an admin key; and a key
// that is not an admin's does not reach the analytics table.
func TestServe_DynamoDBRefusesUnsignedFromTheFirstStart(t *testing.T) {
	var stdout syncBuffer
	base := "http://" + serveInProcess(t, &ServeCommand{Stdout: &stdout}, "--in-memory", "--addr", "127.0.0.1:0")
	token := firstToken(t, &stdout)
	ctx := context.Background()
	api := func(method, path string, body any) *http.Response {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := api("POST", "/api/v1/sites", map[string]any{"id": "blog", "domains": []string{"blog.example"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("create site: %d", r.StatusCode)
	}
	hit, _ := http.NewRequest("POST", base+"/api/event", strings.NewReader(`{"n":"pageview","u":"https://blog.example/","d":"blog.example"}`))
	hit.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	if r, err := http.DefaultClient.Do(hit); err != nil || r.StatusCode != http.StatusAccepted {
		t.Fatalf("hit: %v %v", r, err)
	}

	saltQuery := &dynamodb.QueryInput{TableName: aws.String("analytics"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "SALT"}}}
	makePublic := &dynamodb.UpdateItemInput{TableName: aws.String("analytics"),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "SITE#blog"}, "sk": &types.AttributeValueMemberS{Value: "METADATA"}},
		UpdateExpression:          aws.String("SET #p = :t"),
		ExpressionAttributeNames:  map[string]string{"#p": "public"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}}

	// What DynamoDB Local's clients send: any key.
	anyone := dynamoClient(base, "local", "local")
	_, err := anyone.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("timetable")})
	wantRefused(t, "DeleteTable with any key", err, "UnrecognizedClientException")
	_, err = anyone.Query(ctx, saltQuery)
	wantRefused(t, "reading the salt with any key", err, "UnrecognizedClientException")
	_, err = anyone.UpdateItem(ctx, makePublic)
	wantRefused(t, "making a site public with any key", err, "UnrecognizedClientException")

	// A read key and a write key made by the admin: no analytics table.
	var read, write struct{ ID, Secret string }
	for _, k := range []struct {
		scopes []string
		into   *struct{ ID, Secret string }
	}{{[]string{"read"}, &read}, {[]string{"write"}, &write}} {
		r := api("POST", "/api/v1/access-keys", map[string]any{"name": "app", "scopes": k.scopes})
		if r.StatusCode != http.StatusCreated {
			t.Fatalf("create a %v key: %d", k.scopes, r.StatusCode)
		}
		if err := json.NewDecoder(r.Body).Decode(k.into); err != nil {
			t.Fatal(err)
		}
	}
	_, err = dynamoClient(base, read.ID, read.Secret).Query(ctx, saltQuery)
	wantRefused(t, "reading the salt with a read key", err, "AccessDeniedException")
	_, err = dynamoClient(base, write.ID, write.Secret).UpdateItem(ctx, makePublic)
	wantRefused(t, "making a site public with a write key", err, "AccessDeniedException")
	_, err = dynamoClient(base, write.ID, write.Secret).DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("timetable")})
	wantRefused(t, "DeleteTable with a write key", err, "AccessDeniedException")

	// The site is still private, the series table still there.
	r, err := http.Get(base + "/api/v1/sites/blog")
	if err != nil || r.StatusCode != http.StatusUnauthorized {
		t.Errorf("the site without a token: %v %v, want 401", r.StatusCode, err)
	}
	id, secret := firstAccessKey(t, &stdout)
	admin := dynamoClient(base, id, secret)
	if _, err := admin.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("timetable")}); err != nil {
		t.Errorf("the series table: %v", err)
	}
	if out, err := admin.Query(ctx, saltQuery); err != nil || len(out.Items) == 0 {
		t.Errorf("the admin key reads the salt: %v %v", out, err)
	}
}

// TestCLI_AccessKeys: token create --dynamodb takes scopes and tables,
// token list shows them, and an access key takes no kinds or sites.
func TestCLI_AccessKeys(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out := mustCLI(t, "token", "create", "--data", data, "--dynamodb", "--name", "app", "--scopes", "read,write", "--tables", "orders,carts")
	if !strings.Contains(out, "AWS_ACCESS_KEY_ID=TTAK") {
		t.Fatalf("create --dynamodb:\n%s", out)
	}
	list := mustCLI(t, "token", "list", "--data", data)
	if !strings.Contains(list, "dynamodb:read,write") || !strings.Contains(list, "orders,carts") {
		t.Fatalf("token list:\n%s", list)
	}
	if code, _, errs := runCLI(t, "token", "create", "--data", data, "--dynamodb", "--name", "x", "--kinds", "SENSOR"); code != 2 || !strings.Contains(errs, "--tables") {
		t.Fatalf("--dynamodb --kinds: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "token", "create", "--data", data, "--name", "x", "--tables", "orders"); code != 2 || !strings.Contains(errs, "--tables") {
		t.Fatalf("a token with --tables: exit %d %s", code, errs)
	}
}
