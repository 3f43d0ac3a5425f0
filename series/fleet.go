package series

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// Several Stores on one table (processes, servers) give the same answers
// as one. What they share lives in the table; what each keeps for itself
// is named here.
//
// Leases (table.TakeLease), in a partition of their own:
//
//	pk ~LEASE   sk rollup#SENSOR    the background rollup pass of kind SENSOR
//	pk ~LEASE   sk compact#SENSOR   the background compaction pass of kind SENSOR
//	pk ~LEASE   sk index#SENSOR     the background label index pass of kind SENSOR (labelindex.go)
//	pk ~LEASE   sk seq#0042         sequence-number id 42, held by one Store
//
// The background passes run each kind's part under its lease: at each
// tick (Options.RollupInterval, Options.CompactInterval) a Store takes,
// or renews, the lease of each kind and runs the kind's pass only if it
// holds it, for passLeaseFactor times the interval, renewed every
// interval while the pass runs. So each kind's pass runs on one Store at a
// time, every interval, across the fleet; the kinds spread over the
// Stores as they take them; and when the holder dies its kinds wait at
// most three intervals, then the next Store to tick takes them over. A
// Store that closes releases its leases at once. Store.Rollup and
// Store.Compact called by the user take no lease: they run the pass of
// every kind at once (harmless, as the passes are idempotent), as does
// Kind.Compact.
//
// Sequence-number ids: a Store holds one of 2^seqIDBits ids for as long
// as it runs (a lease of seqIDLease, renewed every seqIDRenew), taken at
// Open (at EnsureTable or the next renewal if the table is missing then;
// until then it uses a random one) and released by a Close that flushed
// everything. Its numbers have the id in their low bits (see nextSeqs),
// and its chunk keys too (see chunkItems), so no item or position of one
// Store is ever those of another: not the items of readings (ItemPerReading,
// DayPartitioned), chunk keys, a bucket's readings (told apart by their
// numbers), nor the positions readers tell readings apart by. A Store
// taking an id that another held reads the sequence mark first, so its
// numbers are above those written with the id before.
//
// The other shared items need no lease: the latest-reading item is put
// only if newer (a conditional put ordered by time and sequence number),
// rollup and compaction markers are versioned (a pass deletes a marker
// only if no write rewrote it), the series directory and the label
// index are idempotent puts, the sequence mark is only raised, buckets are merged with an
// optimistic version, and rollups are recomputed whole from their source.
//
// Schemas: every Options.RefreshInterval, and when a write or Store.Kind
// names a kind the Store does not know (at most once a second), the Store
// reads the stored schemas (pk ~SCHEMA) and applies, as Open does, the
// kinds other Stores defined and the changes they made. Kinds cannot be
// deleted.
const (
	leasePK = "~LEASE"
	// passLeaseFactor times a pass's interval is the duration of its lease.
	passLeaseFactor = 3
	// seqIDLease is the duration of a sequence-number id's lease, renewed
	// every seqIDRenew.
	seqIDLease = time.Hour
	seqIDRenew = 10 * time.Minute
	// seqIDTries is how many ids a Store tries to take in a row.
	seqIDTries = 16
	// missGap is the least time between two reads of the stored schemas
	// for unknown kinds.
	missGap = time.Second
	// missTimeout bounds such a read.
	missTimeout = 10 * time.Second
)

// DefaultRefreshInterval is the default of Options.RefreshInterval: a kind
// defined or changed on one Store reaches the others of its table within
// it (at once for writes that name a new kind).
const DefaultRefreshInterval = 10 * time.Second

// fleetState is what a Store keeps of the leases it holds.
type fleetState struct {
	mu   sync.Mutex
	held map[string]bool // sort keys of the pass leases held

	// seqIDHeld is set while the Store holds the lease of seqID; idMu
	// orders the takes of an id and lastTry is the last one's time.
	seqIDHeld atomic.Bool
	idMu      sync.Mutex
	lastTry   time.Time

	missMu   sync.Mutex
	lastMiss time.Time

	// Set by this package's tests: onPass is called with the lease's sort
	// key when a kind's background pass starts; noLeases runs every pass
	// without its lease (a planted error).
	onPass   atomic.Pointer[func(unit string)]
	noLeases atomic.Bool
}

// leaseKey is the key of a lease of sort key sk.
func leaseKey(sk string) table.Key { return table.K(strAV(leasePK), strAV(sk)) }

// passLease returns the duration of the lease of a pass run every
// interval (the default interval if the timer is off: the pass is then run
// by hand).
func passLease(interval time.Duration) time.Duration {
	if interval <= 0 {
		interval = time.Minute
	}
	return passLeaseFactor * interval
}

// leasedRollup is the background rollup pass: each kind's under its
// lease.
func (s *Store) leasedRollup(ctx context.Context) error {
	defer s.stats.rollups.Add(1)
	return s.leasedPass(ctx, "rollup", s.opts.RollupInterval, func(ctx context.Context, k *Kind) error {
		s.rollupMu.Lock()
		defer s.rollupMu.Unlock()
		return k.rollupPass(ctx)
	})
}

