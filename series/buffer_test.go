package series

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

func TestBuffer_CoalescesAndFlushes(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sensorSchema(Chunks))
		rs := sensorReadings(t0, time.Second, 600) // 10 minutes, one hour
		for i := 0; i < len(rs); i += 10 {
			if err := k.Write(ctx, "s1", rs[i:i+10]...); err != nil {
				t.Fatal(err)
			}
		}
		// Not flushed yet: read from the buffer.
		wantRange(t, ctx, k, "s1", Query{}, rs)
		if n, err := st.Table().Count(ctx, &table.Query{Hash: "SENSOR#s1"}); err != nil || n != 0 {
			t.Fatalf("%d items before the flush (%v)", n, err)
		}
		st.Table().ResetStats()
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		stats := st.Table().Stats()
		// 60 writes coalesced into one chunk item (one BatchWriteItem),
		// the latest reading and the rollup marker.
		if w := stats.Ops["BatchWriteItem"].Calls; w != 2 {
			t.Errorf("%d BatchWriteItem calls, want 2 (chunks, then markers)", w)
		}
		var chunks int
		for _, err := range st.Table().QueryAll(ctx, &table.Query{Hash: "SENSOR#s1"}) {
			if err != nil {
				t.Fatal(err)
			}
			chunks++
		}
		if chunks != 1 {
			t.Errorf("%d chunk items, want 1", chunks)
		}
		wantRange(t, ctx, k, "s1", Query{}, rs)
		t.Logf("flush of 600 readings: %.2f write units (%.4f per reading)", stats.WriteUnits, stats.WriteUnits/600)
	})
}

// slowAPI holds every BatchWriteItem call until release is closed.
type slowAPI struct {
	timetable.API
	release chan struct{}
}

func (s *slowAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	<-s.release
	return s.API.BatchWriteItem(ctx, in, opts...)
}

func TestBuffer_ReadsWhileFlushing(t *testing.T) {
	// Readings being flushed are in the buffer and in the table at once:
	// reads return each one once.
	eachLayout(t, t0.Add(30*time.Hour), shardedSensors, func(t *testing.T, e layoutEnv) {
		ctx, st, k := e.ctx, e.st, e.k
		rs := sensorReadings(t0, 5*time.Minute, 100)
		writeFlush(t, ctx, st, k, "s1", rs[:60])
		if err := k.Write(ctx, "s1", rs[60:]...); err != nil {
			t.Fatal(err)
		}
		// Seal and write the batch, but leave it queued, as in the
		// middle of a flush.
		st.buf.seal()
		if err := st.apply(ctx, st.buf.queue[0].entries); err != nil {
			t.Fatal(err)
		}
		for _, rev := range []bool{false, true} {
			p, err := k.Range(ctx, "s1", Query{Reverse: rev})
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(rs)
			if rev {
				slices.Reverse(want)
			}
			wantReadings(t, p.Readings, want)
		}
		r, err := k.Latest(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, []Reading{r}, rs[99:])
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		wantRange(t, ctx, k, "s1", Query{}, rs)
	})
}

func TestBuffer_Backpressure(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	opts := testOptions(t, clk)
	opts.MaxBuffered = 100
	api := &slowAPI{API: openEngine(t, clk), release: make(chan struct{})}
	st, k := openKind(t, api, opts, sensorSchema(Chunks))
	rs := sensorReadings(t0, time.Second, 150)
	if err := k.Write(ctx, "s1", rs[:100]...); err != nil {
		t.Fatal(err)
	}
	// Full, and the flush it starts cannot finish: a write waits, and
	// gives up with its context.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := k.Write(short, "s1", rs[100]); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("write to a full buffer: %v, want the context's error", err)
	}
	// A waiting write proceeds once the flush makes room.
	done := make(chan error)
	go func() { done <- k.Write(ctx, "s1", rs[100:]...) }()
	close(api.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	wantRange(t, ctx, k, "s1", Query{}, rs)
}

