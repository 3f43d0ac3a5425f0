package series

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/local"
)

// The model-based randomized test: random writes (late, out of order, at
// one instant, on the boundaries of hours, days and months, extreme
// values, missing fields, invalid calls), flushes, compactions, rollups,
// recomputes, restarts and kill -9 of a child process, applied to one
// Store that holds a kind of every layout, shard count and duplicate
// rule, and checked after each phase against a naive model
// (model_naive_test.go): Latest, LatestMany, Range paged both ways with
// flushes, compactions, rollups and restarts between pages, Iter resumed
// from its cursors, All, Aggregate from every tier, Buckets, Rollups, and
// the kinds of one rule against each other (model_check_test.go). The
// positive control (model_control_test.go) proves that the checker
// catches a planted error.
//
//	go test -run TestModel ./series/                                  # CI size, seed 1
//	go test -race -run TestModel ./series/                            # a quarter of it, same paths
//	go test -run TestModel ./series/ -series.model.seed=0 -series.model.ops=20000 -timeout 2h
//
// With TIMETABLE_DYNAMODB_ENDPOINT set it runs on DynamoDB Local too.

var (
	modelSeed    = flag.Int64("series.model.seed", 1, "seed of TestModel (0: a random seed, logged)")
	modelOps     = flag.Int("series.model.ops", 0, "operations of each TestModel run on the embedded engine (0: the CI size, 320, a quarter of it under -race); DynamoDB Local runs a seventh as many")
	modelVerbose = flag.Bool("series.model.v", false, "TestModel logs every operation")
)

const (
	// modelCIOps is the operations of a CI run on the engine.
	modelCIOps = 320
	// modelMinChecks is the fewest checks a CI run must make.
	modelMinChecks = 20_000
	// modelRaceDivisor divides modelCIOps under the race detector, which
	// makes the engine's checks about three times slower. The smaller run
	// has the same kinds of operations, kills and checks, in fewer
	// phases; the race detector needs the Store's concurrent paths run,
	// not run often, and `go test` without -race runs the full size.
	modelRaceDivisor = 4
	// modelRaceMinChecks is modelMinChecks under the race detector: the
	// engine's 80 operations in 2 phases make about 3,800 checks.
	modelRaceMinChecks = 3_000
	// modelLateWindow is Options.LateWindow.
	modelLateWindow = 5 * time.Minute
)

// modelBase is the month boundary the readings cluster around: the
// clock runs from 3 days before it to 2 days after, so November's
// monthly rollup becomes due.
var modelBase = t0 // 2099-12-01, far in the future for DynamoDB Local's TTL

// modelRules are the duplicate rules, each with its own raw retention:
// the short one makes readings expire during a run, the long one keeps
// November whole for the monthly tier.
var modelRules = []struct {
	rule   DuplicateRule
	raw    time.Duration
	abbrev string
	bucket keys.Granularity
}{
	{LastWins, 40 * 24 * time.Hour, "lw", keys.Day},
	{KeepAll, 3 * 24 * time.Hour, "ka", keys.Hour},
	{RejectDifferent, 10 * 24 * time.Hour, "rd", keys.Month},
}

var modelLayoutAbbrev = map[Layout]string{Chunks: "ch", ItemPerReading: "ip", DayPartitioned: "dp", Buckets: "bk"}

var (
	modelFields = []string{"a", "b", "c"}
	modelTags   = []string{"t", "u"}
)

// modelIDs are the series written (one a label set, see IDLabels);
// modelNobody is never written.
var modelIDs = []string{"s0", `job=s\,1,le=0.5`, "ü/ 9.x~é", strings.Repeat("z", 505) + "-long"}

const modelNobody = "nobody"

// modelConfig sizes a run.
type modelConfig struct {
	phases      int     // check phases
	opsPerPhase int     // operations before each check phase
	kills       int     // kill -9 rounds, spread over the phases
	queries     int     // paged Range queries per series, rule and phase
	aggs        int     // Aggregate queries per series, rule and phase
	between     float64 // probability of an operation between two pages
	rules       []int   // indexes into modelRules
	control     bool    // positive control: reads only, nothing between pages
	tame        bool    // no values of 1e126 or more, no times far ahead
	spreadKills bool    // kills spread over the run, not in its last phases
	shardShift  int
}

// mkind is one kind of the run and the model it follows.
type mkind struct {
	name   string
	layout Layout
	shards int
	rule   DuplicateRule
	bucket keys.Granularity
	m      *naiveModel
}

func (k *mkind) String() string {
	return fmt.Sprintf("%s (%s, %d shards, %s)", k.name, k.layout, k.shards, k.rule)
}

// group is the kinds of one rule, which must answer alike while their
// models are equal (a kill -9 may leave one kind with part of a call).
type modelGroup struct {
	kinds []*mkind
}

// mcall is a write call: Write and WriteSync have one entry.
type mcall struct {
	method  string // Write, WriteSync, WriteMany
	entries []mEntry
	note    string
}

