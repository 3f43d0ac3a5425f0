package keys

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestShard_Stable pins the hash: these values must never change, or data
// written by one version would be read from the wrong shard by the next.
func TestShard_Stable(t *testing.T) {
	for _, c := range []struct {
		id   string
		n    int
		want string
	}{
		{"123", 16, "S11"},
		{"temp-sensor-1", 100, "S34"},
		{"", 10, "S01"},
		{"123", 1, "S00"},
		{"123", 0, "S00"},
		{"123", 1000, "S011"}, // FNV-1a 32("123") = 1916298011
	} {
		if got := Shard(c.id, c.n); got != c.want {
			t.Errorf("Shard(%q, %d) = %q, want %q", c.id, c.n, got, c.want)
		}
	}
	if got := ShardedEntity("SENSOR", "123", 16); got != "SENSOR#123#S11" {
		t.Errorf("ShardedEntity = %q", got)
	}
}

func TestShard_Spread(t *testing.T) {
	const n = 16
	counts := make([]int, n)
	for i := range 16000 {
		counts[ShardIndex(fmt.Sprintf("device-%d", i), n)]++
	}
	for i, c := range counts {
		if c < 700 || c > 1300 {
			t.Errorf("shard %d got %d of 16000 ids", i, c)
		}
	}
}

func TestShards(t *testing.T) {
	got := Shards(12)
	if len(got) != 12 || got[0] != "S00" || got[11] != "S11" || !slices.IsSorted(got) {
		t.Fatalf("Shards(12) = %q", got)
	}
	for _, n := range []int{1, 2, 99, 100, 101, 1000, 1001, MaxShards} {
		s := Shards(n)
		if !slices.IsSorted(s) || len(s[0]) != len(s[n-1]) || len(s[0]) != 1+ShardWidth(n) {
			t.Fatalf("Shards(%d): %q .. %q", n, s[0], s[n-1])
		}
		for i, suf := range s {
			j, err := ParseShard(suf)
			if err != nil || j != i {
				t.Fatalf("ParseShard(%q) = %d, %v", suf, j, err)
			}
		}
	}
	if len(Shards(MaxShards+5)) != MaxShards {
		t.Fatalf("Shards not clamped")
	}
}

func TestParseShardedEntity(t *testing.T) {
	typ, id, shard, err := ParseShardedEntity("SENSOR#a#b#S07")
	if err != nil || typ != "SENSOR" || id != "a#b" || shard != 7 {
		t.Fatalf("ParseShardedEntity = %q %q %d %v", typ, id, shard, err)
	}
	for _, s := range []string{"", "SENSOR#123", "SENSOR#S07", "#1#S07", "SENSOR#1#S7", "SENSOR#1#X07", "SENSOR#1#S0a", "SENSOR#1#S123456"} {
		if _, _, _, err := ParseShardedEntity(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseShardedEntity(%q) error = %v", s, err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"S07", "S999", "S0000", "S7", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, err := ParseShard(s)
		if err != nil {
			return
		}
		if i < 0 || i >= MaxShards || s[0] != 'S' || len(s) < 3 {
			t.Fatalf("ParseShard(%q) = %d", s, i)
		}
	})
}

func FuzzParseShardedEntity(f *testing.F) {
	f.Add("SENSOR#123#S11")
	f.Add("SENSOR#a#b#S0001")
	f.Fuzz(func(t *testing.T, s string) {
		typ, id, shard, err := ParseShardedEntity(s)
		if err != nil {
			return
		}
		width := len(s) - 1 - len(Entity(typ, id)) - 1
		if back := Entity(typ, id) + Sep + string(appendDigits([]byte("S"), shard, width)); back != s {
			t.Fatalf("rebuilt %q from %q", back, s)
		}
	})
}
