package main

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/bench/workload"
)

// TestCeiling_Load runs the load generator against the no-op server, as
// an http.Handler and with its own HTTP loop (in process here; the
// benchmark runs it in a child process).
func TestCeiling_Load(t *testing.T) {
	srv := httptest.NewServer(ceilingHandler())
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveListener(ln, newCeiling().answer)
	for i := range 2 * numClients {
		kind, url := i%numClients, srv.URL
		if i >= numClients {
			url = "http://" + ln.Addr().String()
		}
		res, err := workload.Load(context.Background(), newLoadClient(kind, url, 2), workload.LoadConfig{
			Table: "ceiling_test", Workers: 2, Duration: 100 * time.Millisecond, Warmup: 10 * time.Millisecond,
		})
		if err != nil {
			t.Fatalf("%s client: %v", clientNames[kind], err)
		}
		if res.Errors != 0 || res.Ops == 0 {
			t.Fatalf("%s client: ops %d, errors %d, first error %v", clientNames[kind], res.Ops, res.Errors, res.FirstError)
		}
	}
}

// serveListener serves ln with serveRaw until ln is closed.
func serveListener(ln net.Listener, answer answerFunc) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go serveRaw(conn, answer)
	}
}

// BenchmarkSDKClient measures what the SDK client's options cost, one
// operation of the load mix at a time against the no-op handler (in
// process: the handler's cost is in every figure alike). It backs the
// choices of peers.NewClient: SigV4 signing stays (dynalite and DynamoDB
// Local refuse unsigned requests), the response checksum check goes.
func BenchmarkSDKClient(b *testing.B) {
	srv := httptest.NewServer(ceilingHandler())
	defer srv.Close()
	lean := peers.NewClient(srv.URL, 2)
	with := func(f func(*dynamodb.Options)) *dynamodb.Client {
		o := lean.Options()
		f(&o)
		return dynamodb.New(o)
	}
	for _, tc := range []struct {
		name string
		c    *dynamodb.Client
	}{
		{"lean", lean},
		{"checksum", with(func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = false })},
		{"anonymous", with(func(o *dynamodb.Options) { o.Credentials = aws.AnonymousCredentials{} })},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := tc.c
			ctx := context.Background()
			table := aws.String("t")
			key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "P#0001"}, "sk": &types.AttributeValueMemberN{Value: "7"}}
			item := map[string]types.AttributeValue{"pk": key["pk"], "sk": key["sk"], "n": &types.AttributeValueMemberN{Value: "1"},
				"payload": &types.AttributeValueMemberS{Value: strings.Repeat("q", 100)}}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				var err error
				switch i % 3 {
				case 0:
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item})
				case 1:
					_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key})
				case 2:
					_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("pk = :p"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":p": key["pk"]}, Limit: aws.Int32(20)})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			cpu1 := cpuTime()
			b.ReportMetric((cpu1-cpu0)*1e6/float64(b.N), "cpu-µs/op")
		})
	}
}
