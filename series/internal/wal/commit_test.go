package wal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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

// TestLog_SyncFailure: a failed fsync fails the Appends of its commit, and
// the next commit cuts their frames off and works again: the log need not
// be reopened.
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
	if _, err := l.Append(context.Background(), []byte("lost too")); !errors.Is(err, boom) {
		t.Fatalf("Append while syncs fail = %v, want %v", err, boom)
	}
	fail = false
	if lsn := appendT(t, l, "after"); lsn != 2 {
		t.Fatalf("Append after the failure got LSN %d, want 2 (the failed ones given again)", lsn)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	l = openT(t, dir, nil)
	if got := recs(replayT(t, l)); !slices.Equal(got, []string{"kept", "after"}) {
		t.Fatalf("after reopen = %q, want kept, after", got)
	}
}

// TestLog_DiskFull_Recovers: with the disk full (writes fail with ENOSPC
// after writing part of the commit), Appends fail with ENOSPC, a Release
// is kept, and once space is back the log takes Appends again without a
// reopen; after a restart exactly the acknowledged records are replayed,
// the released ones excepted.
func TestLog_DiskFull_Recovers(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	fs := &hookFS{onWrite: func(p []byte) (int, error) {
		if full.Load() {
			return len(p) / 2, syscall.ENOSPC
		}
		return 0, nil
	}}
	l, err := Open(dir, &Options{FS: fs, SegmentSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	var acked []string
	for i := range 5 {
		r := fmt.Sprintf("before %d %s", i, strings.Repeat("x", 40))
		appendT(t, l, r)
		acked = append(acked, r)
	}
	full.Store(true)
	if err := l.Release(2); err != nil {
		t.Fatalf("Release with the disk full = %v", err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := l.Append(context.Background(), []byte(fmt.Sprintf("refused %d %s", i, strings.Repeat("y", 60))))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("Append with the disk full = %v, want ENOSPC", err)
			}
		})
	}
	wg.Wait()
	// Check's commit writes the release marker still owed: it fails too.
	if err := l.Check(context.Background()); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Check with the disk full = %v, want ENOSPC", err)
	}
	full.Store(false)
	if err := l.Check(context.Background()); err != nil {
		t.Fatalf("Check once space is back = %v", err)
	}
	for i := range 5 {
		r := fmt.Sprintf("after %d %s", i, strings.Repeat("z", 40))
		appendT(t, l, r)
		acked = append(acked, r)
	}
	if _, err := l.Append(context.Background()); err != nil {
		t.Fatalf("barrier after the disk full = %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	l = openT(t, dir, nil)
	if got, want := recs(replayT(t, l)), acked[2:]; !slices.Equal(got, want) {
		t.Fatalf("replayed after the disk full:\n%q\nwant\n%q", got, want)
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
