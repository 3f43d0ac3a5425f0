package collect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
)

// Errors of Collect besides ErrInvalid and ErrTooLarge, matched with
// errors.Is; a client over its rate gets a *RateLimitError.
var (
	// ErrUnknownSite reports a hit for a site that does not exist.
	ErrUnknownSite = errors.New("collect: unknown site")
	// ErrForeignDomain reports a hit from a page whose host is not one of
	// the site's domains.
	ErrForeignDomain = errors.New("collect: foreign domain")
)

// RateLimitError reports a client over its rate for a site.
type RateLimitError struct {
	Site string
	// RetryAfter is when the client may send again.
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("collect: too many events for site %q from this address; retry after %s", e.Site, e.RetryAfter.Round(time.Millisecond))
}

// CountryDB gives the country of an address: *GeoIP, or a stand-in.
type CountryDB interface {
	// Country returns an ISO 3166-1 alpha-2 code, "" if unknown.
	Country(ip netip.Addr) string
}

// Defaults of Options.
const (
	DefaultRateLimit      = 20      // events per second per site and address
	DefaultMaxClients     = 100_000 // rate-limited (site, address) pairs kept
	DefaultSiteCacheTTL   = 10 * time.Second
	DefaultUnknownSiteTTL = 10 * time.Second
)

