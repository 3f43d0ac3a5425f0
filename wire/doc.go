// Package wire serves a timetable.API over DynamoDB's HTTP protocol, so the
// AWS SDKs, the AWS CLI and every tool written for DynamoDB can use the
// embedded engine (or any other backend) as an endpoint.
//
// # Protocol
//
// DynamoDB speaks awsJson1_0: each request is a POST with the header
// X-Amz-Target: DynamoDB_20120810.<Operation> and the operation's input as a
// JSON object whose member names are the SDK's field names; the answer is
// the output as JSON, or an error object with "__type" and "Message". The
// codec here is driven by reflection over aws-sdk-go-v2's own input and
// output structs, with a plan cached per type and hand-written paths for
// attribute values, so the endpoint decodes exactly what the SDK encodes and
// encodes what it decodes.
//
// # Malformed requests
//
// A body that is not JSON, or a member of the wrong JSON type, is answered
// 400 SerializationException; an attribute value with no or several types
// set is a ValidationException; an unknown operation is
// UnknownOperationException; bodies over 16 MB get 413. Nesting deeper than
// the decoder's bound is refused before it costs memory or stack. None of
// these reach the API, and none can crash the process: a panic while
// serving a request becomes a 500 InternalServerError.
package wire
