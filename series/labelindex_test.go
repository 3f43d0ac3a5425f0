package series

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/table"
)

func TestIDLabels(t *testing.T) {
	for _, c := range []struct {
		id    string
		want  []Label
		isSet bool
	}{
		{"job=api", []Label{{"job", "api"}}, true},
		{"code=200,instance=a:80,job=api", []Label{{"code", "200"}, {"instance", "a:80"}, {"job", "api"}}, true},
		{`instance=b\,c\=d:80,job=x\\y`, []Label{{"instance", "b,c=d:80"}, {"job", `x\y`}}, true},
		{"_", nil, true},
		{HashedIDPrefix + "00ff", nil, false},
		{"dev-1", []Label{{SeriesLabel, "dev-1"}}, false},
		{"b=1,a=2", []Label{{SeriesLabel, "b=1,a=2"}}, false},         // not sorted
		{"a=1,a=2", []Label{{SeriesLabel, "a=1,a=2"}}, false},         // a name twice
		{"a=", []Label{{SeriesLabel, "a="}}, false},                   // an empty value
		{"=a", []Label{{SeriesLabel, "=a"}}, false},                   // an empty name
		{"__name__=up", []Label{{SeriesLabel, "__name__=up"}}, false}, // the metric name
		{`a=b\`, []Label{{SeriesLabel, `a=b\`}}, false},               // a lone escape
		{`a=b\n`, []Label{{SeriesLabel, `a=b\n`}}, false},             // an unknown escape
		{"a=b=c", []Label{{SeriesLabel, "a=b=c"}}, false},
	} {
		got, isSet := IDLabels(c.id)
		if !slices.Equal(got, c.want) || isSet != c.isSet {
			t.Errorf("IDLabels(%q) = %v, %v; want %v, %v", c.id, got, isSet, c.want, c.isSet)
		}
	}
}

// indexModel is what the label index of a kind must list: the labels of
// the ids written (IDLabels).
type indexModel map[string]bool

func (m indexModel) names() []string {
	set := map[string]bool{}
	for id := range m {
		for _, l := range indexLabels(id) {
			set[l.Name] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func (m indexModel) values(name string) []string {
	set := map[string]bool{}
	for id := range m {
		for _, l := range indexLabels(id) {
			if l.Name == name {
				set[l.Value] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func (m indexModel) plain() []string {
	var out []string
	for id := range m {
		if _, isSet := IDLabels(id); !isSet {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (m indexModel) series(l Label) []string {
	var out []string
	for id := range m {
		if slices.Contains(indexLabels(id), l) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// inRange returns the keys of all in r, ignoring its limit.
func inRange(all []string, r IndexRange) []string {
	var out []string
	for _, k := range all {
		if r.has(k) {
			out = append(out, k)
		}
	}
	return out
}

// listAll pages through a listing with r's bounds, limit at a time.
func listAll(t *testing.T, r IndexRange, list func(IndexRange) ([]string, bool, error)) []string {
	t.Helper()
	var out []string
	for pages := 0; ; pages++ {
		keys, more, err := list(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.Limit > 0 && len(keys) > r.Limit {
			t.Fatalf("a page of %d keys, limit %d", len(keys), r.Limit)
		}
		out = append(out, keys...)
		if !more {
			return out
		}
		if len(keys) == 0 || pages > 10_000 {
			t.Fatalf("more after %d keys", len(keys))
		}
		r.After = keys[len(keys)-1]
	}
}

// checkIndex checks every listing of kind k against m: all names,
// values and postings, and some ranges of each, in pages of several
// sizes.
func checkIndex(t *testing.T, k *Kind, m indexModel, rng *rand.Rand, when string) {
	t.Helper()
	ctx := context.Background()
	ranges := func(all []string) []IndexRange {
		rs := []IndexRange{{}, {Limit: 1}, {Limit: 3}}
		for range 4 {
			r := IndexRange{Limit: rng.IntN(5)}
			if len(all) > 0 {
				pick := func() string { return all[rng.IntN(len(all))] }
				switch rng.IntN(4) {
				case 0:
					r.Prefix = string([]rune(pick())[:1])
				case 1:
					r.From = pick()
				case 2:
					r.From, r.To = pick(), pick()
				case 3:
					r.After = pick()
				}
			}
			rs = append(rs, r)
		}
		return rs
	}
	check := func(what string, all []string, list func(IndexRange) ([]string, bool, error)) {
		t.Helper()
		for _, r := range ranges(all) {
			got, want := listAll(t, r, list), inRange(all, r)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s %+v: %q\nwant %q", when, what, r, got, want)
			}
		}
	}
	check("names", m.names(), func(r IndexRange) ([]string, bool, error) { return k.LabelNames(ctx, r) })
	check("plain series", m.plain(), func(r IndexRange) ([]string, bool, error) { return k.PlainSeries(ctx, r) })
	for _, name := range append(m.names(), "nope") {
		check("values of "+name, m.values(name), func(r IndexRange) ([]string, bool, error) { return k.LabelValues(ctx, name, r) })
		for _, v := range append(m.values(name), "nope") {
			l := Label{name, v}
			check(fmt.Sprintf("series of %v", l), m.series(l), func(r IndexRange) ([]string, bool, error) { return k.LabelSeries(ctx, l, r) })
		}
	}
}

// labelSetID returns a random label set id of names a..d and a few values
// each, some with characters to escape.
func labelSetID(rng *rand.Rand) string {
	var parts []string
	for _, name := range []string{"a", "b", "c", "d"} {
		if rng.IntN(3) == 0 {
			continue
		}
		v := []string{"1", "2", "x y", `p\,q`, "é"}[rng.IntN(5)]
		parts = append(parts, name+"="+v)
	}
	if len(parts) == 0 {
		return "_"
	}
	return strings.Join(parts, ",")
}

// TestLabelIndex writes series of every sort of id (label sets, "_",
// plain ids, hashed ones) and checks the index's listings against the ids
// written: while buffered (this Store's own), once flushed, and from
// another Store of the table.
func TestLabelIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		sc := Schema{Name: "LBL", Fields: []string{"v"}, NoRollups: true}
		st, k := openKind(t, api, opts, sc)
		rng := rand.New(rand.NewPCG(1, 2))
		m := indexModel{}
		write := func(n int) {
			for range n {
				var id string
				switch rng.IntN(6) {
				case 0:
					id = fmt.Sprintf("dev-%d", rng.IntN(50))
				case 1:
					id = HashedIDPrefix + fmt.Sprintf("%064x", rng.IntN(5))
				default:
					id = labelSetID(rng)
				}
				if err := k.Write(ctx, id, Reading{Time: t0, Values: []float64{1}}); err != nil {
					t.Fatal(err)
				}
				m[id] = true
			}
		}
		if ready, err := k.LabelIndexReady(ctx); err != nil || !ready {
			t.Fatalf("a new kind's index: ready %v, %v", ready, err)
		}
		write(40)
		checkIndex(t, k, m, rng, "buffered")
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		checkIndex(t, k, m, rng, "flushed")
		write(30)
		checkIndex(t, k, m, rng, "flushed and buffered")
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		other := mustKind(t, reopen(t, api, opts, sc), "LBL")
		checkIndex(t, other, m, rng, "another store")

		for _, r := range []IndexRange{{Limit: -1}, {Prefix: "\xc3"}, {After: "a\xff"}} {
			if _, _, err := k.LabelValues(ctx, "a", r); !errors.Is(err, ErrInvalidQuery) {
				t.Errorf("LabelValues %+v: %v", r, err)
			}
			if _, _, err := k.LabelSeries(ctx, Label{"a", "1"}, r); !errors.Is(err, ErrInvalidQuery) {
				t.Errorf("LabelSeries %+v: %v", r, err)
			}
		}
		for _, l := range []Label{{"a#b", "1"}, {"a", "1#2"}, {"", "1"}, {"a", ""}} {
			if ids, more, err := k.LabelSeries(ctx, l, IndexRange{}); len(ids) > 0 || more || err != nil {
				t.Errorf("LabelSeries(%v): %q %v %v", l, ids, more, err)
			}
		}
	})
}

// TestLabelIndex_OnePutPerLabel: a new series costs its postings and the
// values and names new to the Store, once; a known series nothing.
func TestLabelIndex_OnePutPerLabel(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	api := &testenv.Counter{API: openEngine(t, clk)}
	st, k := openKind(t, api, testOptions(t, clk), Schema{Name: "V", Fields: []string{"v"}, NoRollups: true, NoCompaction: true})
	at := t0
	write := func(ids ...string) int {
		t.Helper()
		api.Reset()
		for _, id := range ids {
			at = at.Add(time.Second)
			if err := k.Write(ctx, id, Reading{Time: at, Values: []float64{1}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		return api.Puts(func(it map[string]types.AttributeValue) bool {
			pk, _ := getS(it, attrPK)
			return strings.HasPrefix(pk, labelNamesPrefix) || strings.HasPrefix(pk, labelValuesPrefix) || strings.HasPrefix(pk, postingsPrefix)
		})
	}
	// Two postings, two values, two names.
	if n := write("a=1,b=1"); n != 6 {
		t.Errorf("first series: %d index puts, want 6", n)
	}
	// Two postings and one new value.
	if n := write("a=1,b=2"); n != 3 {
		t.Errorf("a new value: %d index puts, want 3", n)
	}
	if n := write("a=1,b=2", "a=1,b=1"); n != 0 {
		t.Errorf("known series: %d index puts, want 0", n)
	}
}

// TestLabelIndex_ConcurrentWriters: two Stores of one table write the same
// new series at once, from several goroutines each; a third Store finds
// every series through the index, each once.
func TestLabelIndex_ConcurrentWriters(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		opts.FlushSize = 50 // flushes while the others write
		sc := Schema{Name: "CW", Fields: []string{"v"}, NoRollups: true}
		stores := []*Store{openStore(t, api, opts, sc), reopen(t, api, opts, sc)}
		const n = 300
		ids := make([]string, n)
		m := indexModel{}
		for i := range ids {
			ids[i] = fmt.Sprintf("inst=i%03d,job=j%d", i, i%7)
			m[ids[i]] = true
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for s, st := range stores {
			k := mustKind(t, st, "CW")
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range ids {
						id := ids[(i*(g+1)+s)%n]
						if err := k.Write(ctx, id, Reading{Time: t0.Add(time.Duration(s) * time.Second), Values: []float64{float64(g)}}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, st := range stores {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		k := mustKind(t, reopen(t, api, opts, sc), "CW")
		checkIndex(t, k, m, rand.New(rand.NewPCG(3, 4)), "after two writers")
	})
}

// TestLabelIndex_Crash kills a Store at each write call of a flush of new
// series (and part way through a batch), then opens the table again with
// and without the write-ahead log's replay: every series with a reading
// in the table is in the index (its items are written before any
// reading), and with the replay every series written is.
func TestLabelIndex_Crash(t *testing.T) {
	ctx := context.Background()
	sc := Schema{Name: "KX", Fields: []string{"v"}, NoRollups: true}
	var ids []string
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("host=h%02d,job=j%d", i, i%3))
	}
	for n := 1; ; n++ {
		killed := false
		for _, prefix := range []int{0, 7} {
			clk := newClock(t0.Add(time.Hour))
			api, opts := openOn(t, backends()[0], clk)
			opts.WALDir = t.TempDir()
			st := openStore(t, api, opts, sc)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			dying := &killAPI{API: api, n: n, prefix: prefix}
			dopts := *opts
			dopts.TableOptions = testTableOptions
			ds := mustOpen(t, ctx, dying, &dopts, sc)
			k := mustKind(t, ds, "KX")
			for i, id := range ids {
				if err := k.Write(ctx, id, Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{1}}); err != nil {
					t.Fatal(err) // acknowledged: in the log
				}
			}
			err := ds.Flush(ctx)
			killed = errors.Is(err, errKilled)
			if err != nil && !killed {
				t.Fatalf("kill at write %d: %v", n, err)
			}
			_ = ds.Close()
			where := fmt.Sprintf("kill at write %d (+%d)", n, prefix)

			// No replay: what the table holds.
			bare := *opts
			bare.WALDir = ""
			k = mustKind(t, reopen(t, api, &bare, sc), "KX")
			for _, id := range ids {
				rs, err := rangeAll(ctx, k, id, Query{})
				if err != nil {
					t.Fatal(err)
				}
				if len(rs) > 0 && !indexed(t, k, id) {
					t.Errorf("%s: series %s has readings but is not in the index", where, id)
				}
			}
			// The replay.
			st = reopen(t, api, opts, sc)
			k = mustKind(t, st, "KX")
			for _, id := range ids {
				if !indexed(t, k, id) {
					t.Errorf("%s: replayed, series %s is not in the store's index", where, id)
				}
			}
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			k = mustKind(t, reopen(t, api, &bare, sc), "KX")
			for _, id := range ids {
				if !indexed(t, k, id) {
					t.Errorf("%s: replayed and flushed, series %s is not in the index", where, id)
				}
			}
		}
		if !killed {
			if n < 3 {
				t.Fatalf("the flush made %d writes only", n-1)
			}
			return
		}
	}
}

// indexed reports whether series id is found through each of its labels,
// among the plain series if it is one, and in the directory.
func indexed(t *testing.T, k *Kind, id string) bool {
	t.Helper()
	ctx := context.Background()
	if _, isSet := IDLabels(id); !isSet {
		got, _, err := k.PlainSeries(ctx, IndexRange{From: id, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0] != id {
			return false
		}
	}
	for _, l := range indexLabels(id) {
		got, _, err := k.LabelSeries(ctx, l, IndexRange{From: id, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0] != id {
			return false
		}
	}
	got, _, err := k.Series(ctx, id, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	return len(got) == 1 && got[0] == id
}

// TestLabelIndex_DeleteSeries: a deleted series stays in the index, with
// no readings, so that a Store that wrote it before the delete and
// writes it again (putting no index item, as it remembers them) leaves
// it findable.
func TestLabelIndex_DeleteSeries(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		sc := Schema{Name: "DL", Fields: []string{"v"}, NoRollups: true}
		a := mustKind(t, openStore(t, api, opts, sc), "DL")
		other := reopen(t, api, opts, sc)
		b2 := mustKind(t, other, "DL")
		const id = "job=x"
		if err := b2.WriteSync(ctx, id, Reading{Time: t0, Values: []float64{1}}); err != nil {
			t.Fatal(err)
		}
		if err := a.DeleteSeries(ctx, id); err != nil {
			t.Fatal(err)
		}
		if rs, err := rangeAll(ctx, a, id, Query{}); err != nil || len(rs) > 0 {
			t.Fatalf("deleted: %v %v", rs, err)
		}
		if !indexed(t, a, id) {
			t.Error("a deleted series left the index")
		}
		if err := b2.WriteSync(ctx, id, Reading{Time: t0.Add(time.Minute), Values: []float64{2}}); err != nil {
			t.Fatal(err)
		}
		k := mustKind(t, reopen(t, api, opts, sc), "DL")
		if !indexed(t, k, id) {
			t.Error("written again by the other store: not in the index")
		}
		if rs, err := rangeAll(ctx, k, id, Query{}); err != nil || len(rs) != 1 {
			t.Errorf("written again: %v %v", rs, err)
		}
	})
}

// TestLabelIndex_Build: a table written before the index (its items
// removed, as an earlier version left it) is not ready; the index pass
// builds it from the directory, resuming from where an interrupted pass
// stopped, and then the listings are those of a table indexed as it was
// written. A kind with no series is ready at once.
func TestLabelIndex_Build(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		sc := Schema{Name: "OLD", Fields: []string{"v"}, NoRollups: true}
		empty := Schema{Name: "NEW", Fields: []string{"v"}, NoRollups: true}
		st := openStore(t, api, opts, sc, empty)
		k := mustKind(t, st, "OLD")
		rng := rand.New(rand.NewPCG(5, 6))
		m := indexModel{}
		for i := range 2*indexPage + 10 {
			id := labelSetID(rng)
			if i%5 == 0 {
				id = fmt.Sprintf("dev-%04d", i)
			}
			m[id] = true
			if err := k.Write(ctx, id, Reading{Time: t0, Values: []float64{1}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		removeIndex(t, api, opts.Table)

		st = reopen(t, api, opts, sc, empty)
		k = mustKind(t, st, "OLD")
		if ready, err := k.LabelIndexReady(ctx); err != nil || ready {
			t.Fatalf("an old kind's index: ready %v, %v", ready, err)
		}
		if ready, err := mustKind(t, st, "NEW").LabelIndexReady(ctx); err != nil || !ready {
			t.Fatalf("an empty kind's index: ready %v, %v", ready, err)
		}
		// A pass stopped after its first page resumes from it.
		stopped := &stopAfterState{API: api}
		sopts := *opts
		sopts.TableOptions = testTableOptions
		sk := mustKind(t, mustOpen(t, ctx, stopped, &sopts, sc, empty), "OLD")
		if err := sk.buildIndex(ctx); !errors.Is(err, errKilled) {
			t.Fatalf("stopped pass: %v", err)
		}
		state, err := k.readIndexState(ctx)
		if err != nil || state.done || state.after == "" {
			t.Fatalf("after one page: %+v %v", state, err)
		}
		if err := st.IndexLabels(ctx); err != nil {
			t.Fatal(err)
		}
		if ready, err := k.LabelIndexReady(ctx); err != nil || !ready {
			t.Fatalf("built: ready %v, %v", ready, err)
		}
		// A pass that records its progress late does not undo the end.
		if done, err := k.writeIndexState(ctx, indexState{after: "x"}); err != nil || !done {
			t.Fatalf("late progress: done %v, %v", done, err)
		}
		if state, err := k.readIndexState(ctx); err != nil || !state.done {
			t.Fatalf("after a late progress: %+v %v", state, err)
		}
		checkIndex(t, mustKind(t, reopen(t, api, opts, sc, empty), "OLD"), m, rng, "built")
	})
}

// removeIndex deletes the label index's items from table tbl.
func removeIndex(t *testing.T, api timetable.API, tbl string) {
	t.Helper()
	ctx := context.Background()
	c, err := table.New(api, table.Schema{Name: tbl, HashKey: attrPK, RangeKey: attrSK}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dels []table.WriteRequest
	for it, err := range c.ScanAll(ctx, &table.Scan{Consistent: true}) {
		if err != nil {
			t.Fatal(err)
		}
		pk, _ := getS(it, attrPK)
		sk, _ := getS(it, attrSK)
		for _, p := range []string{labelNamesPrefix, labelValuesPrefix, postingsPrefix, plainPrefix, indexStatePK} {
			if strings.HasPrefix(pk, p) {
				dels = append(dels, table.DeleteRequest(table.K(pk, sk)))
			}
		}
	}
	if len(dels) == 0 {
		t.Fatal("no index item to remove")
	}
	if err := c.BatchWrite(ctx, dels); err != nil {
		t.Fatal(err)
	}
}

// stopAfterState fails every write after the first put of an index
// state item, as a process dying there would.
type stopAfterState struct {
	timetable.API
	mu   sync.Mutex
	dead bool
}

func (s *stopAfterState) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return nil, errKilled
	}
	if pk, ok := in.Item[attrPK].(*types.AttributeValueMemberS); ok && pk.Value == indexStatePK {
		s.dead = true
	}
	return s.API.PutItem(ctx, in, o...)
}

func (s *stopAfterState) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	s.mu.Lock()
	dead := s.dead
	s.mu.Unlock()
	if dead {
		return nil, errKilled
	}
	return s.API.BatchWriteItem(ctx, in, o...)
}
