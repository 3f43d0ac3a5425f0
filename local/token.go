package local

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

// tokenTTL is how long a ClientRequestToken is remembered.
const tokenTTL = 10 * time.Minute

// tokenCache remembers the ClientRequestTokens of successful
// TransactWriteItems calls for ten minutes, with a fingerprint of each
// request. It lives in memory: tokens do not survive Close.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]tokenEntry
}

type tokenEntry struct {
	fingerprint [32]byte
	at          time.Time
}

// lookup reports whether token was used within ten minutes and, if so,
// whether with the same fingerprint.
func (c *tokenCache) lookup(token string, fp [32]byte, now time.Time) (seen, same bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[token]
	if !ok || now.Sub(e.at) > tokenTTL {
		return false, false
	}
	return true, e.fingerprint == fp
}

func (c *tokenCache) add(token string, fp [32]byte, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]tokenEntry{}
	}
	if len(c.m) > 1024 {
		for k, e := range c.m {
			if now.Sub(e.at) > tokenTTL {
				delete(c.m, k)
			}
		}
	}
	c.m[token] = tokenEntry{fingerprint: fp, at: now}
}

// fingerprint hashes a TransactWriteItems request canonically (map keys
// sorted, values with their types), for ClientRequestToken checks.
func fingerprint(ops []txOp) [32]byte {
	h := sha256.New()
	str := func(s string) {
		binary.Write(h, binary.BigEndian, uint32(len(s)))
		h.Write([]byte(s))
	}
	ptr := func(s *string) {
		if s == nil {
			str("\x00nil")
			return
		}
		str(*s)
	}
	names := func(m map[string]string) {
		ks := sortedKeys(m)
		str("names")
		for _, k := range ks {
			str(k)
			str(m[k])
		}
	}
	for _, op := range ops {
		str(op.kind)
		ptr(op.table)
		hashItem(h, str, op.key)
		ptr(op.req.update)
		ptr(op.req.cond)
		names(op.req.names)
		hashItem(h, str, op.req.values)
		str(string(op.req.onFail))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func hashItem(h hash.Hash, str func(string), item Item) {
	ks := make([]string, 0, len(item))
	for k := range item {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	str("item")
	for _, k := range ks {
		str(k)
		hashValue(h, str, item[k])
	}
}

func hashValue(h hash.Hash, str func(string), av types.AttributeValue) {
	str(value.TypeOf(av).String())
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		str(v.Value)
	case *types.AttributeValueMemberN:
		str(v.Value)
	case *types.AttributeValueMemberB:
		str(string(v.Value))
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			str("t")
		} else {
			str("f")
		}
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			hashValue(h, str, e)
		}
		str("end")
	case *types.AttributeValueMemberM:
		hashItem(h, str, v.Value)
	case *types.AttributeValueMemberSS:
		for _, e := range v.Value {
			str(e)
		}
	case *types.AttributeValueMemberNS:
		for _, e := range v.Value {
			str(e)
		}
	case *types.AttributeValueMemberBS:
		for _, e := range v.Value {
			str(string(e))
		}
	}
}
