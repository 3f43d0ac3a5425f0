package analytics

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestStore_Properties: the property names of the custom events of a
// range, from the aggregates, with the events that carried each; page
// views' props and other ranges are not counted.
func TestStore_Properties(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2024, 3, 19, 0, 0, 0, 0, time.UTC)
	_, s := openWithSite(t, backends()[0], day.Add(36*time.Hour), "a")
	at := day.Add(9 * time.Hour)
	for i, props := range []map[string]string{{"plan": "pro"}, {"plan": "free", "tier": "2"}, {"plan": "pro"}, nil} {
		rec(t, s, Event{Site: "a", Time: at.Add(time.Duration(i) * time.Minute), Name: "Signup", VisitorID: "v", Path: "/", Props: props})
	}
	rec(t, s, Event{Site: "a", Time: at, Name: PageView, VisitorID: "w", Path: "/", Props: map[string]string{"author": "x"}})
	rec(t, s, Event{Site: "a", Time: at.AddDate(0, 0, -1), Name: "Signup", VisitorID: "v", Path: "/", Props: map[string]string{"old": "y"}})
	for _, d := range []time.Time{day, day.AddDate(0, 0, -1)} {
		if err := s.AggregateDay(ctx, "a", d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Properties(ctx, "a", day, day.AddDate(0, 0, 1))
	if want := []Count{{"plan", 3}, {"tier", 1}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Properties = %v, %v; want %v", got, err, want)
	}
	got, err = s.Properties(ctx, "a", day.AddDate(0, 0, 2), day.AddDate(0, 0, 3))
	if err != nil || len(got) != 0 {
		t.Errorf("Properties of a range without aggregates = %v, %v", got, err)
	}
}