// Options configure a Collector. A nil *Options and the zero value are
// valid; each field documents its default.
type Options struct {
	// CountryHeader is the request header a CDN puts the client's country
	// in (CF-IPCountry, CloudFront-Viewer-Country, X-Country-Code), taken
	// first when set and valid. Default none.
	CountryHeader string
	// GeoIP gives the country when the header does not. Default none.
	GeoIP CountryDB
	// TrustedProxies are the peers whose X-Forwarded-For and X-Real-IP
	// are believed. Default none: the peer is the client.
	TrustedProxies []netip.Prefix
	// BotRanges are client addresses whose hits are dropped as bots'
	// (data centres, monitors). Default none.
	BotRanges []netip.Prefix
	// SpamReferrers are referrer hosts dropped as spam, besides the
	// embedded list (a subdomain of one is spam too).
	SpamReferrers []string
	// RateLimit is the events per second accepted per site and client
	// address, with bursts of RateBurst. Default DefaultRateLimit;
	// negative: no limit.
	RateLimit float64
	// RateBurst is the burst of RateLimit. Default twice RateLimit (at
	// least 1).
	RateBurst int
	// MaxClients bounds the (site, address) pairs whose rate is tracked;
	// the least recently seen are forgotten first. Default
	// DefaultMaxClients.
	MaxClients int
	// SiteCacheTTL is how long a site read is trusted (its domains);
	// UnknownSiteTTL how long a name that is no site is remembered as
	// such. They bound how long a site added, changed or deleted through
	// another server (another Store on the same table) takes to reach
	// this Collector; one changed through the Store the Collector records
	// into reaches it at once. Defaults DefaultSiteCacheTTL and
	// DefaultUnknownSiteTTL, 10 seconds each.
	SiteCacheTTL, UnknownSiteTTL time.Duration
	// Now is the clock of hits and rates. Default time.Now.
	Now func() time.Time
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.RateLimit == 0 {
		r.RateLimit = DefaultRateLimit
	}
	if r.RateBurst <= 0 {
		r.RateBurst = max(1, int(2*r.RateLimit))
	}
	if r.MaxClients <= 0 {
		r.MaxClients = DefaultMaxClients
	}
	if r.SiteCacheTTL <= 0 {
		r.SiteCacheTTL = DefaultSiteCacheTTL
	}
	if r.UnknownSiteTTL <= 0 {
		r.UnknownSiteTTL = DefaultUnknownSiteTTL
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	return r
}

// Collector records the hits of trackers in an analytics.Store. It is safe
// for concurrent use.
type Collector struct {
	store *analytics.Store
	o     Options
	ua    *agents
	sites *siteCache
	limit *limiter // nil: no limit
	spam  map[string]bool
	stats *counters
	// syncer is the store's backend when it can defer syncs, else nil.
	syncer timetable.Syncer
}

// New returns a Collector that records into store.
func New(store *analytics.Store, o *Options) *Collector {
	opts := o.withDefaults()
	c := &Collector{
		store: store,
		o:     opts,
		ua:    newAgents(),
		sites: newSiteCache(store, opts.SiteCacheTTL, opts.UnknownSiteTTL, 10_000, opts.Now),
		spam:  spamHosts(opts.SpamReferrers),
		stats: newCounters(),
	}
	if opts.RateLimit > 0 {
		c.limit = newLimiter(opts.RateLimit, opts.RateBurst, opts.MaxClients, opts.Now)
	}
	c.syncer, _ = store.Table().API().(timetable.Syncer)
	return c
}

// maxPath is the longest path recorded: a longer one is cut (at a rune's
// start) rather than refused, since a tracker cannot shorten it.
const maxPath = 512

// Collect records the hit of r, a browser's POST /api/event: its body
// (at most MaxPayloadBytes) is Decode's payload. It returns once the hit
// is durable (see durably), so that an answer sent after it is never lost
// to a crash. A hit from a bot, a headless browser or with a spam
// referrer is dropped: Collect returns the reason (DropBot, DropHeadless,
// DropNoAgent, DropBotIP or DropSpam) and no error; dropped is "" for a
// hit recorded. So is a hit that every site it is for excludes, by the
// client address (the one the rate limit counts, see
// Options.TrustedProxies) or the page's path (a custom event's too):
// DropExcludedIP or DropExcludedPath; a site that does not exclude it
// still gets it. It fails with
// ErrTooLarge, ErrInvalid (or analytics.ErrInvalid), ErrUnknownSite,
// ErrForeignDomain or a *RateLimitError; other errors are the store's.
func (c *Collector) Collect(r *http.Request) (dropped string, err error) {
	dropped, err = c.collect(r)
	if dropped != "" {
		c.stats.drop(dropped)
	}
	c.stats.refuse(err)
	return dropped, err
}

func (c *Collector) collect(r *http.Request) (dropped string, err error) {
	ctx := r.Context()
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxPayloadBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: cannot read the body: %v", ErrInvalid, err)
	}
	p, err := Decode(data)
	if err != nil {
		return "", err
	}
	page, err := pageURL(p.URL)
	if err != nil {
		return "", err
	}
	host := strings.ToLower(page.Hostname())
	sites, err := c.resolve(ctx, p.Domain, host)
	if err != nil {
		return "", err
	}
	ip, _ := clientIP(r, c.o.TrustedProxies)
	ua := r.UserAgent()
	ag := c.ua.classify(ua)
	switch {
	case ag.drop != "":
		return ag.drop, nil
	case contains(c.o.BotRanges, ip):
		return DropBotIP, nil
	case isSpam(c.spam, normHost(referrerHost(p.Referrer))):
		return DropSpam, nil
	}
	path := pagePath(page, p.Hash)
	if sites, dropped = unexcluded(sites, ip, path); len(sites) == 0 {
		return dropped, nil
	}
	if c.limit != nil {
		for _, st := range sites {
			if ok, wait := c.limit.allow(limitKey{site: st.ID, ip: clientKey(ip)}); !ok {
				return "", &RateLimitError{Site: st.ID, RetryAfter: wait}
			}
		}
	}
	e := analytics.Event{
		Time:           c.o.Now(),
		Name:           p.Name,
		Referrer:       cleanReferrer(p.Referrer),
		Props:          p.Props,
		NonInteractive: !p.Interactive,
		Browser:        ag.browser,
		OS:             ag.os,
		Device:         ag.device,
		Country:        c.country(r, ip),
	}
	if p.Name == analytics.Engagement {
		e.EngagementMs, e.ScrollDepth = p.EngagementMs, p.ScrollDepth
	}
	fromURL(&e, page, p.Hash)
	return "", c.durably(ctx, func(ctx context.Context) error {
		for _, st := range sites {
			e.Site = st.ID
			if e.VisitorID, err = c.store.VisitorID(ctx, st.ID, ip.String(), ua); err != nil {
				return err
			}
			if err := c.store.Record(ctx, e); err != nil {
				return err
			}
			c.stats.accepted.Add(1)
		}
		return nil
	})
}