// leasedCompact is the background compaction pass: each kind's under its
// lease.
func (s *Store) leasedCompact(ctx context.Context) error {
	defer s.stats.compactions.Add(1)
	return s.leasedPass(ctx, "compact", s.opts.CompactInterval, func(ctx context.Context, k *Kind) error {
		if !k.compacts() {
			return nil
		}
		s.compactMu.Lock()
		defer s.compactMu.Unlock()
		// The days flushes wrote are the passes of written days' work;
		// those this Store merged wait for their grace to end.
		now := timeMs(s.now())
		return k.compactPass(ctx, s.opts.CompactGrace, func(id string, day int64) bool {
			return s.written.has(k.s.Name, id, day) || s.left.waiting(dayKey{k.s.Name, id, day}, now)
		})
	})
}

// leasedPass runs pass for each kind whose lease (sk what#KIND) the Store
// holds or takes, renewing it every interval while the pass runs.
func (s *Store) leasedPass(ctx context.Context, what string, interval time.Duration, pass func(context.Context, *Kind) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.leasedKinds(ctx, what, interval, s.Kinds(), pass)
}

// leasedKinds is leasedPass over the kinds ks.
func (s *Store) leasedKinds(ctx context.Context, what string, interval time.Duration, ks []*Kind, pass func(context.Context, *Kind) error) error {
	d := passLease(interval)
	var errs []error
	for _, k := range ks {
		sk := what + keys.Sep + k.s.Name
		ok, err := s.takeLease(ctx, sk, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue
		}
		if f := s.fleet.onPass.Load(); f != nil {
			(*f)(sk)
		}
		stop := s.renewing(ctx, sk, d)
		err = pass(ctx, k)
		stop()
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// takeLease takes or renews the pass lease sk for d and records whether
// the Store holds it.
func (s *Store) takeLease(ctx context.Context, sk string, d time.Duration) (bool, error) {
	if s.fleet.noLeases.Load() {
		return true, nil
	}
	ok, err := s.tbl.TakeLease(ctx, leaseKey(sk), s.opts.LeaseOwner, s.now(), d, &table.LeaseOptions{TTLAttr: attrTTL})
	if err != nil {
		return false, fmt.Errorf("series: cannot take the lease %s: %w", sk, s.tableErr(err))
	}
	s.fleet.mu.Lock()
	if s.fleet.held == nil {
		s.fleet.held = map[string]bool{}
	}
	if ok {
		s.fleet.held[sk] = true
	} else {
		delete(s.fleet.held, sk)
	}
	s.fleet.mu.Unlock()
	return ok, nil
}

// renewing renews the lease sk every d/passLeaseFactor until the returned
// function is called.
func (s *Store) renewing(ctx context.Context, sk string, d time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d / passLeaseFactor)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := s.takeLease(ctx, sk, d); err != nil {
					s.log.Warn("series: cannot renew a lease", "lease", sk, "err", err)
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// releaseLeases gives up the pass leases the Store holds and, if
// flushed (nothing it numbered is left unwritten), its sequence id.
// Errors are logged: the leases then end by themselves.
func (s *Store) releaseLeases(ctx context.Context, flushed bool) {
	s.fleet.mu.Lock()
	var sks []string
	for sk := range s.fleet.held {
		sks = append(sks, sk)
	}
	s.fleet.held = nil
	if flushed && s.fleet.seqIDHeld.Swap(false) {
		sks = append(sks, seqIDKey(s.seqID.Load()))
	}
	s.fleet.mu.Unlock()
	for _, sk := range sks {
		if ctx.Err() != nil {
			return
		}
		if err := s.tbl.ReleaseLease(ctx, leaseKey(sk), s.opts.LeaseOwner); err != nil {
			s.log.Warn("series: cannot release a lease; it ends by itself", "lease", sk, "err", err)
		}
	}
}

// seqIDKey is the sort key of the lease of sequence id id.
func seqIDKey(id uint64) string { return fmt.Sprintf("seq#%04d", id) }

// claimSeqID gives the Store a sequence id at Open: a random one, which
// it then takes in the table if it can. If it cannot (a missing table, an
// error), it keeps the random one and tries again at EnsureTable, at its
// next writes (at most once per missGap) and every seqIDRenew: until
// then, its numbers may meet those of another Store holding the same id
// (one chance in 2^seqIDBits per such Store).
func (s *Store) claimSeqID(ctx context.Context) error {
	id, err := randomSeqID()
	if err != nil {
		return err
	}
	s.seqID.Store(id)
	if !s.tableMissing.Load() {
		if err := s.takeSeqID(ctx, false); err != nil {
			s.log.Warn("series: cannot take a sequence id; retried at the next writes", "err", err)
		}
	}
	return nil
}

// ensureSeqID takes a sequence id before the Store numbers readings, if
// it holds none (see claimSeqID).
func (s *Store) ensureSeqID(ctx context.Context) {
	if s.fleet.seqIDHeld.Load() || s.tableMissing.Load() {
		return
	}
	s.fleet.idMu.Lock()
	recent := !s.fleet.lastTry.IsZero() && time.Since(s.fleet.lastTry) < missGap
	s.fleet.idMu.Unlock()
	if recent {
		return
	}
	if err := s.takeSeqID(ctx, true); err != nil {
		s.log.Warn("series: cannot take a sequence id; retried", "err", err)
	}
}

// takeSeqID takes a free sequence id (the current one first) and makes
// it the Store's. reload reads the sequence mark first, so that numbers
// with an id another Store held are above those it wrote.
func (s *Store) takeSeqID(ctx context.Context, reload bool) error {
	s.fleet.idMu.Lock()
	defer s.fleet.idMu.Unlock()
	s.fleet.lastTry = time.Now()
	if s.fleet.seqIDHeld.Load() {
		return nil
	}
	if reload {
		if err := s.loadSeqMark(ctx); err != nil {
			return err
		}
	}
	id := s.seqID.Load()
	for range seqIDTries {
		ok, err := s.tbl.TakeLease(ctx, leaseKey(seqIDKey(id)), s.opts.LeaseOwner, s.now(), seqIDLease, &table.LeaseOptions{TTLAttr: attrTTL})
		if err != nil {
			return fmt.Errorf("series: cannot take a sequence id: %w", s.tableErr(err))
		}
		if ok {
			s.seqID.Store(id)
			s.fleet.seqIDHeld.Store(true)
			return nil
		}
		if id, err = randomSeqID(); err != nil {
			return err
		}
	}
	return fmt.Errorf("series: no free sequence id after %d tries (at most %d Stores share a table)", seqIDTries, seqStride)
}

// renewSeqID renews the lease of the Store's sequence id, or takes one
// (none was taken at Open, or another Store took the id after the lease
// ended).
func (s *Store) renewSeqID(ctx context.Context) error {
	if s.fleet.seqIDHeld.Load() {
		id := s.seqID.Load()
		ok, err := s.tbl.TakeLease(ctx, leaseKey(seqIDKey(id)), s.opts.LeaseOwner, s.now(), seqIDLease, &table.LeaseOptions{TTLAttr: attrTTL})
		if err != nil || ok {
			return err
		}
		s.log.Warn("series: another Store took this Store's sequence id; taking another", "id", id)
		s.fleet.seqIDHeld.Store(false)
	}
	return s.takeSeqID(ctx, true)
}

// randomSeqID returns a random sequence id.
func randomSeqID() (uint64, error) {
	var rb [8]byte
	if _, err := rand.Read(rb[:]); err != nil {
		return 0, fmt.Errorf("series: cannot draw a sequence id: %w", err)
	}
	return binary.LittleEndian.Uint64(rb[:]) & (seqStride - 1), nil
}

// refreshKinds reads the stored schemas and applies them as Open does:
// kinds the Store does not know are added, allowed changes applied; a
// stored schema that differs otherwise is logged and left.
func (s *Store) refreshKinds(ctx context.Context) error {
	s.defineMu.Lock()
	defer s.defineMu.Unlock()
	if s.closed.Load() {
		return nil
	}
	stored, err := s.storedSchemas(ctx)
	if err != nil {
		return err
	}
	for _, sc := range stored {
		old := s.lookup(sc.Name)
		switch {
		case old == nil:
			s.kinds.Store(s.kinds.Load().with(newKind(s, sc)))
		case sameSchema(old.s, sc):
		case schemaChange(old.s, sc) == nil:
			s.replaceKind(old, sc)
		default:
			s.log.Warn("series: a stored schema differs from this Store's in ways a kind cannot take; kept this Store's",
				"kind", sc.Name, "err", schemaChange(old.s, sc))
		}
	}
	return nil
}

// kindOrRefresh returns the kind named name, reading the stored schemas
// first if the Store does not know it (at most once per missGap).
func (s *Store) kindOrRefresh(name string) *Kind {
	if k := s.lookup(name); k != nil {
		return k
	}
	if s.closed.Load() || !validKindName(name) {
		return nil
	}
	s.fleet.missMu.Lock()
	defer s.fleet.missMu.Unlock()
	if k := s.lookup(name); k != nil {
		return k
	}
	if t := s.fleet.lastMiss; !t.IsZero() && time.Since(t) < missGap {
		return nil
	}
	s.fleet.lastMiss = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), missTimeout)
	defer cancel()
	if err := s.refreshKinds(ctx); err != nil {
		s.log.Warn("series: cannot read the stored schemas", "err", err)
	}
	return s.lookup(name)
}
