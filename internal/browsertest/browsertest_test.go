package browsertest_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/timetable-db/timetable/internal/browsertest"
)

// TestBrowser: a page on a mapped host name is loaded from 127.0.0.1, its
// script runs with the desktop user agent, and a screenshot is a PNG.
func TestBrowser(t *testing.T) {
	b := browsertest.Start(t, &browsertest.Options{Hosts: []string{"*.test"}})
	var (
		mu       sync.Mutex
		host, ua string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		host, ua = r.Host, r.UserAgent()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><h1 id=h>hello</h1><script>document.getElementById("h").textContent = navigator.userAgent</script>`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	tab := b.Tab(t)
	b.Do(t, tab, "load", chromedp.Navigate("http://page.test:"+port+"/"))
	text := browsertest.Run(t, b, tab, "read", chromedp.Text(chromedp.CSS("#h")))
	mu.Lock()
	defer mu.Unlock()
	if host != "page.test:"+port || ua != browsertest.DesktopUserAgent || text != ua {
		t.Fatalf("host %q, user agent %q, page saw %q", host, ua, text)
	}
	file := b.Screenshot(t, tab, "page")
	png, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %v, not a PNG", file, err)
	}
}