// world is one run: a Store over a backend, its kinds, models and clock.
type modelWorld struct {
	t       testing.TB
	ctx     context.Context
	bname   string
	seed    int64
	cfg     modelConfig
	rng     *rand.Rand // the operations'
	clk     *clock
	dir     string
	db      *local.DB
	api     timetable.API
	opts    Options
	schemas []Schema
	st      *Store
	kinds   []*mkind
	groups  []*modelGroup
	used    []time.Time // instants written, for readings at one instant
	values  []float64   // values written, for filters
	history []mcall
	oplog   []string
	phase   int
	nops    int
	checks  int
	divs    modelDivergences
	start   time.Time
	end     time.Time
	bg      *modelLogHandler // the Store's background errors
	stuck   bool             // a call did not return: the run stops
	label   string           // the check being made, for the divergences' keys
	stats   map[string]*modelStat
	nkills  int
	expired atomic.Bool // a call's context expired
	cancels []context.CancelFunc
}

// modelCallTimeout bounds each call to the Store.
const modelCallTimeout = 30 * time.Second

// rc returns the context of a call to the Store: it expires after
// modelCallTimeout, and at once once a call has not returned in time.
func (w *modelWorld) rc() context.Context {
	ctx, cancel := context.WithTimeout(w.ctx, modelCallTimeout)
	w.cancels = append(w.cancels, cancel)
	if w.expired.Load() {
		cancel()
		return ctx
	}
	context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			w.expired.Store(true)
		}
	})
	return ctx
}

// timedOut reports whether a call made since the last timedOut ran out
// of time, in which case the run stops: the Store is stuck.
func (w *modelWorld) timedOut(what string) bool {
	for _, c := range w.cancels {
		c()
	}
	w.cancels = nil
	if !w.expired.Load() || w.stuck {
		return w.stuck
	}
	w.stuck = true
	w.backgroundErrors()
	w.diverge("stuck", "", "", "%s: no answer in %v; the run stops", what, modelCallTimeout)
	return true
}

// modelLogHandler keeps the warnings the Store logs (background flushes,
// rollups and compactions that failed).
type modelLogHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *modelLogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *modelLogHandler) Handle(_ context.Context, r slog.Record) error {
	s := r.Message
	r.Attrs(func(a slog.Attr) bool {
		s += " " + a.String()
		return true
	})
	h.mu.Lock()
	if len(h.msgs) < 100 {
		h.msgs = append(h.msgs, s)
	}
	h.mu.Unlock()
	return nil
}

func (h *modelLogHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *modelLogHandler) WithGroup(string) slog.Handler      { return h }

// backgroundErrors reports what the Store logged since the last call.
func (w *modelWorld) backgroundErrors() {
	w.bg.mu.Lock()
	msgs := w.bg.msgs
	w.bg.msgs = nil
	w.bg.mu.Unlock()
	for _, m := range msgs {
		w.diverge("background", "", "", "the Store logged: %s", m)
	}
}

func TestModel(t *testing.T) {
	if os.Getenv(modelChildEnv) != "" {
		t.Skip("in a child")
	}
	seed := *modelSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -series.model.seed=%d); SourceExpiry on: %v", seed, seed, seed%2 != 0)
	total, stuck := 0, false
	eachBackend(t, func(t *testing.T, b backend) {
		ops := *modelOps
		if ops == 0 {
			ops = modelCIOps
			if raceEnabled {
				ops /= modelRaceDivisor
			}
			if testing.Short() {
				ops /= 4
			}
		}
		cfg := modelConfig{opsPerPhase: 40, queries: 2, aggs: 3, between: 0.2, rules: []int{0, 1, 2}, kills: 2}
		if b.Name != "engine" {
			// DynamoDB Local costs a few milliseconds a request: fewer
			// operations, two rules (keep-all's reads are those of the
			// others), one kill.
			ops /= 7
			cfg = modelConfig{opsPerPhase: 20, queries: 1, aggs: 2, between: 0.1, rules: []int{0, 2}, kills: 1}
		}
		cfg.phases = max(2, ops/cfg.opsPerPhase)
		if *modelOps != 0 {
			// A longer run: a kill every 10 phases or so.
			cfg.kills = max(cfg.kills, cfg.phases/10)
			cfg.spreadKills = true
		}
		if testing.Short() {
			cfg.kills = 0
			cfg.opsPerPhase = max(10, cfg.opsPerPhase/2)
			cfg.phases = 2
		}
		// CI's seed gives the day-partitioned kind of the 40-day rule
		// one shard (a range without From reads 40 days a shard).
		cfg.shardShift = int((uint64(seed) + 1) % 4)
		w := newWorld(t, b, seed, cfg)
		start := time.Now()
		w.run()
		t.Logf("%s: %d operations, %d phases, %d kinds, %d checks in %v", b.Name, w.nops, cfg.phases, len(w.kinds), w.checks, time.Since(start).Round(time.Millisecond))
		total += w.checks
		stuck = stuck || w.stuck
		var sb strings.Builder
		for _, what := range slices.Sorted(maps.Keys(w.stats)) {
			st := w.stats[what]
			fmt.Fprintf(&sb, " %s %d in %v;", what, st.checks, st.d.Round(time.Millisecond))
		}
		t.Logf("checks and time by kind:%s", sb.String())
		w.report()
	})
	t.Logf("%d checks in all", total)
	minChecks := modelMinChecks
	if raceEnabled {
		minChecks = modelRaceMinChecks
	}
	if *modelOps == 0 && !testing.Short() && !stuck && total < minChecks {
		t.Errorf("%d checks, want at least %d in a CI run", total, minChecks)
	}
}

