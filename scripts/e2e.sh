#!/usr/bin/env bash
# The browser tests behind `make e2e` (and the last step of `make test`):
#
#  1. installs Debian's chromium with apt-get when no Chromium is found
#     (apt-get update first; with sudo when not root);
#  2. installs Plausible's tracker (npm @plausible-analytics/tracker,
#     pinned in lib.sh) into .tools/ unless it is there;
#  3. installs Debian's prometheus with apt-get (apt-get update first,
#     without the recommended node exporter) when no Prometheus is found,
#     for internal/e2e's test of remote write and the query API against
#     Prometheus itself; without apt-get that test skips, saying why.
#     Where systemd runs, Debian's package also starts its own service on
#     port 9090; the test runs its own Prometheus on a free port;
#  4. runs the browser tests (internal/browsertest, internal/e2e, and the
#     dashboard's in server) with
#     TIMETABLE_REQUIRE_BROWSER=1, so that none of them may skip, and
#     writes their screenshots to a folder it prints.
#
# Usage: scripts/e2e.sh [go test flags, e.g. -run Tracker -v]
# Environment:
#   RACE=1              go test with -race (default 0)
#   E2E_SCREENSHOTS     the screenshot folder (default e2e-screenshots/),
#                       emptied of its PNGs first
#   TIMETABLE_CHROMIUM  the browser to use (default: found on PATH)
#   TIMETABLE_PROMETHEUS  the Prometheus to use (default: found on PATH)
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tt_need go node npm
cd "$TT_ROOT" || exit 1

# ensure_prometheus sets TT_PROMETHEUS to a Prometheus that starts,
# installing Debian's prometheus package with apt-get (as root or with
# sudo) when there is none and apt-get is there. Without apt-get it leaves
# TT_PROMETHEUS empty; it fails when apt-get cannot install it.
ensure_prometheus() {
	TT_PROMETHEUS=$(tt_first_working "${TIMETABLE_PROMETHEUS:-}" prometheus) && return 0
	if ! command -v apt-get >/dev/null 2>&1; then
		tt_log "no Prometheus, and no apt-get to install it: the Prometheus test will skip (install Prometheus and set TIMETABLE_PROMETHEUS)"
		return 0
	fi
	tt_apt_install prometheus --no-install-recommends
	TT_PROMETHEUS=$(command -v prometheus) || tt_die "apt-get installed prometheus but there is no prometheus command"
}

start=$SECONDS
tt_ensure_chromium
tt_log "browser: $("$TT_CHROMIUM" --version 2>/dev/null | head -n 1) ($TT_CHROMIUM)"
tt_npm_ensure @plausible-analytics/tracker "$TT_PLAUSIBLE_TRACKER_VERSION"
ensure_prometheus
require_prometheus=0
if [[ -n $TT_PROMETHEUS ]]; then
	tt_log "Prometheus: $("$TT_PROMETHEUS" --version 2>&1 | head -n 1) ($TT_PROMETHEUS)"
	require_prometheus=1
fi

shots=${E2E_SCREENSHOTS:-$TT_ROOT/e2e-screenshots}
mkdir -p "$shots"
shots=$(cd "$shots" && pwd)
rm -f "$shots"/*.png

flags=(-count=1 -timeout 12m)
[[ ${RACE:-0} == 1 ]] && flags+=(-race)
tt_log "go test ${flags[*]} $* ./internal/browsertest ./internal/e2e"
status=0
TIMETABLE_REQUIRE_BROWSER=1 \
	TIMETABLE_CHROMIUM=$TT_CHROMIUM \
	TIMETABLE_PLAUSIBLE_TRACKER=$TT_TOOLS/node_modules/@plausible-analytics/tracker \
	TIMETABLE_SCREENSHOTS=$shots \
	TIMETABLE_PROMETHEUS=$TT_PROMETHEUS \
	TIMETABLE_REQUIRE_PROMETHEUS=$require_prometheus \
	go test "${flags[@]}" "$@" ./internal/browsertest ./internal/e2e || status=$?
# The dashboard's browser test lives beside the routes it drives.
tt_log "go test ${flags[*]} -run Browser $* ./server"
TIMETABLE_REQUIRE_BROWSER=1 \
	TIMETABLE_CHROMIUM=$TT_CHROMIUM \
	TIMETABLE_SCREENSHOTS=$shots \
	go test "${flags[@]}" -run Browser "$@" ./server || status=$?
tt_log "screenshots: $shots ($(find "$shots" -maxdepth 1 -name '*.png' | wc -l) files)"
tt_log "e2e took $((SECONDS - start)) s"
exit "$status"
