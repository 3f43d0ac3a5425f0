package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/local"
)

func TestCLI_Demo_Help(t *testing.T) {
	code, out, _ := runCLI(t, "help", "demo")
	if code != 0 || !strings.Contains(out, "timetable demo --data ./timetable-data --days 90") || !strings.Contains(out, "-visits-per-day") {
		t.Fatalf("help demo: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--days", "0"}, {"--visits-per-day", "-3"}, {"--server", "http://127.0.0.1:1", "--days", "31"}, {"extra"}} {
		if code, _, errs := runCLI(t, append([]string{"demo", "--data", t.TempDir()}, bad...)...); code != 2 || errs == "" {
			t.Errorf("demo %v: exit %d, want 2 with a reason", bad, code)
		}
	}
}

// TestCLI_Demo records 35 days into a data folder and reads the site back:
// every day aggregated, the first days' too, whose raw hits have expired.
func TestCLI_Demo(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	now := time.Date(2025, 6, 10, 15, 4, 5, 0, time.UTC)
	demo := func(args ...string) (string, error) {
		var out, errs bytes.Buffer
		c := &DemoCommand{Stdout: &out, Stderr: &errs, Now: func() time.Time { return now }}
		err := c.Run(ctx, append([]string{"--data", data, "--days", "35", "--visits-per-day", "40"}, args...))
		return out.String(), err
	}
	out, err := demo()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "over 35 days") || !strings.Contains(out, "timetable serve --data "+data) {
		t.Errorf("demo printed:\n%s", out)
	}
	if _, err := demo(); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("demo on a folder with the site: %v, want an error naming --replace", err)
	}
	if _, err := demo("--replace"); err != nil {
		t.Fatalf("demo --replace: %v", err)
	}

	db, err := local.Open(data, &local.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := analytics.Open(ctx, db, &analytics.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2025, 5, 7, 0, 0, 0, 0, time.UTC)
	for _, day := range []time.Time{first, now.Truncate(24 * time.Hour)} {
		sm, err := st.Summary(ctx, "demo", day, day.AddDate(0, 0, 1))
		if err != nil || sm.PageViews == 0 || sm.Visits == 0 {
			t.Errorf("%s: %+v, %v; want page views and visits", day.Format(time.DateOnly), sm, err)
		}
	}
	if sm, err := st.Summary(ctx, "demo", first.AddDate(0, 0, -1), first); err != nil || sm.PageViews != 0 {
		t.Errorf("the day before the first: %+v, %v; want nothing", sm, err)
	}
	if err := st.AggregateDay(ctx, "demo", first); !errors.Is(err, analytics.ErrExpired) {
		t.Errorf("AggregateDay of the first day: %v, want ErrExpired", err)
	}
	gs, err := st.Goals(ctx, "demo")
	if err != nil || len(gs) < 3 {
		t.Errorf("goals %+v, %v", gs, err)
	}
}
