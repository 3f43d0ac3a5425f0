package series

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// Compaction of the days a flush wrote
//
// A flush that writes readings of closed days (an ingest of past
// readings, a backfill) records each series and day it wrote in the
// Store's writtenDays, and starts a compaction pass without waiting for
// the timer (Options.CompactInterval must be on). That pass merges the
// recorded days that are complete as far as this Store knows: no later
// flush wrote into them, or the buffer holds none of their readings. So
// an ingest that goes through the days in time order has each day merged
// once, after the flush that wrote its last readings, rather than once
// per flush. A day that gets readings after its merge is recorded again
// and merged again (its merged chunk with the new chunks). A pass merges
// at most compactDaysPerPass days, and starts the next pass at once if
// more are ready, so that Shutdown never waits for a long one. The timer
// pass leaves the days recorded to these passes; the markers (see
// compact.go) still lead it to every other period due, and to the
// sources a merge left for CompactGrace.
//
// A merge keeps its sources CompactGrace for readers on other servers.
// The Store remembers the sources its merges left (at most
// maxLeftSources keys, for CompactGrace), so that the last pass of
// Shutdown with Options.CompactAtClose deletes them at once without
// reading their days again; it leaves those days' markers (a small item
// a day) to the next start's passes, which find each day one item and
// delete its marker.

// compactDaysPerPass bounds the days one pass of written days merges.
const compactDaysPerPass = 512

// maxWrittenDays bounds the series and days writtenDays records: beyond,
// the timer pass finds the days by their markers.
const maxWrittenDays = 1 << 20

// maxLeftSources bounds the source keys the Store remembers.
const maxLeftSources = 1 << 18

// dayKey is a series and day of a kind.
type dayKey struct {
	kind string
	id   string
	day  int64
}

// writtenDays records the closed days that flushes wrote and no pass has
// merged since.
type writtenDays struct {
	mu sync.Mutex
	// applied counts the batches flushes wrote; days holds, for each day,
	// the count when the batch that last wrote into it was written.
	applied uint64
	days    map[dayKey]uint64
	kick    chan struct{} // a pass is wanted (capacity 1)
}

func newWrittenDays() *writtenDays {
	return &writtenDays{days: map[dayKey]uint64{}, kick: make(chan struct{}, 1)}
}

// wake asks for a pass, unless one is asked already.
func (w *writtenDays) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// recordWritten records the closed days (ended LateWindow ago) that a
// batch of entries wrote, and asks for a pass if it wrote any.
func (s *Store) recordWritten(entries []entry) {
	w := s.written
	now := timeMs(s.now())
	late := s.opts.LateWindow.Milliseconds()
	wrote := false
	w.mu.Lock()
	w.applied++
	for i := range entries {
		e := &entries[i]
		if !e.k.compacts() {
			continue
		}
		for j := 0; j < len(e.recs); {
			day := periodStart(e.recs[j].t, keys.Day)
			end := periodEnd(day, keys.Day)
			j = skipPeriod(e.recs, j, end)
			if now < end+late {
				continue
			}
			key := dayKey{e.k.s.Name, e.id, day}
			if _, ok := w.days[key]; ok || len(w.days) < maxWrittenDays {
				w.days[key] = w.applied
				wrote = true
			}
		}
	}
	w.mu.Unlock()
	if wrote {
		w.wake()
	}
}

// has reports whether day of series id of kind is recorded.
func (w *writtenDays) has(kind, id string, day int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.days[dayKey{kind, id, day}]
	return ok
}

// takeWritten removes and returns up to n recorded days of kind k that are
// complete (see the comment above), in time order, and reports whether
// more complete ones remain.
func (s *Store) takeWritten(k *Kind, n int) ([]dayKey, bool) {
	w := s.written
	w.mu.Lock()
	defer w.mu.Unlock()
	var ready []dayKey
	for key, at := range w.days {
		if key.kind != k.s.Name {
			continue
		}
		if at == w.applied && s.buf.holds(k, key.id, key.day, periodEnd(key.day, keys.Day)) {
			continue
		}
		ready = append(ready, key)
	}
	slices.SortFunc(ready, func(a, b dayKey) int {
		return cmp.Or(cmp.Compare(a.day, b.day), strings.Compare(a.id, b.id))
	})
	more := len(ready) > n
	ready = ready[:min(n, len(ready))]
	for _, key := range ready {
		delete(w.days, key)
	}
	return ready, more
}

