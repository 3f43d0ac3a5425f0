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
// a bounded cache.
type siteCache struct {
	store    *analytics.Store
	ttl, neg time.Duration
	now      func() time.Time
	cache    *lru.Cache[string, siteEntry]

	mu      sync.Mutex
	domains map[string]*analytics.Site // every site by domain
	readAt  time.Time
}

type siteEntry struct {
	site *analytics.Site // nil: no such site
	at   time.Time
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
	if e, ok := c.cache.Get(name); ok {
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
		if st, err = c.byDomain(ctx, name, now); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	c.cache.Add(name, siteEntry{site: st, at: now})
	return st, nil
}

// byDomain returns the site with the domain d, from a list of every site
// read at most neg ago.
func (c *siteCache) byDomain(ctx context.Context, d string, now time.Time) (*analytics.Site, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.domains == nil || now.Sub(c.readAt) >= c.neg {
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
		c.domains, c.readAt = m, now
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
