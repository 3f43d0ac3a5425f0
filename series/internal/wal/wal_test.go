package wal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

type entry struct {
	lsn uint64
	rec string
}

func openT(t testing.TB, dir string, opts *Options) *Log {
	t.Helper()
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func appendT(t testing.TB, l *Log, recs ...string) uint64 {
	t.Helper()
	bs := make([][]byte, len(recs))
	for i, r := range recs {
		bs[i] = []byte(r)
	}
	lsn, err := l.Append(context.Background(), bs...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return lsn
}

func replayT(t testing.TB, l *Log) []entry {
	t.Helper()
	var got []entry
	prev := uint64(0)
	err := l.Replay(func(lsn uint64, rec []byte) error {
		if lsn <= prev {
			t.Fatalf("Replay: lsn %d after %d", lsn, prev)
		}
		prev = lsn
		got = append(got, entry{lsn, string(rec)})
		return nil
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return got
}

func recs(es []entry) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.rec)
	}
	return s
}

func closeT(t testing.TB, l *Log) {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestLog_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	l := openT(t, dir, nil)
	if got := replayT(t, l); len(got) != 0 {
		t.Fatalf("new log replays %v", got)
	}
	if lsn := appendT(t, l, "a"); lsn != 1 {
		t.Fatalf("first lsn = %d, want 1", lsn)
	}
	if lsn := appendT(t, l, "b", "", "c"); lsn != 4 {
		t.Fatalf("lsn = %d, want 4", lsn)
	}
	want := []entry{{1, "a"}, {2, "b"}, {3, ""}, {4, "c"}}
	if got := replayT(t, l); !slices.Equal(got, want) {
		t.Fatalf("Replay = %v, want %v", got, want)
	}
	closeT(t, l)

	l = openT(t, dir, nil)
	if got := replayT(t, l); !slices.Equal(got, want) {
		t.Fatalf("after reopen Replay = %v, want %v", got, want)
	}
	if lsn := appendT(t, l, "d"); lsn != 5 {
		t.Fatalf("lsn after reopen = %d, want 5", lsn)
	}
	st := l.Stats()
	if st.Appends != 1 || st.Records != 1 || st.LastLSN != 5 || st.DurableLSN != 5 || st.Segments != 1 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestLog_ReleaseReplayAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	l := openT(t, dir, nil)
	appendT(t, l, "a", "b", "c")
	if err := l.Release(2); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background()); err != nil { // barrier
		t.Fatal(err)
	}
	if got := recs(replayT(t, l)); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("Replay after Release(2) = %v", got)
	}
	appendT(t, l, "d")
	closeT(t, l)

	l = openT(t, dir, nil)
	if got := recs(replayT(t, l)); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("Replay after reopen = %v", got)
	}
	if st := l.Stats(); st.ReleasedLSN != 2 {
		t.Fatalf("ReleasedLSN = %d, want 2", st.ReleasedLSN)
	}
	last := appendT(t, l, "e")
	if err := l.Release(last); err != nil {
		t.Fatal(err)
	}
	closeT(t, l)
	l = openT(t, dir, nil)
	if got := replayT(t, l); len(got) != 0 {
		t.Fatalf("Replay after releasing all = %v", got)
	}
}