func TestBuffer_WALReplay(t *testing.T) {
	// A store that stops without flushing (as a crash would) leaves its
	// readings in the log; the next Open writes them. A failed flush
	// leaves them buffered and in the log.
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	api := openEngine(t, clk)
	walDir := t.TempDir()
	opts := testOptions(t, clk)
	opts.WALDir = walDir
	st, k := openKind(t, api, opts, sensorSchema(Chunks))
	rs := sensorReadings(t0, time.Second, 300)
	writeFlush(t, ctx, st, k, "s1", rs[:100])
	if err := k.Write(ctx, "s1", rs[100:]...); err != nil {
		t.Fatal(err)
	}
	// Crash: close the log without flushing.
	st.closeOnce.Do(func() { close(st.stop); st.bg.Wait(); st.closed.Store(true); st.wal.Close() })

	st2 := mustOpen(t, ctx, api, opts, sensorSchema(Chunks))
	defer st2.Close()
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := mustKind(t, st2, "SENSOR").Range(ctx, "s1", Query{})
	if err != nil {
		t.Fatal(err)
	}
	wantReadings(t, p.Readings, rs)
}

// TestBuffer_FlushedLogIsSmall: once a flush has written every buffered
// reading, the log's files hold none of them (a few bytes, whatever it
// held), and so after Close; writes and a replay go on after it.
func TestBuffer_FlushedLogIsSmall(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	api := openEngine(t, clk)
	opts := testOptions(t, clk)
	opts.WALDir = t.TempDir()
	st, k := openKind(t, api, opts, sensorSchema(Chunks))
	rs := sensorReadings(t0, time.Second, 3000)
	for i := 0; i < len(rs); i += 10 {
		if err := k.Write(ctx, fmt.Sprint("s", i%7), rs[i:i+10]...); err != nil {
			t.Fatal(err)
		}
	}
	const small = 1 << 10
	if size := st.Stats().WALSize; size < 3000*8 {
		t.Fatalf("the log holds %d bytes before the flush: the test logs too little", size)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.wal.Append(ctx); err != nil { // the release is durable
		t.Fatal(err)
	}
	if size := st.Stats().WALSize; size > small {
		t.Fatalf("the log holds %d bytes after the flush, want at most %d", size, small)
	}
	more := sensorReadings(t0.Add(time.Hour), time.Second, 10)
	if err := k.Write(ctx, "s1", more...); err != nil {
		t.Fatal(err)
	}
	// Stopped without a flush (as by a crash): the next Open replays them.
	st.closeOnce.Do(func() { close(st.stop); st.bg.Wait(); st.closed.Store(true); st.wal.Close() })
	st2 := mustOpen(t, ctx, api, opts, sensorSchema(Chunks))
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := mustKind(t, st2, "SENSOR").Range(ctx, "s1", Query{From: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	wantReadings(t, p.Readings, more)
	if err := st2.Close(); err != nil {
		t.Fatal(err)
	}
	var size int64
	ents, err := os.ReadDir(opts.WALDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	if size > small {
		t.Fatalf("the log's folder holds %d bytes after Close, want at most %d", size, small)
	}
}

// TestBuffer_SharesTags: readings of a series written one Write at a
// time with equal tags (each Write its own slice, as requests decode
// them) are buffered with one copy of the tags; different tags stay
// apart; the readings read back with their own tags, also after the
// kind gains a tag.
func TestBuffer_SharesTags(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sensorSchema(Chunks))
	var rs []Reading
	for i := range 30 {
		room := "room-1"
		if i >= 20 {
			room = "room-2"
		}
		r := Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{float64(i), 1}, Tags: []string{strings.Clone(room)}}
		rs = append(rs, r)
		if err := k.Write(ctx, "s1", r); err != nil {
			t.Fatal(err)
		}
	}
	st.buf.mu.Lock()
	recs := st.buf.open[seriesKey{k, "s1"}].recs
	arrays := map[*string]int{}
	for _, r := range recs {
		arrays[&r.tags[0]]++
	}
	st.buf.mu.Unlock()
	if len(recs) != 30 || len(arrays) != 2 {
		t.Fatalf("%d readings buffered with %d tag arrays, want 30 with 2", len(recs), len(arrays))
	}
	wantRange(t, ctx, k, "s1", Query{}, rs)
	sc := sensorSchema(Chunks)
	sc.Tags = append(sc.Tags, "floor")
	if _, err := st.Change(ctx, sc); err != nil {
		t.Fatal(err)
	}
	k = mustKind(t, st, "SENSOR")
	if err := k.Write(ctx, "s1", Reading{Time: t0.Add(time.Minute), Values: []float64{1, 1}, Tags: []string{"room-2", "3"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := k.Range(ctx, "s1", Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Readings) != 31 {
		t.Fatalf("%d readings", len(p.Readings))
	}
	for i, r := range p.Readings {
		want := []string{"room-1", ""}
		switch {
		case i == 30:
			want = []string{"room-2", "3"}
		case i >= 20:
			want = []string{"room-2", ""}
		}
		if !slices.Equal(r.Tags, want) {
			t.Fatalf("reading %d: tags %q, want %q", i, r.Tags, want)
		}
	}
}

func TestWriteMany(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		opts := testOptions(t, clk)
		if b.Name == "engine" {
			opts.WALDir = t.TempDir()
		}
		st, k := openKind(t, b.OpenOn(t, clk), opts, sensorSchema(Chunks))
		rs := sensorReadings(t0, time.Second, 300)
		// s1 twice in one call, s2 once, s3 with nothing.
		err := k.WriteMany(ctx, []SeriesReadings{
			{ID: "s1", Readings: rs[100:200]}, {ID: "s2", Readings: rs}, {ID: "s3"}, {ID: "s1", Readings: rs[:100]},
		})
		if err != nil {
			t.Fatal(err)
		}
		// One invalid reading: nothing of the call is written.
		bad := []SeriesReadings{{ID: "s1", Readings: rs[200:]}, {ID: "s4", Readings: []Reading{{Time: t0, Values: []float64{1, 2, 3, 4, 5}}}}}
		if err := k.WriteMany(ctx, bad); !errors.Is(err, ErrInvalidReading) || !strings.Contains(err.Error(), `"s4"`) {
			t.Fatalf("WriteMany with an invalid reading: %v", err)
		}
		if err := k.WriteMany(ctx, []SeriesReadings{{ID: "bad#id", Readings: rs[:1]}}); !errors.Is(err, ErrInvalidID) {
			t.Fatalf("WriteMany with an invalid id: %v", err)
		}
		check := func(st *Store) {
			t.Helper()
			for id, want := range map[string][]Reading{"s1": rs[:200], "s2": rs, "s3": nil, "s4": nil} {
				p, err := mustKind(t, st, "SENSOR").Range(ctx, id, Query{})
				if err != nil {
					t.Fatal(err)
				}
				wantReadings(t, p.Readings, want)
			}
		}
		check(st) // from the buffer
		if b.Name != "engine" {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			check(st)
			return
		}
		// Crash before any flush: the log has every reading.
		st.closeOnce.Do(func() { close(st.stop); st.bg.Wait(); st.closed.Store(true); st.wal.Close() })
		st2 := mustOpen(t, ctx, st.tbl.API(), opts, sensorSchema(Chunks))
		defer st2.Close()
		if err := st2.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		check(st2)
	})
}

// The kill -9 test: a child process writes readings through the buffer
// with a write-ahead log and prints each acknowledgement; the parent kills
// it with SIGKILL, reopens the store and finds every acknowledged reading,
// exactly once.

const childEnv = "TIMETABLE_SERIES_KILL_CHILD"

func killSchema(l Layout) Schema {
	return Schema{Name: "DEV", Fields: []string{"v"}, Layout: l}
}

func TestKill9_AcknowledgedReadingsSurvive(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in the child")
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range []Layout{Chunks, ItemPerReading} {
			t.Run(l.String(), func(t *testing.T) { killTest(t, b, l, false) })
		}
		// Without fsyncs (the log written to the operating system, the
		// engine's writes not synced), which a process kill survives too.
		t.Run("Chunks/NoSync", func(t *testing.T) { killTest(t, b, Chunks, true) })
	})
}

func killTest(t *testing.T, b backend, l Layout, noSync bool) {
	ctx := context.Background()
	dir := t.TempDir()
	walDir, dataDir := filepath.Join(dir, "wal"), filepath.Join(dir, "data")
	name := tableName(t)
	clk := newClock(t0.Add(time.Hour))
	openAPI := func() (timetable.API, func()) {
		if b.Name == "engine" {
			db, err := local.Open(dataDir, &local.Options{Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			return db, func() { db.Close() }
		}
		return b.OpenOn(t, clk), func() {}
	}
	api, closeAPI := openAPI()
	st := mustOpen(t, ctx, api, &Options{Table: name, Now: clk.Now, RollupInterval: -1}, killSchema(l))
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()
	closeAPI()

	// Two rounds: the second child replays what the first one left in the
	// log, and is killed too.
	acked := map[int]bool{}
	for round := 0; round < 2; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{b.Name, walDir, dataDir, name, strconv.Itoa(int(l)), strconv.Itoa(round * 1_000_000), strconv.FormatBool(noSync)}, "|"))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() && n < 3000 {
			if s, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				i, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("child said %q", sc.Text())
				}
				acked[i] = true
				n++
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() { // acknowledgements printed before the kill
			if s, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				i, _ := strconv.Atoi(s)
				acked[i] = true
				n++
			}
		}
		cmd.Wait()
		if n < 3000 {
			t.Fatalf("the child acknowledged only %d readings", n)
		}
	}

	api, closeAPI = openAPI()
	defer closeAPI()
	st = mustOpen(t, ctx, api, &Options{Table: name, Now: clk.Now, WALDir: walDir, RollupInterval: -1, FlushInterval: -1}, killSchema(l))
	defer func() {
		st.Close()
		if b.Name != "engine" {
			st.Table().Drop(ctx)
		}
	}()
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for g := 0; g < killWriters; g++ {
		for r, err := range mustKind(t, st, "DEV").All(ctx, fmt.Sprintf("dev-%d", g), Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			i := int(r.Values[0])
			if !r.Time.Equal(t0.Add(time.Duration(i) * time.Millisecond)) {
				t.Fatalf("reading %d at %v", i, r.Time)
			}
			seen[i]++
		}
	}
	many := 0
	for i := range acked {
		if i%1_000_000%killStride >= killWriters {
			many++
		}
		if seen[i] == 0 {
			t.Errorf("acknowledged reading %d lost", i)
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("reading %d stored %d times", i, n)
		}
	}
	if many == 0 {
		t.Error("no reading written by WriteMany was acknowledged")
	}
	t.Logf("%d acknowledged (%d by WriteMany), %d stored", len(acked), many, len(seen))
}

