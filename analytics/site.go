package analytics

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// Site is a tracked site and its settings.
type Site struct {
	// ID identifies the site: 1 to 64 of a-z, 0-9, '.', '-' and '_'.
	ID string
	// Name is its display name.
	Name string
	// Domains are the host names whose hits are accepted; a referrer from
	// one of them is internal (no source). Lower case.
	Domains []string
	// TimeZone is the IANA name of the dashboard's time zone; "" is UTC.
	// Aggregates are kept in UTC.
	TimeZone string
	// Public makes the site's stats readable without a token (by anyone
	// who knows the site's id). Shared links give read access to one
	// site without making it public.
	Public bool
	// CreatedAt and UpdatedAt are set by the Store.
	CreatedAt, UpdatedAt time.Time
}

func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func (st *Site) check() error {
	if !validID(st.ID) {
		return invalidField("ID", "%w site id %q: "+idRule, ErrInvalid, st.ID)
	}
	if len(st.Name) > 200 {
		return invalidField("Name", "%w site name: longer than 200 bytes", ErrInvalid)
	}
	for i, d := range st.Domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" || len(d) > 253 || strings.ContainsAny(d, "/:@ #?") {
			return invalidField("Domains", "%w domain %q: want a host name (example.com, without scheme, port or path)", ErrInvalid, st.Domains[i])
		}
		st.Domains[i] = d
	}
	if st.TimeZone != "" {
		if _, err := time.LoadLocation(st.TimeZone); err != nil {
			return invalidField("TimeZone", "%w time zone %q: %v", ErrInvalid, st.TimeZone, err)
		}
	}
	return nil
}

