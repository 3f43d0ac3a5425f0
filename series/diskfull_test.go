package series

import (
	"context"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/series/internal/wal"
)

// fullFS is the operating system's file system for the write-ahead log,
// whose file writes fail with ENOSPC (after writing half) while full is
// set.
type fullFS struct {
	wal.OSFS
	full *atomic.Bool
}

type fullFile struct {
	wal.File
	full *atomic.Bool
}

func (fs fullFS) OpenFile(name string, flag int, perm os.FileMode) (wal.File, error) {
	f, err := fs.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return fullFile{f, fs.full}, nil
}

func (f fullFile) Write(p []byte) (int, error) {
	if f.full.Load() && len(p) > 0 {
		n, _ := f.File.Write(p[:len(p)/2])
		return n, &os.PathError{Op: "write", Path: "segment", Err: syscall.ENOSPC}
	}
	return f.File.Write(p)
}

// TestStore_DiskFull_WALRecovers: while the write-ahead log's disk is full,
// Write fails with an error that timetable.IsDiskFull recognizes and Ready
// fails; once space is back, without a reopen, Ready passes and Write
// succeeds; after a restart every acknowledged reading is there and the
// refused one is not.
func TestStore_DiskFull_WALRecovers(t *testing.T) {
	ctx := context.Background()
	db := testenv.MemDB(t, nil)
	walDir := t.TempDir()
	var full atomic.Bool
	open := func() *Store {
		st, err := Open(ctx, db, &Options{WALDir: walDir, walFS: fullFS{full: &full}, MaxFuture: -1, FlushInterval: -1, RollupInterval: -1, CompactInterval: -1},
			Schema{Name: "DEV", Fields: []string{"v"}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	k := mustKind(t, st, "DEV")
	at := func(i int) Reading {
		return Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{float64(i)}}
	}
	if err := k.Write(ctx, "d", at(1)); err != nil {
		t.Fatal(err)
	}

	full.Store(true)
	err := k.Write(ctx, "d", at(2))
	if !timetable.IsDiskFull(err) {
		t.Fatalf("Write with the disk full = %v, want a disk-full error", err)
	}
	if err := st.Ready(); !timetable.IsDiskFull(err) {
		t.Fatalf("Ready with the disk full = %v, want a disk-full error", err)
	}

	full.Store(false)
	if err := st.Ready(); err != nil {
		t.Fatalf("Ready once space is back = %v", err)
	}
	if err := k.Write(ctx, "d", at(3)); err != nil {
		t.Fatalf("Write once space is back = %v", err)
	}
	// As after a crash: the readings are in the log alone, which the next
	// Open replays (the old Store is abandoned, not closed).
	if err := st.wal.Close(); err != nil {
		t.Fatalf("closing the log: %v", err)
	}

	st = open()
	defer st.Close()
	k = mustKind(t, st, "DEV")
	p, err := k.Range(ctx, "d", Query{From: t0, To: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, r := range p.Readings {
		got = append(got, r.Values[0])
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("after a restart the readings are %v, want [1 3]", got)
	}
}
