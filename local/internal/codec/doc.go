// Package codec turns DynamoDB values into bytes and back for the embedded
// engine.
//
// # Keys
//
// AppendKey encodes a key value (S, N or B) so that bytes.Compare of two
// encodings of the same type orders them as DynamoDB orders the values:
// strings and binaries by unsigned bytes, numbers by numeric value. Every
// encoding is self-delimiting and no encoding is a prefix of another, so a
// partition key followed by a sort key can be concatenated and split again
// with DecodeKey, and the encoding of a partition key is a prefix of exactly
// the (partition, sort) pairs of that partition.
//
// # Items
//
// AppendItem encodes a whole item (all ten attribute types, nested) into a
// compact binary form that DecodeItem reads back. DecodeItem never panics
// and bounds its allocations by the length of its input, so corrupt data
// yields an error.
//
// # Sizes
//
// ItemSize and AttrSize compute sizes with DynamoDB's rules, which drive
// the 400 KB item limit and consumed capacity.
//
// The byte formats are described in docs/format/codec.md.
package codec