func newWorld(t testing.TB, b backend, seed int64, cfg modelConfig) *modelWorld {
	w := &modelWorld{t: t, ctx: context.Background(), bname: b.Name, seed: seed, cfg: cfg, dir: t.TempDir()}
	w.rng = rand.New(rand.NewPCG(uint64(seed), 0x6d6f64656c))
	w.start = modelBase.Add(-72*time.Hour + 500*time.Microsecond)
	w.end = modelBase.Add(48*time.Hour + 500*time.Microsecond)
	w.clk = newClock(w.start)
	for _, ri := range cfg.rules {
		r := modelRules[ri]
		g := &modelGroup{}
		for li, l := range allLayouts {
			k := &mkind{layout: l, shards: 1 + (li+ri+cfg.shardShift)%4, rule: r.rule, bucket: r.bucket,
				m: newNaiveModel(r.rule, len(modelFields), len(modelTags), r.raw)}
			k.name = fmt.Sprintf("%s-%s-%d", r.abbrev, modelLayoutAbbrev[l], k.shards)
			sc := Schema{Name: k.name, Fields: modelFields, Tags: modelTags, Layout: l, Duplicates: r.rule, Shards: k.shards,
				Retention: Retention{Raw: r.raw}}
			if l == Buckets {
				sc.BucketPeriod = r.bucket
			}
			w.schemas = append(w.schemas, sc)
			w.kinds = append(w.kinds, k)
			g.kinds = append(g.kinds, k)
		}
		w.groups = append(w.groups, g)
	}
	w.opts = *testOptions(t, w.clk)
	w.opts.WALDir = filepath.Join(w.dir, "wal")
	w.opts.WALNoSync = true
	w.opts.LateWindow = modelLateWindow
	w.opts.MaxFuture = -1 // the model writes readings days ahead of its clock
	w.bg = &modelLogHandler{}
	w.opts.Logger = slog.New(w.bg)
	w.opts.FlushSize = 40 + w.rng.IntN(200)
	if seed%2 != 0 {
		// Odd seeds leave merged flush chunks to expire (they do not
		// within the model's days): reads beside sources of any age.
		w.opts.SourceExpiry = 30 * 24 * time.Hour
	}
	w.openAPI()
	w.open()
	if err := w.st.EnsureTable(w.rc()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.st != nil {
			w.st.Close()
			if w.bname != "engine" {
				if err := w.st.Table().Drop(context.Background()); err != nil {
					t.Errorf("drop: %v", err)
				}
			}
		}
		if w.db != nil {
			w.db.Close()
		}
	})
	return w
}

// openAPI opens the backend: an embedded engine on disk (so that a child
// process can open it too), or DynamoDB Local.
func (w *modelWorld) openAPI() {
	if w.bname == "engine" {
		db, err := local.Open(filepath.Join(w.dir, "data"), &local.Options{Now: w.clk.Now, NoSync: true, MemTableSize: 64 << 20})
		if err != nil {
			w.t.Fatalf("cannot open the embedded engine: %v", err)
		}
		w.db, w.api = db, db
		return
	}
	w.api = dynamoLocal(os.Getenv(endpointEnv))
}

func (w *modelWorld) closeAPI() {
	if w.db != nil {
		if err := w.db.Close(); err != nil {
			w.t.Fatalf("cannot close the engine: %v", err)
		}
		w.db, w.api = nil, nil
	}
}

func (w *modelWorld) open() {
	st, err := Open(w.rc(), w.api, &w.opts, w.schemas...)
	if err != nil {
		w.t.Fatalf("cannot open the store: %v", err)
	}
	w.st = st
}

// reopen closes the Store and opens it again, a second or more later, as
// a restarted process would.
func (w *modelWorld) reopen() {
	if err := w.st.Close(); err != nil {
		w.diverge("close", "", "", "Close: %v", err)
	}
	w.clk.Advance(time.Second + time.Duration(w.rng.IntN(5000))*time.Millisecond)
	w.open()
}

func (w *modelWorld) kind(k *mkind) *Kind { return mustKind(w.t, w.st, k.name) }

