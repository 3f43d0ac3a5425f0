package analytics

import (
	"maps"
	"strings"
)

// Values that name one thing several ways (a source tagged "google",
// "Google" or "www.google.com"; a device "desktop" or "Desktop") are
// counted under one name. Record stores the normal names, and the reads
// of raw hits and of aggregates (Top items included) normalise what was
// stored before, so a breakdown merges "google" and "Google" whenever
// they were recorded. Each normaliser is idempotent: a normal name is its
// own normal name.

// sourceAliases are tags seen in utm_source (and ref, source) for known
// sources, lower case: shorthands, ad-platform spellings. The names of
// knownHosts, knownSources and clickSources, in any case, are their own
// aliases, and so are the keys of knownSources without a dot ("yahoo",
// "x").
var sourceAliases = map[string]string{
	"fb": "Facebook", "fb-ads": "Facebook", "fbads": "Facebook", "facebook-ads": "Facebook", "facebook_ads": "Facebook",
	"ig": "Instagram", "insta": "Instagram",
	"yt": "YouTube", "tw": "Twitter", "twitter-ads": "Twitter", "li": "LinkedIn", "hn": "Hacker News",
	"ycombinator": "Hacker News", "gh": "GitHub", "ddg": "DuckDuckGo", "bluesky": "Bluesky", "bsky.app": "Bluesky",
	"adwords": "Google Ads", "gads": "Google Ads", "googleads": "Google Ads", "google-ads": "Google Ads",
	"google_ads": "Google Ads", "bing-ads": "Bing Ads", "bingads": "Bing Ads", "tiktok-ads": "TikTok",
	"linkedin-ads": "LinkedIn", "reddit-ads": "Reddit",
}

// sourceNames maps each lower-case alias of a known source to its name.
var sourceNames = func() map[string]string {
	m := map[string]string{}
	// Names first: an alias never overrides a name.
	for _, names := range []map[string]string{knownHosts, knownSources, clickSources} {
		for n := range maps.Values(names) {
			m[strings.ToLower(n)] = n
		}
	}
	add := func(alias, name string) {
		if _, ok := m[alias]; !ok {
			m[alias] = name
		}
	}
	for k, n := range knownSources {
		if !strings.Contains(k, ".") {
			add(k, n)
		}
	}
	for k, n := range sourceAliases {
		add(k, n)
	}
	return m
}()

// NormalSource returns the name that the source s is counted under: the
// name of a known source for any of its aliases, in any case ("google",
// "GOOGLE" and "Google" are "Google"; "fb" is "Facebook"); for a host or
// URL, what Source names it as a referrer ("www.google.com" is "Google",
// "Blog.Example.com" is "blog.example.com"); else s without surrounding
// spaces. None, Other and "" are kept.
func NormalSource(s string) string {
	s = strings.TrimSpace(s)
	if n, ok := sourceNames[strings.ToLower(s)]; ok {
		return n
	}
	if strings.Contains(s, "://") || strings.Contains(s, ".") && !strings.ContainsAny(s, " \t") {
		if n := Source(s, ""); n != "" {
			return n
		}
	}
	return s
}

// deviceNames, browserNames and osNames map lower-case spellings of
// devices, browsers and operating systems (the user-agent parser's and
// others') to one name each.
var (
	deviceNames = map[string]string{
		"desktop": "Desktop", "laptop": "Desktop", "mobile": "Mobile", "phone": "Mobile", "smartphone": "Mobile",
		"tablet": "Tablet", "tv": "TV", "console": "Console",
	}
	browserNames = map[string]string{
		"chrome": "Chrome", "chromium": "Chromium", "firefox": "Firefox", "safari": "Safari", "edge": "Edge",
		"microsoft edge": "Edge", "opera": "Opera", "opera mini": "Opera Mini", "samsung browser": "Samsung Internet",
		"samsung internet": "Samsung Internet", "ie": "Internet Explorer", "internet explorer": "Internet Explorer",
		"vivaldi": "Vivaldi", "brave": "Brave", "yandex browser": "Yandex Browser", "android browser": "Android Browser",
		"amazon silk": "Amazon Silk", "huawei browser": "Huawei Browser", "falkon": "Falkon",
		"nintendo browser": "Nintendo Browser", "duckduckgo": "DuckDuckGo",
	}
	osNames = map[string]string{
		"windows": "Windows", "mac": "Mac", "macos": "Mac", "mac os": "Mac", "mac os x": "Mac", "os x": "Mac",
		"linux": "GNU/Linux", "gnu/linux": "GNU/Linux", "chromeos": "Chrome OS", "chrome os": "Chrome OS",
		"ios": "iOS", "ipados": "iPadOS", "android": "Android", "freebsd": "FreeBSD", "openbsd": "OpenBSD",
	}
)

func normalName(names map[string]string, s string) string {
	s = strings.TrimSpace(s)
	if n, ok := names[strings.ToLower(s)]; ok {
		return n
	}
	return s
}

// NormalDevice returns the name the device s is counted under:
// "Desktop", "Mobile", "Tablet", "TV" or "Console" for those in any case
// (and for "laptop", "phone", "smartphone"), else s without surrounding
// spaces.
func NormalDevice(s string) string { return normalName(deviceNames, s) }

// NormalBrowser returns the name the browser s is counted under: one name
// for the spellings of a known browser in any case ("chrome" is "Chrome",
// "Samsung Browser" is "Samsung Internet"), else s without surrounding
// spaces.
func NormalBrowser(s string) string { return normalName(browserNames, s) }

// NormalOS returns the name the operating system s is counted under: one
// name for the spellings of a known system in any case ("macOS" is "Mac",
// "Linux" is "GNU/Linux", "ChromeOS" is "Chrome OS"), else s without
// surrounding spaces.
func NormalOS(s string) string { return normalName(osNames, s) }

// normalizers are the normalisers of the breakdowns whose values have
// one.
var normalizers = map[Dimension]func(string) string{
	DimSource: NormalSource, DimDevice: NormalDevice, DimBrowser: NormalBrowser, DimOS: NormalOS,
}

// normalCounts returns m with the values of breakdown d normalised,
// counts of values that share a normal name summed; m itself when d has
// no normaliser or every value is normal already.
func normalCounts(d Dimension, m map[string]int64) map[string]int64 {
	norm := normalizers[d]
	if norm == nil {
		return m
	}
	normal := true
	for v := range m {
		if norm(v) != v {
			normal = false
			break
		}
	}
	if normal {
		return m
	}
	out := make(map[string]int64, len(m))
	for v, n := range m {
		out[norm(v)] += n
	}
	return out
}

// normalValues reports whether the values of cs, of breakdown d, are
// their own normal names.
func normalValues(d Dimension, cs []Count) bool {
	norm := normalizers[d]
	for _, c := range cs {
		if norm != nil && norm(c.Value) != c.Value {
			return false
		}
	}
	return true
}