// TestKill9Child is the child of TestKill9_AcknowledgedReadingsSurvive.
func TestKill9Child(t *testing.T) {
	env := os.Getenv(childEnv)
	if env == "" {
		t.Skip("only run as a child")
	}
	parts := strings.Split(env, "|")
	bname, walDir, dataDir, name := parts[0], parts[1], parts[2], parts[3]
	l, _ := strconv.Atoi(parts[4])
	offset, _ := strconv.Atoi(parts[5])
	noSync, _ := strconv.ParseBool(parts[6])
	clk := newClock(t0.Add(time.Hour))
	var api timetable.API
	if bname == "engine" {
		db, err := local.Open(dataDir, &local.Options{Now: clk.Now, NoSync: noSync})
		if err != nil {
			t.Fatal(err)
		}
		api = db
	} else {
		api = dynamoLocal(os.Getenv(endpointEnv))
	}
	ctx := context.Background()
	st, err := Open(ctx, api, &Options{Table: name, Now: clk.Now, WALDir: walDir, WALNoSync: noSync, RollupInterval: -1,
		FlushInterval: 5 * time.Millisecond, FlushSize: 300}, killSchema(Layout(l)))
	if err != nil {
		t.Fatal(err)
	}
	k := mustKind(t, st, "DEV")
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Readings i = offset + g + killStride*j: writers g < killWriters
	// call Write with one reading; the last writer calls WriteMany with
	// the readings of g = killWriters and killWriters+1, for two series.
	ack := func(is ...int) {
		mu.Lock()
		for _, i := range is {
			fmt.Fprintf(os.Stdout, "ack %d\n", i)
		}
		mu.Unlock()
	}
	reading := func(i int) Reading {
		return Reading{Time: t0.Add(time.Duration(i) * time.Millisecond), Values: []float64{float64(i)}}
	}
	for g := 0; g < killWriters; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := offset + g; ; i += killStride {
				if err := k.Write(ctx, fmt.Sprintf("dev-%d", g), reading(i)); err != nil {
					fmt.Fprintln(os.Stderr, "write:", err)
					return
				}
				ack(i)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := 0; ; j++ {
			i := offset + killWriters + j*killStride
			err := k.WriteMany(ctx, []SeriesReadings{
				{ID: fmt.Sprintf("dev-%d", j%killWriters), Readings: []Reading{reading(i)}},
				{ID: fmt.Sprintf("dev-%d", (j+1)%killWriters), Readings: []Reading{reading(i + 1)}},
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "write many:", err)
				return
			}
			ack(i, i+1)
		}
	}()
	wg.Wait()
}

