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
// this package against them. When an expression has several problems,
// DynamoDB reports the first it meets, and so does this package:
//
//   - the placeholder maps: names (not empty, keys not too long and valid),
//     values (the same, then valid values), then names' values;
//   - per expression: its size (4 KB), syntax, redundant parentheses, then
//     in order of position invalid function names, list indexes out of
//     range, reserved words and functions used where they are not allowed,
//     then an update clause used twice;
//   - then the expression's tree, children before their operator (operands
//     before the function or comparison that takes them), each document
//     path checked for depth (32) and undefined name placeholders, each
//     value placeholder for being defined; then the operator count (300);
//   - a projection's paths and an update's actions are taken in reverse
//     order: first each path, checked and added to a tree that refuses
//     overlapping paths, then (updates) each value and ADD or DELETE
//     operand. The overlap message names the path being added and the
//     first path the tree holds where they meet, in the order of DynamoDB
//     Local's hash maps;
//   - then unused placeholders (Finish), then the checks against the key
//     schema (KeyCondition.Resolve).
//
// At run time an update applies its actions in the order of that tree (a
// depth-first walk in hash map order), computing each SET value from the
// item before the update, its operands first and then each operand's
// presence and type; the first action that fails reports its error.

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