// compactWritten is a pass of written days over kind k (see the comment
// above). Days it could not compact keep their markers, which the timer
// pass follows.
func (k *Kind) compactWritten(ctx context.Context, grace time.Duration) error {
	days, more := k.st.takeWritten(k, compactDaysPerPass)
	defer k.st.warnNearExpiry()
	if more {
		defer k.st.written.wake()
	}
	cutoff := k.rawCutoff()
	var (
		mu   sync.Mutex
		errs []error
	)
	k.st.parallel(ctx, len(days), func(ctx context.Context, i int) error {
		d := days[i]
		if periodEnd(d.day, keys.Day) <= cutoff {
			return nil
		}
		if _, err := k.compactPeriod(ctx, d.id, keys.Day, d.day, grace); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		return nil
	})
	return errors.Join(errs...)
}

// leasedCompactWritten is the pass of written days of every kind, each
// under its compaction lease.
func (s *Store) leasedCompactWritten(ctx context.Context) error {
	return s.leasedPass(ctx, "compact", s.opts.CompactInterval, func(ctx context.Context, k *Kind) error {
		if !k.compacts() {
			return nil
		}
		s.compactMu.Lock()
		defer s.compactMu.Unlock()
		return k.compactWritten(ctx, s.opts.CompactGrace)
	})
}

// leftSources is what the Store remembers of the sources its merges left
// for CompactGrace.
type leftSources struct {
	mu     sync.Mutex
	groups []sourceGroup
	n      int // keys in groups
	// days holds, for each day whose sources are remembered, when its
	// last merge's grace ends: until then a timer pass has nothing to do
	// there (new readings in the day are recorded in writtenDays).
	days map[dayKey]int64
}

// sourceGroup is the sources of one merge: chunk items of partition pk,
// replaced by merged chunks written at created, of day (if the merge was
// a day's).
type sourceGroup struct {
	pk      string
	sks     []string
	created int64
	day     *dayKey
}

// add remembers the sources of a merge written at created, forgetting
// those whose grace ended before now (the passes delete them).
func (l *leftSources) add(g sourceGroup, now, grace int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	drop := 0
	for drop < len(l.groups) && l.groups[drop].created+grace <= now {
		old := l.groups[drop]
		l.n -= len(old.sks)
		if old.day != nil && l.days[*old.day] <= now {
			delete(l.days, *old.day)
		}
		drop++
	}
	l.groups = l.groups[drop:]
	if l.n+len(g.sks) > maxLeftSources {
		return
	}
	l.groups = append(l.groups, g)
	l.n += len(g.sks)
	if g.day != nil {
		if l.days == nil {
			l.days = map[dayKey]int64{}
		}
		l.days[*g.day] = g.created + grace
	}
}

// waiting reports whether the sources of day are remembered and their
// grace has not ended at now.
func (l *leftSources) waiting(day dayKey, now int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.days[day]
	return ok && now < until
}

// deleteLeftSources deletes the sources the Store's merges left (see
// Options.CompactAtClose: nothing reads the table any more), and returns
// the days whose merges left them.
func (s *Store) deleteLeftSources(ctx context.Context) (map[dayKey]int64, error) {
	s.left.mu.Lock()
	groups, days := s.left.groups, s.left.days
	s.left.groups, s.left.n, s.left.days = nil, 0, nil
	s.left.mu.Unlock()
	var dels []table.WriteRequest
	for _, g := range groups {
		for _, sk := range g.sks {
			dels = append(dels, table.DeleteRequest(table.K(g.pk, sk)))
		}
	}
	return days, s.batchWrite(ctx, dels)
}