// run runs the phases: operations, then checks.
func (w *modelWorld) run() {
	// In CI the kills come last (the engine reads slower after a
	// restart); in longer runs, they are spread out.
	killAt := map[int]bool{}
	for i := 0; i < w.cfg.kills; i++ {
		if w.cfg.spreadKills {
			killAt[(i+1)*w.cfg.phases/(w.cfg.kills+1)] = true
		} else {
			killAt[max(0, w.cfg.phases-1-i)] = true
		}
	}
	for w.phase = 0; w.phase < w.cfg.phases; w.phase++ {
		for i := 0; i < w.cfg.opsPerPhase && !w.stuck; i++ {
			w.op()
			w.timedOut(fmt.Sprintf("operation %d", w.nops))
		}
		if w.stuck {
			return
		}
		if killAt[w.phase] {
			w.timed("op kill", w.kill)
		}
		// Keep the clock on schedule: from 3 days before modelBase to 2
		// days after, in whole milliseconds.
		target := w.start.Add((w.end.Sub(w.start) * time.Duration(w.phase+1) / time.Duration(w.cfg.phases)).Truncate(time.Millisecond))
		if now := w.clk.Now(); now.Before(target) {
			w.logf("advance the clock %v to %s (schedule)", target.Sub(now), mFmtTime(target))
			w.clk.Set(target)
		}
		w.check()
		if w.stuck {
			return
		}
		if w.t.Failed() && w.divs.n > 200 {
			return
		}
	}
}

// op makes one random operation.
func (w *modelWorld) op() {
	w.nops++
	w.label = "operation"
	w.backgroundErrors()
	switch x := w.rng.IntN(100); {
	case x < 47:
		c := w.genCall()
		w.timed("op write", func() { w.write(c) })
	case x < 48:
		w.timed("op delete", w.deleteOp)
	case x < 56:
		c := w.genRetry()
		w.timed("op write", func() { w.write(c) })
	case x < 62:
		c := w.genInvalid()
		w.timed("op write", func() { w.write(c) })
	case x < 69:
		w.logf("Flush")
		w.timed("op flush", func() {
			if err := w.st.Flush(w.rc()); err != nil {
				w.diverge("flush", "", "", "Flush: %v", err)
			}
		})
	case x < 80:
		w.advance(w.genAdvance())
	case x < 85:
		w.timed("op compact", w.compact)
	case x < 87:
		k, id := w.kinds[w.rng.IntN(len(w.kinds))], modelIDs[w.rng.IntN(len(modelIDs))]
		w.timed("op compact", func() { w.kindCompact(k, id) })
	case x < 92:
		w.timed("op rollup", w.rollup)
	case x < 95:
		k := w.kinds[w.rng.IntN(len(w.kinds))]
		id := modelIDs[w.rng.IntN(len(modelIDs))]
		from, to := w.genSpan(w.rng)
		w.logf("%s.Recompute(%q, %s, %s)", k.name, mShort(id), mFmtTime(from), mFmtTime(to))
		w.timed("op rollup", func() {
			if err := w.kind(k).Recompute(w.rc(), id, from, to); err != nil {
				w.diverge("recompute", k.name, id, "Recompute(%s, %s): %v", mFmtTime(from), mFmtTime(to), err)
			}
		})
	default:
		w.logf("Close and Open")
		w.timed("op reopen", w.reopen)
	}
}

func (w *modelWorld) advance(d time.Duration) {
	w.logf("advance the clock %v to %s", d, mFmtTime(w.clk.Now().Add(d)))
	w.clk.Advance(d)
}

func (w *modelWorld) compact() {
	w.logf("Store.Compact")
	if err := w.st.Compact(w.rc()); err != nil {
		w.diverge("compact", "", "", "Store.Compact: %v", err)
	}
}

func (w *modelWorld) kindCompact(k *mkind, id string) {
	from, to := w.genSpan(w.rng)
	w.logf("%s.Compact(%q, %s, %s)", k.name, mShort(id), mFmtTime(from), mFmtTime(to))
	if err := w.kind(k).Compact(w.rc(), id, from, to); err != nil {
		w.diverge("compact", k.name, id, "Kind.Compact(%s, %s): %v", mFmtTime(from), mFmtTime(to), err)
	}
}

func (w *modelWorld) rollup() {
	w.logf("Store.Rollup")
	if err := w.st.Rollup(w.rc()); err != nil {
		w.diverge("rollup", "", "", "Store.Rollup: %v", err)
	}
}

// write makes a write call on every kind, and checks each answer with
// the model's.
func (w *modelWorld) write(c mcall) {
	w.history = append(w.history, c)
	w.logf("%s", mFmtCall(c))
	for _, k := range w.kinds {
		if !w.stuck {
			w.writeKind(k, c)
		}
	}
	w.remember(c)
	if !w.stuck {
		w.timed("read your write", func() { w.readYourWrite(c) })
	}
}

