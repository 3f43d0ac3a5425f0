package analytics

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// Names of the events Record treats apart; any other name is a custom
// event.
const (
	// PageView is the name of a page view.
	PageView = "pageview"
	// Engagement is the name of an engagement event (time on page, scroll
	// depth, sent when a page is hidden). It extends its session's
	// duration, is not interactive, and is neither a custom event nor a
	// visitor's hit; one more than SessionTimeout after the session's last
	// hit is dropped.
	Engagement = "engagement"
)

// Limits on an Event's fields.
const (
	maxPath  = 512
	maxName  = 120
	maxValue = 512
	maxProps = 30
)

// UTM holds the utm_ parameters of a hit.
type UTM struct {
	Source, Medium, Campaign, Term, Content string
}

// Event is a page view or a custom event, with what a collector knows of
// it.
type Event struct {
	// Site is the site id. Required; the site must exist.
	Site string
	// Time is when it happened. Required; at most Retention.Raw old and
	// Options.MaxFuture ahead.
	Time time.Time
	// Name is PageView, Engagement or a custom event's name. Required.
	Name string
	// VisitorID identifies the visitor (see Store.VisitorID): 1 to 64
	// printable bytes without spaces. Required.
	VisitorID string
	// Path is the page path, without query string; it starts with '/'.
	// Required.
	Path string
	// Referrer is the referring URL; a referrer from one of the site's
	// domains is dropped.
	Referrer string
	UTM      UTM
	// Country (ISO 3166 code), Browser, OS and Device (desktop, mobile,
	// tablet) describe the visitor.
	Country, Browser, OS, Device string
	// Props are string properties of the hit; at most 30.
	Props map[string]string
	// NonInteractive marks a custom event that does not end a bounce.
	NonInteractive bool
	// ClickID is the name of the ad click-id parameter the page's URL
	// carried (gclid, msclkid, fbclid, ...; see ClickSource), "" if none.
	// It names the hit's source when UTM.Source is empty.
	ClickID string
	// EngagementMs and ScrollDepth are what an Engagement event reports:
	// the time the page was visible and focused, in milliseconds, and the
	// deepest scroll in percent of the page (0 to 100). Zero for other
	// events; stored only when positive.
	EngagementMs int64
	ScrollDepth  int
}

