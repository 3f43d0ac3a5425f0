package chunk_test

import (
	"fmt"

	"github.com/timetable-db/timetable/series/internal/chunk"
)

func Example() {
	a, err := chunk.NewAppender([]string{"temperature", "humidity"})
	if err != nil {
		panic(err)
	}
	start := int64(1733011200000) // 2024-12-01T00:00:00Z
	for i := range 4 {
		t := start + int64(i)*1000
		if err := a.Append(t, []float64{21.5 + float64(i)/10, 40}); err != nil {
			panic(err)
		}
	}
	agg := a.Aggregates()[0]
	fmt.Printf("temperature: count %d, min %.1f, max %.1f, last %.1f\n", agg.Count, agg.Min, agg.Max, agg.Last)

	c, err := chunk.Open(a.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(c)
	it := c.Iterator()
	for it.Next() {
		t, vals := it.At()
		fmt.Println(t-start, vals)
	}
	if err := it.Err(); err != nil {
		panic(err)
	}
	// Output:
	// temperature: count 4, min 21.5, max 21.8, last 21.8
	// chunk{4 readings, 50 bytes, times delta-of-delta, temperature decimal/1e1, humidity decimal/1e0}
	// 0 [21.5 40]
	// 1000 [21.6 40]
	// 2000 [21.7 40]
	// 3000 [21.8 40]
}

func ExampleChunk_DecodeAll() {
	a, _ := chunk.NewAppender([]string{"price", "volume"})
	for i := range 1000 {
		_ = a.Append(int64(i)*60000, []float64{100 + float64(i%7)/100, float64(i)})
	}
	c, err := chunk.Open(a.Bytes())
	if err != nil {
		panic(err)
	}
	// Decode the prices alone, into a buffer that could hold several chunks.
	ts := make([]int64, 0, 10000)
	prices := make([]float64, 0, 10000)
	n := c.Len()
	ts, prices = ts[:n], prices[:n]
	if err := c.DecodeAll(ts, [][]float64{prices}); err != nil {
		panic(err)
	}
	fmt.Println(n, ts[999], prices[999])
	// Output:
	// 1000 59940000 100.05
}
