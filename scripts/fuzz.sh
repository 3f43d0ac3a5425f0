#!/usr/bin/env bash
# Runs every fuzz target of the module for a short fixed time each.
# Targets are discovered with `go test -list 'Fuzz.*'`, so new ones are
# picked up without editing this file. New crashers are written by go test
# to the package's testdata/fuzz folder; commit them as regression cases.
#
# Usage: scripts/fuzz.sh      Environment: FUZZTIME (default 10s), FUZZPKGS (default ./...)
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TT_ROOT" || exit 1

fuzztime=${FUZZTIME:-10s}
# shellcheck disable=SC2206
pkgs=(${FUZZPKGS:-./...})
count=0
failed=()
for pkg in $(go list "${pkgs[@]}"); do
	# Only packages with test files can hold fuzz targets.
	if [[ -z $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}y{{end}}' "$pkg") ]]; then
		continue
	fi
	if ! out=$(go test -list '^Fuzz' "$pkg"); then
		failed+=("$pkg: cannot list tests")
		continue
	fi
	targets=$(grep '^Fuzz' <<<"$out" || true)
	for target in $targets; do
		count=$((count + 1))
		tt_log "fuzz $pkg $target for $fuzztime"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"; then
			failed+=("$pkg $target")
		fi
	done
done
if ((count == 0)); then
	tt_log "no fuzz targets found"
fi
if ((${#failed[@]})); then
	printf 'FAIL: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: $count targets ran for $fuzztime each"
