#!/usr/bin/env bash
# The browser tests behind `make e2e` (and the last step of `make test`):
#
#  1. installs Debian's chromium with apt-get when no Chromium is found
#     (apt-get update first; with sudo when not root);
#  2. installs Plausible's tracker (npm @plausible-analytics/tracker,
#     pinned in lib.sh) into .tools/ unless it is there;
#  3. runs the browser tests (internal/browsertest, internal/e2e, and the
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
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tt_need go node npm
cd "$TT_ROOT" || exit 1

start=$SECONDS
tt_ensure_chromium
tt_log "browser: $("$TT_CHROMIUM" --version 2>/dev/null | head -n 1) ($TT_CHROMIUM)"
tt_npm_ensure @plausible-analytics/tracker "$TT_PLAUSIBLE_TRACKER_VERSION"

shots=${E2E_SCREENSHOTS:-$TT_ROOT/e2e-screenshots}
mkdir -p "$shots"
shots=$(cd "$shots" && pwd)
rm -f "$shots"/*.png

flags=(-count=1 -timeout 5m)
[[ ${RACE:-0} == 1 ]] && flags+=(-race)
tt_log "go test ${flags[*]} $* ./internal/browsertest ./internal/e2e"
status=0
TIMETABLE_REQUIRE_BROWSER=1 \
	TIMETABLE_CHROMIUM=$TT_CHROMIUM \
	TIMETABLE_PLAUSIBLE_TRACKER=$TT_TOOLS/node_modules/@plausible-analytics/tracker \
	TIMETABLE_SCREENSHOTS=$shots \
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
