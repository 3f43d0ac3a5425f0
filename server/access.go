package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/timetable-db/timetable/auth"
)

// access is who may call a route: anyone (public), or a principal with a
// scope on the resource the request names. Every route states one, and
// authorize checks it through allow before the handler runs.
type access struct {
	public bool
	scope  auth.Scope
	// resource names what the request acts on; nil when the body names
	// it (the handler then calls allow itself, before acting).
	resource func(r *http.Request) auth.Resource
}

// public is the access of a route anyone may call.
var public = access{public: true}

// need is the access of a route that needs scope on the resource of the
// request.
func need(scope auth.Scope, resource func(*http.Request) auth.Resource) access {
	return access{scope: scope, resource: resource}
}

// inBody is the access of a route whose body names the resource: the
// caller is authenticated if it sends a credential, and the handler calls
// allow once it has read the body.
func inBody(scope auth.Scope) access { return access{scope: scope} }

// The resources of the routes.
func kindOfPath(r *http.Request) auth.Resource { return auth.Kind(r.PathValue("kind")) }
func siteOfPath(r *http.Request) auth.Resource { return auth.Site(r.PathValue("site")) }
func someKind(*http.Request) auth.Resource     { return auth.Kind("") }
func someSite(*http.Request) auth.Resource     { return auth.Site("") }
func everything(*http.Request) auth.Resource   { return auth.Everything }

// metricsAccess is the access of GET /metrics: public with
// --metrics-public, else a read of the whole server.
func (s *Server) metricsAccess() access {
	if s.cfg.MetricsPublic {
		return public
	}
	return need(auth.ScopeRead, everything)
}

// principal returns the caller's principal, nil when the request carries
// no credential or the server runs without authentication.
func principal(ctx context.Context) *auth.Principal { return auth.FromContext(ctx) }

// authorize authenticates the request's token, if it carries one,
// applies its rate limit, and checks the route's access with allow. It
// returns the request's context with the principal.
func (s *Server) authorize(r *http.Request, rt route) (context.Context, error) {
	ctx := r.Context()
	if s.open() || rt.access.public {
		return ctx, nil
	}
	if secret, ok := token(r, rt); ok {
		p, err := s.cfg.Auth.Authenticate(ctx, secret)
		if err != nil {
			return ctx, err
		}
		if s.cfg.Limiter != nil {
			if ok, wait := s.cfg.Limiter.Allow(p.ID()); !ok {
				return ctx, &apiError{status: http.StatusTooManyRequests, code: codeRateLimited,
					message: "token " + p.ID() + " is over its rate limit", retryAfter: wait}
			}
		}
		ctx = auth.NewContext(ctx, p)
	}
	if rt.access.resource == nil {
		return ctx, nil
	}
	return ctx, s.allow(ctx, r, rt.access.scope, rt.access.resource(r))
}

// open reports whether the server checks no access: without
// authentication (--no-auth), or trusted (the CLI on a data folder).
func (s *Server) open() bool { return s.cfg.Auth == nil || s.cfg.Trusted }

// allow is the server's one access check: it returns nil if the caller
// of ctx may act with scope need on res, else the error to answer (401
// without a credential, 403 with one that does not allow it). Every route
// asks it, through authorize or, where the body names the resource, from
// its handler.
//
// The caller's principal is its token (authorize authenticated it). A
// request without one may still read a site: with a live shared link of
// the site (?auth= or the X-Timetable-Share header), whose principal
// reads that site only, or when the site is public. The decision itself
// is auth.Principal.Allows, which the DynamoDB endpoint asks too.
func (s *Server) allow(ctx context.Context, r *http.Request, need auth.Scope, res auth.Resource) error {
	if s.open() {
		return nil
	}
	p := principal(ctx)
	if p == nil {
		site := res.SiteName()
		if site == "" || need != auth.ScopeRead || s.cfg.Analytics == nil {
			return errorf(http.StatusUnauthorized, codeUnauth, "a token is needed: Authorization: Bearer <token> (make one with `timetable token create`)")
		}
		slug := shareSlug(r)
		if slug != "" {
			ok, err := s.cfg.Analytics.CheckSharedLink(ctx, site, slug)
			if err != nil {
				return err
			}
			if ok {
				p = auth.SharedLink(site, linkID(slug))
			}
		}
		if p == nil {
			if st, err := s.cfg.Analytics.Site(ctx, site); err == nil && st.Public {
				return nil
			}
			if slug != "" {
				return errorf(http.StatusUnauthorized, codeUnauth, "the shared link is not one of site %s, or was revoked", site)
			}
			return errorf(http.StatusUnauthorized, codeUnauth, "reading site %s needs a token (Authorization: Bearer), a shared link (?auth=) or a public site", site)
		}
	}
	if p.Allows(need, res) {
		return nil
	}
	return errorf(http.StatusForbidden, codeDenied, "%s may not %s %s", p, need, res)
}

// mayMint checks that the caller may make a credential with scopes and
// limits: one that can do nothing the caller cannot.
func mayMint(ctx context.Context, what string, scopes []auth.Scope, l auth.Limits) error {
	p := principal(ctx)
	if p == nil || p.Covers(scopes, l) {
		return nil
	}
	return errorf(http.StatusForbidden, codeDenied, "%s may not make a %s broader than itself", p, what)
}

// linkID returns the id part of a shared link's slug ("<id>_<secret>").
func linkID(slug string) string {
	id, _, _ := strings.Cut(slug, "_")
	return id
}
