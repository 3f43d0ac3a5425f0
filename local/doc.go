// Package local is timetable's embedded engine: DynamoDB's API, in process,
// on one Pebble database.
//
// # Use
//
// Open returns a *DB whose methods have the signatures of aws-sdk-go-v2's
// *dynamodb.Client (CreateTable, PutItem, Query, TransactWriteItems, ...),
// so code written against the client, or against timetable.API, runs on it
// unchanged:
//
//	db, err := local.Open("data", nil) // or &local.Options{InMemory: true}
//	...
//	defer db.Close()
//	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item})
//
// A DB is safe for concurrent use. Errors are the SDK's: the typed
// exceptions of package types (*types.ConditionalCheckFailedException,
// *types.TransactionCanceledException, *types.ResourceNotFoundException,
// ...) and, for ValidationException, a *smithy.GenericAPIError, each wrapped
// in a *smithy.OperationError as the client wraps them. Messages are
// DynamoDB's, as DynamoDB Local words them, and a request with several
// problems gets the error DynamoDB Local gives it: each operation makes its
// checks in DynamoDB Local's order (a transaction's operations one by one,
// an update's actions in the order of DynamoDB Local's tree of paths).
//
// # Semantics
//
// The engine follows DynamoDB (and, where the two differ in details such as
// error wording, DynamoDB Local, against which it is tested):
//
//   - items up to 400 KB, partition keys up to 2048 bytes, sort keys up to
//     1024; numbers with 38 significant digits, stored in canonical form;
//   - conditional writes and updates are atomic per item; transactions are
//     atomic and isolated; BatchWriteItem commits its writes together;
//   - global and local secondary indexes are sparse and are written in the
//     same atomic batch as their item; a new global index is filled before
//     UpdateTable returns;
//   - a global index's key may have up to four partition and four sort
//     attributes (multi-attribute keys, multikey.go), queried with
//     DynamoDB's rules: equality on every partition attribute, sort
//     attributes from the left;
//   - Query and Scan pages end after Limit items or 1 MB, with
//     LastEvaluatedKey; Scan segments split the hash space evenly;
//   - consumed capacity is computed with DynamoDB's size rules;
//   - items whose TTL has passed are deleted by a background sweeper every
//     Options.TTLInterval; until then reads return them, as DynamoDB's do;
//   - a table's StreamSpecification enables DynamoDB Streams: DB also has
//     the methods of *dynamodbstreams.Client (timetable.StreamsAPI), and
//     each change of an item is recorded in the same atomic batch as the
//     change; records are kept 24 hours.
//
// Reads are always consistent: ConsistentRead only changes the capacity
// reported. ClientRequestTokens are remembered in memory for ten minutes.
//
// # Code
//
// Each operation has a file, named for it (get.go, put.go, query.go,
// transact_write.go, create_table.go, update_ttl.go, ...), that holds its
// method and its implementation; every method runs through operation or
// tableOperation (db.go), which hold the database open and wrap errors as
// the SDK does. What operations share has a file of its own: params.go
// compiles request parameters; write.go is the write pipeline (validate,
// lock, read the old item, apply the condition and update, stage the item,
// its index entries and TTL entry, commit); read.go pages Query and Scan;
// store.go reads and writes encoded items; catalog.go and table.go hold
// table definitions; errors.go the errors; ttl.go the sweeper; token.go the
// ClientRequestToken cache. Beyond the core operations:
//
//   - Streams: stream.go streams and their retention, stream_record.go the
//     records staged by the write pipeline, stream_iterator.go shard
//     iterators, streams_api.go the four operations of DynamoDB Streams;
//   - PartiQL: partiql.go (ExecuteStatement), partiql_batch.go
//     (BatchExecuteStatement, ExecuteTransaction) and partiql_expr.go run
//     statements, parsed by internal/partiql, as the engine's own Query,
//     Scan and writes: WHERE clauses, SET values and projections become
//     expressions for internal/expr;
//   - side operations: tags.go the tags, which live in a table's
//     definition; backups.go, describe_limits.go and absent_features.go
//     (continuous backups, quotas, and the empty answers about backups,
//     exports, imports, global tables, Contributor Insights, Kinesis
//     destinations and replica auto scaling, which the engine lacks).
//
// DynamoDB's value semantics (type names, equality, order, numbers) live
// in internal/value and internal/number, which the expression evaluator
// (internal/expr) and the key codec (internal/codec) share with this
// package.
//
// # Storage
//
// docs/format/engine.md describes the keys and values in Pebble. Writes are
// synced to Pebble's write-ahead log before they are acknowledged unless
// Options.NoSync is set; concurrent writers share syncs. A write (with its
// index entries and stream record, in one batch) is visible to readers
// from the moment it is in the memtable, just before its sync, as every
// Pebble write is: a crash between the two can lose a write that a reader
// saw, but never one that was acknowledged, and never part of one. In memory
// (Options.InMemory) Pebble keeps no write-ahead log and nothing is synced:
// there is nothing to recover.
//
// # A full disk
//
// Pebble treats a failed write of its log or manifest as fatal. Writes are
// therefore refused while the data folder's disk has less than
// Options.MinFreeBytes available, with a ServiceUnavailable error that
// matches timetable.ErrDiskFull, and resume once space is freed. If a
// write of Pebble's still fails (the disk filled faster, or an I/O error),
// the write gets that error (it was not acknowledged), the engine refuses
// every write from then on (timetable.ErrStorageFailed; reads go on), and
// Close returns at once without closing Pebble: the process must exit, and
// the next Open recovers every acknowledged write from the log. DB.Writable
// reports either state, for a server's readiness. See failure.go.
package local
