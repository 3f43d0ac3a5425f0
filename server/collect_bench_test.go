package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/server"
)

// BenchmarkCollect posts page views to /api/event over HTTP from parallel
// clients, to a server over the engine on disk; the bench module's
// analytics-collect part compares it with a no-op ceiling.
func BenchmarkCollect(b *testing.B) {
	srv := benchCollectServer(b, nil,
		collect.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	hs.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	var n atomic.Int64
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		client := hs.Client()
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Appendf(nil, `{"n":"pageview","u":"https://shop.example/p/%d","d":"shop.example","r":null}`, i%50)
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/event", bytes.NewReader(body))
			req.Header.Set("User-Agent", browserUA)
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("127.1.%d.%d", i>>8&7, i&0xff))
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkCollectHandler is the server's work for a hit without the
// network: the handler called in this goroutine, the engine not syncing.
func BenchmarkCollectHandler(b *testing.B) {
	srv := benchCollectServer(b, &local.Options{NoSync: true}, collect.Options{RateLimit: -1})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := fmt.Appendf(nil, `{"n":"pageview","u":"https://shop.example/p/%d?utm_source=x","d":"shop.example","r":"https://www.google.com/"}`, i%50)
		req := httptest.NewRequest(http.MethodPost, "/api/event", bytes.NewReader(body))
		req.Header.Set("User-Agent", browserUA)
		req.RemoteAddr = fmt.Sprintf("127.1.%d.%d:4000", i>>8&7, i&0xff)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// benchCollectServer returns a server with web analytics over an engine
// on disk opened with lo, and the site "shop" (shop.example).
func benchCollectServer(b *testing.B, lo *local.Options, co collect.Options) *server.Server {
	db, err := local.Open(b.TempDir(), lo)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	a := openAnalytics(b, db, analytics.Site{ID: "shop", Domains: []string{"shop.example"}})
	srv, err := server.New(server.Config{Analytics: a, Collect: co})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}