// readYourWrite checks, on every kind, the series of one entry of call
// c just after it: its Latest, and what Range returns at one instant of
// the call.
func (w *modelWorld) readYourWrite(c mcall) {
	rng := w.crng("ryw", w.nops)
	e := c.entries[rng.IntN(len(c.entries))]
	if !mValidID(e.id) || len(e.rs) == 0 {
		return
	}
	at := time.UnixMilli(mFloorMs(e.rs[rng.IntN(len(e.rs))].Time)).UTC()
	if at.Year() < 0 || at.Year() > 9999 {
		return
	}
	q := mQuery{from: at, to: at.Add(time.Millisecond), reverse: rng.IntN(2) == 0}
	w.label = "read your write"
	now := w.clk.Now()
	for _, k := range w.kinds {
		r, err := w.kind(k).Latest(w.rc(), e.id)
		w.checks++
		want, ok := k.m.latest(e.id, now)
		switch {
		case !ok && !errors.Is(err, ErrNotFound):
			w.diverge("latest/after-write", k.name, e.id, "Latest just after %s: got %s (error %v), want ErrNotFound", c.method, mFmtReading(r), err)
		case ok && err != nil:
			w.diverge("latest/after-write", k.name, e.id, "Latest just after %s: error %v, want %s", c.method, err, mFmtM(want))
		case ok:
			if d := mReadingDiff(r, want); d != "" {
				w.diverge("latest/after-write", k.name, e.id, "Latest just after %s at %s: %s", c.method, mFmtTime(now), d)
			}
		}
		p, err := w.kind(k).Range(w.rc(), e.id, q.query())
		w.checks++
		if err != nil {
			w.diverge("range-error", k.name, e.id, "Range%s just after %s: %v", q, c.method, err)
			continue
		}
		if d := mReadingsDiff(p.Readings, k.m.rangeOf(e.id, q, now, true)); d != "" {
			w.diverge("range/after-write", k.name, e.id, "Range%s just after %s at %s: %s", q, c.method, mFmtTime(now), d)
		}
	}
}

// remember keeps the instants and values of call c for later calls and
// queries.
func (w *modelWorld) remember(c mcall) {
	for _, e := range c.entries {
		for _, r := range e.rs {
			if len(w.used) < 4000 && mValidID(e.id) {
				w.used = append(w.used, time.UnixMilli(mFloorMs(r.Time)).UTC())
			}
			for _, v := range r.Values {
				if len(w.values) < 4000 && !math.IsNaN(v) {
					w.values = append(w.values, v)
				}
			}
		}
	}
}

// writeKind makes call c on kind k and checks its answer.
func (w *modelWorld) writeKind(k *mkind, c mcall) {
	want := k.m.write(w.clk.Now(), c.entries, nil)
	err := w.exec(w.kind(k), c)
	w.checks++
	if w.timedOut(fmt.Sprintf("%s: %s %s", k.name, c.method, c.note)) {
		return
	}
	if !mResultIs(err, want) {
		w.diverge("write-result", k.name, c.entries[0].id, "%s %s: got %v, want %s", c.method, c.note, mErrStr(err), want)
	}
}

func mResultIs(err error, want mWant) bool {
	switch want {
	case mWantOK:
		return err == nil
	case mWantError:
		return err != nil
	case mWantExpired:
		return errors.Is(err, ErrExpired)
	case mWantConflict:
		return errors.Is(err, ErrConflict)
	}
	return errors.Is(err, ErrExpired) || errors.Is(err, ErrConflict)
}

