package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/timetable-db/timetable/table"
)

// The aggregation of a site runs under the site's lease, an item of the
// table (entity Lease, SITE#{siteId}/LEASE#aggregate) that the Stores
// sharing the table take in turn (table.TakeLease), so that a site's
// pending days are aggregated by one Store at a time and taken over when
// that Store dies.
const (
	// leaseWork is the unit of work the lease is on: a site's pending days.
	leaseWork = "aggregate"
	// leaseEvery is the lease's duration in aggregation intervals.
	leaseEvery = 3
	// minLease is the shortest lease, whatever the interval.
	minLease = 30 * time.Second
	// releaseTimeout bounds the release of a lease, which runs even when
	// the pass's context is done.
	releaseTimeout = 10 * time.Second
)

// LeaseDuration returns how long a Store's claim on a site's aggregation
// lasts, from when it is taken or renewed: three times
// Options.AggregateEvery (three minutes when the loop is off), at least 30
// seconds. It bounds how long a site's pending days wait when the Store
// holding the site dies mid-pass. A pass renews the claim before each day
// once a third of it has passed.
func (s *Store) LeaseDuration() time.Duration {
	every := s.o.AggregateEvery
	if every <= 0 {
		every = time.Minute
	}
	return max(leaseEvery*every, minLease)
}

// leaseKey returns the key of the lease on the aggregation of site.
func leaseKey(site string) (table.Key, error) {
	return primaryKey(entLease, map[string]string{"siteId": site, "work": leaseWork})
}

// siteLease is this Store's claim on the aggregation of a site.
type siteLease struct {
	s    *Store
	k    table.Key
	site string
	at   time.Time // when it was last taken or renewed
}

// takeLease claims the aggregation of site for this Store. It returns nil
// and no error when another Store holds it.
func (s *Store) takeLease(ctx context.Context, site string) (*siteLease, error) {
	k, err := leaseKey(site)
	if err != nil {
		return nil, err
	}
	l := &siteLease{s: s, k: k, site: site}
	if ok, err := l.take(ctx); err != nil || !ok {
		return nil, err
	}
	return l, nil
}

// take takes or renews the lease and reports whether this Store holds it.
func (l *siteLease) take(ctx context.Context) (bool, error) {
	now := l.s.now()
	o := &table.LeaseOptions{TTLAttr: attrTTL, Attrs: table.Item{"siteId": sAttr(l.site), "work": sAttr(leaseWork)}}
	ok, err := l.s.t.TakeLease(ctx, l.k, l.s.o.LeaseOwner, now, l.s.LeaseDuration(), o)
	if err != nil {
		return false, fmt.Errorf("analytics: cannot take the aggregation lease of site %q: %w", l.site, err)
	}
	if ok {
		l.at = now
	}
	return ok, nil
}

// keep renews the lease once a third of its duration has passed since it
// was taken, and reports whether this Store still holds it (false: the
// claim ended and another Store took it).
func (l *siteLease) keep(ctx context.Context) (bool, error) {
	if l.s.now().Sub(l.at) < l.s.LeaseDuration()/leaseEvery {
		return true, nil
	}
	return l.take(ctx)
}

// release gives the lease up, even when the pass's context is done (Close
// cancels it). A failure is logged: the claim ends by itself.
func (l *siteLease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := l.s.t.ReleaseLease(ctx, l.k, l.s.o.LeaseOwner); err != nil {
		l.s.o.Logger.Warn("analytics: cannot release the aggregation lease; it ends by itself", "site", l.site, "err", err)
	}
}

// LeaseHolder returns the LeaseOwner of the Store that holds, or last
// held, the lease on the aggregation of site, and when its claim ends (a
// time before Now: the claim has ended, and the next pass of any Store
// takes the site over); "" when no Store holds it (released, or never
// taken). It fails with ErrInvalid on a bad site id.
func (s *Store) LeaseHolder(ctx context.Context, site string) (owner string, until time.Time, err error) {
	if !validID(site) {
		return "", time.Time{}, fmt.Errorf("%w site id %q", ErrInvalid, site)
	}
	k, err := leaseKey(site)
	if err != nil {
		return "", time.Time{}, err
	}
	owner, until, err = s.t.LeaseHolder(ctx, k)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("analytics: cannot read the aggregation lease of site %q: %w", site, err)
	}
	return owner, until, nil
}
