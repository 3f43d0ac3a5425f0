// Package web holds the static assets timetable serve embeds in its
// binary: one embed.FS per folder. Package server serves them; nothing
// here makes a request or reads the disk at run time.
package web

import "embed"

// Dashboard is the web-analytics dashboard (folder dashboard/): index.html,
// a template server fills with the page's settings, and the styles,
// scripts and icons it loads from the server itself. Nothing in it loads
// from another host.
//
//go:embed dashboard
var Dashboard embed.FS