func mErrStr(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// exec makes call c on k, with its own copies of the readings.
func (w *modelWorld) exec(k *Kind, c mcall) error {
	ctx := w.rc()
	switch c.method {
	case "Write":
		return k.Write(ctx, c.entries[0].id, mCloneReadings(c.entries[0].rs)...)
	case "WriteSync":
		return k.WriteSync(ctx, c.entries[0].id, mCloneReadings(c.entries[0].rs)...)
	}
	batch := make([]SeriesReadings, len(c.entries))
	for i, e := range c.entries {
		batch[i] = SeriesReadings{ID: e.id, Readings: mCloneReadings(e.rs)}
	}
	return k.WriteMany(ctx, batch)
}

func mCloneReadings(rs []Reading) []Reading {
	out := make([]Reading, len(rs))
	for i, r := range rs {
		out[i] = Reading{Time: r.Time, Values: slices.Clone(r.Values), Tags: slices.Clone(r.Tags)}
	}
	return out
}

// Generators. Times cluster on boundaries and on instants already
// written; values include the extremes a float64 holds.

func (w *modelWorld) genCall() mcall {
	c := mcall{method: "Write"}
	switch x := w.rng.IntN(100); {
	case x < 20:
		c.method = "WriteSync"
	case x < 55:
		c.method = "WriteMany"
	}
	n := 1
	if c.method == "WriteMany" {
		n = 1 + w.rng.IntN(4)
	}
	for i := 0; i < n; i++ {
		id := modelIDs[w.rng.IntN(len(modelIDs))]
		c.entries = append(c.entries, mEntry{id: id, rs: w.genReadings(id)})
	}
	return c
}

func (w *modelWorld) genReadings(id string) []Reading {
	var rs []Reading
	if w.rng.IntN(100) < 8 {
		// A run across an hour boundary, partly out of order.
		steps := []time.Duration{time.Millisecond, time.Second, 7 * time.Second, time.Minute, 13 * time.Minute}
		step := steps[w.rng.IntN(len(steps))]
		n := 20 + w.rng.IntN(60)
		at := w.genTime(id).Add(-time.Duration(n/2) * step)
		for i := 0; i < n; i++ {
			rs = append(rs, Reading{Time: at.Add(time.Duration(i) * step), Values: w.genValues(), Tags: w.genTags()})
		}
		for i := 0; i < n/5; i++ {
			a, b := w.rng.IntN(n), w.rng.IntN(n)
			rs[a], rs[b] = rs[b], rs[a]
		}
		return rs
	}
	n := 1 + w.rng.IntN(5)
	for i := 0; i < n; i++ {
		rs = append(rs, Reading{Time: w.genTime(id), Values: w.genValues(), Tags: w.genTags()})
	}
	if w.rng.IntN(100) < 15 {
		// Another reading at the instant of one of the call, equal or not.
		r := rs[w.rng.IntN(len(rs))]
		d := Reading{Time: r.Time, Values: w.genValues(), Tags: w.genTags()}
		if w.rng.IntN(2) == 0 {
			d = w.cosmetic(r)
		}
		rs = append(rs, d)
	}
	return rs
}

func (w *modelWorld) genTime(id string) time.Time {
	now := w.clk.Now()
	ms := func(lo, hi time.Duration) time.Duration {
		return lo + time.Duration(w.rng.Int64N(int64((hi-lo)/time.Millisecond)+1))*time.Millisecond
	}
	var at time.Time
	switch x := w.rng.IntN(100); {
	case x < 20: // an hour boundary
		at = now.Truncate(time.Hour).Add(time.Duration(w.rng.IntN(36)-30) * time.Hour)
	case x < 27: // a day boundary
		at = now.Truncate(24 * time.Hour).Add(time.Duration(w.rng.IntN(5)-3) * 24 * time.Hour)
	case x < 31: // a month or year boundary
		at = []time.Time{modelBase, modelBase.AddDate(0, -1, 0), modelBase.AddDate(0, 1, 0)}[w.rng.IntN(3)]
	case x < 50: // an instant written before
		if len(w.used) == 0 {
			at = now.Add(-ms(0, time.Hour))
			break
		}
		at = w.used[w.rng.IntN(len(w.used))]
		return at.Add(time.Duration(w.rng.IntN(1_000_000))) // within its millisecond
	case x < 70: // recent
		at = now.Add(-ms(0, 2*time.Hour))
	case x < 74: // ahead of the clock
		at = now.Add(ms(0, 30*time.Minute))
	case x < 86: // late
		at = now.Add(-ms(2*time.Hour, 72*time.Hour))
	case x < 91: // old: expired for some rules
		at = now.Add(-ms(72*time.Hour, 45*24*time.Hour))
	case x < 97: // at the retention of a rule, to the millisecond
		r := modelRules[w.rng.IntN(len(modelRules))]
		return now.Add(-r.raw).Add(time.Duration(w.rng.IntN(7)-3) * time.Millisecond)
	default: // far ahead
		if w.cfg.tame {
			return now
		}
		far := []time.Time{time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Date(2100, 6, 15, 12, 0, 0, 0, time.UTC), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}
		far = far[1:2]
		return far[w.rng.IntN(len(far))]
	}
	switch x := w.rng.IntN(100); {
	case x < 55:
	case x < 65:
		at = at.Add(time.Millisecond)
	case x < 75:
		at = at.Add(-time.Millisecond)
	case x < 83:
		at = at.Add(time.Duration(1 + w.rng.IntN(999_999))) // floors to the instant
	case x < 88:
		at = at.Add(-time.Nanosecond) // floors to the millisecond before
	default:
		at = at.Add(time.Duration(w.rng.IntN(180_001)-90_000) * time.Millisecond)
	}
	return at
}

var mSpecialValues = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1e300, -1e300, 5e-324, -5e-324,
	math.MaxFloat64, 0.1, 0.30000000000000004, 1e-130, 1e126, 1e125, -1e-129, 9007199254740993, -9223372036854775808,
	123456789.123456789, 2.2250738585072014e-308, 1e21, 1e-7}

func (w *modelWorld) genValue() float64 {
	switch x := w.rng.IntN(100); {
	case x < 12:
		if w.rng.IntN(2) == 0 {
			return math.Float64frombits(0x7ff8000000000000 | w.rng.Uint64N(1<<51)) // a NaN with a payload
		}
		return math.NaN()
	case x < 58:
		return float64(w.rng.IntN(20001)-10000) / 100
	case x < 68:
		return float64(w.rng.IntN(21) - 10)
	case x < 80:
		if len(w.values) > 0 {
			return w.values[w.rng.IntN(len(w.values))]
		}
		return 1
	}
	v := mSpecialValues[w.rng.IntN(len(mSpecialValues))]
	if w.cfg.tame && math.Abs(v) >= 1e126 && !math.IsInf(v, 0) {
		return 1e125
	}
	return v
}

func (w *modelWorld) genValues() []float64 {
	n := len(modelFields)
	if w.rng.IntN(100) < 20 {
		n = w.rng.IntN(n) // the last fields absent
	}
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = w.genValue()
	}
	return vs
}

var mTagPool = []string{"", "x", "y", "err", "warn", "é中", "#h", "a b", strings.Repeat("long-", 30)}

