package collect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
)

// siteCache resolves what a tracker names a site by (its id or one of its
// domains) to the site, remembering answers, found or not, for a while in
// a bounded cache. A site created, changed or deleted through the store
// it reads (this server's) empties the cache at once (the store's
// SiteChanges); the ttl bounds the age of what other servers changed.
type siteCache struct {
	store    *analytics.Store
	ttl, neg time.Duration
	now      func() time.Time
	cache    *lru.Cache[string, siteEntry]

	mu        sync.Mutex
	domains   map[string]*analytics.Site // every site by domain
	readAt    time.Time
	domainsOf uint64 // the store's SiteChanges when domains was read
}

type siteEntry struct {
	site *analytics.Site // nil: no such site
	at   time.Time
	// changes is the store's SiteChanges before the site was read.
	changes uint64
}

func newSiteCache(store *analytics.Store, ttl, neg time.Duration, size int, now func() time.Time) *siteCache {
	c, _ := lru.New[string, siteEntry](size) // size > 0
	return &siteCache{store: store, ttl: ttl, neg: neg, now: now, cache: c}
}

// site returns the site name names (an id, else a domain), nil if there is
// none. The Site is shared: do not change it.
func (c *siteCache) site(ctx context.Context, name string) (*analytics.Site, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	now := c.now()
	changes := c.store.SiteChanges()
	if e, ok := c.cache.Get(name); ok && e.changes == changes {
		life := c.ttl
		if e.site == nil {
			life = c.neg
		}
		if now.Sub(e.at) < life {
			return e.site, nil
		}
	}
	st, err := c.store.Site(ctx, name)
	switch {
	case errors.Is(err, timetable.ErrNotFound), errors.Is(err, analytics.ErrInvalid):
		if st, err = c.byDomain(ctx, name, now, changes); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	c.cache.Add(name, siteEntry{site: st, at: now, changes: changes})
	return st, nil
}

// byDomain returns the site with the domain d, from a list of every site
// read at most neg ago and since the store's SiteChanges were changes.
func (c *siteCache) byDomain(ctx context.Context, d string, now time.Time, changes uint64) (*analytics.Site, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.domains == nil || now.Sub(c.readAt) >= c.neg || c.domainsOf != changes {
		sites, err := c.store.Sites(ctx)
		if err != nil {
			return nil, fmt.Errorf("collect: cannot list the sites: %w", err)
		}
		m := map[string]*analytics.Site{}
		for i := range sites {
			for _, dom := range sites[i].Domains {
				if _, ok := m[dom]; !ok {
					m[dom] = &sites[i]
				}
			}
		}
		c.domains, c.readAt, c.domainsOf = m, now, changes
	}
	return c.domains[d], nil
}

// ownHost reports whether host is one of domains or a subdomain of one.
func ownHost(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
