package dynamotest

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var (
	tableSeq atomic.Int64
	runID    = fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
)

// TableName returns a table name unique to the test and to this process:
// prefix, the test's name with each character a table name cannot hold
// replaced by "_" (cut to 150 bytes), a run id and a sequence number.
func TableName(t testing.TB, prefix string) string {
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, t.Name())
	if len(base) > 150 {
		base = base[:150]
	}
	return fmt.Sprintf("%s_%s_%s_%d", prefix, base, runID, tableSeq.Add(1))
}