func (w *modelWorld) genTags() []string {
	n := len(modelTags)
	if w.rng.IntN(100) < 20 {
		n = w.rng.IntN(n)
	}
	ts := make([]string, n)
	for i := range ts {
		ts[i] = mTagPool[w.rng.IntN(len(mTagPool))]
	}
	return ts
}

// cosmetic returns a reading equal to r as the store keeps it, written
// differently: another sub-millisecond time, -0 for 0, another NaN,
// trailing absent values and tags left out or spelled out.
func (w *modelWorld) cosmetic(r Reading) Reading {
	c := Reading{Time: r.Time.Truncate(time.Millisecond).Add(time.Duration(w.rng.IntN(1_000_000))), Values: slices.Clone(r.Values), Tags: slices.Clone(r.Tags)}
	if c.Time.Before(r.Time.Truncate(time.Millisecond)) {
		c.Time = r.Time
	}
	for i, v := range c.Values {
		switch {
		case v == 0:
			c.Values[i] = math.Copysign(0, -float64(w.rng.IntN(2)*2-1))
		case math.IsNaN(v):
			c.Values[i] = math.Float64frombits(0x7ff8000000000000 | w.rng.Uint64N(1<<51))
		}
	}
	if w.rng.IntN(2) == 0 {
		for len(c.Values) > 0 && math.IsNaN(c.Values[len(c.Values)-1]) {
			c.Values = c.Values[:len(c.Values)-1]
		}
		for len(c.Tags) > 0 && c.Tags[len(c.Tags)-1] == "" {
			c.Tags = c.Tags[:len(c.Tags)-1]
		}
	} else {
		for len(c.Values) < len(modelFields) {
			c.Values = append(c.Values, math.NaN())
		}
		for len(c.Tags) < len(modelTags) {
			c.Tags = append(c.Tags, "")
		}
	}
	return c
}

// genRetry sends an earlier call again: as it was written (a retry,
// which RejectDifferent accepts and LastWins makes the last), or with one
// value changed (a correction, which RejectDifferent refuses).
func (w *modelWorld) genRetry() mcall {
	if len(w.history) == 0 {
		return w.genCall()
	}
	old := w.history[len(w.history)-1-w.rng.IntN(min(len(w.history), 40))]
	c := mcall{method: []string{"Write", "WriteSync", "WriteMany"}[w.rng.IntN(3)], note: "(again)"}
	for _, e := range old.entries {
		ne := mEntry{id: e.id}
		for _, r := range e.rs {
			ne.rs = append(ne.rs, w.cosmetic(r))
		}
		c.entries = append(c.entries, ne)
	}
	if c.method != "WriteMany" {
		c.entries = c.entries[:1]
	}
	if w.rng.IntN(2) == 0 {
		e := c.entries[w.rng.IntN(len(c.entries))]
		if len(e.rs) > 0 {
			r := &e.rs[w.rng.IntN(len(e.rs))]
			r.Values = append(r.Values[:0:0], w.genValues()...)
			c.note = "(again, changed)"
		}
	}
	return c
}

// genInvalid makes a call with one invalid id or reading among valid
// ones: the store must refuse it whole.
func (w *modelWorld) genInvalid() mcall {
	c := w.genCall()
	e := &c.entries[w.rng.IntN(len(c.entries))]
	i := w.rng.IntN(len(e.rs))
	r := &e.rs[i]
	switch w.rng.IntN(7) {
	case 0:
		bad := []string{"", "a#b", "\xff\xfe", strings.Repeat("x", 513)}
		e.id = bad[w.rng.IntN(len(bad))]
		c.note = fmt.Sprintf("(invalid: id %q)", mShort(e.id))
	case 1:
		r.Values = append(w.genValues(), 1, 2, 3, 4)[:len(modelFields)+1]
		c.note = "(invalid: too many values)"
	case 2:
		r.Tags = []string{"x", "y", "z"}
		c.note = "(invalid: too many tags)"
	case 3:
		r.Tags = []string{"ok", "\xff"}
		c.note = "(invalid: tag not UTF-8)"
	case 4:
		r.Time = time.Date(10000, 1, 1, 0, 0, 0, w.rng.IntN(2), time.UTC)
		c.note = "(invalid: year 10000)"
	case 5:
		r.Time = time.Date(-1, 12, 31, 23, 59, 59, 999_999_999, time.UTC)
		c.note = "(invalid: year -1)"
	default:
		r.Time = w.clk.Now().Add(-60 * 24 * time.Hour) // expired for every rule
		c.note = "(expired for every rule)"
	}
	return c
}

func (w *modelWorld) genAdvance() time.Duration {
	ms := func(lo, hi int64) time.Duration { return time.Duration(lo+w.rng.Int64N(hi-lo+1)) * time.Millisecond }
	switch x := w.rng.IntN(100); {
	case x < 55:
		return ms(1, 10_000)
	case x < 85:
		return ms(60_000, 15*60_000) // past LateWindow, CompactGrace
	case x < 97:
		return ms(15*60_000, 3*3600_000)
	}
	return ms(3*3600_000, 12*3600_000)
}

