package wal

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkAppend measures durable appends: one op is one record
// acknowledged, with the given number of writers appending concurrently
// (each waits for its own record before appending the next). The log is
// released every 4096 records, as the series buffer would after a flush.
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{true, false} {
		for _, writers := range []int{1, 8, 64} {
			for _, size := range []int{64, 4096} {
				name := fmt.Sprintf("writers=%d/size=%d", writers, size)
				if !sync {
					name = "nosync/" + name
				}
				b.Run(name, func(b *testing.B) { benchAppend(b, writers, size, !sync) })
			}
		}
	}
}

func benchAppend(b *testing.B, writers, size int, noSync bool) {
	l, err := Open(b.TempDir(), &Options{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := make([]byte, size)
	for i := range rec {
		rec[i] = byte(i)
	}
	var (
		acks = make(chan uint64, writers)
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	for range writers {
		wg.Go(func() {
			for {
				lsn, err := l.Append(context.Background(), rec)
				if err != nil {
					b.Error(err)
					return
				}
				select {
				case acks <- lsn:
				case <-done:
					return
				}
			}
		})
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		lsn := <-acks
		if n++; n%4096 == 0 {
			l.Release(lsn)
		}
	}
	b.StopTimer()
	close(done)
	wg.Wait()
	st := l.Stats()
	b.ReportMetric(float64(st.Records)/float64(st.Syncs), "records/sync")
}
