package analytics

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
)

// Imported days are stored apart: the collected Summary does not change,
// ImportedDays gives them back with the breakdowns asked, a day imported
// again replaces the earlier, DeleteImported removes them all.
func TestStore_Import(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
		_, s := openWithSite(t, b, now, "a")
		ctx := context.Background()
		d1, d2 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC)
		days := []DayFigures{
			{Date: d1, Visitors: 5, Visits: 6, PageViews: 9, Bounces: 2, Events: 1, DurationMs: 60_000,
				Breakdowns: map[Dimension]map[string]int64{DimPage: {"/": 9}, DimSource: {None: 4, "Google": 2}}},
			{Date: d2, Visitors: 1, Visits: 1, PageViews: 1, Breakdowns: map[Dimension]map[string]int64{}},
		}
		if err := s.Import(ctx, "a", days); err != nil {
			t.Fatal(err)
		}
		sm, err := s.Summary(ctx, "a", d1, d2.AddDate(0, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		if sm != (Summary{}) {
			t.Errorf("the collected summary counts imported days: %+v", sm)
		}
		got, err := s.ImportedDays(ctx, "a", d1, d2.AddDate(0, 0, 1), []Dimension{DimPage, DimSource})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, days) {
			t.Errorf("ImportedDays\n%+v\nwant\n%+v", got, days)
		}
		// The totals only; a range of the second day only.
		got, err = s.ImportedDays(ctx, "a", d2, d2.AddDate(0, 0, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Visitors != 1 || len(got[0].Breakdowns) != 0 {
			t.Errorf("the second day's totals: %+v", got)
		}
		// Again: replaced, not added.
		if err := s.Import(ctx, "a", []DayFigures{{Date: d1, Visitors: 2}}); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.ImportedDays(ctx, "a", d1, d1.AddDate(0, 0, 1), []Dimension{DimPage}); len(got) != 1 || got[0].Visitors != 2 || len(got[0].Breakdowns) != 0 {
			t.Errorf("imported again: %+v", got)
		}
		if err := s.DeleteImported(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.ImportedDays(ctx, "a", d1, d2.AddDate(0, 0, 1), nil); len(got) != 0 {
			t.Errorf("after DeleteImported: %+v", got)
		}
	})
}

// A refused import writes nothing, not even its valid days.
func TestStore_Import_Refused(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	_, s := openWithSite(t, backends()[0], now, "a")
	ctx := context.Background()
	d := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := DayFigures{Date: d, Visits: 1}
	for name, c := range map[string]struct {
		days []DayFigures
		want string
	}{
		"not midnight":   {[]DayFigures{ok, {Date: d.Add(25 * time.Hour)}}, "not a UTC midnight"},
		"twice":          {[]DayFigures{ok, ok}, "comes twice"},
		"negative":       {[]DayFigures{ok, {Date: d.AddDate(0, 0, 1), Visits: -1}}, "negative count"},
		"negative value": {[]DayFigures{ok, {Date: d.AddDate(0, 0, 1), Breakdowns: map[Dimension]map[string]int64{DimPage: {"/": -1}}}}, "negative count"},
		"goal":           {[]DayFigures{ok, {Date: d.AddDate(0, 0, 1), Breakdowns: map[Dimension]map[string]int64{DimGoal: {"g": 1}}}}, "cannot be imported"},
		"dimension":      {[]DayFigures{ok, {Date: d.AddDate(0, 0, 1), Breakdowns: map[Dimension]map[string]int64{"city": {"Paris": 1}}}}, "cannot be imported"},
	} {
		err := s.Import(ctx, "a", c.days)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", name, err, c.want)
		}
	}
	if got, err := s.ImportedDays(ctx, "a", d, d.AddDate(0, 0, 3), nil); err != nil || len(got) != 0 {
		t.Errorf("refused imports wrote %+v (%v)", got, err)
	}
	if err := s.Import(ctx, "nope", []DayFigures{ok}); !errors.Is(err, timetable.ErrNotFound) {
		t.Errorf("an unknown site: %v", err)
	}
}
