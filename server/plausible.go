package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/plausiblecsv"
	"github.com/timetable-db/timetable/internal/httpjson"
)

// exportStats answers GET /api/v1/sites/{site}/export with the site's
// figures of the days of ?date_range= (default 30d; the dates are the
// site's, the days UTC) as a zip of Plausible's CSV export files
// (package plausiblecsv). ?with_imported=true adds the imported days. The
// range holds at most Config.MaxPeriods days; the zip is built in memory,
// held in the request's share of the in-flight budget, then sent.
func (s *Server) exportStats(w http.ResponseWriter, r *http.Request) error {
	a, st, from, to, err := s.siteRange(r)
	if err != nil {
		return err
	}
	first, last := dateOf(from, st.Location()), dateOf(to.Add(-time.Nanosecond), st.Location())
	maxDays := s.cfg.MaxPeriods
	if maxDays <= 0 {
		maxDays = defaultMaxExportDays
	}
	if n := int(last.Sub(first).Hours()/24) + 1; n > maxDays {
		return invalid("the range has %d days, more than the %d one export may have (--max-periods): export it in parts", n, maxDays)
	}
	end := last.AddDate(0, 0, 1)
	days, err := a.CollectedDays(r.Context(), st.ID, first, end)
	if err != nil {
		return err
	}
	if withImported, _ := strconv.ParseBool(r.URL.Query().Get("with_imported")); withImported {
		imp, err := a.ImportedDays(r.Context(), st.ID, first, end, analytics.Dimensions)
		if err != nil {
			return err
		}
		days = analytics.AddDays(days, imp)
	}
	var buf bytes.Buffer
	if err := plausiblecsv.WriteZip(&buf, days, first, last); err != nil {
		return err
	}
	if err := holdOf(r.Context()).grow(r.Context(), int64(buf.Len())); err != nil {
		return err
	}
	name := "timetable-export-" + st.ID + "-" + first.Format("20060102") + "-" + last.Format("20060102") + ".zip"
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, err = buf.WriteTo(w)
	return err
}

// defaultMaxExportDays bounds an export's days when Config.MaxPeriods is
// not set: ten years.
const defaultMaxExportDays = analytics.MaxImportDays

// dateOf returns the date of t in loc, as UTC midnight.
func dateOf(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// importStats answers POST /api/v1/sites/{site}/import: the body is a zip
// of Plausible's CSV export (Content-Type application/zip), whose days are
// stored as the site's imported figures, replacing the days imported
// before. The body is held in the in-flight budget and bounded by
// MaxBodyBytes; its files inflate to at most MaxInflatedBytes. A refused
// file or row is a 400 naming the file, line and column, and nothing is
// imported.
func (s *Server) importStats(w http.ResponseWriter, r *http.Request) error {
	a, st, err := s.existingSite(r)
	if err != nil {
		return err
	}
	if mt := mediaType(r); mt != "application/zip" && mt != "application/x-zip-compressed" && mt != "application/octet-stream" {
		return errorf(http.StatusUnsupportedMediaType, codeMediaType, "the body is a zip of Plausible's CSV export: send it as application/zip, not %q", mt)
	}
	body, err := s.body(w, r)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(body)
	if err != nil {
		if ae := asTooLarge(err); ae != nil {
			return ae
		}
		return err
	}
	d := plausiblecsv.NewReader(&plausiblecsv.Limits{MaxBytes: s.cfg.MaxInflatedBytes})
	err = d.ReadZip(b)
	var pe *plausiblecsv.Error
	if errors.As(err, &pe) {
		return invalid("%v", pe)
	}
	if err != nil {
		return err
	}
	// The decoded days take about what their text did.
	if err := holdOf(r.Context()).grow(r.Context(), d.Bytes()); err != nil {
		return err
	}
	days := d.Days()
	if err := a.Import(r.Context(), st.ID, days); err != nil {
		return err
	}
	out := struct {
		Site string `json:"site"`
		Days int    `json:"days"`
		From string `json:"from,omitempty"`
		To   string `json:"to,omitempty"`
	}{Site: st.ID, Days: len(days)}
	if len(days) > 0 {
		out.From, out.To = days[0].Date.Format(time.DateOnly), days[len(days)-1].Date.Format(time.DateOnly)
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// deleteImported answers DELETE /api/v1/sites/{site}/import: the site's
// imported figures are deleted; the collected ones stay.
func (s *Server) deleteImported(w http.ResponseWriter, r *http.Request) error {
	a, st, err := s.existingSite(r)
	if err != nil {
		return err
	}
	if err := a.DeleteImported(r.Context(), st.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