// durably runs record, which writes hits with the store under the ctx it
// is given, and returns once what it wrote is durable. On an engine that
// can defer syncs (a timetable.Syncer), the writes are made without a
// sync each and the engine's log is synced once before durably returns;
// the engine shares one sync among the requests waiting at once, so a
// hit costs a part of a sync, not one. Elsewhere (DynamoDB) a write is
// durable when it returns. A hit answered after durably returns nil is
// never lost to a crash, kill -9 included: what the store derives from it
// later (realtime counters, sessions, aggregates) is rebuilt from it.
func (c *Collector) durably(ctx context.Context, record func(context.Context) error) error {
	if c.syncer == nil {
		return record(ctx)
	}
	err := record(timetable.WithDeferredSync(ctx))
	// Synced even when record failed part-way: what it wrote stays.
	if serr := c.syncer.Sync(ctx); serr != nil {
		return errors.Join(err, fmt.Errorf("collect: cannot make the hits recorded durable: %w", serr))
	}
	return err
}

// pageURL parses a hit's URL: absolute, http or https, with a host.
func pageURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w url %q: %v", ErrInvalid, s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("%w url %q: want an http or https URL with a host", ErrInvalid, s)
	}
	return u, nil
}

// MaxDomains is the most names a hit's domain list (Plausible's d, a
// comma-separated list for roll-up sites) may hold, repeats included: a
// longer list is refused with ErrInvalid. Each distinct site the list
// names is sent the hit once.
const MaxDomains = 10

