package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
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
	ctx := context.Background()
	db, err := local.Open(b.TempDir(), &local.Options{NoSync: os.Getenv("NOSYNC") != ""})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	a, err := analytics.Open(ctx, db, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := a.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	if err := a.CreateSite(ctx, analytics.Site{ID: "shop", Domains: []string{"shop.example"}}); err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Analytics: a, Collect: collect.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}})
	if err != nil {
		b.Fatal(err)
	}
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
