package analytics

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// Tests of the visit blocks of hit buckets: the visits a query on visits
// alone reads from them are those formed from the hits.

// diffWhole returns the first difference between two lists of visits in
// the fields a visit block keeps, "" if none.
func diffWhole(got, want []Visit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d visits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.VisitorID != w.VisitorID || !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.EntryPage != w.EntryPage ||
			g.ExitPage != w.ExitPage || g.Source != w.Source || g.UTM != w.UTM || g.Country != w.Country || g.Browser != w.Browser ||
			g.OS != w.OS || g.Device != w.Device || g.PageViews != w.PageViews || g.Events != w.Events || g.Bounce != w.Bounce ||
			g.Duration != w.Duration {
			return fmt.Sprintf("visit %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	return ""
}

// blockVisits returns the visits of the blocks bs, decoded with the
// columns of the fields but skip.
func blockVisits(t *testing.T, bs [][]byte, skip Field) []Visit {
	t.Helper()
	var out []Visit
	for _, b := range bs {
		vb, err := decodeVisitBlock(b, skip.visitColumns())
		if err != nil {
			t.Fatal(err)
		}
		for i := range vb.n {
			var v Visit
			vb.visit(i, &v, true)
			out = append(out, v)
		}
	}
	return out
}

// without returns vs with the fields skip zeroed.
func without(vs []Visit, skip Field) []Visit {
	out := slices.Clone(vs)
	for i := range out {
		v := &out[i]
		v.Hits, v.Goals = nil, nil
		if skip&FieldVisitorID != 0 {
			v.VisitorID = ""
		}
		if skip&FieldPages != 0 {
			v.EntryPage, v.ExitPage = "", ""
		}
		if skip&FieldSource != 0 {
			v.Source = ""
		}
		if skip&FieldUTM != 0 {
			v.UTM = UTM{}
		}
		if skip&FieldCountry != 0 {
			v.Country = ""
		}
		if skip&FieldBrowser != 0 {
			v.Browser = ""
		}
		if skip&FieldOS != 0 {
			v.OS = ""
		}
		if skip&FieldDevice != 0 {
			v.Device = ""
		}
	}
	return out
}

// randomSkip returns a random set of the fields a visit block holds.
func randomSkip(r *rand.Rand) Field {
	var skip Field
	for _, f := range []Field{FieldVisitorID, FieldPages, FieldSource, FieldUTM, FieldCountry, FieldBrowser, FieldOS, FieldDevice} {
		if r.IntN(2) == 0 {
			skip |= f
		}
	}
	return skip
}

// TestVisitBlock_RoundTrip: the visits of random hits encode to blocks,
// whole and in parts of a few hundred bytes, that decode to the same
// visits, with every column and with random columns left out; a planted
// difference is caught.
func TestVisitBlock_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for round := range 40 {
		hits := randomHits(r, r.IntN(400), 1+r.IntN(30), 1+r.IntN(20))
		want := visitsOfHits(hits, 30*time.Minute)
		if len(hits) > 50 && len(want) == 0 {
			t.Fatalf("round %d: %d hits make no visit", round, len(hits))
		}
		for _, max := range []int{maxPartBytes, 1200} {
			bs, err := encodeVisitParts(want, max)
			if err != nil {
				t.Fatal(err)
			}
			if max == 1200 && len(want) > 60 && len(bs) < 2 {
				t.Fatalf("round %d: %d visits in %d parts of 1200 bytes", round, len(want), len(bs))
			}
			if d := diffWhole(blockVisits(t, bs, 0), want); d != "" {
				t.Fatalf("round %d, parts of %d bytes: %s", round, max, d)
			}
			skip := randomSkip(r)
			if d := diffWhole(blockVisits(t, bs, skip), without(want, skip)); d != "" {
				t.Fatalf("round %d, parts of %d bytes, without %b: %s", round, max, skip, d)
			}
		}
		if len(want) > 0 {
			planted := slices.Clone(want)
			planted[len(planted)/2].Events++
			bs, _ := encodeVisitParts(want, maxPartBytes)
			if diffWhole(blockVisits(t, bs, 0), planted) == "" {
				t.Fatal("positive control: a planted difference is not caught")
			}
		}
	}
}

// TestVisitBlock_Refuses: visits out of visitor order, a negative figure
// and damaged blocks are errors, the last ones errBlock.
func TestVisitBlock_Refuses(t *testing.T) {
	at := time.Date(2024, 3, 19, 9, 0, 0, 0, time.UTC)
	if _, err := encodeVisitBlock([]Visit{{VisitorID: "b", Start: at}, {VisitorID: "a", Start: at}}); err == nil {
		t.Error("visitors out of order: no error")
	}
	if _, err := encodeVisitBlock([]Visit{{VisitorID: "a", Start: at, PageViews: -1}}); err == nil {
		t.Error("a negative figure: no error")
	}
	good, err := encodeVisitBlock(visitsOfHits(randomHits(rand.New(rand.NewPCG(1, 2)), 50, 5, 5), 30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":        nil,
		"a hit block":  append([]byte(blockMagic), good[4:]...),
		"version 2":    append(append([]byte(visitBlockMagic), 2), good[5:]...),
		"cut short":    good[:len(good)-3],
		"a byte added": append(slices.Clone(good), 0),
	} {
		if _, err := decodeVisitBlock(b, allVCols); !errors.Is(err, errBlock) {
			t.Errorf("%s: error %v, want errBlock", name, err)
		}
	}
}

// FuzzDecodeVisitBlock: decodeVisitBlock never panics; what it accepts
// encodes again to a block that decodes to the same visits.
func FuzzDecodeVisitBlock(f *testing.F) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{0, 1, 5, 60} {
		b, err := encodeVisitBlock(visitsOfHits(randomHits(r, n, 3, 4), 30*time.Minute))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vb, err := decodeVisitBlock(b, allVCols)
		if err != nil {
			if !errors.Is(err, errBlock) {
				t.Fatalf("error %v is not errBlock", err)
			}
			return
		}
		vs := make([]Visit, vb.n)
		for i := range vs {
			vb.visit(i, &vs[i], true)
		}
		again, err := encodeVisitBlock(vs)
		if err != nil {
			t.Fatalf("a decoded block does not encode: %v", err)
		}
		if d := diffWhole(blockVisits(t, [][]byte{again}, 0), vs); d != "" {
			t.Fatal(d)
		}
	})
}

