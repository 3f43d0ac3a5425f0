package analytics

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// randomHits returns n hits of one day, sorted by hitCmp, over about
// visitors visitors, with values drawn from pools of about values strings
// (empty, non-ASCII and long ones among them).
func randomHits(r *rand.Rand, n, visitors, values int) []hit {
	day := time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)
	pool := func(prefix string) []string {
		out := []string{"", "é/ü", strings.Repeat("x", 300)}
		for i := range values {
			out = append(out, fmt.Sprintf("%s%d", prefix, i))
		}
		return out
	}
	paths, sources, countries, names := pool("/p/"), pool("src"), pool("C"), []string{PageView, PageView, PageView, Engagement, "Signup", "Buy"}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	hits := make([]hit, n)
	for i := range hits {
		h := hit{t: day.Add(time.Duration(r.Int64N(int64(24 * time.Hour)))).Truncate(time.Millisecond),
			visitor: fmt.Sprintf("%016x", r.IntN(max(visitors, 1))), name: pick(names), path: pick(paths), referrer: pick(sources),
			source: pick(sources), utm: UTM{Source: pick(sources), Medium: pick(sources), Campaign: pick(sources), Term: pick(sources), Content: pick(sources)},
			country: pick(countries), browser: pick(countries), os: pick(countries), device: pick(countries)}
		if h.name != PageView {
			h.interactive = h.name != Engagement && r.IntN(3) > 0
		}
		if h.name == Engagement {
			h.engagementMs, h.scrollDepth = r.Int64N(1<<40), r.Int64N(101)
		}
		if h.name != PageView && r.IntN(2) == 0 {
			h.props = map[string]string{}
			for range 1 + r.IntN(4) {
				h.props[pick(names)+pick(sources)] = pick(paths)
			}
		}
		hits[i] = h
	}
	slices.SortFunc(hits, func(a, b hit) int { return hitCmp(&a, &b) })
	return hits
}

// diffHits returns the first difference between two runs of hits, "" if
// none.
func diffHits(got, want []hit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.t.Equal(w.t) || g.name != w.name || g.visitor != w.visitor || g.path != w.path || g.referrer != w.referrer ||
			g.source != w.source || g.utm != w.utm || g.country != w.country || g.browser != w.browser || g.os != w.os ||
			g.device != w.device || g.interactive != w.interactive || g.engagementMs != w.engagementMs ||
			g.scrollDepth != w.scrollDepth || !maps.Equal(g.props, w.props) {
			return fmt.Sprintf("hit %d: %+v, want %+v", i, g, w)
		}
	}
	return ""
}

// TestBlock_RoundTrip: random runs of hits, with codes of one, two and
// four bytes (70,000 distinct paths: more than two bytes can number; the
// other columns keep small dictionaries, which the smaller runs cover),
// with visitor ids that are hex hashes and ids that are not, decode to
// what was encoded; and a block decoded in part has the columns asked
// for.
func TestBlock_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		n, visitors, values int
		names               bool // visitor ids that are no hex hash
		pathWidth           int  // bytes of a path's code
	}{
		{0, 1, 1, false, 1}, {1, 1, 1, false, 1}, {2, 1, 3, false, 1}, {50, 5, 10, false, 1}, {1000, 300, 40, false, 1}, {1000, 300, 40, true, 1},
		{3000, 3000, 300, false, 2}, {70_000, 2000, 40, false, 4},
	} {
		hits := randomHits(r, c.n, c.visitors, c.values)
		if c.names {
			for i := range hits {
				hits[i].visitor = "v-" + hits[i].visitor // still sorted
			}
		}
		if c.pathWidth == 4 {
			for i := range hits {
				hits[i].path = fmt.Sprintf("/p/%d", i)
			}
			slices.SortFunc(hits, func(a, b hit) int { return hitCmp(&a, &b) })
		}
		b, err := encodeBlock(hits)
		if err != nil {
			t.Fatalf("%d hits: %v", c.n, err)
		}
		bl, err := decodeBlock(b, allCols)
		if err != nil {
			t.Fatalf("%d hits: decode: %v", c.n, err)
		}
		if d := diffHits(bl.hits(), hits); d != "" {
			t.Fatalf("%d hits, %d values: %s", c.n, c.values, d)
		}
		t.Logf("%d hits, %d visitors, %d values a column: %d bytes, %.1f a hit", c.n, c.visitors, c.values, len(b), float64(len(b))/float64(max(c.n, 1)))
		if w := bl.col(colPath).w; w != c.pathWidth {
			t.Errorf("%d hits: paths coded on %d bytes, want %d", c.n, w, c.pathWidth)
		}
		part, err := decodeBlock(b, cols(colCountry))
		if err != nil {
			t.Fatal(err)
		}
		for i := range hits {
			if part.col(colCountry).at(i) != hits[i].country || part.ms[i] != hits[i].t.UnixMilli() || part.visitorID(i) != "" ||
				i > 0 && (part.visitor[i] == part.visitor[i-1]) != (hits[i].visitor == hits[i-1].visitor) {
				t.Fatalf("%d hits: hit %d decoded in part differs", c.n, i)
			}
		}
		part.release()
		bl.release()
	}
}

