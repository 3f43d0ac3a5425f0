package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/table"
)

// browserUA is a desktop Firefox's user agent.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// collectEnv is a server with web analytics on and a site "shop" with the
// domain shop.example.
type collectEnv struct {
	*env
	analytics *analytics.Store
}

func newCollectEnv(t *testing.T, o collect.Options, more ...func(*server.Config)) *collectEnv {
	t.Helper()
	ce := &collectEnv{}
	ce.env = newEnv(t, envOptions{config: func(c *server.Config) {
		a, err := analytics.Open(context.Background(), ce.dbOf(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.EnsureTable(context.Background()); err != nil {
			t.Fatal(err)
		}
		ce.analytics = a
		c.Analytics = a
		c.Collect = o
		for _, f := range more {
			f(c)
		}
	}})
	if err := ce.analytics.CreateSite(context.Background(), analytics.Site{ID: "shop", Domains: []string{"shop.example"}}); err != nil {
		t.Fatal(err)
	}
	return ce
}

// dbOf returns the engine under the series store the config serves.
func (ce *collectEnv) dbOf(c *server.Config) timetable.API { return c.Store.Table().API() }

// hit posts a payload to /api/event as Plausible's tracker does, from a
// browser, with more headers as name, value pairs.
func (e *env) hit(payload string, header ...string) answer {
	e.t.Helper()
	return e.do(http.MethodPost, "/api/event", "text/plain", strings.NewReader(payload), append([]string{"User-Agent", browserUA}, header...)...)
}

// stored is a hit as the analytics table holds it.
type stored struct {
	SK           string            `dynamodbav:"sk"`
	VisitorID    string            `dynamodbav:"visitorId"`
	Path         string            `dynamodbav:"path"`
	Name         string            `dynamodbav:"name"`
	Source       string            `dynamodbav:"source"`
	Referrer     string            `dynamodbav:"referrer"`
	Country      string            `dynamodbav:"country"`
	Browser      string            `dynamodbav:"browser"`
	OS           string            `dynamodbav:"os"`
	Device       string            `dynamodbav:"device"`
	Interactive  *bool             `dynamodbav:"interactive"`
	UTM          map[string]string `dynamodbav:"utm"`
	Props        map[string]string `dynamodbav:"props"`
	EngagementMs int64             `dynamodbav:"engagementMs"`
	ScrollDepth  int               `dynamodbav:"scrollDepth"`
}

// hits returns the page views and events of site, page views first, each
// in time order.
func (ce *collectEnv) hits(site string) []stored {
	ce.t.Helper()
	var out []stored
	for _, prefix := range []string{"PV#", "EVENT#"} {
		q := &table.Query{Hash: "SITE#" + site, Range: table.BeginsWith(prefix), Consistent: true}
		for it, err := range ce.analytics.Table().QueryAll(context.Background(), q) {
			if err != nil {
				ce.t.Fatal(err)
			}
			var h stored
			if err := attributevalue.UnmarshalMap(it, &h); err != nil {
				ce.t.Fatal(err)
			}
			out = append(out, h)
		}
	}
	return out
}

func TestCollect_PageViewThenEvent(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	a := ce.hit(`{"n":"pageview","v":36,"u":"https://shop.example/shoes?utm_source=newsletter&utm_medium=email&utm_campaign=spring","d":"shop.example","r":"https://www.google.com/search?q=shoes"}`)
	a.must(t, http.StatusAccepted)
	if string(a.body) != "ok" || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("answer %q, CORS %q", a.body, a.header.Get("Access-Control-Allow-Origin"))
	}
	ce.hit(`{"n":"Signup","u":"https://shop.example/shoes","d":"shop.example","r":null,"p":{"plan":"pro","seats":3,"trial":true,"none":null}}`).must(t, http.StatusAccepted)

	hs := ce.hits("shop")
	if len(hs) != 2 {
		t.Fatalf("%d hits stored, want 2: %+v", len(hs), hs)
	}
	pv, ev := hs[0], hs[1]
	if pv.Path != "/shoes" || pv.Source != "newsletter" || pv.UTM["medium"] != "email" || pv.UTM["campaign"] != "spring" ||
		pv.Referrer != "https://www.google.com/search" || pv.Browser != "Firefox" || pv.OS != "Linux" || pv.Device != "desktop" {
		t.Errorf("page view stored as %+v", pv)
	}
	if ev.Name != "Signup" || ev.Path != "/shoes" || ev.Interactive == nil || !*ev.Interactive {
		t.Errorf("event stored as %+v", ev)
	}
	if want := map[string]string{"plan": "pro", "seats": "3", "trial": "true"}; !mapsEqual(ev.Props, want) {
		t.Errorf("props %v, want %v", ev.Props, want)
	}
	if pv.VisitorID == "" || pv.VisitorID != ev.VisitorID {
		t.Errorf("visitor ids %q and %q: want one", pv.VisitorID, ev.VisitorID)
	}
	if strings.Contains(pv.VisitorID, "127.0.0.1") {
		t.Errorf("the visitor id holds the address: %q", pv.VisitorID)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
