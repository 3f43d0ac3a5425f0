package server

import "strings"

// Routes lists the method and path of every route, as OpenAPI writes them
// ("GET /api/v1/kinds/{kind}", a wildcard "{file...}" as "{file}"), for
// the test that keeps /openapi.json in step with the routes.
func Routes() []string {
	var out []string
	for _, rt := range (&Server{cfg: Config{MetricsPublic: true}}).routes() {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok {
			continue // the catch-all
		}
		path = strings.ReplaceAll(strings.TrimSuffix(path, "{$}"), "...}", "}")
		out = append(out, method+" "+path)
	}
	return out
}

// RoutePatterns lists the pattern of every route, the catch-all included,
// for the access matrix test.
func RoutePatterns() []string {
	var out []string
	for _, rt := range (&Server{}).routes() {
		out = append(out, rt.pattern)
	}
	return out
}
