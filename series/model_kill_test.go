package series

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local"
)

// The kill -9 phase of the model-based test: the parent closes its Store
// (and engine), a child process opens them with the write-ahead log and
// makes write calls one after the other, printing each answer; the
// parent kills it with SIGKILL after a random number of answers, opens
// the Store again (which replays the log) and goes on. Every call
// answered is in the model; the one in flight at the kill may have
// written any of its readings, which the parent finds out by reading
// their instants, and adds to the model.

const modelChildEnv = "TIMETABLE_SERIES_MODEL_CHILD"

// modelChildPlan is what the child does, written by the parent with gob.
type modelChildPlan struct {
	Backend   string
	DataDir   string
	Table     string
	WALDir    string
	NoSync    bool
	Now       time.Time
	Schemas   []Schema
	Calls     []modelChildCall
	FlushSize int
}

type modelChildCall struct {
	Kind    string
	Method  string
	Entries []modelChildEntry
}

type modelChildEntry struct {
	ID       string
	Readings []Reading
}

func (w *modelWorld) kill() {
	rng := w.rng
	w.logf("kill -9: Close the store, a child process writes")
	if err := w.st.Close(); err != nil {
		w.diverge("close", "", "", "Close: %v", err)
	}
	w.st = nil
	w.closeAPI()
	w.clk.Advance(time.Second + time.Duration(rng.IntN(3000))*time.Millisecond)
	now := w.clk.Now()

	// The calls: each logical call made on every kind in turn.
	var logical []mcall
	for i, n := 0, 4+rng.IntN(6); i < n; i++ {
		switch x := rng.IntN(100); {
		case x < 75:
			logical = append(logical, w.genCall())
		case x < 92:
			logical = append(logical, w.genRetry())
		default:
			logical = append(logical, w.genInvalid())
		}
	}
	type ref struct{ call, kind int }
	var refs []ref
	plan := modelChildPlan{Backend: w.bname, DataDir: filepath.Join(w.dir, "data"), Table: w.opts.Table, WALDir: w.opts.WALDir,
		NoSync: w.nkills%2 == 1, Now: now, Schemas: w.schemas, FlushSize: 5 + rng.IntN(40)}
	w.nkills++
	for ci, c := range logical {
		for ki, k := range w.kinds {
			cc := modelChildCall{Kind: k.name, Method: c.method}
			if plan.NoSync && c.method == "WriteSync" {
				// WriteSync bypasses the log: an engine that does not
				// sync may lose what it acknowledged last (local.Options).
				cc.Method = "Write"
			}
			for _, e := range c.entries {
				cc.Entries = append(cc.Entries, modelChildEntry{ID: e.id, Readings: e.rs})
			}
			plan.Calls = append(plan.Calls, cc)
			refs = append(refs, ref{ci, ki})
		}
	}
	path := filepath.Join(w.dir, fmt.Sprintf("child-%d.gob", w.phase))
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&plan); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		w.t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestModelKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), modelChildEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	killAfter := rng.IntN(len(plan.Calls) + 1)
	timer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Signal(syscall.SIGKILL) })
	results := map[int]error{}
	ready, done, killed := false, false, false
	parse := func(line string) {
		f := strings.SplitN(line, " ", 3)
		switch {
		case line == "ready":
			ready = true
		case line == "done":
			done = true
		case len(f) >= 2 && (f[0] == "ack" || f[0] == "err"):
			i, err := strconv.Atoi(f[1])
			if err != nil {
				return
			}
			switch {
			case f[0] == "ack":
				results[i] = nil
			case len(f) == 3 && f[2] == "expired":
				results[i] = ErrExpired
			case len(f) == 3 && f[2] == "conflict":
				results[i] = ErrConflict
			default:
				results[i] = errors.New(line)
			}
		}
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		parse(sc.Text())
		if !killed && ready && (len(results) >= killAfter || done) {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	timer.Stop()
	if !ready {
		w.t.Fatalf("the child did not open the store:\n%s", stderr.String())
	}
	inflight := len(results)
	for i := 0; i < len(plan.Calls); i++ {
		if _, ok := results[i]; !ok {
			inflight = i
			break
		}
	}
	w.logf("kill -9 after %d of %d calls (%d logical calls on %d kinds; log synced: %v)", inflight, len(plan.Calls), len(logical), len(w.kinds), !plan.NoSync)

	w.clk.Advance(time.Second + time.Duration(rng.IntN(3000))*time.Millisecond)
	w.openAPI()
	w.open()
	for ci, c := range logical {
		w.logf("  the child's call %d, on each kind: %s", ci, mFmtCall(c))
	}
	// The calls answered, as the child's clock saw them.
	for i := 0; i < inflight; i++ {
		r := refs[i]
		c, k := logical[r.call], w.kinds[r.kind]
		want := k.m.write(now, c.entries, nil)
		if *modelVerbose {
			w.logf("  the child's call %d on %s: %s (want %s)", r.call, k.name, mErrStr(results[i]), want)
		}
		w.checks++
		if !mResultIs(results[i], want) {
			w.diverge("write-result", k.name, c.entries[0].id, "in the child: %s %s: got %v, want %s", c.method, c.note, mErrStr(results[i]), want)
		}
	}
	for _, c := range logical[:refs[min(inflight, len(refs)-1)].call+1] {
		w.history = append(w.history, c)
		w.remember(c)
	}
	if inflight == len(plan.Calls) {
		return
	}
	// The call in flight: find out which of its readings were written.
	r := refs[inflight]
	c, k := logical[r.call], w.kinds[r.kind]
	w.logf("in flight at the kill: %s on %s", mFmtCall(c), k.name)
	if k.m.clone().write(now, c.entries, nil) != mWantOK {
		w.writeKind(k, c) // refused: it must be refused again
	} else if keep := w.resolveInflight(k, c, now); len(keep) == 0 {
		w.writeKind(k, c) // nothing of it was written: make it now
	} else {
		k.m.write(now, c.entries, func(e, i int) bool { return keep[[2]int{e, i}] })
		if n := mCountReadings(c); len(keep) != n {
			w.logf("%s kept %d of the %d readings of the call in flight: its model differs from its rule's other kinds' now", k.name, len(keep), n)
		}
	}
	// The kinds after it never saw the call: make it now.
	for ki := r.kind + 1; ki < len(w.kinds); ki++ {
		w.writeKind(w.kinds[ki], c)
	}
}

func mCountReadings(c mcall) int {
	n := 0
	for _, e := range c.entries {
		n += len(e.rs)
	}
	return n
}

// resolveInflight returns the readings of call c (entry, index) that kind
// k holds: for each series and instant of the call, the subset of its
// readings there with which the model reads what the store reads.
func (w *modelWorld) resolveInflight(k *mkind, c mcall, now time.Time) map[[2]int]bool {
	type at struct {
		id string
		t  int64
	}
	groups := map[at][][2]int{}
	var order []at
	for ei, e := range c.entries {
		for i, r := range e.rs {
			a := at{e.id, mFloorMs(r.Time)}
			if groups[a] == nil {
				order = append(order, a)
			}
			groups[a] = append(groups[a], [2]int{ei, i})
		}
	}
	keep := map[[2]int]bool{}
	readNow := w.clk.Now()
	for _, a := range order {
		g := groups[a]
		from := time.UnixMilli(a.t).UTC()
		p, err := w.kind(k).Range(w.rc(), a.id, Query{From: from, To: from.Add(time.Millisecond)})
		w.checks++
		if err != nil {
			w.diverge("kill-inflight", k.name, a.id, "Range at %s after the kill: %v", mFmtTime(from), err)
			continue
		}
		// Subsets, all and none first.
		n := min(len(g), 10)
		masks := []int{1<<n - 1, 0}
		for m := 1; m < 1<<n-1; m++ {
			masks = append(masks, m)
		}
		found := false
		for _, mask := range masks {
			mc := k.m.clone()
			var sub []mEntry
			for j, ref := range g[:n] {
				if mask&(1<<j) != 0 {
					sub = append(sub, mEntry{id: a.id, rs: []Reading{c.entries[ref[0]].rs[ref[1]]}})
				}
			}
			mc.write(now, sub, nil)
			want := mc.rangeOf(a.id, mQuery{from: from, to: from.Add(time.Millisecond)}, readNow, false)
			if mReadingsDiff(p.Readings, want) == "" {
				for j, ref := range g[:n] {
					if mask&(1<<j) != 0 {
						keep[ref] = true
					}
				}
				found = true
				break
			}
		}
		if !found {
			want := k.m.rangeOf(a.id, mQuery{from: from, to: from.Add(time.Millisecond)}, readNow, false)
			w.diverge("kill-inflight", k.name, a.id, "at %s, after the kill in the call %s: the store holds %s, which no part of the call explains (before the call: %s)",
				mFmtTime(from), mFmtCall(c), mFmtReadings(p.Readings), mReadingsDiff(nil, want))
			for _, ref := range g {
				keep[ref] = true
			}
		}
	}
	return keep
}

// TestModelKillChild is the child of TestModel's kill -9 phase.
func TestModelKillChild(t *testing.T) {
	path := os.Getenv(modelChildEnv)
	if path == "" {
		t.Skip("only run as a child of TestModel")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var plan modelChildPlan
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&plan); err != nil {
		t.Fatal(err)
	}
	clk := newClock(plan.Now)
	var api timetable.API
	if plan.Backend == "engine" {
		db, err := local.Open(plan.DataDir, &local.Options{Now: clk.Now, NoSync: plan.NoSync, CacheSize: 4 << 20})
		if err != nil {
			t.Fatal(err)
		}
		api = db
	} else {
		api = dynamoLocal(os.Getenv(endpointEnv))
	}
	opts := Options{Table: plan.Table, TableOptions: testTableOptions, Now: clk.Now, WALDir: plan.WALDir, WALNoSync: plan.NoSync,
		LateWindow: modelLateWindow, MaxFuture: -1, FlushInterval: 2 * time.Millisecond, FlushSize: plan.FlushSize,
		RollupInterval: 20 * time.Millisecond, CompactInterval: 20 * time.Millisecond}
	ctx := context.Background()
	st := mustOpen(t, ctx, api, &opts, plan.Schemas...)
	fmt.Println("ready")
	for i, c := range plan.Calls {
		k := mustKind(t, st, c.Kind)
		var err error
		switch c.Method {
		case "Write":
			err = k.Write(ctx, c.Entries[0].ID, c.Entries[0].Readings...)
		case "WriteSync":
			err = k.WriteSync(ctx, c.Entries[0].ID, c.Entries[0].Readings...)
		default:
			batch := make([]SeriesReadings, len(c.Entries))
			for j, e := range c.Entries {
				batch[j] = SeriesReadings(e)
			}
			err = k.WriteMany(ctx, batch)
		}
		switch {
		case err == nil:
			fmt.Printf("ack %d\n", i)
		case errors.Is(err, ErrExpired):
			fmt.Printf("err %d expired\n", i)
		case errors.Is(err, ErrConflict):
			fmt.Printf("err %d conflict\n", i)
		default:
			fmt.Printf("err %d other %s\n", i, strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}
	fmt.Println("done")
	time.Sleep(time.Minute) // until killed
}
