package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/timetable-db/timetable/web"
)

// asset is a static file ready to serve: its bytes, gzipped once, and an
// entity tag for each form.
type asset struct {
	name  string // for the Content-Type and ServeContent
	plain []byte
	gz    []byte
	etag  string // quoted; the gzip form's adds "-gz" inside the quotes
}

// newAsset prepares b to be served under name.
func newAsset(name string, b []byte) (*asset, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &asset{name: name, plain: b, gz: buf.Bytes(), etag: base64.RawURLEncoding.EncodeToString(sum[:12])}, nil
}

// trackerAsset is the tracking script of package web, prepared once.
var trackerAsset = sync.OnceValues(func() (*asset, error) {
	b, err := web.Tracker.ReadFile(web.TrackerScript)
	if err == nil {
		var a *asset
		if a, err = newAsset("script.js", b); err == nil {
			return a, nil
		}
	}
	return nil, fmt.Errorf("server: cannot load the tracking script: %w", err)
})

// serve answers a GET or HEAD for the asset: cacheable for an hour and
// then revalidated with its ETag (If-None-Match answers 304), gzipped when
// the client accepts gzip, readable from any origin.
func (a *asset) serve(w http.ResponseWriter, r *http.Request, maxAge time.Duration) {
	h := w.Header()
	h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(maxAge.Seconds())))
	h.Set("Access-Control-Allow-Origin", "*")
	h.Add("Vary", "Accept-Encoding")
	body, etag := a.plain, a.etag
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body, etag = a.gz, a.etag+"-gz"
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", `"`+etag+`"`)
	http.ServeContent(w, r, a.name, time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header value allows gzip
// (named, or "*", without q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		return !(strings.HasPrefix(q, "q=0") && strings.Trim(q[2:], "0.") == "")
	}
	return false
}

// trackerScript answers GET /js/script.js: the tracking script (package
// web), minified.
func (s *Server) trackerScript(w http.ResponseWriter, r *http.Request) error {
	a, err := trackerAsset()
	if err != nil {
		return err
	}
	a.serve(w, r, time.Hour)
	return nil
}
