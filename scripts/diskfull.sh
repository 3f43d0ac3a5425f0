#!/usr/bin/env bash
# A real full disk: `timetable serve` with its data folder on a small tmpfs,
# which a filler file then fills up. It checks that
#
#  1. while the disk is full, /readyz answers 503, a series write and an
#     InfluxDB write 507 insufficient_storage, a DynamoDB PutItem 503
#     ServiceUnavailable, each with the reason;
#  2. once the filler is deleted, /readyz passes and writes are taken again,
#     without a restart;
#  3. SIGTERM with the disk full again ends the process within its shutdown
#     timeout;
#  4. after a restart (space freed) every acknowledged reading is there.
#
# Mounting a tmpfs needs root, or an unprivileged user namespace (unshare
# -rm), where the script runs itself again; where neither works it says so
# and exits 0: a machine that cannot mount is not a failure.
#
# Usage: scripts/diskfull.sh   (run by scripts/test.sh; also `make diskfull`)
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tt_need go curl dd
cd "$TT_ROOT" || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/timetable-diskfull.XXXXXX")
mnt=$work/disk
mounted=0
cleanup() {
	local rc=$?
	tt_stop_all
	if [[ $mounted == 1 ]]; then
		umount "$mnt" 2>/dev/null || true
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$mnt"
if ! mount -t tmpfs -o size=128m tmpfs "$mnt" 2>/dev/null; then
	if [[ -z ${TT_DISKFULL_UNSHARED:-} ]] && unshare -rm true 2>/dev/null; then
		rm -rf "$work"
		trap - EXIT
		TT_DISKFULL_UNSHARED=1 exec unshare -rm "$0" "$@"
	fi
	tt_log "diskfull: skipped: cannot mount a tmpfs here (needs root or unprivileged user namespaces)"
	exit 0
fi
mounted=1

bin=$(tt_build_timetable "$work") || tt_die "cannot build timetable"
log=$work/serve.log
serve() { tt_start_timetable "$bin" "$mnt/data" "$log" --no-auth || tt_die "timetable serve did not start"; }
fail() {
	tt_log "diskfull: FAILED: $*; the server's log:"
	tail -n 30 "$log" >&2 || true
	exit 1
}

# req METHOD PATH [BODY [HEADER...]] prints the status, then the body.
req() {
	local method=$1 path=$2 body=${3:-} args=()
	shift 3 2>/dev/null || shift $#
	local h
	for h in "$@"; do args+=(-H "$h"); done
	curl -sS -m 30 -X "$method" "${args[@]}" --data-binary "$body" -w '\n%{http_code}' "$TT_SERVE_ENDPOINT$path" |
		awk '{ lines[NR] = $0 } END { print lines[NR]; for (i = 1; i < NR; i++) print lines[i] }'
}

# expect STATUS WORDS METHOD PATH [BODY [HEADER...]]: the answer has STATUS
# and its body holds WORDS.
expect() {
	local want=$1 words=$2 out status
	shift 2
	out=$(req "$@")
	status=$(head -n 1 <<<"$out")
	[[ $status == "$want" && $out == *"$words"* ]] || fail "$1 $2 answered $status ${out#*$'\n'}; want $want with \"$words\""
}

# wait_ready STATUS: /readyz answers STATUS within 30 s.
wait_ready() {
	local i
	for ((i = 0; i < 300; i++)); do
		[[ $(req GET /readyz | head -n 1) == "$1" ]] && return 0
		sleep 0.1
	done
	fail "/readyz did not answer $1 within 30 s"
}

fill() { dd if=/dev/zero of="$mnt/filler" bs=1M status=none 2>/dev/null || true; }

dynamo=("X-Amz-Target: DynamoDB_20120810.PutItem" "Content-Type: application/x-amz-json-1.0"
	"Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00")
json="Content-Type: application/json"
now=$(date +%s)000

serve
tt_log "diskfull: serving on a 128 MiB tmpfs at $TT_SERVE_ENDPOINT"
expect 201 SENSOR POST /api/v1/kinds '{"name":"SENSOR","fields":["temperature"]}' "$json"
expect 204 "" POST "/api/v1/kinds/SENSOR/readings?sync=true" "{\"readings\":[{\"series\":\"s1\",\"time\":$now,\"values\":{\"temperature\":1}}]}" "$json"

fill
tt_log "diskfull: disk filled: $(df -k "$mnt" | awk 'NR == 2 { print $4 }') KiB available"
wait_ready 503
expect 503 "no space left" GET /readyz
expect 507 insufficient_storage POST "/api/v1/kinds/SENSOR/readings" "{\"readings\":[{\"series\":\"s1\",\"time\":$((now + 1000)),\"values\":{\"temperature\":2}}]}" "$json"
expect 507 insufficient_storage POST "/write?db=x" "SENSOR,series=s1 temperature=3"
expect 503 ServiceUnavailable POST / '{"TableName":"timetable","Item":{"pk":{"S":"x"},"sk":{"S":"y"}}}' "${dynamo[@]}"

rm -f "$mnt/filler"
tt_log "diskfull: filler deleted"
wait_ready 200
expect 204 "" POST "/api/v1/kinds/SENSOR/readings?sync=true" "{\"readings\":[{\"series\":\"s1\",\"time\":$((now + 2000)),\"values\":{\"temperature\":4}}]}" "$json"
expect 200 "" POST / '{"TableName":"timetable","Item":{"pk":{"S":"x"},"sk":{"S":"y"}}}' "${dynamo[@]}"

# Acknowledged, then the disk fills again before a flush, then SIGTERM.
expect 204 "" POST "/api/v1/kinds/SENSOR/readings" "{\"readings\":[{\"series\":\"s1\",\"time\":$((now + 3000)),\"values\":{\"temperature\":5}}]}" "$json"
fill
wait_ready 503
start=$SECONDS
kill -TERM "$TT_SERVE_PID"
for ((i = 0; i < 200; i++)); do
	kill -0 "$TT_SERVE_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$TT_SERVE_PID" 2>/dev/null && fail "SIGTERM with the disk full did not end the process in 20 s"
tt_log "diskfull: SIGTERM with the disk full ended the process in $((SECONDS - start)) s"

rm -f "$mnt/filler"
serve
expect 200 '"temperature":5' GET /api/v1/kinds/SENSOR/series/s1/latest
out=$(req GET "/api/v1/kinds/SENSOR/series/s1/readings?from=$now")
for v in 1 4 5; do
	[[ $out == *"\"temperature\":$v"* ]] || fail "acknowledged reading $v lost after the restart: $out"
done
tt_log "diskfull: passed"