// TestBlock_RoundTrip_Control: the comparison of the round trip catches a
// hit changed in any field.
func TestBlock_RoundTrip_Control(t *testing.T) {
	hits := randomHits(rand.New(rand.NewPCG(2, 2)), 20, 4, 5)
	for name, plant := range map[string]func(*hit){
		"time":     func(h *hit) { h.t = h.t.Add(time.Millisecond) },
		"utm":      func(h *hit) { h.utm.Content += "x" },
		"props":    func(h *hit) { h.props = map[string]string{"k": "v"} },
		"scroll":   func(h *hit) { h.scrollDepth++ },
		"referrer": func(h *hit) { h.referrer += "x" },
	} {
		planted := slices.Clone(hits)
		plant(&planted[7])
		if diffHits(hits, planted) == "" {
			t.Errorf("a change of %s is not caught", name)
		}
	}
}

// TestBlock_Refuses: encodeBlock refuses hits out of visitor order and
// negative figures; decodeBlock refuses damaged blocks with errBlock.
func TestBlock_Refuses(t *testing.T) {
	hits := randomHits(rand.New(rand.NewPCG(4, 4)), 30, 5, 5)
	swapped := slices.Clone(hits)
	swapped[0], swapped[len(swapped)-1] = swapped[len(swapped)-1], swapped[0]
	if _, err := encodeBlock(swapped); err == nil {
		t.Error("hits out of visitor order: encoded")
	}
	neg := slices.Clone(hits)
	neg[3].engagementMs = -1
	if _, err := encodeBlock(neg); err == nil {
		t.Error("a negative engagement time: encoded")
	}
	b, err := encodeBlock(hits)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XXXX"), b[4:]...),
		"version":   append(append([]byte(blockMagic), 9), b[5:]...),
		"truncated": b[:len(b)-1],
		"trailing":  append(slices.Clone(b), 0),
		"header":    b[:8],
	} {
		if _, err := decodeBlock(bad, allCols); !errors.Is(err, errBlock) {
			t.Errorf("%s: %v, want errBlock", name, err)
		}
	}
}

