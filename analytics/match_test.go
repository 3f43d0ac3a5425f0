package analytics

import (
	"testing"
	"time"
)

func TestMatchPath(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/", "/a", false},
		{"/blog/*", "/blog/a", true},
		{"/blog/*", "/blog/a/b", false},
		{"/blog/*", "/blog/", true},
		{"/blog/**", "/blog/a/b", true},
		{"/docs/**", "/docs", false},
		{"/a*c", "/abbbc", true},
		{"/a*c", "/ab/c", false},
		{"**", "/x/y", true},
		{"/x", "/X", false},
	} {
		if got := MatchPath(c.pattern, c.path); got != c.want {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func FuzzMatchPath(f *testing.F) {
	for _, s := range [][2]string{{"/blog/*", "/blog/a"}, {"/**", "/a/b"}, {"***", ""}, {"/a*b*c", "/aXbYc"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 200 || len(path) > 200 {
			return
		}
		got := MatchPath(pattern, path)
		if pattern == path && !got {
			t.Errorf("a pattern without wildcards does not match itself: %q", pattern)
		}
		if MatchPath("**", path) != true {
			t.Errorf("** does not match %q", path)
		}
	})
}

func TestSource(t *testing.T) {
	for _, c := range []struct{ ref, utm, want string }{
		{"", "", ""},
		{"https://www.google.com/search?q=x", "", "Google"},
		{"https://www.google.co.uk/", "", "Google"},
		{"https://t.co/abc", "", "Twitter"},
		{"https://news.ycombinator.com/item?id=1", "", "Hacker News"},
		{"https://blog.example.net/p", "", "blog.example.net"},
		{"www.example.org", "", "example.org"},
		{"https://www.google.com/", "newsletter", "newsletter"},
		{"::not a url", "", ""},
		{"https://t.me/channel", "", "Telegram"},
		{"https://mail.google.com/mail/u/0/", "", "Gmail"},
		{"android-app://com.google.android.gm/", "", "Gmail"},
		{"https://outlook.live.com/", "", "Outlook.com"},
		{"https://m.youtube.com/watch", "", "YouTube"},
		{"https://de.search.yahoo.com/", "", "Yahoo!"},
		{"https://search.brave.com/search?q=x", "", "Brave Search"},
		{"https://www.startpage.com/", "", "Startpage"},
		{"https://acme.slack.com/", "", "Slack"},
		{"https://www.threads.net/", "", "Threads"},
	} {
		if got := Source(c.ref, c.utm); got != c.want {
			t.Errorf("Source(%q, %q) = %q, want %q", c.ref, c.utm, got, c.want)
		}
	}
}

func TestSourceOf_ClickIDs(t *testing.T) {
	for _, c := range []struct{ ref, utm, click, want string }{
		{"https://www.google.com/", "", "gclid", "Google Ads"},
		{"", "", "gbraid", "Google Ads"},
		{"", "", "wbraid", "Google Ads"},
		{"https://www.bing.com/", "", "msclkid", "Bing Ads"},
		{"", "", "fbclid", "Facebook"},
		{"", "", "ttclid", "TikTok"},
		{"", "", "li_fat_id", "LinkedIn"},
		{"", "", "twclid", "Twitter"},
		{"https://www.google.com/", "spring", "gclid", "spring"}, // utm_source wins
		{"https://www.google.com/", "", "", "Google"},
		{"https://www.google.com/", "", "other", "Google"},
	} {
		if got := sourceOf(c.ref, c.utm, c.click); got != c.want {
			t.Errorf("sourceOf(%q, %q, %q) = %q, want %q", c.ref, c.utm, c.click, got, c.want)
		}
	}
}

func FuzzSource(f *testing.F) {
	for _, s := range []string{"https://www.google.com/", "t.co", "::", "http://[::1]:80/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		_ = Source(ref, "")
		_ = internalReferrer(ref, []string{"example.com"})
	})
}

func TestCover(t *testing.T) {
	d := func(s string) time.Time {
		t, err := time.Parse("2006-01-02T15", s)
		if err != nil {
			panic(err)
		}
		return t
	}
	got := cover(d("2024-01-30T22"), d("2024-03-02T03"))
	want := []segment{
		{Hour, d("2024-01-30T22"), d("2024-01-31T00")},
		{Day, d("2024-01-31T00"), d("2024-02-01T00")},
		{Month, d("2024-02-01T00"), d("2024-03-01T00")},
		{Day, d("2024-03-01T00"), d("2024-03-02T00")},
		{Hour, d("2024-03-02T00"), d("2024-03-02T03")},
	}
	if len(got) != len(want) {
		t.Fatalf("cover = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].p != want[i].p || !got[i].from.Equal(want[i].from) || !got[i].to.Equal(want[i].to) {
			t.Errorf("cover[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
