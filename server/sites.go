package server

import (
	"context"
	"net/http"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/httpjson"
)

// maxSiteBytes bounds the JSON of a site, goal, funnel or shared link.
const maxSiteBytes = 64 << 10

// siteJSON is a site as the API shows and takes it.
type siteJSON struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Domains   []string `json:"domains"`
	TimeZone  string   `json:"time_zone,omitempty"`
	Public    bool     `json:"public"`
	CreatedAt string   `json:"created_at,omitempty"`
	UpdatedAt string   `json:"updated_at,omitempty"`
}

// siteOutJSON is a site as the API answers it: with whether the caller
// may manage it.
type siteOutJSON struct {
	siteJSON
	// CanManage says the caller may change the site and its goals,
	// funnels and shared links (admin of the site), so that a client
	// offers those controls to it only.
	CanManage bool `json:"can_manage"`
}

// siteOut returns st as the caller of r sees it.
func (s *Server) siteOut(r *http.Request, st *analytics.Site) siteOutJSON {
	out := siteJSON{ID: st.ID, Name: st.Name, Domains: st.Domains, TimeZone: st.TimeZone, Public: st.Public,
		CreatedAt: st.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: st.UpdatedAt.UTC().Format(time.RFC3339)}
	if out.Domains == nil {
		out.Domains = []string{}
	}
	return siteOutJSON{siteJSON: out, CanManage: s.allow(r.Context(), r, auth.ScopeAdmin, auth.Site(st.ID)) == nil}
}

type goalJSON struct {
	ID    string             `json:"id"`
	Name  string             `json:"name"`
	Kind  analytics.GoalKind `json:"kind"`
	Match string             `json:"match"`
}

type funnelJSON struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Steps []string `json:"steps"`
}

type sharedLinkJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	// Slug and URL only when created.
	Slug string `json:"slug,omitempty"`
	URL  string `json:"url,omitempty"`
}

// shareHeader carries a shared link's slug, as ?auth= does.
const shareHeader = "X-Timetable-Share"

// analytics returns the web analytics store, or a 404 without one.
func (s *Server) analytics() (*analytics.Store, error) {
	if s.cfg.Analytics == nil {
		return nil, errorf(http.StatusNotFound, codeNotFound, "this server keeps no web analytics")
	}
	return s.cfg.Analytics, nil
}

func shareSlug(r *http.Request) string {
	if v := r.URL.Query().Get("auth"); v != "" {
		return v
	}
	return r.Header.Get(shareHeader)
}

// pathSite returns the store and the site of the path. The route has
// checked the caller's access to the site (allow).
func (s *Server) pathSite(r *http.Request) (*analytics.Store, string, error) {
	a, err := s.analytics()
	if err != nil {
		return nil, "", err
	}
	return a, r.PathValue("site"), nil
}

// existingSite returns the store and the settings of the site of the
// path, which must exist. The route has checked the caller's access to
// the site (allow).
func (s *Server) existingSite(r *http.Request) (*analytics.Store, *analytics.Site, error) {
	a, site, err := s.pathSite(r)
	if err != nil {
		return nil, nil, err
	}
	st, err := a.Site(r.Context(), site)
	if err != nil {
		return nil, nil, err
	}
	return a, st, nil
}

