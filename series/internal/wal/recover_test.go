package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeLog creates a log in a new directory with one Append per element of
// writes (each a group of records) and closes it.
func writeLog(t *testing.T, opts *Options, writes ...[]string) string {
	t.Helper()
	dir := t.TempDir()
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		appendT(t, l, w...)
	}
	closeT(t, l)
	return dir
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// frameOffsets returns the offset of every frame of a segment file.
func frameOffsets(t *testing.T, b []byte) []int {
	t.Helper()
	var offs []int
	for off := segHeaderSize; off < len(b); {
		offs = append(offs, off)
		off += frameHeader + int(decodeFrameHdr(b[off:]).length)
	}
	return offs
}

func TestRecover_TornTail(t *testing.T) {
	dir := writeLog(t, nil, []string{"alpha"}, []string{"beta"}, []string{"gamma", "delta"})
	seg := segFiles(t, dir)[0]
	full := readFile(t, seg)
	offs := frameOffsets(t, full)
	lastWrite := offs[2] // the write of gamma and delta
	for cut := lastWrite; cut < len(full); cut++ {
		d := copyDir(t, dir)
		s := filepath.Join(d, filepath.Base(seg))
		writeFile(t, s, full[:cut])
		l, err := Open(d, nil)
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		want := []string{"alpha", "beta"}
		if cut >= offs[3] {
			want = append(want, "gamma") // a whole frame of the torn write survived
		}
		if got := recs(replayT(t, l)); !slices.Equal(got, want) {
			t.Fatalf("cut at %d: Replay = %v, want %v", cut, got, want)
		}
		if lsn := appendT(t, l, "next"); lsn != uint64(len(want)+1) {
			t.Fatalf("cut at %d: lsn after recovery = %d, want %d", cut, lsn, len(want)+1)
		}
		closeT(t, l)
		l = openT(t, d, nil)
		if got := recs(replayT(t, l)); !slices.Equal(got, append(want, "next")) {
			t.Fatalf("cut at %d: Replay after append = %v", cut, got)
		}
		closeT(t, l)
	}
}

func TestRecover_TornTail_Garbage(t *testing.T) {
	tails := []struct {
		name   string
		damage func(b []byte, last int) []byte
		want   []string
	}{
		{"zeros", func(b []byte, _ int) []byte { return append(b, make([]byte, 4096)...) },
			[]string{"a", "b", "c", "d", "e"}},
		{"zeroed last write", func(b []byte, last int) []byte {
			clear(b[last:])
			return b
		}, []string{"a", "b"}},
		{"bit flip at the end", func(b []byte, _ int) []byte {
			b[len(b)-1] ^= 1
			return b
		}, []string{"a", "b", "c", "d"}},
		// Pages of a torn write can reach the disk in any order: damage at
		// the start of the write with its later frames intact is torn, too.
		{"damaged first frame of last write", func(b []byte, last int) []byte {
			b[last+frameHeader] ^= 0xff
			return b
		}, []string{"a", "b"}},
		{"garbage header in last write", func(b []byte, last int) []byte {
			copy(b[last:], "garbage garbage garbage")
			return b
		}, []string{"a", "b"}},
	}
	for _, tc := range tails {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeLog(t, nil, []string{"a"}, []string{"b"}, []string{"c", "d", "e"})
			seg := segFiles(t, dir)[0]
			b := readFile(t, seg)
			writeFile(t, seg, tc.damage(b, frameOffsets(t, b)[2]))
			l := openT(t, dir, nil)
			if got := recs(replayT(t, l)); !slices.Equal(got, tc.want) {
				t.Fatalf("Replay = %v, want %v", got, tc.want)
			}
			if fi, _ := os.Stat(seg); tc.name == "zeros" && fi.Size() != int64(len(b)) {
				t.Fatalf("zero tail not truncated: size %d, want %d", fi.Size(), len(b))
			}
		})
	}
}

func TestRecover_Corruption(t *testing.T) {
	dir := writeLog(t, nil, []string{"a"}, []string{"b"}, []string{"c"}, []string{"d"})
	seg := segFiles(t, dir)[0]
	b := readFile(t, seg)
	b[frameOffsets(t, b)[1]+frameHeader] ^= 0x01 // b's payload; c and d were synced after it
	writeFile(t, seg, b)

	_, err := Open(copyDir(t, dir), nil)
	var cerr *CorruptError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &cerr) {
		t.Fatalf("Open = %v, want a *CorruptError", err)
	}
	if cerr.LSN != 2 || cerr.Segment != filepath.Base(seg) || !strings.Contains(err.Error(), "checksum mismatch") ||
		!strings.Contains(err.Error(), "acknowledged records follow (lsn 3") {
		t.Fatalf("error = %v (%+v)", err, cerr)
	}

	l := openT(t, dir, &Options{RepairCorruption: true})
	if got := recs(replayT(t, l)); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("repaired Replay = %v, want [a]", got)
	}
	if lsn := appendT(t, l, "z"); lsn != 2 {
		t.Fatalf("lsn after repair = %d, want 2", lsn)
	}
}

// rotated writes records of 100 bytes into segments of 300 bytes: two
// records a segment.
func rotated(t *testing.T, n int) (string, *Options) {
	opts := &Options{SegmentSize: 300}
	var writes [][]string
	for i := range n {
		writes = append(writes, []string{fmt.Sprintf("%-100d", i)})
	}
	return writeLog(t, opts, writes...), opts
}

