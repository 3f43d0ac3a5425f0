package collect

import (
	"strings"
	"testing"

	useragent "github.com/medama-io/go-useragent"
)

func TestParseAgent(t *testing.T) {
	p := useragent.NewParser()
	cached := newAgents()
	for _, c := range []struct {
		ua   string
		want agent
	}{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", agent{browser: "Chrome", os: "Windows", device: "Desktop"}},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", agent{browser: "Safari", os: "iOS", device: "Mobile"}},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", agent{browser: "Firefox", os: "GNU/Linux", device: "Desktop"}},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", agent{drop: DropHeadless}}, // "bot"
		{"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0)", agent{drop: DropBot}},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", agent{drop: DropHeadless}},
		{"Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse", agent{drop: DropHeadless}},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1", agent{drop: DropHeadless}},
		{"curl/8.5.0", agent{drop: DropHeadless}},
		{"python-requests/2.32.3", agent{drop: DropHeadless}},
		{"Go-http-client/1.1", agent{drop: DropHeadless}},
		{"", agent{drop: DropNoAgent}},
		{"   ", agent{drop: DropNoAgent}},
	} {
		if got := parseAgent(p, c.ua); got != c.want {
			t.Errorf("parseAgent(%q) = %+v, want %+v", c.ua, got, c.want)
		}
		// The second classify answers from the cache.
		for range 2 {
			if got := cached.classify(c.ua); got != c.want {
				t.Errorf("classify(%q) = %+v, want %+v", c.ua, got, c.want)
			}
		}
	}
}

func TestAgents_LongAgentNotKept(t *testing.T) {
	a := newAgents()
	long := "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 " + strings.Repeat("x", maxCachedAgent)
	if got := a.classify(long); got.browser != "Firefox" {
		t.Errorf("classify(long) = %+v, want Firefox", got)
	}
	if a.cache.Len() != 0 {
		t.Errorf("a user agent over %d bytes is kept", maxCachedAgent)
	}
}

func TestIsSpam(t *testing.T) {
	spam := spamHosts([]string{" WWW.Spam.Example ", ""})
	for host, want := range map[string]bool{
		"semalt.com": true, "sub.semalt.com": true, "spam.example": true, "a.b.spam.example": true,
		"notsemalt.com": false, "google.com": false, "com": false, "": false,
	} {
		if got := isSpam(spam, host); got != want {
			t.Errorf("isSpam(%q) = %v, want %v", host, got, want)
		}
	}
	if len(spam) < 30 {
		t.Errorf("the embedded list has %d hosts", len(spam))
	}
}
