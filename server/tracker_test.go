package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/web"
)

// maxTrackerGzip is the bound on the tracking script's size as sent
// gzipped (issue 11: at most 2 KB).
const maxTrackerGzip = 2048

func TestTrackerScript(t *testing.T) {
	e := newEnv(t, envOptions{auth: true}) // public: no token needed
	want, err := web.Tracker.ReadFile(web.TrackerScript)
	if err != nil {
		t.Fatal(err)
	}

	plain := e.do("GET", "/js/script.js", "", nil, "Accept-Encoding", "identity").must(t, 200)
	if !bytes.Equal(plain.body, want) {
		t.Fatalf("plain body is not %s", web.TrackerScript)
	}
	if ct := plain.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := plain.header.Get("Cache-Control"); !strings.Contains(cc, "max-age=") || !strings.Contains(cc, "public") {
		t.Errorf("Cache-Control %q", cc)
	}
	if plain.header.Get("Content-Encoding") != "" {
		t.Errorf("Content-Encoding %q without Accept-Encoding gzip", plain.header.Get("Content-Encoding"))
	}

	gz := e.do("GET", "/js/script.js", "", nil, "Accept-Encoding", "br, gzip;q=0.8").must(t, 200)
	if gz.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", gz.header.Get("Content-Encoding"))
	}
	t.Logf("tracking script: %d bytes, %d gzipped", len(plain.body), len(gz.body))
	if len(gz.body) > maxTrackerGzip {
		t.Errorf("the script is %d bytes gzipped, over %d", len(gz.body), maxTrackerGzip)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inflated, want) {
		t.Fatalf("gzip body inflates to %d bytes (err %v), want the script", len(inflated), err)
	}

	// Each form has its own ETag, and a revalidation answers 304.
	etag, gzTag := plain.header.Get("ETag"), gz.header.Get("ETag")
	if etag == "" || gzTag == "" || etag == gzTag {
		t.Fatalf("ETags %q and %q", etag, gzTag)
	}
	e.do("GET", "/js/script.js", "", nil, "Accept-Encoding", "identity", "If-None-Match", etag).must(t, 304)
	e.do("GET", "/js/script.js", "", nil, "Accept-Encoding", "gzip", "If-None-Match", gzTag).must(t, 304)
	e.do("GET", "/js/script.js", "", nil, "Accept-Encoding", "identity", "If-None-Match", gzTag).must(t, 200)

	// gzip refused with q=0 is not sent.
	if a := e.do("GET", "/js/script.js", "", nil, "Accept-Encoding", "gzip;q=0").must(t, 200); a.header.Get("Content-Encoding") != "" {
		t.Errorf("gzip sent although refused with q=0")
	}
}
