package collect

import (
	"bufio"
	_ "embed"
	"strings"

	useragent "github.com/medama-io/go-useragent"

	"github.com/timetable-db/timetable/analytics"
)

// Reasons a hit is dropped, the labels of Stats.Dropped.
const (
	DropBot      = "bot"      // the user-agent parser's bots
	DropHeadless = "headless" // headless browsers and automation tools
	DropNoAgent  = "no_agent" // no user agent at all
	DropBotIP    = "bot_ip"   // a client address in Options.BotRanges
	DropSpam     = "spam"     // a referrer on the spam list
)

// headless are lower-case substrings of the user agents of headless
// browsers, automation tools, HTTP libraries and monitors, looked for
// before the user-agent parser's bot detection (which finds some of them
// too, and many crawlers more).
var headless = []string{
	"headlesschrome", "phantomjs", "puppeteer", "playwright", "lighthouse", "selenium", "webdriver",
	"slimerjs", "htmlunit", "cypress", "python-requests", "python-urllib", "aiohttp",
	"go-http-client", "curl/", "wget/", "okhttp", "axios/", "node-fetch", "undici", "java/", "apache-httpclient",
	"libwww-perl", "scrapy", "httpclient", "guzzlehttp", "postmanruntime", "insomnia", "bot", "crawler",
	"spider", "crawl", "slurp", "preview", "facebookexternalhit", "mediapartners", "adsbot", "chrome-lighthouse",
	"pingdom", "uptimerobot", "statuscake", "gtmetrix", "datadog", "newrelic", "prerender",
}

// agent is what Collect takes from a user agent.
type agent struct {
	browser, os, device string
	drop                string // a Drop reason, "" for a person
}

// parseAgent classifies ua with p and the headless list.
func parseAgent(p *useragent.Parser, ua string) agent {
	if strings.TrimSpace(ua) == "" {
		return agent{drop: DropNoAgent}
	}
	lower := strings.ToLower(ua)
	for _, h := range headless {
		if strings.Contains(lower, h) {
			return agent{drop: DropHeadless}
		}
	}
	a := p.Parse(ua)
	if a.IsBot() {
		return agent{drop: DropBot}
	}
	return agent{browser: analytics.NormalBrowser(string(a.Browser())), os: analytics.NormalOS(string(a.OS())),
		device: analytics.NormalDevice(string(a.Device()))}
}

//go:embed spam.txt
var spamList string

// spamHosts returns the hosts of the embedded spam list and extra, lower
// case, without "www.".
func spamHosts(extra []string) map[string]bool {
	m := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(spamList))
	for sc.Scan() {
		if h, _, _ := strings.Cut(sc.Text(), "#"); strings.TrimSpace(h) != "" {
			m[normHost(h)] = true
		}
	}
	for _, h := range extra {
		if h = normHost(h); h != "" {
			m[h] = true
		}
	}
	return m
}

func normHost(h string) string {
	return strings.TrimPrefix(strings.ToLower(strings.TrimSpace(h)), "www.")
}

// isSpam reports whether host (normalised) or one of its parent domains
// is in spam.
func isSpam(spam map[string]bool, host string) bool {
	for host != "" {
		if spam[host] {
			return true
		}
		i := strings.IndexByte(host, '.')
		if i < 0 {
			return false
		}
		host = host[i+1:]
	}
	return false
}
