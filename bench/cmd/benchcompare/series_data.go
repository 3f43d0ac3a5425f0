package main

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local"
)

// walk is the readings of one series: a random walk with two decimals
// per field, one reading per step. The same seed gives the same readings,
// so every system is fed exactly the same values.
type walk struct {
	rng   uint64
	cents []int64
}

func newWalk(seed uint64, fields int) *walk {
	w := &walk{rng: seed*0x9e3779b97f4a7c15 + 1, cents: make([]int64, fields)}
	for f := range w.cents {
		w.cents[f] = 2000 + int64(w.next()%1000) + int64(f)*1000 // 20.00 .. 29.99, +10 per field
	}
	return w
}

// next is splitmix64.
func (w *walk) next() uint64 {
	w.rng += 0x9e3779b97f4a7c15
	z := w.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// step fills vals (len fields) with the next reading: each field moves by
// -0.10 to +0.10 in steps of 0.01.
func (w *walk) step(vals []float64) {
	for f := range w.cents {
		w.cents[f] += int64(w.next()%21) - 10
		vals[f] = float64(w.cents[f]) / 100
	}
}

// vmHWM returns the peak resident set size of this process (VmHWM in
// /proc/self/status) in bytes, or 0 where it cannot be read.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fs := strings.Fields(rest)
			if len(fs) >= 1 {
				kb, err := strconv.ParseInt(fs[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// dirSize returns the total size of the regular files under dir, and of
// those whose name ends with suffix (all of them if suffix is "").
func dirSize(dir, suffix string) (total, matching int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		if suffix == "" || strings.HasSuffix(d.Name(), suffix) {
			matching += info.Size()
		}
		return nil
	})
	return total, matching, err
}

// compactedSize opens the embedded engine's closed Pebble database in dir
// (with the engine's options: default comparer, bloom filters), compacts
// its whole key space, closes it and returns the size of its sstables and
// of the whole folder. The engine's key spaces all start below 0xff.
func compactedSize(dir string) (sst, total int64, err error) {
	opts := &pebble.Options{Logger: quietLogger{}}
	opts.EnsureDefaults()
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		opts.Levels[i].FilterType = pebble.TableFilter
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return 0, 0, err
	}
	if err := db.Compact(context.Background(), []byte{0}, []byte{0xff}, true); err != nil {
		db.Close()
		return 0, 0, err
	}
	if err := db.Close(); err != nil {
		return 0, 0, err
	}
	total, sst, err = dirSize(dir, ".sst")
	return sst, total, err
}

// tableBytes scans table and returns its items and the sum of their sizes
// as DynamoDB counts them (attribute names and values; see local.ItemSize).
func tableBytes(ctx context.Context, api timetable.API, table string) (items, bytes int64, err error) {
	in := &dynamodb.ScanInput{TableName: aws.String(table)}
	for {
		out, err := api.Scan(ctx, in)
		if err != nil {
			return 0, 0, err
		}
		for _, it := range out.Items {
			items++
			bytes += int64(local.ItemSize(it))
		}
		if len(out.LastEvaluatedKey) == 0 {
			return items, bytes, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
