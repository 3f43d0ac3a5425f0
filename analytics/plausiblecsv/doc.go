// Package plausiblecsv reads and writes Plausible's CSV export: a zip of
// one CSV file per table of imported data, named
// {table}_{YYYYMMDD}_{YYYYMMDD}.csv (the first and last day it covers),
// each with a header line naming its columns. It turns them into and out
// of analytics.DayFigures, the daily figures that analytics.Store.Import
// keeps apart from the collected ones and that
// analytics.Store.CollectedDays gives.
//
// # Tables
//
// Read and written (the counts kept per value are the counts the
// collected breakdowns keep):
//
//   - imported_visitors: date, visitors, pageviews, bounces, visits,
//     visit_duration (seconds, summed over the visits): the day's totals.
//   - imported_sources: source and its visits (read: referrer, the UTM
//     columns and the other counts are optional; utm_source, utm_medium
//     and utm_campaign are counted by visits when present).
//   - imported_pages: page and its pageviews.
//   - imported_entry_pages: entry_page and its entrances.
//   - imported_exit_pages: exit_page and its exits.
//   - imported_locations: country and its visits (summed over region and
//     city).
//   - imported_devices, imported_browsers, imported_operating_systems:
//     device, browser, operating_system and their visits.
//   - imported_custom_events: name and its events; the day's custom
//     events are their sum.
//
// Columns a reader does not use are accepted and ignored, so exports of
// Plausible's versions with more or fewer optional columns read alike.
// Written files have the columns of Plausible's current export; the
// figures timetable does not keep per value are written as follows:
// visitors of a value is its count (visits, or page views for a page: an
// upper bound), bounces and visit_duration of a value are 0, hostname,
// referrer, region, city, versions, link_url, path, scroll_depth are
// empty or 0. The sources file has one row per source with empty UTM
// columns: timetable keeps sources and UTM values as separate breakdowns,
// not their combinations, so UTM breakdowns are not exported.
//
// # Bounds
//
// Reading is bounded by Limits: the files of a zip, the bytes they
// inflate to (counted as they inflate, whatever their headers claim), and
// the rows. Every refused row is an *Error naming the file, the line and
// the column.
package plausiblecsv
