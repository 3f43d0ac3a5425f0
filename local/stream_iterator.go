package local

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Shard iterators
//
// A shard iterator is the stream's ARN, "|001|", and the standard base64 of
// "<shard id>|<sequence number, 21 digits>|<issue time, milliseconds since
// the epoch, 30 digits>": the form DynamoDB Local uses. The sequence number
// is that of the next record to read. decodeIterator checks every part, so a
// forged or damaged iterator is a ValidationException ("Invalid
// ShardIterator"), never a read of another stream.

const iteratorVersion = "|001|"

// shardIterator is a decoded shard iterator.
type shardIterator struct {
	arn    string
	shard  string
	seq    uint64
	issued time.Time
}

// encodeIterator returns the shard iterator that reads shard of the stream
// sm from sequence number seq, issued at now.
func encodeIterator(sm *streamMeta, shard string, seq uint64, now time.Time) string {
	inner := fmt.Sprintf("%s|%021d|%030d", shard, seq, max(now.UnixMilli(), 0))
	return sm.arn() + iteratorVersion + base64.StdEncoding.EncodeToString([]byte(inner))
}

// maxIteratorLen bounds the iterators decodeIterator accepts: DynamoDB's
// limit on the ShardIterator parameter.
const maxIteratorLen = 2048

// parseIterator decodes a shard iterator's form; ok is false when it is not
// one.
func parseIterator(s string) (it shardIterator, ok bool) {
	if len(s) > maxIteratorLen {
		return it, false
	}
	arn, enc, found := strings.Cut(s, iteratorVersion)
	if !found || arn == "" || strings.ContainsRune(arn, '|') {
		return it, false
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(enc)
	if err != nil {
		return it, false
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 3 || len(parts[1]) != 21 || len(parts[2]) != 30 || !validShardID(parts[0]) {
		return it, false
	}
	seq, ok1 := parseDigits(parts[1])
	ms, ok2 := parseDigits(parts[2])
	if !ok1 || !ok2 || ms > 1<<53 {
		return it, false
	}
	return shardIterator{arn: arn, shard: parts[0], seq: seq, issued: time.UnixMilli(int64(ms))}, true
}

// validShardID reports whether s has the form of a shard id:
// "shardId-", 20 digits, "-", 8 hexadecimal digits.
func validShardID(s string) bool {
	rest, ok := strings.CutPrefix(s, "shardId-")
	if !ok || len(rest) != 29 || rest[20] != '-' {
		return false
	}
	if _, ok := parseDigits(rest[:20]); !ok {
		return false
	}
	_, err := strconv.ParseUint(rest[21:], 16, 32)
	return err == nil && !strings.ContainsAny(rest[21:], "+-")
}

// parseDigits parses a string of decimal digits (leading zeros allowed)
// that fits a uint64.
func parseDigits(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// formatSeq formats a sequence number as DynamoDB does: 21 digits.
func formatSeq(seq uint64) string { return fmt.Sprintf("%021d", seq) }
