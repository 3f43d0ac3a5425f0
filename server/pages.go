package server

import (
	_ "embed"
	"html/template"
	"net/http"
	"strings"

	"github.com/timetable-db/timetable/internal/httpjson"
)

// healthz answers GET /healthz: the process is up.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	httpjson.Write(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz answers GET /readyz: 200 when the server takes reads and writes,
// 503 with the reason otherwise (shutting down, table missing, disk full,
// storage failed).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if err := s.ready(); err != nil {
		ae := classify(err)
		if ae == nil {
			s.log.Error("not ready", "err", err)
			ae = &apiError{message: "not ready (logged by the server)"}
		}
		return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, message: ae.message, retryAfter: ae.retryAfter}
	}
	httpjson.Write(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

//go:embed openapi.json
var openapiDoc []byte

// openapi answers GET /openapi.json.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(openapiDoc)
	return err
}

// serveMetrics answers GET /metrics in Prometheus' text format.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) error {
	s.gather.ServeHTTP(w, r)
	return nil
}

// otherMethods are tried to tell a 405 from a 404.
var otherMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete}

// notFound answers every request no route took: 405 with Allow when the
// path has routes for other methods, 404 otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range otherMethods {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return errorf(http.StatusMethodNotAllowed, codeMethod, "%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allow, ", "))
	}
	return errorf(http.StatusNotFound, codeNotFound, "no route for %s %s (the routes are in /openapi.json)", r.Method, r.URL.Path)
}

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>timetable</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:0 .25rem;border-radius:3px}td{padding:.2rem .8rem .2rem 0;vertical-align:top}</style></head>
<body><h1>timetable</h1>
<p>A time-series store on DynamoDB's single-table patterns{{if .Version}}, version {{.Version}}{{end}}. This address serves:</p>
<table>
<tr><td><code>/api/v1/</code></td><td>the series API (JSON): kinds, readings, latest, ranges, aggregates{{if .Auth}}; send <code>Authorization: Bearer &lt;token&gt;</code>{{end}}</td></tr>
<tr><td><code>POST /write</code>, <code>POST /api/v2/write</code></td><td>InfluxDB line protocol (v1 and v2 clients)</td></tr>
{{if .DynamoDB}}<tr><td><code>POST /</code></td><td>DynamoDB's API (AWS SDKs and CLI: use this address as the endpoint URL)</td></tr>{{end}}
<tr><td><code>/openapi.json</code></td><td>the OpenAPI 3.1 description of the routes</td></tr>
<tr><td><code>/metrics</code></td><td>Prometheus metrics</td></tr>
<tr><td><code>/healthz</code>, <code>/readyz</code></td><td>liveness and readiness</td></tr>
</table>
{{if not .Auth}}<p>Kinds: {{range $i, $k := .Kinds}}{{if $i}}, {{end}}<code>{{$k}}</code>{{else}}none yet (<code>timetable kinds create</code>){{end}}</p>{{end}}
</body></html>
`))

// about answers GET /about (and GET / when the server runs no web
// analytics) with a page that says what is served where.
func (s *Server) about(w http.ResponseWriter, r *http.Request) error {
	// The page needs no token, so it names the kinds only when the API
	// needs none either.
	var kinds []string
	if s.cfg.Auth == nil || s.cfg.Trusted {
		for _, k := range s.store.Kinds() {
			kinds = append(kinds, k.Name())
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return indexPage.Execute(w, struct {
		Version        string
		Auth, DynamoDB bool
		Kinds          []string
	}{s.cfg.Version, s.cfg.Auth != nil, s.cfg.DynamoDB != nil, kinds})
}
