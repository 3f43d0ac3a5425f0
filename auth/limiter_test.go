package auth

import (
	"fmt"
	"testing"
	"time"
)

func newTestLimiter(perSecond float64, burst int) (*Limiter, *clock) {
	clk := newClock()
	l := NewLimiter(perSecond, burst)
	l.now = clk.Now
	return l, clk
}

func TestLimiter_Allow(t *testing.T) {
	l, clk := newTestLimiter(2, 3) // 2 a second, bursts of 3
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d of a burst of 3 refused", i)
		}
	}
	ok, retry := l.Allow("a")
	if ok || retry != 500*time.Millisecond {
		t.Fatalf("4th request: %v, retry after %v; want refused, 500ms", ok, retry)
	}
	// A refused request takes nothing: the wait does not grow.
	if ok, retry := l.Allow("a"); ok || retry != 500*time.Millisecond {
		t.Fatalf("5th request: %v, %v; want refused, 500ms", ok, retry)
	}
	// Another id has its own bucket.
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another id refused")
	}
	clk.Advance(500 * time.Millisecond)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refused after the wait it announced")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("allowed a second request with one refilled")
	}
}

func TestLimiter_Unlimited(t *testing.T) {
	var nilLimiter *Limiter
	for _, l := range []*Limiter{nilLimiter, NewLimiter(0, 1), NewLimiter(-1, 0)} {
		for range 100 {
			if ok, _ := l.Allow("a"); !ok {
				t.Fatalf("%+v refused a request", l)
			}
		}
		if l.Len() != 0 {
			t.Fatalf("an unlimited Limiter holds %d buckets", l.Len())
		}
	}
}

// TestLimiter_Bounded: buckets of ids idle long enough to be full again
// are dropped, and dropping them changes no answer.
func TestLimiter_Bounded(t *testing.T) {
	l, clk := newTestLimiter(1, 2) // refills from empty in 2 s
	for i := range 1000 {
		l.Allow(fmt.Sprint("id", i))
	}
	if n := l.Len(); n != 1000 {
		t.Fatalf("%d buckets, want 1000", n)
	}
	l.Allow("busy")
	l.Allow("busy")
	clk.Advance(2 * time.Second)
	if ok, _ := l.Allow("busy"); !ok { // refilled; sweeps the idle ones
		t.Fatal("refused after a full refill")
	}
	if n := l.Len(); n != 1 {
		t.Fatalf("%d buckets after the idle ones refilled, want 1", n)
	}
	// Whether busy's bucket was dropped and made anew or kept, it is the
	// refilled burst of 2: one request left.
	if ok, _ := l.Allow("busy"); !ok {
		t.Fatal("busy's second request refused")
	}
	if ok, _ := l.Allow("busy"); ok {
		t.Fatal("busy's third request allowed")
	}
}
