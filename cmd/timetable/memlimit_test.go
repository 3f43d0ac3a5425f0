package main

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestMemoryLimit(t *testing.T) {
	f := func(flag string, explicit bool, env string, machine int64, want int64, wantSet bool) {
		t.Helper()
		got, set, err := memoryLimit(flag, explicit, env, machine)
		if err != nil {
			t.Fatalf("memoryLimit(%q, %v, %q, %d): %v", flag, explicit, env, machine, err)
		}
		if got != want || set != wantSet {
			t.Errorf("memoryLimit(%q, %v, %q, %d) = %d, %v; want %d, %v", flag, explicit, env, machine, got, set, want, wantSet)
		}
	}
	// The default: a fixed limit, at most half the machine's memory.
	f("auto", false, "", 0, defaultMemoryLimit, true)
	f("auto", false, "", 64<<30, defaultMemoryLimit, true)
	f("auto", false, "", 256<<20, 128<<20, true)
	// GOMEMLIMIT is left to the runtime unless the flag is given.
	f("auto", false, "1GiB", 64<<30, 0, false)
	f("auto", true, "1GiB", 64<<30, 0, false)
	f("512MiB", true, "1GiB", 64<<30, 512<<20, true)
	// Sizes, and no limit.
	f("2GB", true, "", 0, 2e9, true)
	f("1000000", true, "", 0, 1e6, true)
	f("off", true, "", 0, math.MaxInt64, true)
	f("0", true, "", 0, math.MaxInt64, true)
	for _, bad := range []string{"lots", "-1MiB", "1.5GiB", "MiB", "99999999999TiB"} {
		if _, _, err := memoryLimit(bad, true, "", 0); err == nil || !strings.Contains(err.Error(), "--memory-limit") {
			t.Errorf("memoryLimit(%q): err %v, want an error naming the flag", bad, err)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "17": 17, "17B": 17, "3KB": 3000, "3KiB": 3072, "5 MiB": 5 << 20,
		"1GB": 1e9, "1GiB": 1 << 30, "2TB": 2e12, "2TiB": 2 << 40,
	} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

// TestServe_MemoryLimit serves with --memory-limit: the runtime's soft
// limit is the flag's while serving, and what it was once serve returns.
func TestServe_MemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	orig := debug.SetMemoryLimit(-1)
	_, stderr, stop := startServeInProcess(t, 10*time.Second, "--in-memory", "--no-auth", "--memory-limit", "300MiB")
	got := debug.SetMemoryLimit(-1)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if got != 300<<20 {
		t.Errorf("while serving: limit %d, want %d", got, 300<<20)
	}
	if after := debug.SetMemoryLimit(-1); after != orig {
		t.Errorf("after serve: limit %d, want %d as before", after, orig)
	}
	if !strings.Contains(stderr.String(), "memory_limit=300MiB") {
		t.Errorf("the log does not give the limit:\n%s", stderr)
	}
	if code := run(context.Background(), []string{"serve", "--in-memory", "--memory-limit", "lots"}, &strings.Builder{}, &strings.Builder{}); code != 2 {
		t.Errorf("--memory-limit lots: exit %d, want 2", code)
	}
}

// TestServe_MemoryLimitWarns serves with a limit below the live heap:
// the log warns that the limit should be raised.
func TestServe_MemoryLimitWarns(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	_, stderr, stop := startServeInProcess(t, 10*time.Second, "--in-memory", "--no-auth", "--memory-limit", "1MiB")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "raise --memory-limit") && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "raise --memory-limit") {
		t.Fatalf("no warning with the live heap past the limit:\n%s", stderr)
	}
}