// TestEncodeParts: hits split into parts of at most the bound, at
// visitor boundaries, that decode in order to the whole.
func TestEncodeParts(t *testing.T) {
	hits := randomHits(rand.New(rand.NewPCG(5, 5)), 5000, 800, 100)
	parts, err := encodeParts(hits, 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 4 {
		t.Fatalf("%d parts of 8 KiB for 5000 hits, want several", len(parts))
	}
	var all []hit
	for i, p := range parts {
		if len(p) > 8<<10 {
			t.Errorf("part %d: %d bytes", i, len(p))
		}
		bl, err := decodeBlock(p, allCols)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && bl.n > 0 && len(all) > 0 && all[len(all)-1].visitor == bl.visitorDict[bl.visitor[0]] {
			t.Errorf("part %d starts within a visitor's hits", i)
		}
		all = append(all, bl.hits()...)
	}
	if d := diffHits(all, hits); d != "" {
		t.Fatal(d)
	}
	// One visitor's hits alone, too many for a part: cut anyway.
	one := randomHits(rand.New(rand.NewPCG(6, 6)), 2000, 1, 100)
	if parts, err = encodeParts(one, 4<<10); err != nil || len(parts) < 2 {
		t.Fatalf("one visitor: %d parts, %v", len(parts), err)
	}
}

// goldenHits are the hits of testdata/hitblock-v1.bin.
func goldenHits() []hit {
	at := func(s string) time.Time {
		t, err := time.Parse(layoutTimestamp, s)
		if err != nil {
			panic(err)
		}
		return t
	}
	return []hit{
		{t: at("2024-01-15T10:30:00.000Z"), name: PageView, visitor: "0a1b2c3d4e5f6071", path: "/", referrer: "https://www.google.com/search?q=x",
			source: "Google", country: "FR", browser: "Firefox", os: "Linux", device: "desktop"},
		{t: at("2024-01-15T10:31:05.250Z"), name: PageView, visitor: "0a1b2c3d4e5f6071", path: "/pricing", source: "", country: "FR",
			browser: "Firefox", os: "Linux", device: "desktop"},
		{t: at("2024-01-15T10:32:00.000Z"), name: "Signup", visitor: "0a1b2c3d4e5f6071", path: "/pricing", interactive: true,
			props: map[string]string{"plan": "pro", "trial": "yes"}, country: "FR", browser: "Firefox", os: "Linux", device: "desktop"},
		{t: at("2024-01-15T10:40:00.000Z"), name: Engagement, visitor: "0a1b2c3d4e5f6071", path: "/pricing", engagementMs: 61250, scrollDepth: 80,
			country: "FR", browser: "Firefox", os: "Linux", device: "desktop"},
		{t: at("2024-01-15T23:59:59.999Z"), name: PageView, visitor: "ffeeddccbbaa9988", path: "/blog/é", source: "newsletter",
			utm: UTM{Source: "newsletter", Medium: "email", Campaign: "spring", Term: "t", Content: "c"}, country: "DE", browser: "Safari",
			os: "iOS", device: "mobile"},
	}
}

// TestBlock_Golden: the hits of goldenHits encode to
// testdata/hitblock-v1.bin (rewritten with -update; a new zstd release
// may change the bytes, which the decoder reads all the same), and the
// file decodes to them: version 1 blocks stay readable.
func TestBlock_Golden(t *testing.T) {
	path := filepath.Join("testdata", "hitblock-v1.bin")
	got, err := encodeBlock(goldenHits())
	if err != nil {
		t.Fatal(err)
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the encoding (run go test -update to accept it):\n got %x\nwant %x", path, got, want)
	}
	bl, err := decodeBlock(want, allCols)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffHits(bl.hits(), goldenHits()); d != "" {
		t.Errorf("%s decodes to other hits: %s", path, d)
	}
}

// FuzzDecodeBlock: decodeBlock never panics; what it accepts encodes
// again to a block that decodes to the same hits.
func FuzzDecodeBlock(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "hitblock-v1.bin")); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 5, 40} {
		b, err := encodeBlock(randomHits(r, n, 3, 4))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		bl, err := decodeBlock(b, allCols)
		if err != nil {
			if !errors.Is(err, errBlock) {
				t.Fatalf("error %v is not errBlock", err)
			}
			return
		}
		hits := bl.hits()
		again, err := encodeBlock(hits)
		if err != nil {
			t.Fatalf("a decoded block does not encode: %v", err)
		}
		bl2, err := decodeBlock(again, allCols)
		if err != nil {
			t.Fatalf("a block encoded again does not decode: %v", err)
		}
		if d := diffHits(bl2.hits(), hits); d != "" {
			t.Fatal(d)
		}
	})
}

// TestHitCmp_Total: hits of one visitor, instant, page and name, that
// differ in other fields, sort to one order whatever order they come in;
// a session's first hit (its source, its country) does not depend on the
// order the raw hits were read in.
func TestHitCmp_Total(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	at := time.Date(2024, 3, 19, 9, 0, 0, 0, time.UTC)
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var hits []hit
	for range 40 {
		h := hit{t: at, visitor: "v", name: "Buy", path: "/", source: pick("", "Google"), country: pick("FR", "DE"),
			interactive: r.IntN(2) == 0, utm: UTM{Term: pick("", "a")}}
		if r.IntN(2) == 0 {
			h.props = map[string]string{pick("k", "l"): pick("1", "2")}
		}
		hits = append(hits, h)
	}
	sorted := func() []hit {
		s := slices.Clone(hits)
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		slices.SortFunc(s, func(a, b hit) int { return hitCmp(&a, &b) })
		return s
	}
	want := sorted()
	for range 20 {
		if d := diffHits(sorted(), want); d != "" {
			t.Fatalf("two orders: %s", d)
		}
	}
}
