// Package expr implements DynamoDB's expression language on the SDK's
// attribute value types: condition and filter expressions, key condition
// expressions, projection expressions and update expressions, with the
// placeholder validation DynamoDB performs and its error messages.
//
// # Use
//
// A Compiler holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues. Each expression of the request is compiled with
// the matching method (Condition, Filter, KeyCondition, Projection, Update);
// Finish then reports placeholders that no expression used. Compiled
// expressions are immutable and safe for concurrent use; evaluating them does
// not modify the items they are given.
//
// # Errors
//
// Every error returned is an *Error whose Msg is the text DynamoDB returns in
// a ValidationException. Checks that depend on the request as a whole rather
// than on expressions (for example "ExpressionAttributeNames can only be
// specified when using expressions", or mixing legacy parameters with
// expressions) are the engine's job.
package expr
