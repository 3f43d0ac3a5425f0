package collect

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/local"
)

// BenchmarkCollect records hits as the collect endpoint's load does:
// page views with referrers and campaigns, custom events with props and
// engagement events from many visitors with browser user agents, on the
// engine on disk, from parallel callers.
func BenchmarkCollect(b *testing.B) {
	db, err := local.Open(b.TempDir(), &local.Options{CacheSize: 16 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	st, err := analytics.Open(ctx, db, &analytics.Options{AggregateEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	if err := st.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	if err := st.CreateSite(ctx, analytics.Site{ID: "shop", Domains: []string{"shop.example"}}); err != nil {
		b.Fatal(err)
	}
	c := New(st, &Options{RateLimit: -1})
	uas := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		browserUA,
	}
	var payloads [][]byte
	for i := range 20 {
		u := fmt.Sprintf("https://shop.example/products/%d", i)
		if i%5 == 0 {
			u += "?utm_source=newsletter&utm_medium=email&utm_campaign=spring"
		}
		payloads = append(payloads, fmt.Appendf(nil, `{"n":"pageview","v":36,"u":%q,"d":"shop.example","r":"https://www.google.com/"}`, u),
			fmt.Appendf(nil, `{"n":"Add to cart","v":36,"u":%q,"d":"shop.example","r":null,"p":{"sku":"p%d","price":%d}}`, u, i, 10+i),
			fmt.Appendf(nil, `{"n":"engagement","sd":%d,"d":"shop.example","u":%q,"p":{},"e":%d,"v":36}`, i*2, u, 1000+i*37))
	}
	b.ReportAllocs()
	b.SetParallelism(32) // with GOMAXPROCS, the load's 64 connections on 2 cores
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			r := httptest.NewRequest(http.MethodPost, "/api/event", bytes.NewReader(payloads[i%len(payloads)]))
			r.RemoteAddr = fmt.Sprintf("127.0.%d.%d:1234", i>>8&0xff, i&0xff)
			r.Header.Set("User-Agent", uas[i%len(uas)])
			if dropped, err := c.Collect(r); err != nil || dropped != "" {
				b.Fatal(dropped, err)
			}
		}
	})
}
