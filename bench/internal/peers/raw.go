package peers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// RawClient sends PutItem, GetItem and Query as hand-built DynamoDB JSON
// requests over plain net/http, with a fixed (unverified) signature header,
// and reads back only what the load generator checks (the status, whether
// GetItem found an item, how many items Query returned). It costs the
// client a fraction of what the SDK's middleware, signing and
// deserialization cost, so a load built on it measures more of the server.
// Every other method goes through an ordinary SDK client.
//
// Like the SDK's client, it asks for answers uncompressed
// (Accept-Encoding: identity).
//
// It handles the attribute types the load generator uses (S and N, with
// ASCII text) and falls back to the SDK for other shapes of input.
type RawClient struct {
	*dynamodb.Client
	endpoint string
	hc       *http.Client
}

// NewRawClient returns a RawClient for endpoint with a pool of conns
// connections.
func NewRawClient(endpoint string, conns int) *RawClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = conns * 2
	tr.MaxIdleConnsPerHost = conns * 2
	return &RawClient{Client: NewClient(endpoint, conns), endpoint: endpoint, hc: &http.Client{Transport: tr}}
}

// errFallback means the input has a shape the raw path does not encode.
var errFallback = errors.New("not supported by the raw path")

func appendAttrs(b []byte, m map[string]types.AttributeValue) ([]byte, error) {
	b = append(b, '{')
	first := true
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = strconv.AppendQuote(b, k)
		switch v := m[k].(type) {
		case *types.AttributeValueMemberS:
			b = append(b, `:{"S":`...)
			b = strconv.AppendQuote(b, v.Value)
		case *types.AttributeValueMemberN:
			b = append(b, `:{"N":`...)
			b = strconv.AppendQuote(b, v.Value)
		default:
			return nil, errFallback
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// do posts body as operation op and returns the response body of a 200.
func (c *RawClient) do(ctx context.Context, op string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	// As the SDK's DynamoDB client asks (EnableAcceptEncodingGzip is off by
	// default); without it net/http's transport would ask for gzip, which
	// only some servers honour, so they would not do the same work.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("X-Amz-Date", "20240101T000000Z")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %s", op, resp.StatusCode, out)
	}
	return out, nil
}

// PutItem implements workload.Client.
func (c *RawClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if in.ConditionExpression != nil || in.ReturnValues != "" || len(in.ExpressionAttributeValues) > 0 {
		return c.Client.PutItem(ctx, in, optFns...)
	}
	b := append([]byte(`{"TableName":`), strconv.Quote(aws.ToString(in.TableName))...)
	b = append(b, `,"Item":`...)
	b, err := appendAttrs(b, in.Item)
	if err != nil {
		return c.Client.PutItem(ctx, in, optFns...)
	}
	if _, err := c.do(ctx, "PutItem", append(b, '}')); err != nil {
		return nil, err
	}
	return &dynamodb.PutItemOutput{}, nil
}

// GetItem implements workload.Client. The returned item is empty but
// non-nil when the server found one.
func (c *RawClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if in.ProjectionExpression != nil || in.ConsistentRead != nil {
		return c.Client.GetItem(ctx, in, optFns...)
	}
	b := append([]byte(`{"TableName":`), strconv.Quote(aws.ToString(in.TableName))...)
	b = append(b, `,"Key":`...)
	b, err := appendAttrs(b, in.Key)
	if err != nil {
		return c.Client.GetItem(ctx, in, optFns...)
	}
	out, err := c.do(ctx, "GetItem", append(b, '}'))
	if err != nil {
		return nil, err
	}
	res := &dynamodb.GetItemOutput{}
	if bytes.Contains(out, []byte(`"Item"`)) {
		res.Item = map[string]types.AttributeValue{}
	}
	return res, nil
}

// Query implements workload.Client for a key condition with values and a
// Limit. The returned Items are as many empty items as the answer's Count.
func (c *RawClient) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if in.IndexName != nil || in.FilterExpression != nil || in.ExpressionAttributeNames != nil ||
		in.ExclusiveStartKey != nil || in.ScanIndexForward != nil || in.ProjectionExpression != nil {
		return c.Client.Query(ctx, in, optFns...)
	}
	b := append([]byte(`{"TableName":`), strconv.Quote(aws.ToString(in.TableName))...)
	b = append(b, `,"KeyConditionExpression":`...)
	b = strconv.AppendQuote(b, aws.ToString(in.KeyConditionExpression))
	b = append(b, `,"ExpressionAttributeValues":`...)
	b, err := appendAttrs(b, in.ExpressionAttributeValues)
	if err != nil {
		return c.Client.Query(ctx, in, optFns...)
	}
	if in.Limit != nil {
		b = append(b, `,"Limit":`...)
		b = strconv.AppendInt(b, int64(*in.Limit), 10)
	}
	out, err := c.do(ctx, "Query", append(b, '}'))
	if err != nil {
		return nil, err
	}
	_, rest, ok := bytes.Cut(out, []byte(`"Count":`))
	if !ok {
		return nil, fmt.Errorf("query: no Count in the answer")
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return nil, fmt.Errorf("query: bad Count in the answer")
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(rest[:end])))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("query: bad Count in the answer")
	}
	items := make([]map[string]types.AttributeValue, n)
	return &dynamodb.QueryOutput{Count: int32(n), Items: items}, nil
}
