package analytics

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// breakdown is a breakdown of the size stats items hold: a few hundred
// pages with their counts.
func breakdown(n int) map[string]int64 {
	m := map[string]int64{}
	for i := range n {
		m[fmt.Sprintf("/blog/post-%d", i)] = int64(i * 7 % 1000)
	}
	return m
}

// Pooled writers and readers give what fresh ones give, whatever they
// encoded or decoded before, and a corrupt input is an error that leaves
// the pool usable.
func TestGzipJSON_Reuse(t *testing.T) {
	for round := range 3 {
		for _, n := range []int{0, 1, 300, 20} {
			in := breakdown(n + round)
			b, err := gzipJSON(in)
			if err != nil {
				t.Fatal(err)
			}
			var fresh bytes.Buffer
			zw := gzip.NewWriter(&fresh)
			if err := json.NewEncoder(zw).Encode(in); err != nil {
				t.Fatal(err)
			}
			zw.Close()
			if !bytes.Equal(b, fresh.Bytes()) {
				t.Fatalf("round %d, %d entries: pooled writer's bytes differ from a fresh writer's", round, n)
			}
			var out map[string]int64
			if err := gunzipJSON(b, &out); err != nil {
				t.Fatal(err)
			}
			if len(in) > 0 && !reflect.DeepEqual(out, in) {
				t.Fatalf("round %d, %d entries: decoded %d entries", round, n, len(out))
			}
			var bad map[string]int64
			if err := gunzipJSON([]byte("not gzip"), &bad); err == nil {
				t.Fatal("corrupt input decoded")
			}
		}
	}
}

func BenchmarkGzipJSON(b *testing.B) {
	m := breakdown(300)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gzipJSON(m); err != nil {
			b.Fatal(err)
		}
	}
}
