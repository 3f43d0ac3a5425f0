package collect

import (
	"bufio"
	_ "embed"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
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
	// DropExcludedIP: the client address is in an excluded range of
	// every site the hit is for (analytics.Site.ExcludedIPs).
	DropExcludedIP = "excluded_ip"
	// DropExcludedPath: the page's path fits an excluded pattern of
	// every site the hit is for (analytics.Site.ExcludedPaths).
	DropExcludedPath = "excluded_path"
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

// agentCacheSize bounds the user agents whose classification is kept, and
// maxCachedAgent the length of one kept: browsers send few distinct user
// agents, so most hits find theirs without parsing.
const (
	agentCacheSize = 4096
	maxCachedAgent = 512
)

// agents classifies user agents (parseAgent), remembering the answers
// for the most recently seen ones. It is safe for concurrent use.
type agents struct {
	p     *useragent.Parser
	cache *lru.Cache[string, agent]
}

func newAgents() *agents {
	c, _ := lru.New[string, agent](agentCacheSize) // size > 0
	return &agents{p: useragent.NewParser(), cache: c}
}

// classify returns parseAgent's answer for ua.
func (a *agents) classify(ua string) agent {
	if ag, ok := a.cache.Get(ua); ok {
		return ag
	}
	ag := parseAgent(a.p, ua)
	if len(ua) <= maxCachedAgent {
		a.cache.Add(ua, ag)
	}
	return ag
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
