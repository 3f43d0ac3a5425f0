package wal

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const crashDirEnv = "TIMETABLE_WAL_CRASH_DIR"

var crashOpts = Options{SegmentSize: 32 << 10}

// TestCrash_Kill9 runs a child process (this test binary) that appends
// from several goroutines and prints each acknowledged LSN and record,
// SIGKILLs it at a random moment, reopens the log and checks that every
// acknowledged record after the recovered release point replays intact;
// ten times over the same directory.
func TestCrash_Kill9(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("kill -9 test spawns processes; skipped in -short")
	}
	dir := t.TempDir()
	acked := map[uint64]string{} // over all cycles
	var maxRelease uint64
	for cycle := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrash_Kill9$")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		var (
			timer  *time.Timer
			n      int
			killed = make(chan struct{})
		)
		for sc.Scan() {
			f := strings.SplitN(sc.Text(), " ", 3)
			lsn, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				t.Fatalf("cycle %d: bad line %q", cycle, sc.Text())
			}
			switch f[0] {
			case "A":
				if prev, ok := acked[lsn]; ok {
					t.Fatalf("cycle %d: lsn %d acknowledged twice: %q and %q", cycle, lsn, prev, f[2])
				}
				acked[lsn] = f[2]
				n++
			case "R":
				maxRelease = max(maxRelease, lsn)
			}
			if timer == nil {
				d := time.Duration(50+rand.IntN(250)) * time.Millisecond
				timer = time.AfterFunc(d, func() {
					cmd.Process.Kill() // SIGKILL
					close(killed)
				})
			}
		}
		if timer == nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("cycle %d: child printed nothing; stderr:\n%s", cycle, stderr.String())
		}
		<-killed
		cmd.Wait()

		l, err := Open(dir, &crashOpts)
		if err != nil {
			t.Fatalf("cycle %d: Open after kill -9: %v", cycle, err)
		}
		st := l.Stats()
		if st.ReleasedLSN > maxRelease {
			t.Fatalf("cycle %d: recovered release %d beyond the highest requested %d", cycle, st.ReleasedLSN, maxRelease)
		}
		replayed := map[uint64]string{}
		if err := l.Replay(func(lsn uint64, rec []byte) error {
			replayed[lsn] = string(rec)
			return nil
		}); err != nil {
			t.Fatalf("cycle %d: Replay: %v", cycle, err)
		}
		checked := 0
		for lsn, rec := range acked {
			if lsn <= st.ReleasedLSN {
				continue
			}
			checked++
			if got, ok := replayed[lsn]; !ok {
				t.Fatalf("cycle %d: acknowledged lsn %d lost (released %d, last %d)", cycle, lsn, st.ReleasedLSN, st.LastLSN)
			} else if got != rec {
				t.Fatalf("cycle %d: lsn %d = %q, acknowledged %q", cycle, lsn, got, rec)
			}
		}
		t.Logf("cycle %d: %d acknowledged, %d checked after release %d, %d segments", cycle, n, checked, st.ReleasedLSN, st.Segments)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// crashChild appends until it is killed, printing "A lsn record" for each
// acknowledged record and "R lsn" for each release it asks for.
func crashChild(dir string) {
	l, err := Open(dir, &crashOpts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: Open:", err)
		os.Exit(2)
	}
	var (
		mu    sync.Mutex
		count int
		high  uint64
	)
	pid := os.Getpid()
	for w := range 8 {
		go func() {
			for i := 0; ; i++ {
				rec := fmt.Sprintf("p%d-w%d-%d-%s", pid, w, i, strings.Repeat("x", rand.IntN(300)))
				lsn, err := l.Append(context.Background(), []byte(rec))
				if err != nil {
					fmt.Fprintln(os.Stderr, "child: Append:", err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Fprintf(os.Stdout, "A %d %s\n", lsn, rec)
				count++
				high = max(high, lsn)
				if count%200 == 0 && high > 100 {
					rel := high - 100
					fmt.Fprintf(os.Stdout, "R %d\n", rel)
					l.Release(rel)
				}
				mu.Unlock()
			}
		}()
	}
	select {}
}
