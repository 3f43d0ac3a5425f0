package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// defaultMemoryLimit is serve's soft memory limit unless --memory-limit
// or GOMEMLIMIT says otherwise (and at most half the machine's memory).
// The runtime collects garbage more often as the memory it holds nears
// the limit, rather than letting the heap grow to twice the live data
// (GOGC=100): an ingest that held some 700 MiB then holds some 300 MiB,
// for a little more of the collector's CPU. Memory outside the runtime
// (the engine's block cache and memtables, some 100 MiB) is not counted.
// A server whose live data passes the limit (a million series buffered)
// is collected back to back, with at most half the CPU, which
// --memory-limit set higher (or off) avoids.
const defaultMemoryLimit = 256 << 20

// memoryLimit returns the soft memory limit serve sets (see
// runtime/debug.SetMemoryLimit), and whether it sets one: flag is
// --memory-limit's value, explicit whether it was given, env the value of
// GOMEMLIMIT, and machine the memory of the machine (or of its cgroup) in
// bytes, 0 if unknown. Without the flag, a GOMEMLIMIT set is left to the
// runtime; otherwise the default is defaultMemoryLimit, at most half of
// machine. "off" (or 0) sets no limit.
func memoryLimit(flag string, explicit bool, env string, machine int64) (int64, bool, error) {
	if !explicit || flag == "" || flag == "auto" {
		if env != "" {
			return 0, false, nil
		}
		limit := int64(defaultMemoryLimit)
		if machine > 0 {
			limit = min(limit, machine/2)
		}
		return limit, true, nil
	}
	if flag == "off" {
		return math.MaxInt64, true, nil
	}
	n, err := parseBytes(flag)
	if err != nil {
		return 0, false, fmt.Errorf("--memory-limit: %w", err)
	}
	if n == 0 {
		return math.MaxInt64, true, nil
	}
	return n, true, nil
}

// byteUnits are the suffixes parseBytes takes, longest first.
var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// parseBytes parses a size in bytes: a whole number with an optional
// unit (B, KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers
// of 1024), as 512MiB or 2GB.
func parseBytes(s string) (int64, error) {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size in bytes (as 512MiB, 2GB or 1000000)", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// machineMemory returns the memory this process may use on Linux: its
// cgroup's limit (v2) if it has one, else the machine's; 0 elsewhere or
// if unknown.
func machineMemory() int64 {
	total := int64(0)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

// fmtMemoryLimit formats a soft memory limit for the log: off, or MiB.
func fmtMemoryLimit(n int64) string {
	if n == math.MaxInt64 {
		return "off"
	}
	return fmt.Sprintf("%.0fMiB", float64(n)/(1<<20))
}

// watchMemoryLimit warns, at most once an hour, when the live heap is
// more than three quarters of the soft memory limit: the collector then
// runs often, and past the limit back to back. It checks every period
// until ctx is done.
func watchMemoryLimit(ctx context.Context, logger *slog.Logger, period time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gomemlimit:bytes"}}
	var warned time.Time
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[1].Value.Kind() == metrics.KindUint64 {
			live, limit := sample[0].Value.Uint64(), sample[1].Value.Uint64()
			if live > 0 && live > limit/4*3 && time.Since(warned) > time.Hour {
				warned = time.Now()
				logger.Warn("the live heap is near the soft memory limit: the garbage collector runs often, and past the limit takes up to half the CPU; raise --memory-limit (or GOMEMLIMIT)",
					"live_heap", fmtMemoryLimit(int64(live)), "memory_limit", fmtMemoryLimit(int64(limit)))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
