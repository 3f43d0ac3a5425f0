package analytics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
)

// TestRecordDay_Refused checks what RecordDay refuses, writing nothing: a
// day whose raw hits are still kept (in part), an event of another site
// or day or one Record refuses, an unknown site. The day it then accepts
// is counted. (analytics/demo's TestLoad_BulkSameAsRecorded compares its
// items with those of Record and AggregatePending.)
func TestRecordDay_Refused(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		_, s := openWithSite(t, b, now, "alpha")
		day := time.Date(2024, 2, 10, 0, 0, 0, 0, time.UTC)
		ev := func(at time.Time) Event {
			return Event{Site: "alpha", VisitorID: "v", Time: at, Name: PageView, Path: "/", Referrer: "https://www.google.com/"}
		}
		good := []Event{ev(day.Add(time.Hour)), ev(day.Add(time.Hour + time.Minute))}
		// 19 February ended 30 days before now less 12 hours: its last
		// raw hits are kept.
		if err := s.RecordDay(ctx, "alpha", time.Date(2024, 2, 19, 0, 0, 0, 0, time.UTC), nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("a day whose raw hits are partly kept: %v, want ErrInvalid", err)
		}
		other := ev(day.Add(2 * time.Hour))
		other.Site = "beta"
		noPath := ev(day.Add(2 * time.Hour))
		noPath.Path = ""
		for name, bad := range map[string]Event{"another site": other, "another day": ev(day.AddDate(0, 0, 1)), "no path": noPath,
			"the day before": ev(day.Add(-time.Millisecond))} {
			if err := s.RecordDay(ctx, "alpha", day, append(good, bad)); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: %v, want ErrInvalid", name, err)
			}
		}
		if err := s.RecordDay(ctx, "gamma", day, nil); !errors.Is(err, timetable.ErrNotFound) {
			t.Errorf("an unknown site: %v, want ErrNotFound", err)
		}
		sm, err := s.Summary(ctx, "alpha", day, Day.next(day))
		if err != nil {
			t.Fatal(err)
		}
		if sm.PageViews != 0 {
			t.Fatalf("%d page views after refused days, want none written", sm.PageViews)
		}
		if err := s.RecordDay(ctx, "alpha", day.Add(5*time.Hour), good); err != nil {
			t.Fatal(err)
		}
		if sm, err = s.Summary(ctx, "alpha", day, Day.next(day)); err != nil {
			t.Fatal(err)
		}
		if sm.PageViews != 2 || sm.Visits != 1 {
			t.Errorf("summary %+v, want 2 page views in 1 visit", sm)
		}
		n := 0
		for v, err := range s.Visits(ctx, "alpha", day, Day.next(day), nil) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; v.Source != "Google" || len(v.Hits) != 2 {
				t.Errorf("visit %+v from the bucket, want 2 page views from Google", v)
			}
		}
		if n != 1 {
			t.Errorf("%d visits from the bucket, want 1", n)
		}
	})
}
