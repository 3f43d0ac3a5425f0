// Package chunk encodes the compressed chunks of the series store: N
// readings, each a timestamp in milliseconds and K named float64 fields,
// written once per flush as the binary attribute of a new DynamoDB item.
//
// The format is Gorilla's (and Prometheus' XOR chunks') in spirit: a column
// of timestamps and one column per field, each coded on its own, so that a
// query reads only the fields it needs. Each column gets the smaller of two
// encodings, chosen per chunk and recorded in the header:
//
//   - timestamps: DeltaOfDelta (Gorilla's variable bit fields) or
//     DeltaBlocks (the deltas in integer blocks);
//   - values: XOR (Gorilla's XOR of consecutive values, any float64) or
//     Decimal (values that are integers m scaled by 10^k, such as
//     readings with two decimals, coded as deltas of m in integer blocks),
//     with patches for the values that are not (NaN, -0, a stray value),
//     and with a factor where the deltas share one (DecimalFactor: steps
//     of 0.5, byte counts in 4 KiB pages), as ALP codes decimals.
//
// Integer blocks hold 256 values each, coded either in truncated binary
// within the block's range (since format version 2, several values to a
// code, within 0.02 bits a value of the entropy of uniform steps) or with
// Rice codes, whichever is smaller. On a random walk with two decimals a
// reading takes under a byte where XOR takes about seven. Open reads
// versions 1 and 2; the Appender writes version 2. docs/format/chunk.md
// describes every bit.
//
// # Use
//
// An Appender collects readings in time order (equal timestamps allowed and
// kept), keeps per-field aggregates (count, sum, min, max, first, last) for
// the store to write as plain attributes, and Bytes encodes them. Open
// parses a chunk; its Iterator yields readings one at a time, and
// DecodeAll decodes whole columns into the caller's slices without
// allocating. Merge compacts the chunks of many small flushes into one,
// which is what keeps a day of 1 Hz readings within 10 read units.
//
// # Exactness and safety
//
// Every float64 round-trips bit for bit: NaN payloads, infinities, -0,
// subnormals and the largest values. A value that a decimal encoding
// does not reproduce bit for bit (by the decoder's own arithmetic) is
// stored whole as a patch, or the field is coded with XOR.
//
// Decoders never panic on bad input: they return errors wrapping
// ErrCorrupt. Open checks the header, and that every stream is at least as
// long as its reading count needs, so the memory a caller sizes by Len and
// NumFields is bounded by the input's length (and by MaxReadings).
package chunk
