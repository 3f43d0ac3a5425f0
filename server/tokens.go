package server

import (
	"context"
	"net/http"
	"time"

	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/httpjson"
)

// tokenJSON is a token as the API lists it; Secret only when created.
type tokenJSON struct {
	ID       string       `json:"id"`
	Name     string       `json:"name"`
	Scopes   []auth.Scope `json:"scopes"`
	Kinds    []string     `json:"kinds,omitempty"`
	Sites    []string     `json:"sites,omitempty"`
	Created  string       `json:"created"`
	LastUsed string       `json:"last_used,omitempty"`
	Token    string       `json:"token,omitempty"`
}

func tokenOut(t auth.Token) tokenJSON {
	out := tokenJSON{ID: t.ID, Name: t.Name, Scopes: t.Scopes, Kinds: t.Kinds, Sites: t.Sites, Created: t.Created.UTC().Format(time.RFC3339)}
	if !t.LastUsed.IsZero() {
		out.LastUsed = t.LastUsed.UTC().Format(time.RFC3339)
	}
	return out
}

func (s *Server) tokens() (*auth.Store, error) {
	if s.cfg.Auth == nil {
		return nil, errorf(http.StatusNotFound, codeNotFound, "the server runs without authentication (--no-auth): it keeps no tokens")
	}
	return s.cfg.Auth, nil
}

// listTokens answers GET /api/v1/tokens.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	return listCredentials(s, w, r, "tokens", (*auth.Store).Tokens, tokenOut)
}

// tokenRequest is the body of POST /api/v1/tokens.
type tokenRequest struct {
	Name   string       `json:"name"`
	Scopes []auth.Scope `json:"scopes"`
	Kinds  []string     `json:"kinds"`
	Sites  []string     `json:"sites"`
}

func (in *tokenRequest) scopes() []auth.Scope { return in.Scopes }
func (in *tokenRequest) limits() auth.Limits {
	return auth.Limits{Kinds: in.Kinds, Sites: in.Sites}
}

// createToken answers POST /api/v1/tokens: 201 with the secret, shown once.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	var in tokenRequest
	a, err := s.readMint(w, r, &in, "token")
	if err != nil {
		return err
	}
	secret, t, err := a.CreateTokenForSites(r.Context(), in.Name, in.Scopes, in.Kinds, in.Sites)
	if err != nil {
		return err
	}
	out := tokenOut(t)
	out.Token = secret
	httpjson.Write(w, http.StatusCreated, out)
	return nil
}

// revokeToken answers DELETE /api/v1/tokens/{id}.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	return s.revokeCredential(w, r, (*auth.Store).RevokeToken)
}

// accessKeyJSON is a DynamoDB access key as the API lists it; Secret only
// when created. A key made before keys had scopes lists ["admin"], what it
// may do.
type accessKeyJSON struct {
	ID      string       `json:"id"`
	Name    string       `json:"name"`
	Scopes  []auth.Scope `json:"scopes"`
	Tables  []string     `json:"tables,omitempty"`
	Created string       `json:"created"`
	Secret  string       `json:"secret,omitempty"`
}

func accessKeyOut(k auth.AccessKey) accessKeyJSON {
	out := accessKeyJSON{ID: k.ID, Name: k.Name, Scopes: k.Scopes, Tables: k.Tables, Created: k.Created.UTC().Format(time.RFC3339), Secret: k.Secret}
	if len(out.Scopes) == 0 {
		out.Scopes = []auth.Scope{auth.ScopeAdmin}
	}
	return out
}

// listAccessKeys answers GET /api/v1/access-keys.
func (s *Server) listAccessKeys(w http.ResponseWriter, r *http.Request) error {
	return listCredentials(s, w, r, "access_keys", (*auth.Store).AccessKeys, accessKeyOut)
}

// accessKeyRequest is the body of POST /api/v1/access-keys.
type accessKeyRequest struct {
	Name   string       `json:"name"`
	Scopes []auth.Scope `json:"scopes"`
	Tables []string     `json:"tables"`
}

func (in *accessKeyRequest) scopes() []auth.Scope { return in.Scopes }
func (in *accessKeyRequest) limits() auth.Limits  { return auth.Limits{Tables: in.Tables} }

// createAccessKey answers POST /api/v1/access-keys: 201 with the secret,
// shown once.
func (s *Server) createAccessKey(w http.ResponseWriter, r *http.Request) error {
	var in accessKeyRequest
	a, err := s.readMint(w, r, &in, "access key")
	if err != nil {
		return err
	}
	k, err := a.CreateAccessKey(r.Context(), in.Name, in.Scopes, in.Tables)
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusCreated, accessKeyOut(k))
	return nil
}

// revokeAccessKey answers DELETE /api/v1/access-keys/{id}.
func (s *Server) revokeAccessKey(w http.ResponseWriter, r *http.Request) error {
	return s.revokeCredential(w, r, (*auth.Store).RevokeAccessKey)
}

// listCredentials answers 200 with {key: [...]}, each credential list
// returns put through out; 404 when the server keeps no credentials.
func listCredentials[C, J any](s *Server, w http.ResponseWriter, r *http.Request, key string,
	list func(*auth.Store, context.Context) ([]C, error), out func(C) J) error {
	a, err := s.tokens()
	if err != nil {
		return err
	}
	cs, err := list(a, r.Context())
	if err != nil {
		return err
	}
	js := make([]J, len(cs))
	for i, c := range cs {
		js[i] = out(c)
	}
	httpjson.Write(w, http.StatusOK, map[string][]J{key: js})
	return nil
}

// mintRequest is the body of a request that makes a credential: the
// scopes it asks for and the limits it is held to.
type mintRequest interface {
	scopes() []auth.Scope
	limits() auth.Limits
}

// readMint decodes the body of a request to make a credential (what names
// it in errors) into in, and checks that it names a scope and that the
// caller may make it; it returns the server's credential store, or 404
// when the server keeps none.
func (s *Server) readMint(w http.ResponseWriter, r *http.Request, in mintRequest, what string) (*auth.Store, error) {
	a, err := s.tokens()
	if err != nil {
		return nil, err
	}
	if err := s.decodeJSON(w, r, in, 64<<10, "the "+what+" request", false); err != nil {
		return nil, err
	}
	if len(in.scopes()) == 0 {
		return nil, invalid("scopes: name at least one of read, write, admin")
	}
	if err := mayMint(r.Context(), what, in.scopes(), in.limits()); err != nil {
		return nil, err
	}
	return a, nil
}

// revokeCredential answers 204 once revoke has taken back the credential
// named by the path's {id}; 404 when the server keeps no credentials.
func (s *Server) revokeCredential(w http.ResponseWriter, r *http.Request, revoke func(*auth.Store, context.Context, string) error) error {
	a, err := s.tokens()
	if err != nil {
		return err
	}
	if err := revoke(a, r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