// genSpan returns a range for Compact and Recompute.
func (w *modelWorld) genSpan(rng *rand.Rand) (time.Time, time.Time) {
	now := w.clk.Now().Truncate(time.Hour)
	from := now.Add(-time.Duration(rng.IntN(5*24)) * time.Hour)
	if rng.IntN(4) == 0 {
		from = from.Add(time.Duration(rng.IntN(3600_000)) * time.Millisecond)
	}
	return from, from.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
}

// Logging and reporting.

func (w *modelWorld) logf(format string, args ...any) {
	s := fmt.Sprintf("phase %d op %d: ", w.phase, w.nops) + fmt.Sprintf(format, args...)
	w.oplog = append(w.oplog, s)
	if *modelVerbose {
		w.t.Log(s)
	}
}

func mFmtCall(c mcall) string {
	var b strings.Builder
	b.WriteString(c.method)
	if c.note != "" {
		b.WriteString(" " + c.note)
	}
	for _, e := range c.entries {
		fmt.Fprintf(&b, " %q:[", mShort(e.id))
		for i, r := range e.rs {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == 6 && len(e.rs) > 8 {
				fmt.Fprintf(&b, "... %d more ..., ", len(e.rs)-7)
				r = e.rs[len(e.rs)-1]
				b.WriteString(mFmtReading(r))
				break
			}
			b.WriteString(mFmtReading(r))
		}
		b.WriteString("]")
	}
	return b.String()
}

func mFmtReading(r Reading) string {
	var b strings.Builder
	b.WriteString(mFmtTime(r.Time))
	b.WriteString(" (")
	for i, v := range r.Values {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(mFmtFloat(v))
	}
	b.WriteString(")")
	if len(r.Tags) > 0 {
		b.WriteString(" " + strings.Join(mQuoteAll(mShortAll(r.Tags)), " "))
	}
	return b.String()
}

func mFmtM(r mReading) string {
	return mFmtReading(Reading{Time: time.UnixMilli(r.t).UTC(), Values: r.vals, Tags: r.tags}) + fmt.Sprintf(" #%d", r.ord)
}

func mFmtTime(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000")
	if ns := t.Nanosecond() % 1e6; ns != 0 {
		s += fmt.Sprintf("+%dns", ns)
	}
	return s
}

func mFmtFloat(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func mItoa(i int) string { return strconv.Itoa(i) }

func mShort(s string) string {
	if len(s) > 24 {
		return s[:10] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

func mShortAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mShort(s)
	}
	return out
}

// modelDivergences collects what the store answered that the model did not.
type modelDivergences struct {
	n       int
	byCat   map[string]int
	cats    []string
	example map[string]modelDivergence
	keys    map[string]bool // the checks that failed (positive control)
	first   *modelDivergence
}

type modelDivergence struct {
	cat, kind, id, what string
	phase, op           int
	tail                []string
}

// diverge records a modelDivergence of category cat on kind and series id.
func (w *modelWorld) diverge(cat, kind, id, format string, args ...any) {
	d := modelDivergence{cat: cat, kind: kind, id: id, what: fmt.Sprintf(format, args...), phase: w.phase, op: w.nops}
	dv := &w.divs
	if dv.byCat == nil {
		dv.byCat, dv.example, dv.keys = map[string]int{}, map[string]modelDivergence{}, map[string]bool{}
	}
	dv.n++
	dv.keys[cat+"|"+kind+"|"+id+"|"+w.label] = true
	if dv.byCat[cat] == 0 {
		dv.cats = append(dv.cats, cat)
		d.tail = slices.Clone(w.oplog[max(0, len(w.oplog)-30):])
		dv.example[cat] = d
	}
	dv.byCat[cat]++
	if dv.first == nil {
		f := d
		f.tail = slices.Clone(w.oplog[max(0, len(w.oplog)-30):])
		dv.first = &f
	}
	if *modelVerbose {
		w.t.Logf("DIVERGENCE %s %s %q: %s", cat, kind, mShort(id), d.what)
	}
}

// report fails the test with the seed, the first modelDivergence and the op
// log before it, and one example of each kind of modelDivergence.
func (w *modelWorld) report() {
	dv := &w.divs
	if dv.n == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d divergences from the model on %s; seed %d (-series.model.seed=%d)\n", dv.n, w.bname, w.seed, w.seed)
	f := dv.first
	fmt.Fprintf(&b, "first, at phase %d op %d: [%s] kind %s series %q: %s\nthe operations before it:\n", f.phase, f.op, f.cat, f.kind, mShort(f.id), f.what)
	for _, s := range f.tail {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("each kind of divergence, its count and first example:\n")
	for _, c := range dv.cats {
		d := dv.example[c]
		fmt.Fprintf(&b, "  [%s] x%d, first at phase %d op %d, kind %s series %q: %s\n", c, dv.byCat[c], d.phase, d.op, d.kind, mShort(d.id), d.what)
	}
	w.t.Error(b.String())
}

// crng returns a random source for one check, from the seed and the
// check's name: checks draw the same queries whatever earlier reads
// answered (so the positive control compares like with like).
func (w *modelWorld) crng(parts ...any) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return rand.New(rand.NewPCG(uint64(w.seed), h.Sum64()))
}