func TestRecover_Corruption_EarlierSegment(t *testing.T) {
	dir, opts := rotated(t, 6)
	segs := segFiles(t, dir)
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	b := readFile(t, segs[1])
	writeFile(t, segs[1], b[:len(b)-1]) // a short tail, but not in the last segment
	_, err := Open(copyDir(t, dir), opts)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(segs[1])) {
		t.Fatalf("Open = %v, want corruption in %s", err, filepath.Base(segs[1]))
	}

	ropts := *opts
	ropts.RepairCorruption = true
	l := openT(t, dir, &ropts)
	if got := replayT(t, l); len(got) != 3 {
		t.Fatalf("repaired log replays %d records, want 3", len(got))
	}
	if n := len(segFiles(t, dir)); n != 2 {
		t.Fatalf("%d segments after repair, want 2", n)
	}
}

func TestRecover_BadHeader(t *testing.T) {
	dir, opts := rotated(t, 6)
	segs := segFiles(t, dir)
	b := readFile(t, segs[0])
	b[0] = 'X'
	writeFile(t, segs[0], b)
	if _, err := Open(dir, opts); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "magic") {
		t.Fatalf("Open = %v, want bad magic", err)
	}
}

func TestRecover_Gap(t *testing.T) {
	dir, opts := rotated(t, 6)
	segs := segFiles(t, dir)
	os.Remove(segs[1])
	if _, err := Open(dir, opts); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "previous one ends at lsn 2") {
		t.Fatalf("Open = %v, want a gap", err)
	}
}

func TestRecover_TornSegmentHeader(t *testing.T) {
	for _, size := range []int{0, 7, segHeaderSize} {
		dir, opts := rotated(t, 4)
		// A crash while creating the next segment: its header not durable.
		writeFile(t, filepath.Join(dir, segName(5)), make([]byte, size))
		l := openT(t, dir, opts)
		if got := replayT(t, l); len(got) != 4 {
			t.Fatalf("size %d: replays %d records, want 4", size, len(got))
		}
		if lsn := appendT(t, l, "x"); lsn != 5 {
			t.Fatalf("size %d: lsn = %d, want 5", size, lsn)
		}
	}
}

func TestLog_SegmentDeletion(t *testing.T) {
	dir, opts := rotated(t, 10)
	if n := len(segFiles(t, dir)); n != 5 {
		t.Fatalf("%d segments, want 5", n)
	}
	l := openT(t, dir, opts)
	if err := l.Release(5); err != nil {
		t.Fatal(err)
	}
	l.Append(t.Context()) // wait for the release to be durable
	// Segments [1,2] and [3,4] are released; [5,6] still holds 6.
	files := segFiles(t, dir)
	if len(files) != 3 || filepath.Base(files[0]) != segName(5) {
		t.Fatalf("segments after Release(5) = %v", files)
	}
	if st := l.Stats(); st.Segments != 3 || st.ReleasedLSN != 5 {
		t.Fatalf("Stats = %+v", st)
	}
	closeT(t, l)

	l = openT(t, dir, opts)
	got := replayT(t, l)
	if len(got) != 5 || got[0].lsn != 6 {
		t.Fatalf("Replay after reopen = %v, want lsn 6..10", got)
	}
	// Release everything: only the active segment stays.
	last := appendT(t, l, strings.Repeat("y", 100))
	l.Release(last)
	l.Append(t.Context())
	if n := len(segFiles(t, dir)); n != 1 {
		t.Fatalf("%d segments after releasing all, want 1", n)
	}
	closeT(t, l)
	l = openT(t, dir, opts)
	if got := replayT(t, l); len(got) != 0 {
		t.Fatalf("Replay = %v, want nothing", got)
	}
	if lsn := appendT(t, l, "z"); lsn <= last {
		t.Fatalf("lsn %d after reopen not after %d", lsn, last)
	}
}

func TestLog_SegmentDeletion_DeferredDuringReplay(t *testing.T) {
	dir, opts := rotated(t, 6)
	l := openT(t, dir, opts)
	err := l.Replay(func(lsn uint64, rec []byte) error {
		if lsn == 1 {
			l.Release(4)
			l.Append(t.Context())
			if n := len(segFiles(t, dir)); n != 3 {
				t.Errorf("%d segments during Replay, want 3", n)
			}
		}
		if !bytes.HasPrefix(rec, []byte(fmt.Sprint(lsn-1))) {
			t.Errorf("lsn %d = %q", lsn, rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(segFiles(t, dir)); n != 1 { // [1,2] and [3,4] are gone, [5,6] and the marker remain
		t.Fatalf("%d segments after Replay, want 1", n)
	}
}

func TestLog_Replay_Error(t *testing.T) {
	dir := writeLog(t, nil, []string{"a", "b", "c"})
	l := openT(t, dir, nil)
	stop := errors.New("stop here")
	n := 0
	err := l.Replay(func(uint64, []byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Fatalf("Replay = %v after %d calls, want %v after 2", err, n, stop)
	}
}

// A damaged run of frames (a lost page range, say) with acknowledged writes
// only near the end of the segment is corruption, not a torn tail.
func TestRecover_Corruption_LongDamage(t *testing.T) {
	var writes [][]string
	for i := range 50 {
		writes = append(writes, []string{fmt.Sprint(i % 10)})
	}
	dir := writeLog(t, nil, writes...)
	seg := segFiles(t, dir)[0]
	b := readFile(t, seg)
	offs := frameOffsets(t, b)
	clear(b[offs[2]:offs[45]])
	writeFile(t, seg, b)
	if _, err := Open(dir, nil); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "(lsn 46 at offset") {
		t.Fatalf("Open = %v, want corruption with lsn 46 following", err)
	}
}