// collectVisits returns copies of the visits Visits gives with o.
func collectVisits(t *testing.T, s *Store, site string, from, to time.Time, o *VisitOptions) []Visit {
	t.Helper()
	var out []Visit
	for v, err := range s.Visits(context.Background(), site, from, to, o) {
		if err != nil {
			t.Fatalf("Visits [%s, %s): %v", timestamp(from), timestamp(to), err)
		}
		c := *v
		c.Hits, c.Goals = nil, nil
		out = append(out, c)
	}
	return out
}

// TestVisits_VisitPartsAgreeWithHits: over random days read from their
// hit buckets alone, random ranges, fields and Keep tests, the visits
// read from the visit parts (neither hits nor goals asked) are those
// formed from the hit parts (hits asked); the visit parts are what is
// read (damaged, the read fails); a bucket written before visits were
// kept (no visitParts) and one whose visits were formed with another
// session timeout answer the same from their hits, without reading their
// (damaged) visit parts.
func TestVisits_VisitPartsAgreeWithHits(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	eachBackend(t, func(t *testing.T, b backend) {
		clk, s := bucketSite(t, b, now, &Options{partBytes: 600})
		r := rand.New(rand.NewPCG(31, 32))
		start := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
		for _, e := range genEvents(r, []string{"alpha"}, map[string]string{"alpha": "alpha.example"}, now, start) {
			rec(t, s, e)
		}
		clk.Set(Day.next(now).Add(time.Minute))
		if _, err := s.AggregatePending(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Set(now.AddDate(0, 0, 45))
		lo, hi := start, Day.next(now)
		if nb, nr := sources(t, s, "alpha", lo, hi); nb != 11 || nr != 0 {
			t.Fatalf("%d days from buckets, %d raw; want 11 and 0", nb, nr)
		}
		bs, err := s.readBuckets(ctx, "alpha", lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		vparts := 0
		for _, b := range bs {
			if !b.hasVisits || b.visitTimeout != (30*time.Minute).Milliseconds() {
				t.Fatalf("bucket %+v: no visits, or another timeout", b)
			}
			vparts += b.visitParts
		}
		if vparts <= len(bs) {
			t.Fatalf("%d visit parts for %d days: none is cut in parts", vparts, len(bs))
		}
		type query struct {
			from, to time.Time
			skip     Field
			keep     func(*Visit) bool
		}
		var qs []query
		for i := range 30 {
			a := start.AddDate(0, 0, r.IntN(11))
			q := query{from: a, to: a.AddDate(0, 0, 1+r.IntN(11)), skip: randomSkip(r)}
			if q.to.After(hi) {
				q.to = hi
			}
			if i%2 == 1 {
				country := []string{"FR", "DE", "US", ""}[r.IntN(4)]
				q.skip &^= FieldCountry
				q.keep = func(v *Visit) bool { return v.Country != country && v.Start.IsZero() }
			}
			qs = append(qs, q)
		}
		check := func(phase string) (total int) {
			t.Helper()
			for _, q := range qs {
				got := collectVisits(t, s, "alpha", q.from, q.to, &VisitOptions{Keep: q.keep, Skip: q.skip | FieldGoals | FieldHits})
				want := without(collectVisits(t, s, "alpha", q.from, q.to, &VisitOptions{Keep: q.keep, Skip: q.skip | FieldGoals}), q.skip)
				if d := diffWhole(got, want); d != "" {
					t.Fatalf("%s, [%s, %s) without %b: %s", phase, q.from, q.to, q.skip, d)
				}
				total += len(got)
			}
			return total
		}
		if n := check("visit parts"); n < 100 {
			t.Fatalf("%d visits read in all: the test checks too little", n)
		}
		items := func(prefix string) []table.Item {
			var out []table.Item
			for it, err := range s.t.QueryAll(ctx, &table.Query{Hash: sitePK("alpha"), Range: table.BeginsWith(prefix), Consistent: true}) {
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, it)
			}
			return out
		}
		put := func(it table.Item) {
			if _, err := s.t.Put(ctx, it, nil); err != nil {
				t.Fatal(err)
			}
		}
		// Damaged visit parts fail the read of visits alone: it reads them.
		// They stay damaged for the reads below, which must not read them.
		saved := items("HITVIS#")
		for _, it := range saved {
			c := copyItem(it)
			c["block"] = &types.AttributeValueMemberB{Value: []byte("TTVB\x01junk")}
			put(c)
		}
		q := qs[0]
		for _, err := range s.Visits(ctx, "alpha", q.from, q.to, &VisitOptions{Skip: FieldGoals | FieldHits}) {
			if !errors.Is(err, errBlock) {
				t.Fatalf("damaged visit parts read: error %v, want errBlock", err)
			}
			break
		}
		// Visits formed with another session timeout than the Store's: they
		// are formed from the hits again.
		heads := items("HITS#")
		for _, it := range heads {
			c := copyItem(it)
			c["visitTimeout"] = nAttr((20 * time.Minute).Milliseconds())
			put(c)
		}
		check("another session timeout")
		// Buckets as written before visits were kept.
		for _, it := range heads {
			c := copyItem(it)
			delete(c, "visitParts")
			delete(c, "visitTimeout")
			put(c)
		}
		check("buckets without visits")
	})
}

// copyItem returns a shallow copy of it.
func copyItem(it table.Item) table.Item {
	c := table.Item{}
	for k, v := range it {
		c[k] = v
	}
	return c
}
