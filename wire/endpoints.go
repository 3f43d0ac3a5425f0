package wire

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// hostKey is the context key under which ServeHTTP passes the request's
// Host to the operations that ask for it (operation.needsHost).
type hostKey struct{}

// endpointCachePeriod is the CachePeriodInMinutes of DescribeEndpoints,
// DynamoDB's: a day.
const endpointCachePeriod = 1440

// describeEndpointsOp answers DescribeEndpoints, which the SDKs' endpoint
// discovery calls, by the handler itself whatever the backend: the one
// endpoint is the address the client reached (the request's Host, without
// a scheme, as DynamoDB answers "dynamodb.us-east-1.amazonaws.com"), cached
// for a day. DynamoDB Local answers UnknownOperationException.
func describeEndpointsOp() *operation {
	in := mustCodec(reflect.TypeFor[dynamodb.DescribeEndpointsInput]())
	out := mustCodec(reflect.TypeFor[dynamodb.DescribeEndpointsOutput]())
	return &operation{name: "DescribeEndpoints", needsHost: true, serve: func(ctx context.Context, body []byte, e *encoder) error {
		var input dynamodb.DescribeEndpointsInput
		if err := decodeDocument(body, in, reflect.ValueOf(&input).Elem(), maxDepth); err != nil {
			return err
		}
		host, _ := ctx.Value(hostKey{}).(string)
		output := dynamodb.DescribeEndpointsOutput{Endpoints: []types.Endpoint{{Address: aws.String(host), CachePeriodInMinutes: endpointCachePeriod}}}
		out.enc(e, reflect.ValueOf(&output).Elem())
		return nil
	}}
}
