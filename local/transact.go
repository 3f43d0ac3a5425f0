package local

import (
	"sync"
	"time"
)

// tokenCache remembers the ClientRequestTokens of TransactWriteItems for
// ten minutes, with a fingerprint of each request.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]tokenEntry
}

type tokenEntry struct {
	fingerprint [32]byte
	at          time.Time
}
