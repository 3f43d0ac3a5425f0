package analytics

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timetable-db/timetable/local"
)

// openLoopStore opens a Store on an in-memory engine whose clock stands at
// now, with the background aggregation every interval, logging to logger
// (nil discards), and a site "s".
func openLoopStore(t *testing.T, now time.Time, every time.Duration, logger *slog.Logger) *Store {
	t.Helper()
	ctx := context.Background()
	clk := func() time.Time { return now }
	db, err := local.Open("", &local.Options{InMemory: true, Now: clk, CacheSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := Open(ctx, db, &Options{Now: clk, AggregateEvery: every, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSite(ctx, Site{ID: "s", Domains: []string{"s.example"}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// The Store's loop aggregates the days Record marks, without a call to
// AggregatePending, and Close stops it.
func TestStore_AggregateEvery(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	s := openLoopStore(t, now, time.Millisecond, nil)
	if err := s.Record(ctx, Event{Site: "s", Time: now.Add(-time.Minute), Name: PageView, VisitorID: "v1", Path: "/"}); err != nil {
		t.Fatal(err)
	}
	day := now.Truncate(24 * time.Hour)
	var views int64
	for deadline := time.Now().Add(30 * time.Second); views != 1 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		sum, err := s.Summary(ctx, "s", day, day.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		views = sum.PageViews
	}
	if views != 1 {
		t.Fatalf("the aggregates count %d page views after 30 s, want 1: the loop did not aggregate", views)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.bg.done:
	default:
		t.Fatal("the loop still runs after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A negative AggregateEvery runs no loop: the marked day stays
// unaggregated until AggregatePending.
func TestStore_AggregateEvery_Off(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	s := openLoopStore(t, now, -1, nil)
	select {
	case <-s.bg.done:
	case <-time.After(30 * time.Second):
		t.Fatal("no loop should run, yet it has not returned after 30 s")
	}
	if err := s.Record(ctx, Event{Site: "s", Time: now.Add(-time.Minute), Name: PageView, VisitorID: "v1", Path: "/"}); err != nil {
		t.Fatal(err)
	}
	day := now.Truncate(24 * time.Hour)
	if sum, err := s.Summary(ctx, "s", day, day.Add(24*time.Hour)); err != nil || sum.PageViews != 0 {
		t.Fatalf("before AggregatePending: %d page views, %v; want 0", sum.PageViews, err)
	}
	if n, err := s.AggregatePending(ctx); err != nil || n != 1 {
		t.Fatalf("AggregatePending = %d, %v; want 1 day", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// The default interval is a minute.
func TestOptions_AggregateEvery_Default(t *testing.T) {
	if got := (*Options)(nil).withDefaults().AggregateEvery; got != time.Minute {
		t.Errorf("default AggregateEvery = %v, want 1m", got)
	}
	if got := (&Options{AggregateEvery: -1}).withDefaults().AggregateEvery; got != -1 {
		t.Errorf("AggregateEvery -1 became %v", got)
	}
}

// failures is a log handler that counts the failed passes logged.
type failures struct{ n atomic.Int64 }

func (f *failures) Enabled(context.Context, slog.Level) bool { return true }
func (f *failures) WithAttrs([]slog.Attr) slog.Handler       { return f }
func (f *failures) WithGroup(string) slog.Handler            { return f }

func (f *failures) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "cannot aggregate the web analytics" && r.Level == slog.LevelError {
		f.n.Add(1)
	}
	return nil
}

// A pass that fails is logged, and the loop goes on until Close.
func TestStore_AggregateEvery_LogsFailure(t *testing.T) {
	var logged failures
	now := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	s := openLoopStore(t, now, time.Millisecond, slog.New(&logged))
	if err := s.Table().Drop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); logged.n.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := logged.n.Load(); n < 2 {
		t.Fatalf("%d failed passes logged after 30 s, want 2 or more", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
