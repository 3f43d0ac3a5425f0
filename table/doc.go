// Package table is a single-table client over any timetable.API: the
// embedded engine of package local, or a DynamoDB client.
//
// A Table is described by its Schema: the table's name, the names of its
// key attributes and those of its indexes. Nothing in this package assumes
// attribute names such as pk and sk.
//
// # Items and keys
//
// An Item is the SDK's map of attribute values. Put accepts an Item or any
// Go value that attributevalue.MarshalMap accepts (structs with
// `dynamodbav` tags); Unmarshal and UnmarshalAll decode items into Go
// values. A Key gives the values of the table's key attributes.
//
// # Writes
//
// Put, Delete and Update take an optional condition (Cond, built with Attr,
// And, Or, Not). Update takes an *Update built with typed operations: Set,
// SetIfNotExists, Remove, Add, Increment, Delete, Append, and Min and Max.
// DynamoDB has no atomic minimum or maximum; Min and Max are conditional
// updates (attribute_not_exists(a) OR a > v) retried on conflict, so that
// concurrent writers never lose a smaller (or larger) value.
//
// # Reads
//
// Query reads one partition of the table or of an index, with a key
// condition on its range key (Eq, BeginsWith, Between, Lt, Lte, Gt, Gte),
// a filter, a projection, reverse order and a limit. A page ends with an
// opaque cursor built from the last item returned, never from a
// LastEvaluatedKey of an internal call, so that a filtered page, a page cut
// at DynamoDB's 1 MB or a page cut by Limit never skips an item. QueryAll
// and ScanAll iterate over every page (iter.Seq2); Iter is the
// Next/Err/Close form. ScanAll can scan segments in parallel.
//
// # Batches and retries
//
// BatchGet and BatchWrite take any number of keys or writes, split them
// into DynamoDB's 100 keys and 25 writes (MaxBatchWrite) per call, and
// retry unprocessed items with exponential backoff
// and full jitter until Options.RetryTimeout or the context ends. Items they
// could not read or write come back in a *BatchError; they are never
// dropped. Every call is retried on throttling and 5xx errors the same way.
// As with any DynamoDB client, a conditional write whose first attempt
// succeeded but whose answer was lost (a 5xx after the fact) fails its
// condition when retried; transactions avoid this with a client request
// token. BatchWriteWith runs a batch's calls on several goroutines at
// once when the order of its writes does not matter.
//
// A missing table is noticed without wrapping the API: Options.OnTableMissing
// is called when an item operation fails with ResourceNotFoundException
// (IsTableMissing).
//
// # Leases
//
// TakeLease, ReleaseLease and LeaseHolder keep a lease in an item of the
// table (a conditional put with an expiry), so that processes sharing the
// table do a unit of background work once and take it over when its
// holder dies (lease.go).
//
// # Consumed capacity
//
// Every call asks for ReturnConsumedCapacity TOTAL, and Stats reports the
// read and write units consumed per DynamoDB operation name, so that a run
// on the embedded engine shows what it would cost on DynamoDB.
//
// A Table is safe for concurrent use.
package table