// domainNames returns the distinct names of the comma-separated list
// domain, in order, blanks skipped; ErrInvalid if it holds more than
// MaxDomains names.
func domainNames(domain string) ([]string, error) {
	var names []string
	n := 0
	for name := range strings.SplitSeq(domain, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if n++; n > MaxDomains {
			return nil, fmt.Errorf("%w domain: more than %d names in the list %.100q", ErrInvalid, MaxDomains, domain)
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// resolve returns the sites a hit names: the distinct sites of the
// comma-separated list domain (at most MaxDomains names), else the one of
// host or its closest parent domain. Every site must exist and count host
// among its domains.
func (c *Collector) resolve(ctx context.Context, domain, host string) ([]*analytics.Site, error) {
	var sites []*analytics.Site
	if strings.TrimSpace(domain) == "" {
		for h := host; h != ""; {
			st, err := c.sites.site(ctx, h)
			if err != nil {
				return nil, err
			}
			if st != nil {
				sites = append(sites, st)
				break
			}
			_, h, _ = strings.Cut(h, ".")
			if !strings.Contains(h, ".") { // not a bare top-level domain
				break
			}
		}
		if sites == nil {
			return nil, fmt.Errorf("%w: no site has the domain %q", ErrUnknownSite, host)
		}
	} else {
		names, err := domainNames(domain)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			st, err := c.sites.site(ctx, name)
			if err != nil {
				return nil, err
			}
			if st == nil {
				return nil, fmt.Errorf("%w %q: no site has that id or domain", ErrUnknownSite, name)
			}
			// A site named twice (by its id and a domain) gets one hit.
			if !slices.ContainsFunc(sites, func(s *analytics.Site) bool { return s.ID == st.ID }) {
				sites = append(sites, st)
			}
		}
	}
	for _, st := range sites {
		if !ownHost(host, st.Domains) {
			if len(st.Domains) == 0 {
				return nil, fmt.Errorf("%w: site %q has no domains, so no page may send it hits", ErrForeignDomain, st.ID)
			}
			return nil, fmt.Errorf("%w: %q is not one of the domains of site %q (%s) nor a subdomain of one", ErrForeignDomain, host, st.ID, strings.Join(st.Domains, ", "))
		}
	}
	return sites, nil
}

// country returns the client's country: the CDN header's, else the
// database's.
func (c *Collector) country(r *http.Request, ip netip.Addr) string {
	if c.o.CountryHeader != "" {
		if cc := countryCode(strings.TrimSpace(r.Header.Get(c.o.CountryHeader))); cc != "" {
			return cc
		}
	}
	if c.o.GeoIP != nil && ip.IsValid() {
		return c.o.GeoIP.Country(ip)
	}
	return ""
}

// utmParams are the query parameters of each UTM field; the first present
// wins (ref and source are the common short forms of utm_source).
var utmParams = []struct {
	field  func(*analytics.UTM) *string
	params []string
}{
	{func(u *analytics.UTM) *string { return &u.Source }, []string{"utm_source", "source", "ref"}},
	{func(u *analytics.UTM) *string { return &u.Medium }, []string{"utm_medium"}},
	{func(u *analytics.UTM) *string { return &u.Campaign }, []string{"utm_campaign"}},
	{func(u *analytics.UTM) *string { return &u.Term }, []string{"utm_term"}},
	{func(u *analytics.UTM) *string { return &u.Content }, []string{"utm_content"}},
}

// clickIDs are the ad click-id parameters, in the order they are looked
// for.
var clickIDs = []string{"gclid", "gbraid", "wbraid", "msclkid", "fbclid", "ttclid", "li_fat_id", "twclid"}

// unexcluded returns the sites that exclude neither the client address ip
// nor the page's path, and, when that leaves none, the reason the first
// site excludes the hit for (DropExcludedIP before DropExcludedPath).
func unexcluded(sites []*analytics.Site, ip netip.Addr, path string) ([]*analytics.Site, string) {
	keep, reason := sites[:0:0], ""
	for _, st := range sites {
		switch {
		case st.ExcludesIP(ip):
			reason = cmp.Or(reason, DropExcludedIP)
		case st.ExcludesPath(path):
			reason = cmp.Or(reason, DropExcludedPath)
		default:
			keep = append(keep, st)
		}
	}
	if len(keep) == len(sites) {
		return sites, ""
	}
	return keep, reason
}

// pagePath returns the path recorded for the page u: its path (with the
// fragment in hash mode), starting with '/', cut to maxPath bytes.
func pagePath(u *url.URL, hash bool) string {
	path := u.Path
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	if hash && u.Fragment != "" {
		path += "#" + u.Fragment
	}
	return truncate(path, maxPath)
}

// fromURL sets e's path (pagePath), UTM fields and click id from the
// page's URL.
func fromURL(e *analytics.Event, u *url.URL, hash bool) {
	e.Path = pagePath(u, hash)
	if u.RawQuery == "" {
		return
	}
	q := u.Query()
	for _, f := range utmParams {
		for _, p := range f.params {
			if v := strings.TrimSpace(q.Get(p)); v != "" {
				*f.field(&e.UTM) = truncate(v, maxPath)
				break
			}
		}
	}
	for _, id := range clickIDs {
		if q.Get(id) != "" {
			e.ClickID = id
			break
		}
	}
}

// cleanReferrer returns ref without its query string and fragment, cut to
// maxPath bytes; "" if it is no URL with a host.
func cleanReferrer(ref string) string {
	if referrerHost(ref) == "" {
		return ""
	}
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		ref = ref[:i]
	}
	return truncate(ref, maxPath)
}

// referrerHost returns the host of the referring URL ref, "" if none.
func referrerHost(ref string) string {
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// truncate cuts s to at most n bytes at a rune's start.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
