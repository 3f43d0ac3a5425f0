// Package difftest is a randomized differential tester for implementations of
// timetable.API.
//
// A Generator, seeded, produces a schema (one or two tables with a global
// secondary index, maybe a local one and maybe a second global one with a
// multi-attribute key) and a stream of operations over a
// small key space, so that operations collide: puts, conditional puts,
// updates with random update expressions, deletes, gets with projections,
// queries with every key condition operator, filters, limits, both
// directions and page walks, scans with filters, limits and segments,
// batches and transactions, and PartiQL statements (ExecuteStatement: SELECTs
// that read like a Query or a Scan, walked through NextToken, INSERT, UPDATE
// and DELETE with conditions and RETURNING; BatchExecuteStatement of reads
// or of writes; ExecuteTransaction with EXISTS checks; partiql.go). Run
// sends every operation to two targets and compares the answers, errors included (code, message, and the item or
// cancellation reasons they carry).
//
// # What is normalized
//
// What DynamoDB leaves unspecified: the order of set elements, the order
// of BatchGetItem responses and of per-table consumed capacity lists, the
// order of scan results (a scan is walked to its end and its items compared
// as a multiset; segments are compared as their union, and one segment of
// several only for its error), and the order of index query results with
// equal index keys. Table queries are compared in order, page by page.
// Table names are compared without the target's prefix.
// Consumed capacity is compared, and asked for only where it does not depend
// on an unspecified order.
//
// And the differences from DynamoDB Local that docs/compat.md documents,
// each by a narrow rule that cites its row: numbers are compared by value
// (Config.NumbersByValue, on in TestDifferential); TransactWriteItems never
// asks for capacity; DynamoDB Local's error name DuplicateItem is read as
// DuplicateItemException; the empty maps DynamoDB Local writes untyped in
// ExecuteTransaction's cancellation items are read as {"M": {}}; and, in
// the answers of a Target marked DynamoDBLocal only, the capacity DynamoDB Local returns unasked from DeleteItem and the
// units it charges for BatchWriteItem deletes of missing items and for
// items in a sparse index neither before nor after a write (for a
// multi-attribute key: neither item has all of its attributes, both
// together have them all) are taken out,
// and the table reads of a local secondary index are counted as DynamoDB
// counts them: none for a Query whose projection the index satisfies, the
// fetch of every scanned item for a Scan that reads the table's items
// (quirks.go, which reads the items a write is about to change, or the
// items of the index, to tell).
// With Target.Streams set on both targets, every table has a stream and
// the records are compared after the final checks (streams.go): per item,
// its records in order, without sequence numbers, ids and times; DynamoDB
// Local's empty maps in stream images, which it writes as {}, are read as
// the empty maps they are (docs/compat.md).
// Nothing else is loosened: any other difference is a divergence.
//
// # Reproductions
//
// Minimize turns a divergence into a short reproduction: it replays the
// diverging operation on fresh tables after as few of the earlier writes as
// still make it diverge. PartiQL operations carry the items, partitions or
// tables their statements name (the generator records them), so that their
// writes are replayed too. FINDINGS.md lists what the comparison with
// DynamoDB Local found.
//
// # Determinism
//
// The operations depend only on the seed and the Config; they never depend
// on the answers, so both targets see the same requests and a divergence is
// reproduced by rerunning the same seed.
package difftest
