// Package testenv is the ground the module's tests share: a settable
// clock, the in-memory embedded engine, the backends a test runs on, and
// the tables it creates.
// Only tests import it.
//
// The contract:
//
//   - [Clock] is a settable clock, safe for concurrent use; give its Now to
//     an Options.Now.
//   - [MemDB] opens the embedded engine in memory and closes it when the
//     test ends.
//   - [EachBackend] runs a test on the embedded engine and, when
//     [dynamotest.EndpointEnv] is set, on that DynamoDB-compatible server,
//     with internal/dynamotest's rule: a server named but down fails the
//     test, never skips it.
//   - [CreateTable] creates an on-demand table keyed by pk (and sk), and
//     [KeySchema] and [AttributeDef] write the parts of other tables.
//   - [Counter] wraps an API and counts the Query calls, the items they
//     return and the items put through it, for tests that bound the work
//     of an operation by counts, not times.
package testenv