// listSites answers GET /api/v1/sites with the sites the token may read,
// and whether it may create sites.
func (s *Server) listSites(w http.ResponseWriter, r *http.Request) error {
	a, err := s.analytics()
	if err != nil {
		return err
	}
	sites, err := a.Sites(r.Context())
	if err != nil {
		return err
	}
	out := struct {
		Sites     []siteOutJSON `json:"sites"`
		CanCreate bool          `json:"can_create"`
	}{Sites: []siteOutJSON{}, CanCreate: s.allow(r.Context(), r, auth.ScopeAdmin, auth.Everything) == nil}
	for i := range sites {
		if s.allow(r.Context(), r, auth.ScopeRead, auth.Site(sites[i].ID)) == nil {
			out.Sites = append(out.Sites, s.siteOut(r, &sites[i]))
		}
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

func (s *Server) siteBody(w http.ResponseWriter, r *http.Request) (analytics.Site, error) {
	var in siteJSON
	if err := s.decodeJSON(w, r, &in, maxSiteBytes, "the site", false); err != nil {
		return analytics.Site{}, err
	}
	if in.CreatedAt != "" || in.UpdatedAt != "" {
		return analytics.Site{}, invalid("the site: created_at and updated_at are set by the server")
	}
	return analytics.Site{ID: in.ID, Name: in.Name, Domains: in.Domains, TimeZone: in.TimeZone, Public: in.Public}, nil
}

// createSite answers POST /api/v1/sites: 201 with the site.
func (s *Server) createSite(w http.ResponseWriter, r *http.Request) error {
	a, err := s.analytics()
	if err != nil {
		return err
	}
	st, err := s.siteBody(w, r)
	if err != nil {
		return err
	}
	if err := a.CreateSite(r.Context(), st); err != nil {
		return err
	}
	return s.writeSite(w, r, a, st.ID, http.StatusCreated)
}

func (s *Server) writeSite(w http.ResponseWriter, r *http.Request, a *analytics.Store, id string, status int) error {
	st, err := a.Site(r.Context(), id)
	if err != nil {
		return err
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", "/api/v1/sites/"+id)
	}
	httpjson.Write(w, status, s.siteOut(r, st))
	return nil
}

// getSite answers GET /api/v1/sites/{site}.
func (s *Server) getSite(w http.ResponseWriter, r *http.Request) error {
	a, site, err := s.pathSite(r)
	if err != nil {
		return err
	}
	return s.writeSite(w, r, a, site, http.StatusOK)
}

// updateSite answers PUT /api/v1/sites/{site}: the settings replaced.
func (s *Server) updateSite(w http.ResponseWriter, r *http.Request) error {
	a, site, err := s.pathSite(r)
	if err != nil {
		return err
	}
	st, err := s.siteBody(w, r)
	if err != nil {
		return err
	}
	if st.ID == "" {
		st.ID = site
	} else if st.ID != site {
		return invalid("the site's id %q is not the site of the path, %q", st.ID, site)
	}
	if err := a.UpdateSite(r.Context(), st); err != nil {
		return err
	}
	return s.writeSite(w, r, a, site, http.StatusOK)
}

// listSharedLinks answers GET /api/v1/sites/{site}/shared-links.
func (s *Server) listSharedLinks(w http.ResponseWriter, r *http.Request) error {
	return listOf(s, "shared_links", (*analytics.Store).SharedLinks, func(l analytics.SharedLink) sharedLinkJSON {
		return sharedLinkJSON{ID: l.ID, Name: l.Name, CreatedAt: l.CreatedAt.UTC().Format(time.RFC3339)}
	})(w, r)
}

// createSharedLink answers POST /api/v1/sites/{site}/shared-links: 201
// with the slug, shown once.
func (s *Server) createSharedLink(w http.ResponseWriter, r *http.Request) error {
	a, site, err := s.pathSite(r)
	if err != nil {
		return err
	}
	if err := mayMint(r.Context(), "shared link", []auth.Scope{auth.ScopeRead}, auth.Limits{Sites: []string{site}}); err != nil {
		return err
	}
	var in struct {
		Name string `json:"name"`
	}
	if err := s.decodeJSON(w, r, &in, maxSiteBytes, "the shared link", true); err != nil {
		return err
	}
	slug, l, err := a.CreateSharedLink(r.Context(), site, in.Name)
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusCreated, sharedLinkJSON{ID: l.ID, Name: l.Name, CreatedAt: l.CreatedAt.UTC().Format(time.RFC3339),
		Slug: slug, URL: "/share/" + site + "?auth=" + slug})
	return nil
}

// putOf returns the handler of POST /api/v1/sites/{site}/... (admin of
// the site) that decodes a J (what names it in errors), converts it and
// creates or replaces it with put: 201 with what was sent.
func putOf[J, T any](s *Server, what string, put func(a *analytics.Store, ctx context.Context, site string, x T) error, conv func(J) T) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, site, err := s.pathSite(r)
		if err != nil {
			return err
		}
		var in J
		if err := s.decodeJSON(w, r, &in, maxSiteBytes, what, false); err != nil {
			return err
		}
		if err := put(a, r.Context(), site, conv(in)); err != nil {
			return err
		}
		httpjson.Write(w, http.StatusCreated, in)
		return nil
	}
}

// deleteOf returns the handler of DELETE /api/v1/sites/{site}/.../{id}
// (admin of the site) that deletes with del.
func (s *Server) deleteOf(del func(a *analytics.Store, ctx context.Context, site, id string) error) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, site, err := s.pathSite(r)
		if err != nil {
			return err
		}
		if err := del(a, r.Context(), site, r.PathValue("id")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// listOf returns the handler of GET /api/v1/sites/{site}/... (read
// access to the site) that answers {name: [...]} with the items list
// returns, each made JSON by out.
func listOf[T, J any](s *Server, name string, list func(a *analytics.Store, ctx context.Context, site string) ([]T, error), out func(T) J) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, st, err := s.existingSite(r)
		if err != nil {
			return err
		}
		xs, err := list(a, r.Context(), st.ID)
		if err != nil {
			return err
		}
		js := make([]J, 0, len(xs))
		for _, x := range xs {
			js = append(js, out(x))
		}
		httpjson.Write(w, http.StatusOK, map[string][]J{name: js})
		return nil
	}
}

// The handlers of the site routes made by listOf, putOf and deleteOf.

func (s *Server) deleteSite() handler {
	return s.deleteOf(func(a *analytics.Store, ctx context.Context, site, _ string) error { return a.DeleteSite(ctx, site) })
}

func (s *Server) listGoals() handler {
	return listOf(s, "goals", (*analytics.Store).Goals, func(g analytics.Goal) goalJSON { return goalJSON(g) })
}

func (s *Server) putGoal() handler {
	return putOf(s, "the goal", (*analytics.Store).PutGoal, func(g goalJSON) analytics.Goal { return analytics.Goal(g) })
}

func (s *Server) listFunnels() handler {
	return listOf(s, "funnels", (*analytics.Store).Funnels, func(f analytics.Funnel) funnelJSON { return funnelJSON(f) })
}

func (s *Server) putFunnel() handler {
	return putOf(s, "the funnel", (*analytics.Store).PutFunnel, func(f funnelJSON) analytics.Funnel { return analytics.Funnel(f) })
}

// handler is the type of a route's handler.
type handler = func(http.ResponseWriter, *http.Request) error
