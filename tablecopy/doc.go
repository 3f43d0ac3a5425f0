// Package tablecopy copies DynamoDB tables, their schema and every item,
// from one timetable.API to another: from the embedded engine's data
// folder to Amazon DynamoDB when a store outgrows one machine, or back.
//
// # What is copied
//
// For each table: its key schema and attribute definitions, global and
// local secondary indexes (keys and projections), billing mode (on demand,
// or provisioned with the source's throughput, at least one unit), stream
// settings if streams are on, and the time-to-live setting. Tags, the table
// class, encryption settings, deletion protection, point-in-time recovery,
// auto scaling and replicas are not copied.
//
// Then every item, with a parallel Scan of the source (Options.Segments
// segments at once, eventually consistent) and BatchWriteItem calls of up
// to 25 puts (table.MaxBatchWrite) on the destination, whose unprocessed items are retried with
// exponential backoff. Items are put as they are: an item the destination
// already holds under the same key is replaced. Copy does not stop writers
// of the source; items written during a copy may or may not be copied.
//
// # Resuming
//
// With Options.StateFile, Copy records its progress in a JSON file, written
// atomically (a temporary file renamed over it) after each page of items a
// segment has written: the tables and their segment count, and for each
// segment whether it is done or the cursor after its last written page. A
// later Copy with the same state file and the same tables skips finished
// segments and resumes the others after their last written page, so an
// interrupted copy (a cancelled context, a killed process, a network
// failure) ends complete; the items of a page that was being written are
// put again, which is harmless. The segment count of a table is fixed by
// the first run that saw it.
//
// # Verification
//
// Once its items are copied, each table is counted on both sides with a
// parallel Scan (Select COUNT); different counts are a *MismatchError.
// The destination must not take other writes meanwhile, and a reused
// destination table must hold no items the source lacks.
package tablecopy
