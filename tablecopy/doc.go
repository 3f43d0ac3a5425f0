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
// to 25 puts (table.MaxBatchWrite) on the destination, whose unprocessed
// items are retried with exponential backoff. Items are put as they are:
// an item the destination already holds under the same key is replaced.
//
// Copy does not stop writers of the source. An item written to the
// source during the copy is copied if its segment's scan reaches its key
// after the write, and not if the scan had passed it; an item deleted
// from the source (by a writer, or by TTL) after its page was read stays
// in the destination. Neither fails the copy. A new copy (not resumed)
// after the writers stop puts every item again and brings the
// destination up to date, but for the items deleted meanwhile.
//
// # Checking
//
// Each page of items is checked as soon as it is written: its keys are
// read back from the destination (BatchGetItem, strongly consistent, key
// attributes only), so the check compares what was copied with what the
// source held when the page was read, not two counts taken at different
// times. An item that is not found is missing, unless its TTL attribute
// (the attribute of the source table's TTL setting) is a number of
// seconds since the epoch at or before Options.Now: DynamoDB and the
// embedded engine may delete such an item at any time, so it counts as
// expired, not missing. A table with missing items fails with a
// *MismatchError; the TableReport counts the items read, found, expired
// and missing. Reading back costs the destination a read unit per item of
// up to 4 KB (BatchGetItem rounds each item up), beside the copy's write
// unit per KB: on demand, a read unit is priced at a fifth of a write
// unit.
//
// The check cannot see items that the destination holds and the source
// lacks: those of a reused destination table, or deleted from the
// source during the copy.
//
// # Failures
//
// Every table is prepared first (created on the destination, or its key
// schema compared with the existing table's), then copied and checked in
// turn. A table that fails, at any step, does not stop the next ones; the
// Report has a TableReport per table asked for, with its error, and Copy
// returns the errors of the tables that failed, joined. Only the end of
// the context stops a copy.
//
// # Resuming
//
// With Options.StateFile, Copy records its progress in a JSON file, written
// atomically (a temporary file renamed over it) after each page of items a
// segment has written and checked: the tables asked for, the tables and
// their segment count, and for each segment whether it is done or the
// cursor after its last page. A later Copy with Options.Resume and the
// same state file skips finished segments and resumes the others after
// their last page, so an interrupted copy (a cancelled context, a killed
// process, a network failure) ends complete; the items of a page that was
// being written are put again, which is harmless. The segment count of a
// table is fixed by the first run that saw it; a table that failed its
// check starts again from the beginning. Without Resume, a state file that
// exists is an error (ErrStateExists), so that an interrupted copy is not
// discarded by accident; with Resume, a missing one is ErrNoState. The
// state file is removed once every table is copied and checked.
package tablecopy
