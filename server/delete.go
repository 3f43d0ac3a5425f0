package server

import (
	"net/http"
	"time"
)

// deleteSeries answers DELETE /api/v1/kinds/{kind}/series/{id}.
func (s *Server) deleteSeries(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	if err := k.DeleteSeries(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteReadings answers DELETE /api/v1/kinds/{kind}/series/{id}/readings
// ?from=&to=. Both bounds are required: deleting everything is
// DELETE .../series/{id}.
func (s *Server) deleteReadings(w http.ResponseWriter, r *http.Request) error {
	k, err := s.kindOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var from, to time.Time
	if from, err = timeParam(q, "from"); err != nil {
		return err
	}
	if to, err = timeParam(q, "to"); err != nil {
		return err
	}
	if from.IsZero() || to.IsZero() {
		return invalid("from and to are required (to delete a whole series: DELETE /api/v1/kinds/%s/series/%s)", k.Name(), r.PathValue("id"))
	}
	if !from.Before(to) {
		return invalid("from %s is not before to %s", from.Format(timeLayout), to.Format(timeLayout))
	}
	if err := k.Delete(r.Context(), r.PathValue("id"), from, to); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
