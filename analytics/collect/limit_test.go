package collect

import (
	"net/netip"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/testenv"
)

func key(site, ip string) limitKey {
	return limitKey{site: site, ip: clientKey(netip.MustParseAddr(ip))}
}

func TestLimiter(t *testing.T) {
	clk := testenv.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := newLimiter(2, 3, 2, clk.Now) // 2/s, bursts of 3, 2 keys kept
	a := key("s", "127.0.0.1")
	for i := range 3 {
		if ok, _ := l.allow(a); !ok {
			t.Fatalf("hit %d of the burst refused", i)
		}
	}
	ok, wait := l.allow(a)
	if ok || wait <= 0 || wait > 500*time.Millisecond {
		t.Fatalf("over the burst: %v, wait %v; want refused, wait (0, 500ms]", ok, wait)
	}
	// Another site and another address have buckets of their own.
	if ok, _ := l.allow(key("t", "127.0.0.1")); !ok {
		t.Error("another site refused")
	}
	clk.Advance(500 * time.Millisecond)
	if ok, _ := l.allow(a); !ok {
		t.Error("refused after a token came back")
	}
	if ok, _ := l.allow(a); ok {
		t.Error("allowed twice with one token")
	}
	// Two more keys evict a (the least recently seen): it starts afresh.
	l.allow(key("s", "127.0.0.2"))
	l.allow(key("s", "127.0.0.3"))
	if n := l.cache.Len(); n != 2 {
		t.Errorf("%d keys kept, want 2", n)
	}
	if ok, _ := l.allow(a); !ok {
		t.Error("an evicted key is still limited")
	}
}
