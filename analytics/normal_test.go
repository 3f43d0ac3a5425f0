package analytics

import (
	"context"
	"strings"
	"testing"
	"testing/quick"
	"time"
)

func TestNormalSource(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"google", "Google"},
		{"Google", "Google"},
		{"GOOGLE", "Google"},
		{" google ", "Google"},
		{"www.google.com", "Google"},
		{"https://www.google.co.uk/search?q=x", "Google"},
		{"google.de", "Google"},
		{"fb", "Facebook"},
		{"facebook", "Facebook"},
		{"m.facebook.com", "Facebook"},
		{"ig", "Instagram"},
		{"yt", "YouTube"},
		{"youtube", "YouTube"},
		{"x", "Twitter"},
		{"t.co", "Twitter"},
		{"twitter", "Twitter"},
		{"hn", "Hacker News"},
		{"news.ycombinator.com", "Hacker News"},
		{"hacker news", "Hacker News"},
		{"bing", "Bing"},
		{"duckduckgo", "DuckDuckGo"},
		{"ddg", "DuckDuckGo"},
		{"yahoo", "Yahoo!"},
		{"Yahoo!", "Yahoo!"},
		{"reddit", "Reddit"},
		{"linkedin", "LinkedIn"},
		{"li", "LinkedIn"},
		{"adwords", "Google Ads"},
		{"google ads", "Google Ads"},
		{"outlook.com", "Outlook.com"},
		{"gmail", "Gmail"},
		{"github", "GitHub"},
		{"www.www.example.com", "example.com"},
		{"Blog.Example.com", "blog.example.com"},
		{"newsletter", "newsletter"},
		{"Spring Sale", "Spring Sale"},
		{"v1.2 launch", "v1.2 launch"},
		{None, None},
		{Other, Other},
		{"", ""},
	} {
		if got := NormalSource(c.in); got != c.want {
			t.Errorf("NormalSource(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalDeviceBrowserOS(t *testing.T) {
	for _, c := range []struct {
		norm     func(string) string
		in, want string
	}{
		{NormalDevice, "desktop", "Desktop"},
		{NormalDevice, "Desktop", "Desktop"},
		{NormalDevice, "MOBILE", "Mobile"},
		{NormalDevice, "smartphone", "Mobile"},
		{NormalDevice, "tablet", "Tablet"},
		{NormalDevice, "tv", "TV"},
		{NormalDevice, "Fridge", "Fridge"},
		{NormalBrowser, "chrome", "Chrome"},
		{NormalBrowser, "Samsung Browser", "Samsung Internet"},
		{NormalBrowser, "Microsoft Edge", "Edge"},
		{NormalBrowser, "IE", "Internet Explorer"},
		{NormalOS, "MacOS", "Mac"},
		{NormalOS, "Linux", "GNU/Linux"},
		{NormalOS, "ChromeOS", "Chrome OS"},
		{NormalOS, "iOS", "iOS"},
		{NormalOS, "Plan 9", "Plan 9"},
	} {
		if got := c.norm(c.in); got != c.want {
			t.Errorf("normal name of %q = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNormal_Idempotent: a normal name is its own normal name, for every
// name and alias of the tables and for random strings.
func TestNormal_Idempotent(t *testing.T) {
	norms := map[string]func(string) string{"source": NormalSource, "device": NormalDevice, "browser": NormalBrowser, "os": NormalOS}
	check := func(kind, s string) bool {
		n := norms[kind](s)
		if again := norms[kind](n); again != n {
			t.Errorf("%s %q: normal %q, normal of that %q", kind, s, n, again)
			return false
		}
		return true
	}
	for alias := range sourceNames {
		check("source", alias)
		check("source", strings.ToUpper(alias))
	}
	for kind, m := range map[string]map[string]string{"device": deviceNames, "browser": browserNames, "os": osNames} {
		for alias, name := range m {
			check(kind, alias)
			if m[strings.ToLower(name)] != name {
				t.Errorf("%s %q is not the name of its own lower case", kind, name)
			}
		}
	}
	for kind := range norms {
		if err := quick.Check(func(s string) bool { return check(kind, s) }, &quick.Config{MaxCount: 2000}); err != nil {
			t.Error(err)
		}
	}
}

func FuzzNormalSource(f *testing.F) {
	for _, s := range []string{"google", "www.google.com", "https://t.co/x", "Blog.Example.com", "a b.c", "android-app://com.google.android.gm/", "www.www.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalSource(s)
		if again := NormalSource(n); again != n {
			t.Errorf("NormalSource(%q) = %q, NormalSource of that = %q", s, n, again)
		}
	})
}

// TestStore_NormalisedOnRead: hits and aggregates stored with names of
// one source, device, browser and OS spelt several ways (as before Record
// normalised them) are counted under one name by the raw reads, the
// aggregation, the merged aggregates and the Top items of a day.
func TestStore_NormalisedOnRead(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)
	clk, s := openWithSite(t, backends()[0], day.Add(36*time.Hour), "a")

	// Old hits: written as Record wrote them, then given old spellings.
	for i, old := range []struct{ source, device, browser, os string }{
		{"google", "desktop", "chrome", "Linux"},
		{"Google", "Desktop", "Chrome", "GNU/Linux"},
		{"www.google.com", "desktop", "Chrome", "linux"},
	} {
		e := Event{Site: "a", Name: PageView, VisitorID: string(rune('a' + i)), Path: "/", Time: day.Add(time.Duration(10+i) * time.Hour)}
		it, _, err := s.hitItem(ctx, &e, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		it["source"], it["device"], it["browser"], it["os"] = sAttr(old.source), sAttr(old.device), sAttr(old.browser), sAttr(old.os)
		if _, err := s.t.Put(ctx, it, nil); err != nil {
			t.Fatal(err)
		}
	}
	visits, err := s.RawVisits(ctx, "a", day, day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range visits {
		if v.Source != "Google" || v.Device != "Desktop" || v.Browser != "Chrome" || v.OS != "GNU/Linux" {
			t.Errorf("raw visit %+v: want Google, Desktop, Chrome, GNU/Linux", v)
		}
	}
	if err := s.AggregateDay(ctx, "a", day); err != nil {
		t.Fatal(err)
	}
	want := map[Dimension]string{DimSource: "Google", DimDevice: "Desktop", DimBrowser: "Chrome", DimOS: "GNU/Linux"}
	for d, name := range want {
		cs, err := s.Breakdown(ctx, "a", d, day, day.AddDate(0, 0, 1), 10)
		if err != nil || len(cs) != 1 || cs[0] != (Count{name, 3}) {
			t.Errorf("aggregated %s = %+v, %v; want %s 3", d, cs, err, name)
		}
	}

	// Old aggregates: a day's stats and Top items written with old
	// spellings.
	old := day.AddDate(0, 0, -1)
	st := newStats()
	st.visits = 6
	for v, n := range map[string]int64{"google": 1, "Google": 2, "www.google.com": 1, "Newsletter": 2} {
		st.add(DimSource, v, n)
	}
	st.add(DimDevice, "desktop", 4)
	st.add(DimDevice, "Desktop", 2)
	if err := s.writePeriod(ctx, st, "a", Day, old, clk.Now()); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ from, to time.Time }{{old, day}, {old, day.AddDate(0, 0, 1)}} {
		cs, err := s.Breakdown(ctx, "a", DimSource, r.from, r.to, 10)
		google := int64(4)
		if r.to.After(day) {
			google += 3
		}
		if err != nil || len(cs) != 2 || cs[0] != (Count{"Google", google}) || cs[1] != (Count{"Newsletter", 2}) {
			t.Errorf("sources of [%s, %s) = %+v, %v; want Google %d, Newsletter 2", r.from, r.to, cs, err, google)
		}
	}
	cs, err := s.Breakdown(ctx, "a", DimDevice, old, day, 10)
	if err != nil || len(cs) != 1 || cs[0] != (Count{"Desktop", 6}) {
		t.Errorf("devices = %+v, %v; want Desktop 6", cs, err)
	}
}
