package wal

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
)

// gate blocks the first segment sync after arm until open is closed.
type gate struct {
	entered chan struct{}
	open    chan struct{}
	once    sync.Once
	armed   bool
}

func newGate() *gate { return &gate{entered: make(chan struct{}), open: make(chan struct{})} }

func (g *gate) hook(int) error {
	if !g.armed {
		return nil
	}
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.entered)
		<-g.open
	}
	return nil
}

func waitFor(cond func() bool) {
	for !cond() {
		runtime.Gosched()
	}
}

func TestLog_GroupCommit(t *testing.T) {
	g := newGate()
	fs := &hookFS{onSync: g.hook}
	l := openT(t, t.TempDir(), &Options{FS: fs})
	g.armed = true // after Open: only commits sync from here

	var wg sync.WaitGroup
	lsns := make([]uint64, 64)
	wg.Go(func() { lsns[0] = appendT(t, l, "first") })
	<-g.entered // the first commit is syncing
	for i := 1; i < len(lsns); i++ {
		wg.Go(func() { lsns[i] = appendT(t, l, "follower") })
	}
	waitFor(func() bool { return l.Stats().Records == 64 })
	close(g.open)
	wg.Wait()

	st := l.Stats()
	if st.Appends != 64 || st.Syncs != 2 {
		t.Fatalf("64 appends took %d syncs, want 2 (one for the first, one for all others): %+v", st.Syncs, st)
	}
	seen := map[uint64]bool{}
	for _, lsn := range lsns {
		if lsn == 0 || seen[lsn] || lsn > 64 {
			t.Fatalf("bad or duplicate lsn %d in %v", lsn, lsns)
		}
		seen[lsn] = true
	}
}

func TestLog_GroupCommit_ManyWriters(t *testing.T) {
	l := openT(t, t.TempDir(), nil)
	const writers, each = 64, 20
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				appendT(t, l, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
			}
		})
	}
	wg.Wait()
	st := l.Stats()
	t.Logf("%d appends, %d syncs", st.Appends, st.Syncs)
	if st.Appends != writers*each || st.Syncs >= st.Appends {
		t.Fatalf("Stats = %+v: want fewer syncs than appends", st)
	}
}

func TestLog_SyncFailure(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("disk on fire")
	fail := false
	fs := &hookFS{onSync: func(int) error {
		if fail {
			return boom
		}
		return nil
	}}
	l, err := Open(dir, &Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	appendT(t, l, "kept")
	fail = true
	if _, err := l.Append(context.Background(), []byte("lost")); !errors.Is(err, boom) {
		t.Fatalf("Append with failing sync = %v, want %v", err, boom)
	}
	fail = false
	if _, err := l.Append(context.Background(), []byte("after")); !errors.Is(err, boom) {
		t.Fatalf("Append after a failed sync = %v, want the sticky %v", err, boom)
	}
	if err := l.Release(1); !errors.Is(err, boom) {
		t.Fatalf("Release after a failed sync = %v", err)
	}
	if err := l.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close = %v, want %v", err, boom)
	}
	l = openT(t, dir, nil)
	got := recs(replayT(t, l))
	if len(got) == 0 || got[0] != "kept" {
		t.Fatalf("after reopen = %v, want kept first", got)
	}
}

func TestLog_Append_ContextDone(t *testing.T) {
	g := newGate()
	l := openT(t, t.TempDir(), &Options{FS: &hookFS{onSync: g.hook}, MaxPendingBytes: 100})
	g.armed = true
	var wg sync.WaitGroup
	wg.Go(func() { appendT(t, l, "first") })
	<-g.entered

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Waiting for durability ends with the context...
	if _, err := l.Append(ctx, []byte("second")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Append = %v, want context.Canceled", err)
	}
	// ...and so does waiting for room (backpressure), with 100 bytes pending.
	if _, err := l.Append(ctx, make([]byte, 100)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Append over MaxPendingBytes = %v, want context.Canceled", err)
	}
	close(g.open)
	wg.Wait()
	// The canceled record was not discarded: it may still become durable.
	if lsn := appendT(t, l, "third"); lsn != 3 {
		t.Fatalf("lsn = %d, want 3", lsn)
	}
	if got := recs(replayT(t, l)); len(got) != 3 || got[1] != "second" {
		t.Fatalf("Replay = %v", got)
	}
}

func TestLog_Append_TooLarge(t *testing.T) {
	l := openT(t, t.TempDir(), nil)
	big := make([]byte, MaxRecordSize+1)
	if _, err := l.Append(context.Background(), big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Append = %v, want ErrTooLarge", err)
	}
}
