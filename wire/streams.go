package wire

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/timetable-db/timetable"
)

// DynamoDB Streams
//
// When the API a Handler serves also implements timetable.StreamsAPI (the
// engine does), the Handler serves DynamoDB Streams on the same endpoint,
// as DynamoDB Local does: X-Amz-Target "DynamoDBStreams_20120810.<Op>" for
// ListStreams, DescribeStream, GetShardIterator and GetRecords, with the
// same JSON protocol and errors. The streams client signs with the signing
// name "dynamodb", so auth's SigV4 check accepts it unchanged.

// streamsTargetPrefix starts the X-Amz-Target header of every DynamoDB
// Streams operation.
const streamsTargetPrefix = "DynamoDBStreams_20120810."

// streamsMethod is the shape of every timetable.StreamsAPI method as a
// method expression.
type streamsMethod[I, O any] func(timetable.StreamsAPI, context.Context, *I, ...func(*dynamodbstreams.Options)) (*O, error)

// streamsOp builds the operation for one StreamsAPI method.
func streamsOp[I, O any](api timetable.StreamsAPI, name string, call streamsMethod[I, O]) *operation {
	return codecOp[I, O](name, func(ctx context.Context, in *I) (*O, error) { return call(api, ctx, in) })
}

// codecOp builds the operation that decodes its input as I, calls call
// and encodes its output O.
func codecOp[I, O any](name string, call func(context.Context, *I) (*O, error)) *operation {
	in := mustCodec(reflect.TypeFor[I]())
	out := mustCodec(reflect.TypeFor[O]())
	return &operation{name: name, serve: func(ctx context.Context, body []byte, e *encoder) error {
		input := new(I)
		if err := decodeDocument(body, in, reflect.ValueOf(input).Elem(), maxDepth); err != nil {
			return err
		}
		output, err := call(ctx, input)
		if err != nil {
			return err
		}
		writeOutput(e, out, output)
		return nil
	}}
}

// writeOutput encodes an operation's output with its codec out; a nil
// output is the empty object.
func writeOutput[O any](e *encoder, out *codec, output *O) {
	if output == nil {
		e.buf = append(e.buf, "{}"...)
		return
	}
	out.enc(e, reflect.ValueOf(output).Elem())
}

// streamsOperations returns the DynamoDB Streams operations served over
// api, or nil when api does not implement timetable.StreamsAPI.
func streamsOperations(api timetable.API) map[string]*operation {
	sa, ok := api.(timetable.StreamsAPI)
	if !ok {
		return nil
	}
	ops := map[string]*operation{}
	add := func(op *operation) { ops[op.name] = op }
	add(streamsOp(sa, "ListStreams", timetable.StreamsAPI.ListStreams))
	add(streamsOp(sa, "DescribeStream", timetable.StreamsAPI.DescribeStream))
	add(streamsOp(sa, "GetShardIterator", timetable.StreamsAPI.GetShardIterator))
	add(streamsOp(sa, "GetRecords", timetable.StreamsAPI.GetRecords))
	return ops
}

// lookup returns the operation an X-Amz-Target names and its name, or nil.
func (h *Handler) lookup(target string) (*operation, string) {
	if len(target) > len(targetPrefix) && target[:len(targetPrefix)] == targetPrefix {
		name := target[len(targetPrefix):]
		return h.ops[name], name
	}
	if len(target) > len(streamsTargetPrefix) && target[:len(streamsTargetPrefix)] == streamsTargetPrefix {
		name := target[len(streamsTargetPrefix):]
		return h.streamOps[name], name
	}
	return nil, ""
}

var streamsAttributeValueType = reflect.TypeFor[streamstypes.AttributeValue]()

// encStreamsAV encodes a DynamoDB Streams attribute value (in a record's
// keys and images) as the DynamoDB attribute value it is the twin of.
func encStreamsAV(e *encoder, v reflect.Value) {
	sv := *v.Addr().Interface().(*streamstypes.AttributeValue)
	av, err := attributevalue.FromDynamoDBStreams(sv)
	if err != nil {
		av = nil // a member the SDK does not know: nothing a stream holds
	}
	e.buf = appendAV(e.buf, av)
}

// decStreamsAV refuses an attribute value in a DynamoDB Streams request:
// no input of the streams operations holds one.
func decStreamsAV(d *decoder, _ reflect.Value) error {
	return serializationError("Unexpected attribute value")
}
