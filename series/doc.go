// Package series is timetable's time-series store, built on the DynamoDB
// single-table patterns over any timetable.API: the embedded engine or
// DynamoDB itself, with the same results.
//
// A Store holds one table. Each Schema registered with Open is a Kind of
// series (sensors, log streams, accounts), with its float fields, string
// tags, storage layout, rollup tiers, retention, write shards and optional
// metric index.
package series