func (st *Site) item() (table.Item, error) {
	it, err := keyItem(entSite, map[string]string{"siteId": st.ID})
	if err != nil {
		return nil, err
	}
	it["siteId"] = sAttr(st.ID)
	it["name"] = sAttr(st.Name)
	if len(st.Domains) > 0 {
		ds := slices.Clone(st.Domains)
		slices.Sort(ds)
		it["domains"] = &types.AttributeValueMemberSS{Value: slices.Compact(ds)}
	}
	if st.TimeZone != "" {
		it["timeZone"] = sAttr(st.TimeZone)
	}
	if st.Public {
		it["public"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	it["createdAt"] = sAttr(timestamp(st.CreatedAt))
	it["updatedAt"] = sAttr(timestamp(st.UpdatedAt))
	return it, nil
}

func siteFrom(it table.Item) *Site {
	st := &Site{ID: getS(it, "siteId"), Name: getS(it, "name"), Domains: getSS(it, "domains"), TimeZone: getS(it, "timeZone"), Public: getBool(it, "public")}
	st.CreatedAt, _ = time.Parse(layoutTimestamp, getS(it, "createdAt"))
	st.UpdatedAt, _ = time.Parse(layoutTimestamp, getS(it, "updatedAt"))
	slices.Sort(st.Domains)
	return st
}

func siteKey(id string) (table.Key, error) {
	return primaryKey(entSite, map[string]string{"siteId": id})
}

// CreateSite adds the site st. It fails with ErrExists if a site of that id
// exists, and with ErrInvalid on a bad id, domain or time zone.
func (s *Store) CreateSite(ctx context.Context, st Site) error {
	st.Domains = slices.Clone(st.Domains)
	if err := st.check(); err != nil {
		return err
	}
	st.CreatedAt = s.now()
	st.UpdatedAt = st.CreatedAt
	it, err := st.item()
	if err != nil {
		return err
	}
	_, err = s.t.Put(ctx, it, &table.PutOptions{If: table.Attr(attrPK).NotExists()})
	if table.IsConditionFailed(err) {
		return fmt.Errorf("%w: site %q", ErrExists, st.ID)
	}
	if err != nil {
		return fmt.Errorf("analytics: cannot create site %q: %w", st.ID, err)
	}
	s.siteChanges.Add(1)
	return nil
}

// UpdateSite replaces the settings of the existing site st.ID (name,
// domains, time zone, public), keeping its creation time. It fails with
// timetable.ErrNotFound if there is no such site.
func (s *Store) UpdateSite(ctx context.Context, st Site) error {
	st.Domains = slices.Clone(st.Domains)
	if err := st.check(); err != nil {
		return err
	}
	old, err := s.Site(ctx, st.ID)
	if err != nil {
		return err
	}
	st.CreatedAt = old.CreatedAt
	st.UpdatedAt = s.now()
	it, err := st.item()
	if err != nil {
		return err
	}
	_, err = s.t.Put(ctx, it, &table.PutOptions{If: table.Attr(attrPK).Exists()})
	if table.IsConditionFailed(err) {
		return fmt.Errorf("analytics: site %q: %w", st.ID, timetable.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("analytics: cannot update site %q: %w", st.ID, err)
	}
	s.mu.Lock()
	delete(s.sites, st.ID)
	s.mu.Unlock()
	s.siteChanges.Add(1)
	return nil
}

// Location returns the site's time zone (UTC when it has none or, which
// check prevents, an unknown one).
func (st *Site) Location() *time.Location {
	if st.TimeZone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(st.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Site returns the site id, or an error matching timetable.ErrNotFound.
// The Site is the caller's.
func (s *Store) Site(ctx context.Context, id string) (*Site, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w site id %q", ErrInvalid, id)
	}
	k, err := siteKey(id)
	if err != nil {
		return nil, err
	}
	it, err := s.t.Get(ctx, k, &table.GetOptions{Consistent: true})
	if errors.Is(err, timetable.ErrNotFound) {
		return nil, fmt.Errorf("analytics: site %q: %w", id, timetable.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("analytics: cannot read site %q: %w", id, err)
	}
	return siteFrom(it), nil
}

// cachedSite returns the site id as read at most Options.SiteCacheTTL ago.
func (s *Store) cachedSite(ctx context.Context, id string) (*Site, error) {
	now := s.now()
	s.mu.Lock()
	c, ok := s.sites[id]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < s.o.SiteCacheTTL {
		return c.site, nil
	}
	st, err := s.Site(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.sites[id] = cachedSite{site: st, at: now}
	s.mu.Unlock()
	return st, nil
}

// Sites returns every site, ordered by id. They are read from the global
// index GSI1 (eventually consistent: a site just added may be missing).
func (s *Store) Sites(ctx context.Context) ([]Site, error) {
	var out []Site
	hash := fill(entSite.Keys[attrGSI1PK], nil)
	for it, err := range s.t.QueryAll(ctx, &table.Query{Index: indexGSI1, Hash: hash}) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot list sites: %w", err)
		}
		out = append(out, *siteFrom(it))
	}
	return out, nil
}

// DeleteSite deletes the site id and every item of its partition: hits,
// sessions, goals, funnels, shared links, stats, realtime counters. It fails with
// timetable.ErrNotFound if there is no such site.
func (s *Store) DeleteSite(ctx context.Context, id string) error {
	if _, err := s.Site(ctx, id); err != nil {
		return err
	}
	var ks []table.Key
	for it, err := range s.t.QueryAll(ctx, &table.Query{Hash: sitePK(id), Projection: []string{attrPK, attrSK}}) {
		if err != nil {
			return fmt.Errorf("analytics: cannot list the items of site %q: %w", id, err)
		}
		ks = append(ks, table.K(getS(it, attrPK), getS(it, attrSK)))
	}
	if err := s.t.BatchDelete(ctx, ks); err != nil {
		return fmt.Errorf("analytics: cannot delete site %q: %w", id, err)
	}
	s.mu.Lock()
	delete(s.sites, id)
	s.mu.Unlock()
	s.siteChanges.Add(1)
	return nil
}

// SiteChanges counts the sites created, updated and deleted through this
// Store, each counted once its write is done. A cache of sites read from
// the Store is stale when the count differs from the one read before the
// sites were: a change made through this Store takes effect in such a
// cache at once. Changes made through other Stores on the same table are
// not counted (caches bound their age for those).
func (s *Store) SiteChanges() uint64 { return s.siteChanges.Load() }