// The kill -9 child's writers: killWriters calling Write, and one calling
// WriteMany with two readings, so killWriters+2 readings per round.
const (
	killWriters = 4
	killStride  = killWriters + 2
)

// syncAPI is a Syncer that records its writes and syncs in order.
type syncAPI struct {
	timetable.API
	mu     sync.Mutex
	events []string
}

func (s *syncAPI) record(e string) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *syncAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	s.record("write")
	return s.API.BatchWriteItem(ctx, in, opts...)
}

func (s *syncAPI) Sync(ctx context.Context) error {
	s.record("sync")
	return s.API.(timetable.Syncer).Sync(ctx)
}

func TestBuffer_DeferredSync(t *testing.T) {
	// With a log, synced or not, a flush's writes to a Syncer share one
	// Sync, made after them (before the log lets them go). Without a log,
	// nothing calls Sync.
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		wal    bool
		noSync bool
		syncs  int
	}{{"synced log", true, false, 1}, {"log not synced", true, true, 1}, {"no log", false, false, 0}} {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock(t0.Add(time.Hour))
			api := &syncAPI{API: openEngine(t, clk)}
			opts := testOptions(t, clk)
			if c.wal {
				opts.WALDir, opts.WALNoSync = t.TempDir(), c.noSync
			}
			st := openStore(t, api, opts, sensorSchema(Chunks))
			rs := sensorReadings(t0, time.Second, 300)
			for _, id := range []string{"s1", "s2", "s3"} {
				if err := mustKind(t, st, "SENSOR").Write(ctx, id, rs...); err != nil {
					t.Fatal(err)
				}
			}
			api.mu.Lock()
			api.events = nil
			api.mu.Unlock()
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			api.mu.Lock()
			ev := slices.Clone(api.events)
			api.mu.Unlock()
			if n := strings.Count(strings.Join(ev, " "), "sync"); n != c.syncs {
				t.Fatalf("%d syncs, want %d (events %v)", n, c.syncs, ev)
			}
			if c.syncs > 0 && ev[len(ev)-1] != "sync" {
				t.Fatalf("the sync is not after the flush's writes: %v", ev)
			}
			p, err := mustKind(t, st, "SENSOR").Range(ctx, "s2", Query{})
			if err != nil {
				t.Fatal(err)
			}
			wantReadings(t, p.Readings, rs)
		})
	}
}
