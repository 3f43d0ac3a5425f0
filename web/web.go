// Package web holds the static assets that timetable serve sends to
// browsers, embedded in the binary: one embed.FS per folder. Nothing here
// makes a request or reads the disk at run time.
//
// tracker/ is the tracking script served at /js/script.js: script.js is
// its readable source and script.min.js, made from it by `go generate
// ./web`, is what is served (TestTrackerMinified fails when they differ).
//
// dashboard/ is the web-analytics dashboard served at / and /ui/.
package web

import "embed"

//go:generate go run minify.go tracker/script.js tracker/script.min.js

// Tracker holds tracker/script.js and tracker/script.min.js.
//
//go:embed tracker/script.js tracker/script.min.js
var Tracker embed.FS

// TrackerScript is the path in Tracker of the script to serve.
const TrackerScript = "tracker/script.min.js"

// Dashboard is the web-analytics dashboard (folder dashboard/): index.html,
// a template server fills with the page's settings, and the styles,
// scripts and icons it loads from the server itself. Nothing in it loads
// from another host.
//
//go:embed dashboard
var Dashboard embed.FS
