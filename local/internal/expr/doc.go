// Package expr implements DynamoDB's expression language on the SDK's
// attribute value types: condition and filter expressions, key condition
// expressions, projection expressions and update expressions, the legacy
// parameters that preceded them, the placeholder validation DynamoDB
// performs, and its error messages.
//
// # Use
//
// A Compiler holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues. Each expression of the request is compiled with
// the matching method (Condition, Filter, KeyCondition, Projection, Update);
// Finish then reports placeholders that no expression used. Compiled
// expressions are immutable and safe for concurrent use; evaluating them
// never modifies the items they are given, and Condition.Eval does not
// allocate for the usual comparisons, so filters can run per item.
//
// The legacy parameters convert to the same types: Expected and
// LegacyFilter (QueryFilter, ScanFilter) to a Condition, KeyConditions to a
// KeyCondition, AttributeUpdates to an Update, AttributesToGet to a
// Projection.
//
// # Errors
//
// Every error is an *Error whose Msg is the text DynamoDB Local 3.3.0 returns
// in a ValidationException; testdata/golden.tsv holds several hundred
// expressions with the answers DynamoDB Local gave, and TestGolden checks
// this package against them. DynamoDB reports the first problem in this
// order, which the package follows: the placeholder maps (empty maps,
// invalid keys, invalid values), then per expression its size (4 KB), syntax,
// function names, list index ranges, redundant parentheses, operator count
// (300) and path depth (32), reserved words, undefined placeholders, operand
// types; then unused placeholders (Finish); then the checks against the key
// schema (KeyCondition.Resolve).
//
// # What the caller checks
//
// Checks that need the request as a whole or the table are the caller's:
//   - "ExpressionAttributeNames can only be specified when using
//     expressions" and the same for values (DynamoDB Local treats an empty
//     FilterExpression of a Scan as absent: "ExpressionAttributeValues can
//     only be specified when using expressions: FilterExpression is null");
//   - mixing legacy parameters and expressions ("Can not use both
//     expression and non-expression parameters in the same request: ...");
//   - the order of expressions within a request: DynamoDB Local compiles the
//     UpdateExpression before the ConditionExpression, a Query's
//     FilterExpression before its ProjectionExpression and
//     KeyConditionExpression, a Scan's ProjectionExpression before its
//     FilterExpression; requests whose only expression is a projection use
//     FinishNames, since unused values are not reported there;
//   - key value types against the attribute definitions ("One or more
//     parameter values were invalid: Condition parameter type does not match
//     schema type"), using the values of KeyRange;
//   - updates of key attributes, using Update.TopLevel ("One or more
//     parameter values were invalid: Cannot update attribute pk. This
//     attribute is part of the key");
//   - filters of a Query on key attributes, using Condition.TopLevel
//     ("Filter Expression can only contain non-primary key attributes:
//     Primary key attribute: pk", hash key checked first; "QueryFilter ..."
//     for the legacy form);
//   - item size and the canonical form of numbers given in values (results
//     of arithmetic are canonical already).
package expr
