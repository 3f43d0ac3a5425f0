// Package web holds the static assets that timetable serve sends to
// browsers, embedded in the binary: one embed.FS per folder.
//
// tracker/ is the tracking script served at /js/script.js: script.js is
// its readable source and script.min.js, made from it by `go generate
// ./web`, is what is served (TestTrackerMinified fails when they differ).
package web

import "embed"

//go:generate go run minify.go tracker/script.js tracker/script.min.js

// Tracker holds tracker/script.js and tracker/script.min.js.
//
//go:embed tracker/script.js tracker/script.min.js
var Tracker embed.FS

// TrackerScript is the path in Tracker of the script to serve.
const TrackerScript = "tracker/script.min.js"
