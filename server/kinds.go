package server

import (
	"net/http"

	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/httpjson"

	"github.com/timetable-db/timetable/series"
)

// maxSchemaBytes bounds a schema's JSON.
const maxSchemaBytes = 1 << 20

// listKinds answers GET /api/v1/kinds with the kinds the token may read.
func (s *Server) listKinds(w http.ResponseWriter, r *http.Request) error {
	out := struct {
		Kinds []series.Schema `json:"kinds"`
	}{Kinds: []series.Schema{}}
	for _, k := range s.store.Kinds() {
		if s.allow(r.Context(), r, auth.ScopeRead, auth.Kind(k.Name())) == nil {
			out.Kinds = append(out.Kinds, k.Schema())
		}
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// getKind answers GET /api/v1/kinds/{kind}.
func (s *Server) getKind(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, k.Schema())
	return nil
}

// createKind answers POST /api/v1/kinds: 201 with the normalised schema.
func (s *Server) createKind(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.schemaBody(w, r)
	if err != nil {
		return err
	}
	if _, err := s.store.Kind(sc.Name); err == nil {
		return errorf(http.StatusConflict, codeConflict, "kind %s exists (change it with PUT /api/v1/kinds/%s)", sc.Name, sc.Name)
	}
	k, err := s.store.Define(r.Context(), sc)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/kinds/"+k.Name())
	httpjson.Write(w, http.StatusCreated, k.Schema())
	return nil
}

// changeKind answers PUT /api/v1/kinds/{kind}.
func (s *Server) changeKind(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.schemaBody(w, r)
	if err != nil {
		return err
	}
	if name := r.PathValue("kind"); sc.Name == "" {
		sc.Name = name
	} else if sc.Name != name {
		return invalid("the schema's name %q is not the kind of the path, %q", sc.Name, name)
	}
	k, err := s.store.Change(r.Context(), sc)
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, k.Schema())
	return nil
}

func (s *Server) schemaBody(w http.ResponseWriter, r *http.Request) (series.Schema, error) {
	var sc series.Schema
	err := s.decodeJSON(w, r, &sc, maxSchemaBytes, "the schema", false)
	return sc, err
}