func checkName(n string) error {
	if n == "" || len(n) > maxName || !printable(n) {
		return fmt.Errorf("%w event name %q: want 1 to %d printable bytes", ErrInvalid, n, maxName)
	}
	return nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func checkValue(what, v string) error {
	if len(v) > maxValue || !printable(v) {
		return fmt.Errorf("%w %s: want at most %d printable bytes", ErrInvalid, what, maxValue)
	}
	return nil
}

// check validates e against now and the raw retention.
func (e *Event) check(now time.Time, o *Options) error {
	if !validID(e.Site) {
		return fmt.Errorf("%w site id %q", ErrInvalid, e.Site)
	}
	if e.Time.IsZero() {
		return fmt.Errorf("%w event: no time", ErrInvalid)
	}
	if e.Time.After(now.Add(o.MaxFuture)) {
		return fmt.Errorf("%w event time %s: more than %s ahead", ErrInvalid, timestamp(e.Time), o.MaxFuture)
	}
	if o.Retention.Raw > 0 && !e.Time.After(now.Add(-o.Retention.Raw)) {
		return fmt.Errorf("%w event time %s: older than the raw retention (%s)", ErrInvalid, timestamp(e.Time), o.Retention.Raw)
	}
	if err := checkName(e.Name); err != nil {
		return err
	}
	if e.VisitorID == "" || len(e.VisitorID) > 64 || strings.ContainsAny(e.VisitorID, " #") || !printable(e.VisitorID) {
		return fmt.Errorf("%w visitor id %q: want 1 to 64 printable bytes, no space or '#'", ErrInvalid, e.VisitorID)
	}
	if !strings.HasPrefix(e.Path, "/") || len(e.Path) > maxPath || !printable(e.Path) {
		return fmt.Errorf("%w path %q: want '/' and at most %d printable bytes", ErrInvalid, e.Path, maxPath)
	}
	for _, f := range [...]struct{ what, v string }{
		{"referrer", e.Referrer}, {"utm_source", e.UTM.Source}, {"utm_medium", e.UTM.Medium}, {"utm_campaign", e.UTM.Campaign},
		{"utm_term", e.UTM.Term}, {"utm_content", e.UTM.Content}, {"country", e.Country}, {"browser", e.Browser}, {"os", e.OS}, {"device", e.Device},
	} {
		if err := checkValue(f.what, f.v); err != nil {
			return err
		}
	}
	if err := checkValue("click id", e.ClickID); err != nil {
		return err
	}
	if e.EngagementMs < 0 || e.ScrollDepth < 0 || e.ScrollDepth > 100 {
		return fmt.Errorf("%w engagement: time %d ms and scroll depth %d%%: want time >= 0 and depth 0 to 100", ErrInvalid, e.EngagementMs, e.ScrollDepth)
	}
	if len(e.Props) > maxProps {
		return fmt.Errorf("%w props: more than %d", ErrInvalid, maxProps)
	}
	for k, v := range e.Props {
		if k == "" || len(k) > maxName || !printable(k) {
			return fmt.Errorf("%w property name %q", ErrInvalid, k)
		}
		if err := checkValue("property "+k, v); err != nil {
			return err
		}
	}
	return nil
}

// Check validates e as Record does, against the Store's clock and raw
// retention, without writing: ErrInvalid on bad input. It does not look
// the site up.
func (s *Store) Check(e Event) error { return e.check(s.now(), &s.o) }

// Record stores the hit e: a page-view or event item (with a ttl of
// Retention.Raw from e.Time), the realtime counters of its minute when
// that minute is recent (gathered with other hits' and written within a
// second, or by the next Realtime of this Store), and a mark that makes the next AggregatePending
// aggregate e's day again (so late events are counted). It fails with
// ErrInvalid on bad input and timetable.ErrNotFound for an unknown site;
// if only the mark fails, the hit is stored and the error says so.
func (s *Store) Record(ctx context.Context, e Event) error {
	now := s.now()
	it, t, err := s.hitItem(ctx, &e, now)
	if err != nil {
		return err
	}
	if _, err := s.t.Put(ctx, it, nil); err != nil {
		return fmt.Errorf("analytics: cannot store %s of site %q: %w", e.Name, e.Site, err)
	}
	if err := s.realtime(ctx, &e, t, now); err != nil {
		return err
	}
	if err := s.mark(ctx, e.Site, dayOf(t)); err != nil {
		return fmt.Errorf("analytics: the hit is stored but its day is not marked for aggregation: %w", err)
	}
	return nil
}

// hitItem checks e and returns the page-view or event item Record writes
// for it, and its time to the millisecond.
func (s *Store) hitItem(ctx context.Context, e *Event, now time.Time) (table.Item, time.Time, error) {
	if err := e.check(now, &s.o); err != nil {
		return nil, time.Time{}, err
	}
	site, err := s.cachedSite(ctx, e.Site)
	if err != nil {
		return nil, time.Time{}, err
	}
	return s.newHitItem(e, site)
}

// newHitItem returns the page-view or event item of e, a checked event
// of site, and its time to the millisecond.
func (s *Store) newHitItem(e *Event, site *Site) (table.Item, time.Time, error) {
	id, err := s.randomID(8)
	if err != nil {
		return nil, time.Time{}, err
	}
	t := e.Time.UTC().Truncate(time.Millisecond)
	ent := entEvent
	if e.Name == PageView {
		ent = entPageView
	}
	ts := timestamp(t)
	it, err := keyItem(ent, map[string]string{"siteId": e.Site, "timestamp": ts, "id": id, "date": dayOf(t)})
	if err != nil {
		return nil, time.Time{}, err
	}
	ref := internalReferrer(e.Referrer, site.Domains)
	it["siteId"] = sAttr(e.Site)
	it["timestamp"] = sAttr(ts)
	it["id"] = sAttr(id)
	it["visitorId"] = sAttr(e.VisitorID)
	it["path"] = sAttr(e.Path)
	if ent == entEvent {
		it["name"] = sAttr(e.Name)
		it["interactive"] = &types.AttributeValueMemberBOOL{Value: !e.NonInteractive && e.Name != Engagement}
	}
	if e.EngagementMs > 0 {
		it["engagementMs"] = nAttr(e.EngagementMs)
	}
	if e.ScrollDepth > 0 {
		it["scrollDepth"] = nAttr(int64(e.ScrollDepth))
	}
	for _, a := range [...]struct{ name, v string }{{"referrer", ref}, {"source", sourceOf(ref, e.UTM.Source, e.ClickID)}, {"country", e.Country},
		{"browser", NormalBrowser(e.Browser)}, {"os", NormalOS(e.OS)}, {"device", NormalDevice(e.Device)}} {
		if a.v != "" {
			it[a.name] = sAttr(a.v)
		}
	}
	if e.UTM != (UTM{}) {
		it["utm"] = mapAttr(e.UTM.fields())
	}
	if len(e.Props) > 0 {
		it["props"] = mapAttr(e.Props)
	}
	if ttl := ttlAfter(t, s.o.Retention.Raw); ttl != 0 {
		it[attrTTL] = nAttr(ttl)
	}
	return it, t, nil
}

func (u UTM) fields() map[string]string {
	m := map[string]string{"source": u.Source, "medium": u.Medium, "campaign": u.Campaign, "term": u.Term, "content": u.Content}
	maps.DeleteFunc(m, func(_, v string) bool { return v == "" })
	return m
}

// internalReferrer returns ref, or "" if its host is one of domains (or a
// subdomain of one) or ref is no URL with a host.
func internalReferrer(ref string, domains []string) string {
	h := referrerHost(ref)
	if h == "" {
		return ""
	}
	for _, d := range domains {
		if h == d || strings.HasSuffix(h, "."+d) {
			return ""
		}
	}
	return ref
}

func referrerHost(ref string) string {
	if ref == "" {
		return ""
	}
	if !strings.Contains(ref, "://") {
		ref = "https://" + ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	for strings.HasPrefix(h, "www.") {
		h = h[len("www."):]
	}
	return h
}

// knownHosts names the sources of well-known referrer hosts (without
// "www."), matched first and whole; knownSources those of hosts matched by
// their name without the top-level domain (google.de, google.co.uk).
var (
	knownHosts = map[string]string{
		"t.co": "Twitter", "t.me": "Telegram", "lnkd.in": "LinkedIn", "news.ycombinator.com": "Hacker News",
		"news.google.com": "Google News", "search.brave.com": "Brave Search", "search.yahoo.com": "Yahoo!",
		"mail.google.com": "Gmail", "inbox.google.com": "Gmail", "outlook.live.com": "Outlook.com",
		"outlook.office.com": "Outlook.com", "outlook.office365.com": "Outlook.com", "mail.yahoo.com": "Yahoo! Mail",
		"mail.proton.me": "Proton Mail", "app.fastmail.com": "Fastmail", "mail.yandex.ru": "Yandex Mail",
		"web.whatsapp.com": "WhatsApp", "wa.me": "WhatsApp", "web.telegram.org": "Telegram",
		"l.facebook.com": "Facebook", "lm.facebook.com": "Facebook", "m.facebook.com": "Facebook",
		"l.instagram.com": "Instagram", "old.reddit.com": "Reddit", "out.reddit.com": "Reddit",
		"away.vk.com": "VKontakte", "duck.com": "DuckDuckGo", "com.google.android.gm": "Gmail",
		"com.google.android.googlequicksearchbox": "Google",
	}
	knownSources = map[string]string{
		// Search engines.
		"google": "Google", "bing": "Bing", "duckduckgo": "DuckDuckGo", "yahoo": "Yahoo!", "yandex": "Yandex",
		"baidu": "Baidu", "ecosia": "Ecosia", "qwant": "Qwant", "startpage": "Startpage", "kagi": "Kagi",
		"naver": "Naver", "seznam": "Seznam", "sogou": "Sogou", "ask": "Ask", "aol": "AOL", "mojeek": "Mojeek",
		"yep": "Yep", "perplexity": "Perplexity", "chatgpt": "ChatGPT", "search.brave": "Brave Search",
		// Social networks and communities.
		"facebook": "Facebook", "twitter": "Twitter", "x": "Twitter", "linkedin": "LinkedIn", "reddit": "Reddit",
		"github": "GitHub", "gitlab": "GitLab", "youtube": "YouTube", "instagram": "Instagram",
		"pinterest": "Pinterest", "mastodon": "Mastodon", "mastodon.social": "Mastodon", "bsky": "Bluesky",
		"threads": "Threads", "tiktok": "TikTok", "vk": "VKontakte", "quora": "Quora", "medium": "Medium",
		"dev": "DEV", "lobste": "Lobsters", "producthunt": "Product Hunt", "stackoverflow": "Stack Overflow",
		"discord": "Discord", "slack": "Slack", "telegram": "Telegram", "whatsapp": "WhatsApp",
		// Email.
		"outlook": "Outlook.com", "gmail": "Gmail", "protonmail": "Proton Mail", "fastmail": "Fastmail",
	}
)

// clickSources names the ad networks of click-id URL parameters.
var clickSources = map[string]string{
	"gclid": "Google Ads", "gbraid": "Google Ads", "wbraid": "Google Ads", "msclkid": "Bing Ads",
	"fbclid": "Facebook", "ttclid": "TikTok", "li_fat_id": "LinkedIn", "twclid": "Twitter",
}

// ClickSource returns the ad network of the click-id URL parameter param
// (gclid, gbraid and wbraid: Google Ads; msclkid: Bing Ads; fbclid:
// Facebook; ttclid: TikTok; li_fat_id: LinkedIn; twclid: Twitter), or ""
// if param is none of them.
func ClickSource(param string) string { return clickSources[param] }

// sourceOf is Source with the click id: utm_source first, then the click
// id's network, then the referrer.
func sourceOf(referrer, utmSource, clickID string) string {
	if utmSource == "" {
		if s := ClickSource(clickID); s != "" {
			return s
		}
	}
	return Source(referrer, utmSource)
}

// Source classifies a hit's origin: utmSource if set, under its normal
// name (NormalSource: "google" is "Google"), else the known name of the
// referrer's host (Google, Twitter, Gmail, ...), else the host without
// "www.", else "" (direct or none). Referrers of Android apps
// (android-app://com.google.android.gm/) are named by their package.
func Source(referrer, utmSource string) string {
	if utmSource != "" {
		return NormalSource(utmSource)
	}
	h := referrerHost(referrer)
	if h == "" {
		return ""
	}
	if n, ok := knownHosts[h]; ok {
		return n
	}
	base := h
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
		if j := strings.LastIndexByte(base, '.'); j > 0 && (strings.HasSuffix(base, ".co") || strings.HasSuffix(base, ".com")) {
			base = base[:j] // google.co.uk, google.com.au
		}
	}
	if n, ok := knownSources[base]; ok {
		return n
	}
	if i := strings.IndexByte(base, '.'); i > 0 { // m.youtube, de.search.yahoo
		if n, ok := knownSources[base[strings.LastIndexByte(base, '.')+1:]]; ok {
			return n
		}
	}
	return h
}
