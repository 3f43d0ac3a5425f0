package collect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/local"
)

// browserUA is a desktop Firefox's user agent.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// testStore opens the embedded engine on fs (in memory when nil) and an
// analytics store over it, with the sites blog (blog.example) and shop
// (shop.example) when create is true.
func testStore(t testing.TB, fs vfs.FS, create bool) (*local.DB, *analytics.Store) {
	t.Helper()
	lo := &local.Options{InMemory: fs == nil, FS: fs, CacheSize: 4 << 20}
	dir := ""
	if fs != nil {
		dir = "data"
	}
	db, err := local.Open(dir, lo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	st, err := analytics.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !create {
		return db, st
	}
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []analytics.Site{{ID: "blog", Domains: []string{"blog.example"}}, {ID: "shop", Domains: []string{"shop.example"}}} {
		if err := st.CreateSite(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return db, st
}

// hitRequest is a browser's POST /api/event of payload from addr.
func hitRequest(payload, addr string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/event", strings.NewReader(payload))
	r.RemoteAddr = addr
	r.Header.Set("User-Agent", browserUA)
	return r
}

// pageViews returns the number of page views of site stored today.
func pageViews(t testing.TB, st *analytics.Store, site string) int {
	t.Helper()
	now := time.Now().UTC()
	day := now.Truncate(24 * time.Hour)
	vs, err := st.RawVisits(context.Background(), site, day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		n += int(v.PageViews)
	}
	return n
}

// TestCollect_DomainListDeduped: a hit whose d lists a site many times
// (by id, by domain, repeated) is recorded once per distinct site, and a
// list of more than MaxDomains names is refused with ErrInvalid.
func TestCollect_DomainListDeduped(t *testing.T) {
	_, st := testStore(t, nil, true)
	c := New(st, &Options{RateLimit: -1})
	payload := func(d string) string {
		return `{"n":"pageview","u":"https://blog.example/a","d":"` + d + `"}`
	}
	if _, err := c.Collect(hitRequest(payload("blog,blog,blog.example, blog"), "127.0.0.1:1")); err != nil {
		t.Fatal(err)
	}
	if n := pageViews(t, st, "blog"); n != 1 {
		t.Fatalf("d naming blog 4 times: %d page views stored, want 1", n)
	}
	long := strings.TrimSuffix(strings.Repeat("blog,", 40), ",")
	if _, err := c.Collect(hitRequest(payload(long), "127.0.0.1:1")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("d naming blog 40 times: %v, want ErrInvalid", err)
	}
	full := strings.TrimSuffix(strings.Repeat("blog,", MaxDomains), ",")
	if _, err := c.Collect(hitRequest(payload(full), "127.0.0.1:1")); err != nil {
		t.Fatalf("d of %d names: %v", MaxDomains, err)
	}
	over := full + ",blog"
	if _, err := c.Collect(hitRequest(payload(over), "127.0.0.1:1")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("d of %d names: %v, want ErrInvalid", MaxDomains+1, err)
	}
	if n := pageViews(t, st, "blog"); n != 2 {
		t.Fatalf("%d page views stored, want 2", n)
	}
}

// TestCollect_RateLimitIPv6By64: the per-client rate limit keeps an IPv6
// client by its /64, so the addresses of one /64 share a bucket, while
// another /64 and distinct IPv4 addresses have buckets of their own.
func TestCollect_RateLimitIPv6By64(t *testing.T) {
	_, st := testStore(t, nil, true)
	c := New(st, &Options{RateLimit: 1, RateBurst: 3})
	payload := `{"n":"pageview","u":"https://blog.example/a"}`
	var limited *RateLimitError
	accepted := 0
	for i := range 300 {
		addr := fmt.Sprintf("[2001:db8:1:2:%x::1]:443", i)
		_, err := c.Collect(hitRequest(payload, addr))
		switch {
		case err == nil:
			accepted++
		case errors.As(err, &limited):
		default:
			t.Fatal(err)
		}
	}
	if accepted != 3 {
		t.Fatalf("300 hits from one /64: %d accepted, want the burst of 3", accepted)
	}
	for _, addr := range []string{"[2001:db8:1:3::1]:443", "127.0.0.1:1", "127.0.0.2:1"} {
		if _, err := c.Collect(hitRequest(payload, addr)); err != nil {
			t.Errorf("a hit from %s: %v, want accepted", addr, err)
		}
	}
}

func FuzzDomainNames(f *testing.F) {
	f.Add("blog")
	f.Add("blog, blog.example,,shop")
	f.Add(strings.Repeat("a,", 11))
	f.Fuzz(func(t *testing.T, d string) {
		names, err := domainNames(d)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		if len(names) > MaxDomains {
			t.Fatalf("%d names", len(names))
		}
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || n != strings.TrimSpace(n) || strings.Contains(n, ",") || seen[n] {
				t.Fatalf("names %q", names)
			}
			seen[n] = true
		}
	})
}

// TestCollect_AcknowledgedHitsSurviveCrash: every hit Collect and Batch
// returned nil for is in the engine's synced state, which is all that a
// crash (kill -9, power loss) leaves: a copy of the file system holding
// only what was synced, taken just after the last answer, has every hit,
// and the realtime counters rebuilt from them count each once.
func TestCollect_AcknowledgedHitsSurviveCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	_, st := testStore(t, fs, true)
	c := New(st, &Options{RateLimit: -1})
	batch := `[{"name":"pageview","url":"/b/0","visitor_id":"v0"},{"name":"pageview","url":"/b/1","visitor_id":"v1"}]`
	if got, err := c.Batch(context.Background(), "blog", strings.NewReader(batch)); err != nil || got != 2 {
		t.Fatalf("Batch: %d, %v", got, err)
	}
	const n = 20
	for i := range n {
		p := fmt.Sprintf(`{"n":"pageview","u":"https://blog.example/p/%d"}`, i)
		if _, err := c.Collect(hitRequest(p, fmt.Sprintf("127.0.0.%d:1", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{}) // only what was synced

	_, after := testStore(t, crashed, false)
	if got := pageViews(t, after, "blog"); got != n+2 {
		t.Fatalf("after the crash: %d page views stored, want the %d acknowledged", got, n+2)
	}
	ctx := context.Background()
	if err := after.RebuildRealtime(ctx); err != nil {
		t.Fatal(err)
	}
	live, err := after.Realtime(ctx, "blog")
	if err != nil {
		t.Fatal(err)
	}
	if live.PageViews != n+2 || len(live.Pages) != n+2 {
		t.Fatalf("realtime after the crash: %d page views of %d pages, want %d of %d", live.PageViews, len(live.Pages), n+2, n+2)
	}
}

// TestCollect_SiteChangeAtOnce: a domain added to a site, or a site
// created, through the Store the Collector reads is accepted by the next
// hit, on a clock that has not moved: the cache of sites is emptied by
// the change, not aged out. A domain removed is refused at once too.
func TestCollect_SiteChangeAtOnce(t *testing.T) {
	_, st := testStore(t, nil, true)
	now := time.Now()
	c := New(st, &Options{RateLimit: -1, Now: func() time.Time { return now }})
	ctx := context.Background()
	hit := func(d, u string) error {
		_, err := c.Collect(hitRequest(`{"n":"pageview","u":"`+u+`","d":"`+d+`"}`, "127.0.0.1:1"))
		return err
	}
	if err := hit("blog", "https://news.example/a"); !errors.Is(err, ErrForeignDomain) {
		t.Fatalf("a page of a domain blog lacks: %v, want ErrForeignDomain", err)
	}
	if err := hit("news.example", "https://news.example/a"); !errors.Is(err, ErrUnknownSite) {
		t.Fatalf("a domain no site has: %v, want ErrUnknownSite", err)
	}
	if err := st.UpdateSite(ctx, analytics.Site{ID: "blog", Domains: []string{"blog.example", "news.example"}}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"blog", "news.example", ""} {
		if err := hit(d, "https://news.example/a"); err != nil {
			t.Errorf("d=%q after the domain was added: %v", d, err)
		}
	}
	if err := hit("new", "https://new.example/"); !errors.Is(err, ErrUnknownSite) {
		t.Fatalf("a site not yet created: %v, want ErrUnknownSite", err)
	}
	if err := st.CreateSite(ctx, analytics.Site{ID: "new", Domains: []string{"new.example"}}); err != nil {
		t.Fatal(err)
	}
	if err := hit("new", "https://new.example/"); err != nil {
		t.Errorf("a site just created: %v", err)
	}
	if err := st.UpdateSite(ctx, analytics.Site{ID: "blog", Domains: []string{"blog.example"}}); err != nil {
		t.Fatal(err)
	}
	if err := hit("blog", "https://news.example/a"); !errors.Is(err, ErrForeignDomain) {
		t.Errorf("a domain just removed: %v, want ErrForeignDomain", err)
	}
}

// TestCollect_DropReason: Collect says why it dropped a hit, and records
// nothing for it.
func TestCollect_DropReason(t *testing.T) {
	_, st := testStore(t, nil, true)
	c := New(st, &Options{RateLimit: -1})
	for _, x := range []struct{ ua, ref, want string }{
		{browserUA, "", ""},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", "", DropHeadless},
		{"", "", DropNoAgent},
		{browserUA, "https://semalt.com/", DropSpam},
	} {
		r := hitRequest(`{"n":"pageview","u":"https://blog.example/a","r":"`+x.ref+`"}`, "127.0.0.1:1")
		r.Header.Set("User-Agent", x.ua)
		if got, err := c.Collect(r); got != x.want || err != nil {
			t.Errorf("user agent %q, referrer %q: dropped %q, %v; want %q", x.ua, x.ref, got, err, x.want)
		}
	}
	if n := pageViews(t, st, "blog"); n != 1 {
		t.Errorf("%d page views stored, want the one not dropped", n)
	}
}
