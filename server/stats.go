package server

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/statsapi"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/httpjson"
)

// query answers POST /api/v2/query, Plausible's Stats API v2: the query
// is parsed, the caller's right to read its site checked, then run. A bad
// query is answered 400 {"error": "..."}, Plausible's error shape.
func (s *Server) query(w http.ResponseWriter, r *http.Request) error {
	a, err := s.analytics()
	if err != nil {
		return err
	}
	body, err := s.body(w, r)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(io.LimitReader(body, statsapi.MaxQueryBytes+1))
	if err != nil {
		if ae := asTooLarge(err); ae != nil {
			return ae
		}
		return err
	}
	q, err := statsapi.Parse(b)
	if err == nil {
		if err = s.allow(r.Context(), r, auth.ScopeRead, auth.Site(q.SiteID)); err != nil {
			return err
		}
		var resp *statsapi.Response
		if resp, err = q.Run(r.Context(), a, s.cfg.Now(), &statsapi.Options{MaxBuckets: s.cfg.MaxPeriods}); err == nil {
			httpjson.Write(w, http.StatusOK, resp)
			return nil
		}
	}
	var qe *statsapi.Error
	if errors.As(err, &qe) {
		httpjson.Write(w, http.StatusBadRequest, struct {
			Error string `json:"error"`
		}{qe.Message})
		return nil
	}
	return err
}

// siteRange returns the store, the existing site of the path and the
// range [from, to) of ?date_range= (a preset or two dates; default 30d);
// a bad range is a 400.
func (s *Server) siteRange(r *http.Request) (a *analytics.Store, st *analytics.Site, from, to time.Time, err error) {
	if a, st, err = s.existingSite(r); err != nil {
		return nil, nil, from, to, err
	}
	spec := r.URL.Query().Get("date_range")
	if spec == "" {
		spec = "30d"
	}
	if from, to, err = statsapi.Range(st, spec, s.cfg.Now()); err != nil {
		return nil, nil, from, to, invalid("%v", err)
	}
	return a, st, from, to, nil
}

// funnelSteps answers GET /api/v1/sites/{site}/funnels/{id}/steps with
// the visitors reaching each step over ?date_range= (default 30d).
func (s *Server) funnelSteps(w http.ResponseWriter, r *http.Request) error {
	a, st, from, to, err := s.siteRange(r)
	if err != nil {
		return err
	}
	f, err := a.Funnel(r.Context(), st.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	// A range reaching past the hits kept (beyond the hit buckets'
	// retention) is computed from the first day they are kept on, and
	// says so.
	warning := ""
	steps, err := a.FunnelSteps(r.Context(), st.ID, f.ID, from, to)
	if ee := (*analytics.ExpiredError)(nil); errors.As(err, &ee) && ee.Start.After(from) && ee.Start.Before(to) {
		from = ee.Start
		warning = "the range starts on " + from.Format(time.DateOnly) + " (UTC), the first day whose hits are all kept; a funnel is computed from the hits"
		steps, err = a.FunnelSteps(r.Context(), st.ID, f.ID, from, to)
	}
	if err != nil {
		return err
	}
	type stepJSON struct {
		Goal               string  `json:"goal"`
		Visitors           int64   `json:"visitors"`
		DropOff            int64   `json:"drop_off"`
		ConversionRate     float64 `json:"conversion_rate"`
		StepConversionRate float64 `json:"step_conversion_rate"`
	}
	out := struct {
		Funnel    funnelJSON `json:"funnel"`
		DateRange [2]string  `json:"date_range"`
		Steps     []stepJSON `json:"steps"`
		Warning   string     `json:"warning,omitempty"`
	}{Funnel: funnelJSON(*f), DateRange: [2]string{from.Format(time.RFC3339), to.Add(-time.Second).Format(time.RFC3339)}, Warning: warning}
	for _, x := range steps {
		out.Steps = append(out.Steps, stepJSON{Goal: x.Goal, Visitors: x.Visitors, DropOff: x.DropOff,
			ConversionRate: percent(x.ConversionRate), StepConversionRate: percent(x.StepConversionRate)})
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// properties answers GET /api/v1/sites/{site}/properties: the names of
// the custom-event properties over ?date_range= (default 30d), from the
// aggregates, each with the custom events that carried it, most first.
func (s *Server) properties(w http.ResponseWriter, r *http.Request) error {
	a, st, from, to, err := s.siteRange(r)
	if err != nil {
		return err
	}
	props, err := a.Properties(r.Context(), st.ID, from, to)
	if err != nil {
		return err
	}
	type propJSON struct {
		Name   string `json:"name"`
		Events int64  `json:"events"`
	}
	out := struct {
		Properties []propJSON `json:"properties"`
	}{Properties: []propJSON{}}
	for _, p := range props {
		out.Properties = append(out.Properties, propJSON{Name: p.Value, Events: p.Count})
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// percent returns the fraction x in percent, to two decimals.
func percent(x float64) float64 { return float64(int64(x*10000+0.5)) / 100 }

// realtime answers GET /api/v1/sites/{site}/realtime: the visitors, page
// views and pages of the last 5 minutes and the live feed of their hits.
func (s *Server) realtime(w http.ResponseWriter, r *http.Request) error {
	a, st, err := s.existingSite(r)
	if err != nil {
		return err
	}
	live, err := a.Realtime(r.Context(), st.ID)
	if err != nil {
		return err
	}
	type pageJSON struct {
		Page     string `json:"page"`
		Visitors int64  `json:"visitors"`
	}
	type eventJSON struct {
		Time    string `json:"time"`
		Name    string `json:"name"`
		Page    string `json:"page"`
		Source  string `json:"source"`
		Country string `json:"country"`
		Browser string `json:"browser"`
		OS      string `json:"os"`
		Device  string `json:"device"`
	}
	out := struct {
		Visitors  int         `json:"visitors"`
		PageViews int64       `json:"pageviews"`
		Pages     []pageJSON  `json:"pages"`
		Events    []eventJSON `json:"events"`
		// LatestPageView, when the window has no page view, is when the
		// latest one was: why the window is empty.
		LatestPageView string `json:"latest_pageview,omitempty"`
	}{Visitors: live.Visitors, PageViews: live.PageViews, Pages: []pageJSON{}, Events: []eventJSON{}}
	if !live.Latest.IsZero() {
		out.LatestPageView = live.Latest.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	for _, p := range live.Pages {
		out.Pages = append(out.Pages, pageJSON{Page: p.Value, Visitors: p.Count})
	}
	for _, e := range live.Events {
		out.Events = append(out.Events, eventJSON{Time: e.Time.UTC().Format("2006-01-02T15:04:05.000Z"), Name: e.Name, Page: e.Page,
			Source: e.Source, Country: e.Country, Browser: e.Browser, OS: e.OS, Device: e.Device})
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}