func TestLog_Concurrent(t *testing.T) {
	dir := t.TempDir()
	l := openT(t, dir, &Options{SegmentSize: 4 << 10})
	const writers, each = 16, 50
	var (
		mu   sync.Mutex
		acks = map[uint64]string{}
		wg   sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				rec := fmt.Sprintf("w%d-%d", w, i)
				lsn, err := l.Append(context.Background(), []byte(rec))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acks[lsn] = rec
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(acks) != writers*each {
		t.Fatalf("%d distinct lsns, want %d", len(acks), writers*each)
	}
	closeT(t, l)
	l = openT(t, dir, &Options{SegmentSize: 4 << 10})
	got := replayT(t, l)
	if len(got) != len(acks) {
		t.Fatalf("replayed %d, want %d", len(got), len(acks))
	}
	for _, e := range got {
		if acks[e.lsn] != e.rec {
			t.Fatalf("lsn %d = %q, want %q", e.lsn, e.rec, acks[e.lsn])
		}
	}
	if st := l.Stats(); st.Segments < 2 {
		t.Fatalf("Segments = %d, want rotation", st.Segments)
	}
}

func TestLog_Closed(t *testing.T) {
	l := openT(t, t.TempDir(), nil)
	closeT(t, l)
	if _, err := l.Append(context.Background(), []byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close = %v", err)
	}
	if err := l.Release(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Release after Close = %v", err)
	}
}

func segFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.wal"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

var _ = os.Remove

func TestOpen_Locked(t *testing.T) {
	dir := t.TempDir()
	l := openT(t, dir, nil)
	if _, err := Open(dir, nil); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	closeT(t, l)
	openT(t, dir, nil) // the lock went with Close
}

// dirSize returns the bytes of the segment files in dir.
func dirSize(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	for _, f := range segFiles(t, dir) {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// TestLog_ReleaseAll_DropsRecords: once every record is released, the
// log's files hold a header and a marker, not the records; a release of
// less keeps them. Replay and the LSNs go on as before, across a reopen.
func TestLog_ReleaseAll_DropsRecords(t *testing.T) {
	dir := t.TempDir()
	l := openT(t, dir, nil)
	big := strings.Repeat("r", 1000)
	var last uint64
	for range 100 {
		last = appendT(t, l, big)
	}
	l.Release(last - 1)
	l.Append(t.Context())
	if size := dirSize(t, dir); size < 100*1000 {
		t.Fatalf("%d bytes after releasing all but one record, want them kept", size)
	}
	if got := recs(replayT(t, l)); len(got) != 1 {
		t.Fatalf("Replay = %d records, want 1", len(got))
	}
	l.Release(last)
	l.Append(t.Context())
	const small = segHeaderSize + 2*(frameHeader+8)
	if size, files := dirSize(t, dir), segFiles(t, dir); size > small || len(files) != 1 {
		t.Fatalf("after releasing every record: %d bytes in %v, want at most %d in one segment", size, files, small)
	}
	if st := l.Stats(); st.Segments != 1 || st.ReleasedLSN != last {
		t.Fatalf("Stats = %+v", st)
	}
	if got := replayT(t, l); len(got) != 0 {
		t.Fatalf("Replay = %v, want nothing", got)
	}
	next := appendT(t, l, "after")
	if next <= last+1 {
		t.Fatalf("lsn %d, want above %d and the marker", next, last)
	}
	closeT(t, l)

	l = openT(t, dir, nil)
	if got := replayT(t, l); !slices.Equal(got, []entry{{next, "after"}}) {
		t.Fatalf("Replay after reopen = %v", got)
	}
	// Released again with nothing new: the segment holding "after" goes.
	l.Release(next)
	l.Append(t.Context())
	if size := dirSize(t, dir); size > small {
		t.Fatalf("%d bytes after releasing everything again", size)
	}
	if lsn := appendT(t, l, "more"); lsn <= next {
		t.Fatalf("lsn %d after %d", lsn, next)
	}
}

// TestLog_ReleaseAll_CrashBeforeDelete: a crash after the new segment and
// its marker are durable but before the old segment is deleted leaves
// both; Open replays nothing, numbers on, and a later release of
// everything deletes the old one.
func TestLog_ReleaseAll_CrashBeforeDelete(t *testing.T) {
	dir := t.TempDir()
	l := openT(t, dir, nil)
	last := appendT(t, l, "a", "b", "c")
	old := segFiles(t, dir)[0]
	saved := readFile(t, old)
	l.Release(last)
	l.Append(t.Context())
	closeT(t, l)
	if files := segFiles(t, dir); len(files) != 1 || files[0] == old {
		t.Fatalf("segments %v, want one new segment", files)
	}
	writeFile(t, old, saved) // as if the process died before the delete

	l = openT(t, dir, nil)
	if got := replayT(t, l); len(got) != 0 {
		t.Fatalf("Replay = %v, want nothing", got)
	}
	lsn := appendT(t, l, "d")
	if lsn <= last+1 {
		t.Fatalf("lsn %d, want above %d and the marker", lsn, last)
	}
	l.Release(lsn)
	l.Append(t.Context())
	if files := segFiles(t, dir); len(files) != 1 || slices.Contains(files, old) {
		t.Fatalf("segments %v after releasing everything", files)
	}
	closeT(t, l)
	l = openT(t, dir, nil)
	if got := replayT(t, l); len(got) != 0 {
		t.Fatalf("Replay after reopen = %v", got)
	}
}
