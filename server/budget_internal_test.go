package server

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestBudget_Acquire: bytes free are had at once; bytes held elsewhere
// are waited for, within the wait, else refused 503 with Retry-After;
// more than the whole budget is refused 413 at once; a done context
// ends the wait with its error; Release gives back, Stats counts.
func TestBudget_Acquire(t *testing.T) {
	ctx := context.Background()
	status := func(err error) int {
		var ae *apiError
		if !errors.As(err, &ae) {
			t.Fatalf("error %v (%T), want an *apiError", err, err)
		}
		return ae.status
	}
	b := NewBudget(100, -1)
	if err := b.Acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	err := b.Acquire(ctx, 60)
	if status(err) != http.StatusServiceUnavailable || err.(*apiError).retryAfter <= 0 {
		t.Errorf("over what is free: %v", err)
	}
	if status(b.Acquire(ctx, 101)) != http.StatusRequestEntityTooLarge {
		t.Errorf("over the budget: not 413")
	}
	if st := b.Stats(); st.Held != 60 || st.Peak != 60 || st.Size != 100 {
		t.Errorf("stats %+v", st)
	}

	// A long wait ends when the bytes are released.
	w := NewBudget(100, time.Hour)
	if err := w.Acquire(ctx, 100); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- w.Acquire(ctx, 50) }()
	w.Release(100)
	if err := <-done; err != nil {
		t.Errorf("after the release: %v", err)
	}
	// ... or when the context is done.
	cctx, cancel := context.WithCancel(ctx)
	go func() { done <- w.Acquire(cctx, 80) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if st := w.Stats(); st.Held != 50 {
		t.Errorf("held %d, want 50", st.Held)
	}
}
