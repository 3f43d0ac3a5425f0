// Package wire serves a timetable.API over DynamoDB's HTTP protocol, so the
// AWS SDKs, the AWS CLI and every tool written for DynamoDB can use the
// embedded engine (or any other backend) as an endpoint:
//
//	http.ListenAndServe("127.0.0.1:8000", wire.New(db, nil))
//
// # Protocol
//
// DynamoDB speaks awsJson1_0: each request is a POST with the header
// X-Amz-Target: DynamoDB_20120810.<Operation> and the operation's input as a
// JSON object; the answer is the output as JSON, or an error object
//
//	{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"..."}
//
// with status 400 (500 for server faults). When the API also implements
// timetable.StreamsAPI, DynamoDB Streams is served on the same endpoint,
// with X-Amz-Target: DynamoDBStreams_20120810.<Operation>, as DynamoDB
// Local does. Member names are those of the
// SDK's model, which are aws-sdk-go-v2's Go field names except for a few
// shapes the SDK's own schemas name in lower case. The codec is driven by
// reflection over the SDK's input and output structs, with a plan cached
// per type and hand-written paths for attribute values, so the endpoint
// decodes exactly what the SDK encodes and encodes what it decodes. Marshal
// and Unmarshal expose it.
//
// # Malformed requests
//
// A request the API never sees gets the answer DynamoDB gives:
//
//   - a body that is not one JSON object, or a member of the wrong JSON
//     type: 400 com.amazon.coral.service#SerializationException, with
//     DynamoDB's texts ("NUMBER_VALUE cannot be converted to String",
//     "Start of list found where not expected", ...);
//   - an attribute value with no or several types set, a null in a string
//     set, a null ExpressionAttributeNames value: 400
//     com.amazon.coral.validate#ValidationException with DynamoDB's text,
//     reported only when the body is otherwise well formed;
//   - an unknown X-Amz-Target: 400 UnknownOperationException; no
//     Authorization header: 400 MissingAuthenticationToken (any signature is
//     accepted, as DynamoDB Local does);
//   - a body over Options.MaxBodyBytes (16 MB): 413, unread;
//   - a body whose buffer the in-flight budget (Options.Budget, or one of
//     Options.MaxInFlightBytes) cannot hold: 400 ThrottlingException,
//     which the SDKs retry;
//   - JSON nested beyond a bound far above DynamoDB's 32 levels of attribute
//     nesting: 400 ValidationException, before it costs memory or stack.
//     Deeper attribute values within the bound reach the API, which reports
//     DynamoDB's own nesting errors.
//
// # Browsers
//
// DynamoDB answers CORS requests from any origin, since it checks every
// signature. A Handler answers only the origins of Options.CORSOrigins
// ("*" for DynamoDB's behaviour): by default a preflight is answered 403
// and no answer carries Access-Control-Allow-Origin, so that a web page
// cannot use an endpoint on the user's machine that checks no signature.
// OriginAllowed is the rule, for servers that put the Handler beside other
// routes.
//
// Unknown members are ignored and JSON null means absent, as in DynamoDB. A
// null attribute value inside an item or a list reaches the API as a nil
// types.AttributeValue, since DynamoDB's message for it depends on where it
// is. A panic while serving a request becomes a 500 InternalServerError.
//
// DynamoDB Local is more lenient than DynamoDB in two ways this package does
// not copy: it converts scalars between types ({"S":1} is stored as "1") and
// it answers a syntax error with a 500 InternalFailure, which SDKs retry.
// Here both are the 400 SerializationException of DynamoDB itself.
package wire
