#!/usr/bin/env bash
# Issue 21: a container whose shell runs a loop of 30 ms processes of its own
# program, at a path where the host has another program (the decoy, functions
# decoy_*): the harness's Docker-like container (own mount, pid, uts namespaces,
# pivot_root), then podman's (runc) where podman runs.  Recorded with
# `prof record -g --container ID`.  Checks:
# - >= 95 % of the loop's samples named by their own functions by prof report and
#   by perf report of prof's file, none after the host's decoy;
# - the program stripped of its build id: prof cannot identify it, and no reader
#   names the decoy: its MMAP2s are written under /[mnt:INODE], which names the
#   container's mount namespace.
# Before issue 21: 0 of 14,369 named by prof report, 14,148 after the host's
# program by perf report.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"

container_root "$TMP/root"
R=$TMP/root
D=$CTR_DECOY_DIR
[ -n "$(ctr_build_id "$R$D/ctr-hot")" ] || skip "gcc writes no build ids here"
container_shell "$R"
chmod -R a+rX "$R" || fail "chmod $R"
export HOME=$TMP/home
mkdir -p "$HOME"
LOOP="while :; do $D/ctr-hot 0.03; done"

# A recording of container ID for 4 s; NAME.
record_ctr() {
	local name=$1 id=$2
	F=$TMP/$name.data
	"$PROF" record -g --container "$id" -e cpu-clock -F 1000 -o "$F" -d 4 2>"$TMP/$name.err" ||
		fail "$name: prof record: $(cat "$TMP/$name.err")"
	note "$name: $(grep -E '^prof: .*(objects|mappings)' "$TMP/$name.err" | tr '\n' ' ')"
	"$PROF" report -i "$F" -F json --sort comm,dso,sym >"$TMP/$name.json" 2>"$TMP/$name.rerr" ||
		fail "$name: prof report: $(cat "$TMP/$name.rerr")"
	perf_clean "$TMP/$name.perf" report -i "$F" --stdio --no-children -F sample,comm,dso,sym -g none -t '|'
}

# At least MIN % of the loop's samples named by each reader, none after the decoy.
check_loop() {
	local name=$1 min=$2 reader comm n right wrong dec unknown
	for reader in "prof-json $TMP/$name.json" "perf-report $TMP/$name.perf"; do
		read -r comm n right wrong dec unknown < <(python3 "$CTR_SHARE" comms $reader ctr-hot)
		[ "$n" -ge 1000 ] || fail "$name ${reader%% *}: the loop has $n samples"
		[ "$wrong" -eq 0 ] || fail "$name ${reader%% *}: $wrong of $n samples named wrong ($dec after the host's decoy)"
		[ $((right * 100)) -ge $((n * min)) ] || fail "$name ${reader%% *}: $right of $n named ($unknown unknown)"
		note "$name ${reader%% *}: $right of $n samples named, $unknown unknown, 0 wrong"
	done
}

# The same without a build id: unknown to every reader, under /[mnt:INODE].
check_unknown() {
	local name=$1 mnt=$2
	grep -qF "/[mnt:$mnt]$D/ctr-hot" <("$PERF" script -i "$F" --show-mmap-events 2>/dev/null) ||
		fail "$name: no MMAP2 under /[mnt:$mnt]: $("$PERF" script -i "$F" --show-mmap-events 2>/dev/null | grep ctr-hot | head -3)"
	check_loop "$name" 0
	grep -q decoy_ "$TMP/$name.perf" && fail "$name: perf report names the decoy: $(grep decoy_ "$TMP/$name.perf" | head -3)"
	"$PERF" script -i "$F" -F comm,ip,sym 2>/dev/null | grep -q decoy_ && fail "$name: perf script names the decoy"
	return 0
}

container_run --quiet "$R" docker -- /bin/sh -c "$LOOP"
record_ctr harness "$CTR_ID"
check_loop harness 95
pass "harness container, a loop of 30 ms processes: >= 95 % named by prof report and perf report, none after the decoy"
mnt=$(stat -Lc %i "/proc/$CTR_PID/ns/mnt")
container_stop

cp "$R$D/ctr-hot" "$TMP/ctr-hot.bid"
objcopy --remove-section .note.gnu.build-id "$R$D/ctr-hot" || fail "objcopy"
container_run --quiet "$R" docker -- /bin/sh -c "$LOOP"
mnt=$(stat -Lc %i "/proc/$CTR_PID/ns/mnt")
record_ctr harness-nobid "$CTR_ID"
check_unknown harness-nobid "$mnt"
pass "harness container, the program without a build id: under /[mnt:$mnt], no reader names the host's decoy"
container_stop
cp "$TMP/ctr-hot.bid" "$R$D/ctr-hot"

if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
	note "no podman or runc here: podman's container not tried"
	exit 0
fi
container_podman --quiet "$R" -- /bin/sh -c "$LOOP"
record_ctr podman "$CTR_ID"
check_loop podman 95
pass "podman container, a loop of 30 ms processes: >= 95 % named by prof report and perf report, none after the decoy"
container_stop
