#!/usr/bin/env bash
# Lint: gofmt, go vet and staticcheck (pinned) over the module and the
# bench module, and shellcheck over the scripts when it is installed. Usage: scripts/lint.sh
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TT_ROOT" || exit 1

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2
status=0

unformatted=$(find . -name '*.go' -not -path './.tools/*' -not -path '*/node_modules/*' -not -path './.git/*' -print0 | xargs -0 -r gofmt -l)
if [[ -n $unformatted ]]; then
	echo "gofmt: these files are not formatted (run gofmt -w):" >&2
	echo "$unformatted" >&2
	status=1
fi

for mod in . bench; do
	[[ -f $mod/go.mod ]] || continue
	tt_log "go vet ($mod)"
	(cd "$mod" && go vet ./...) || status=1
	tt_log "staticcheck ($mod)"
	(cd "$mod" && go run "$STATICCHECK" ./...) || status=1
done
if command -v shellcheck >/dev/null 2>&1; then
	tt_log "shellcheck"
	shellcheck -x scripts/*.sh clients/awscli/test.sh .ci/run || status=1
else
	tt_log "shellcheck not installed (apt-get install shellcheck): shell scripts not checked"
fi
exit "$status"
