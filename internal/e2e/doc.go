// Package e2e holds the browser tests of `make e2e`: a real timetable
// server (server.New over the embedded engine, with the web analytics
// store) on 127.0.0.1, test pages served from a second origin under host
// names that Chromium resolves to 127.0.0.1, and headless Chromium driven
// by internal/browsertest.
//
// The tracker's tests load test pages with our script (and Plausible's);
// the dashboard's (TestDashboard_*) open the server's dashboard on sites
// recorded through the store: its charts, comparisons, management views
// and a phone's width.
//
// They skip without Chromium unless TIMETABLE_REQUIRE_BROWSER=1 (then they
// fail); the test of Plausible's own tracker also needs the folder of the
// npm package @plausible-analytics/tracker in TIMETABLE_PLAUSIBLE_TRACKER
// (scripts/e2e.sh installs it). Screenshots go to TIMETABLE_SCREENSHOTS.
//
// TestPrometheus_RemoteWrite_QueryRange runs Prometheus (the binary in
// TIMETABLE_PROMETHEUS, or on PATH) against `timetable serve` (built by
// the test): Prometheus scrapes both and remote-writes to the server, and
// the test compares the samples and the range queries of both. It skips
// without Prometheus unless TIMETABLE_REQUIRE_PROMETHEUS=1, and in -short
// mode; it takes about a minute and a half.
//
// The package has no code of its own: only its tests.
package e2e
