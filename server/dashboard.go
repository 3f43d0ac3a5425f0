package server

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"sync"

	"github.com/timetable-db/timetable/web"
)

// dashboardCSP is the Content-Security-Policy of the dashboard's pages:
// scripts, styles, images and API calls from this server only, so no
// request leaves the machine whatever the page holds.
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// dashboardSettings is what the app page tells its script, as JSON in
// the page.
type dashboardSettings struct {
	// Auth says the API wants a token: the app asks for one.
	Auth bool `json:"auth"`
	// Share is the site of a shared link's page, "" on the app's.
	Share   string `json:"share,omitempty"`
	Version string `json:"version,omitempty"`
}

var dashboardPage = template.Must(template.ParseFS(web.Dashboard, "dashboard/index.html"))

// dashboardAssets are the dashboard's files but the page template, by
// name, read and gzipped once from the embedded folder.
var dashboardAssets = sync.OnceValues(func() (map[string]*asset, error) {
	dir, err := fs.Sub(web.Dashboard, "dashboard")
	if err != nil {
		return nil, err
	}
	out := map[string]*asset{}
	err = fs.WalkDir(dir, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "index.html" {
			return err
		}
		b, err := fs.ReadFile(dir, name)
		if err == nil {
			out[name], err = newAsset(name, b)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("server: cannot load the dashboard: %w", err)
	}
	return out, nil
})

// index answers GET /: the dashboard when the server runs web analytics,
// the page of what is served where (about) otherwise.
func (s *Server) index(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Analytics == nil {
		return s.about(w, r)
	}
	return s.dashboardPage(w, http.StatusOK, "")
}

// shared answers GET /share/{site}?auth=SLUG: the dashboard of one site,
// read-only, for the holder of a shared link. The page holds no data; the
// API it calls checks the slug on every request. A slug that is not a
// live link of the site gets the same page with status 404, whose script
// says the link is not valid.
func (s *Server) shared(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Analytics == nil {
		return errorf(http.StatusNotFound, codeNotFound, "this server does not run web analytics")
	}
	site := r.PathValue("site")
	ok, err := s.cfg.Analytics.CheckSharedLink(r.Context(), site, r.URL.Query().Get("auth"))
	if err != nil {
		return err
	}
	status := http.StatusOK
	if !ok {
		status = http.StatusNotFound
	}
	return s.dashboardPage(w, status, site)
}

func (s *Server) dashboardPage(w http.ResponseWriter, status int, share string) error {
	var b bytes.Buffer
	err := dashboardPage.Execute(&b, dashboardSettings{
		Auth:    s.cfg.Auth != nil && !s.cfg.Trusted,
		Share:   share,
		Version: s.cfg.Version,
	})
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", dashboardCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err = w.Write(b.Bytes())
	return err
}

// uiAsset answers GET /ui/{file...}: a file of the dashboard, with an
// ETag of its content, gzipped when the client accepts it. max-age=0
// makes browsers revalidate (a 304 for an unchanged file), so a new
// binary's files are used at once.
func (s *Server) uiAsset(w http.ResponseWriter, r *http.Request) error {
	assets, err := dashboardAssets()
	if err != nil {
		return err
	}
	name := r.PathValue("file")
	a, ok := assets[name]
	if !ok || path.Clean(name) != name {
		return errorf(http.StatusNotFound, codeNotFound, "no dashboard file %q", name)
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	a.serve(w, r, 0)
	return nil
}
