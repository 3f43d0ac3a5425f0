// Package keys builds and parses the sort and partition key strings of the
// DynamoDB single-table time-series patterns.
//
// Every builder has a parser, and every parser returns an error (never
// panics) on input the builder cannot produce. All time-based keys are in
// UTC and of fixed width, so that the byte order of two keys of one kind is
// the time order of the instants they name; this is what lets a DynamoDB
// range condition (BETWEEN, begins_with, <, >) select a time range.
//
// # Formats
//
//	Entity("SENSOR", "123")            SENSOR#123
//	Composite("SENSOR", "123", "RAW")  SENSOR#123#RAW
//	TimeSeries(t, Year)                2024
//	TimeSeries(t, Month)               2024-12
//	TimeSeries(t, Day)                 2024-12-01
//	TimeSeries(t, Hour)                2024-12-01-14
//	TimeSeries(t, Minute)              2024-12-01-14-30
//	Timestamp(t)                       2024-12-01T14:30:00.000Z
//	TimestampPrefix(t, Hour)           2024-12-01T14 (begins_with over timestamps)
//	TimeOfDay(t)                       14:30:00.000
//	UniqueSeq(t, 42)                   2024-12-01T14:30:00.000Z#000000000000002a
//	TTL(t), TTLAttr(t)                 1733063400 (epoch seconds)
//	Shard("123", 16)                   S11 (FNV-1a 32 of the id, modulo n)
//	ShardedEntity("SENSOR", "123", 16) SENSOR#123#S11
//
// Each coarser time-series key is a prefix of the finer ones of the same
// instant ("2024-12" of "2024-12-01-14"), so begins_with on a coarse key
// selects every finer key inside that period.
//
// # One format per partition
//
// Keys of different formats do not interleave in time order: '-' sorts
// before 'T', so the hour key "2024-12-01-14" sorts before the timestamp
// "2024-12-01T00:00:00.000Z" of an earlier hour. Keep one sort-key format
// per partition (or behind distinct prefixes, such as "H#" and "R#").
//
// # Years
//
// Time keys cover the years 0000 to 9999, the range in which four digits
// keep their order. Builders given an instant outside it return ErrRange
// (the Must forms panic).
package keys
