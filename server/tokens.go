package server

import (
	"net/http"
	"time"

	"github.com/timetable-db/timetable/auth"
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
	a, err := s.tokens()
	if err != nil {
		return err
	}
	ts, err := a.Tokens(r.Context())
	if err != nil {
		return err
	}
	out := struct {
		Tokens []tokenJSON `json:"tokens"`
	}{Tokens: make([]tokenJSON, len(ts))}
	for i, t := range ts {
		out.Tokens[i] = tokenOut(t)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// createToken answers POST /api/v1/tokens: 201 with the secret, shown once.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	a, err := s.tokens()
	if err != nil {
		return err
	}
	var in struct {
		Name   string       `json:"name"`
		Scopes []auth.Scope `json:"scopes"`
		Kinds  []string     `json:"kinds"`
		Sites  []string     `json:"sites"`
	}
	if err := s.decodeJSON(w, r, &in, 64<<10, "the token request", false); err != nil {
		return err
	}
	if len(in.Scopes) == 0 {
		return invalid("scopes: name at least one of read, write, admin")
	}
	if err := mayMint(r.Context(), "token", in.Scopes, auth.Limits{Kinds: in.Kinds, Sites: in.Sites}); err != nil {
		return err
	}
	secret, t, err := a.CreateTokenForSites(r.Context(), in.Name, in.Scopes, in.Kinds, in.Sites)
	if err != nil {
		return err
	}
	out := tokenOut(t)
	out.Token = secret
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// revokeToken answers DELETE /api/v1/tokens/{id}.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	a, err := s.tokens()
	if err != nil {
		return err
	}
	if err := a.RevokeToken(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
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
	a, err := s.tokens()
	if err != nil {
		return err
	}
	ks, err := a.AccessKeys(r.Context())
	if err != nil {
		return err
	}
	out := struct {
		AccessKeys []accessKeyJSON `json:"access_keys"`
	}{AccessKeys: make([]accessKeyJSON, len(ks))}
	for i, k := range ks {
		out.AccessKeys[i] = accessKeyOut(k)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// createAccessKey answers POST /api/v1/access-keys: 201 with the secret,
// shown once.
func (s *Server) createAccessKey(w http.ResponseWriter, r *http.Request) error {
	a, err := s.tokens()
	if err != nil {
		return err
	}
	var in struct {
		Name   string       `json:"name"`
		Scopes []auth.Scope `json:"scopes"`
		Tables []string     `json:"tables"`
	}
	if err := s.decodeJSON(w, r, &in, 64<<10, "the access key request", false); err != nil {
		return err
	}
	if len(in.Scopes) == 0 {
		return invalid("scopes: name at least one of read, write, admin")
	}
	if err := mayMint(r.Context(), "access key", in.Scopes, auth.Limits{Tables: in.Tables}); err != nil {
		return err
	}
	k, err := a.CreateAccessKey(r.Context(), in.Name, in.Scopes, in.Tables)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, accessKeyOut(k))
	return nil
}

// revokeAccessKey answers DELETE /api/v1/access-keys/{id}.
func (s *Server) revokeAccessKey(w http.ResponseWriter, r *http.Request) error {
	a, err := s.tokens()
	if err != nil {
		return err
	}
	if err := a.RevokeAccessKey(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
