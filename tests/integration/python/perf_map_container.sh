#!/usr/bin/env bash
# Issue 22 item 7: a JIT in a container (prof-jit: code in anonymous executable
# memory, described in /tmp/perf-PID.map by the pid it sees, its pid namespace's,
# in the container's /tmp) is named by prof report: prof record copies the map
# through the container's held root into the file (synth/perf_maps.h) at the
# process's exit or at the end of the recording, so the report needs neither the
# process, nor the container, nor its /tmp.  A map the process's user or root does
# not own is not copied, and counted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root

# A root with prof-jit and what it links.
jit_root() {
	local dir=$1 path
	mkdir -p "$dir/app" "$dir/proc" "$dir/sys" "$dir/dev" "$dir/run" "$dir/tmp" "$dir/etc" || fail "mkdir in $dir"
	chmod 1777 "$dir/tmp"
	echo ctr >"$dir/etc/hostname"
	cp "$PROF_JIT" "$dir/app/prof-jit" || fail "copy prof-jit"
	while read -r _ _ path _; do
		case $path in /*) ctr_copy_object "$dir" "$path" ;; esac
	done < <(ldd "$PROF_JIT")
	path=$(ldd "$PROF_JIT" | grep -o '^[[:space:]]*/[^ ]*ld-linux[^ ]*' | tr -d '[:space:]')
	[ -n "$path" ] && ctr_copy_object "$dir" "$path"
	chmod -R a+rX "$dir"
}

# The JIT's map in the container's /tmp: "$R/tmp/perf-NSPID.map" (waits for it).
jit_map() {
	local r=$1 nspid i
	nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$CTR_PID/status")
	for ((i = 0; i < 200; i++)); do
		[ -s "$r/tmp/perf-$nspid.map" ] && break
		sleep 0.01
	done
	[ -s "$r/tmp/perf-$nspid.map" ] || fail "the JIT wrote no $r/tmp/perf-$nspid.map: $(ls "$r/tmp")"
	[ ! -e "/tmp/perf-$CTR_PID.map" ] || skip "the host has /tmp/perf-$CTR_PID.map"
	echo "$r/tmp/perf-$nspid.map"
}

# REPORT NAME: the top symbol of the report is NAME.
top_is() {
	grep -qE '^ +[0-9.]+% +[0-9]+ +\[\.\] '"$2"'$' "$1"
}

# 1. Alive through the recording: its map is copied at the end.
R=$TMP/root
jit_root "$R"
container_run "$R" docker -- /app/prof-jit 30
map=$(jit_map "$R")
F=$TMP/jit.data
"$PROF" record --container "$CTR_ID" -g -d 2 -o "$F" 2>"$TMP/summary" >/dev/null || fail "prof record: $(tail -3 "$TMP/summary")"
grep -q 'perf maps (/tmp/perf-PID.map) of processes in containers or chroots: 1 copied into the file' "$TMP/summary" ||
	fail "the summary does not say the map was copied: $(cat "$TMP/summary")"
"$PROF" report -i "$F" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
note "$(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
top_is "$TMP/report" jitted_spin ||
	fail "the container's JIT code is not named by its $map: $(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
pass "the container's perf map names its JIT code"

# 1b. A decoy: the host's /tmp/perf-<host pid>.map (root's, so trusted there) naming
# the same addresses otherwise: the copy in the file names the process's code, never
# the host's file of its host pid.
decoy=/tmp/perf-$CTR_PID.map
sed -E 's/^([0-9a-fA-Fx]+ [0-9a-fA-Fx]+) .*/\1 host_decoy/' "$map" >"$decoy" || fail "write $decoy"
cleanup_hooks+=("rm -f '$decoy'")
"$PROF" report -i "$F" --sort sym --top 1 >"$TMP/report.decoy" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
! grep -q host_decoy "$TMP/report.decoy" || fail "the host's $decoy named the container's code: $(grep host_decoy "$TMP/report.decoy")"
top_is "$TMP/report.decoy" jitted_spin || fail "with a host decoy map, not named: $(grep -E '^ +[0-9.]+%' "$TMP/report.decoy" | head -1)"
rm -f "$decoy"
pass "a host map of the same pid (a decoy) does not name it"

# 2. The container gone, its /tmp emptied: the file's copy still names it.
container_stop
rm -f "$map"
"$PROF" report -i "$F" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
top_is "$TMP/report" jitted_spin ||
	fail "once the container is gone, its JIT code is not named: $(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
pass "the container and its map gone: still named from the file"

# 3. The process (the container's pid 1: the whole container) exits during the
# recording: its map is copied at its exit, through the root prof holds.
R2=$TMP/root2
jit_root "$R2"
container_run "$R2" docker -- /app/prof-jit 1.5
map=$(jit_map "$R2")
F=$TMP/exit.data
"$PROF" record --container "$CTR_ID" -g -d 3 -o "$F" 2>"$TMP/summary" >/dev/null || fail "prof record: $(tail -3 "$TMP/summary")"
container_wait || true
kill -0 "$CTR_PID" 2>/dev/null && fail "the JIT still runs after the recording"
grep -q 'of processes in containers or chroots: 1 copied into the file' "$TMP/summary" ||
	fail "the map of a process that exited while recorded was not copied: $(cat "$TMP/summary")"
rm -f "$map"
"$PROF" report -i "$F" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
top_is "$TMP/report" jitted_spin ||
	fail "a JIT that exited while recorded is not named: $(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
pass "a container that exited during the recording: named from the copy made at its exit"

# 4. A map owned by another user than the process's (root) or root: not copied,
# counted, and the code stays [unknown].
U=prof-it-pmap
make_user "$U"
R3=$TMP/root3
jit_root "$R3"
container_run "$R3" docker -- /app/prof-jit 30
map=$(jit_map "$R3")
sed -i 's/jitted_spin/planted_by_tenant/' "$map" || fail "rewrite $map"
chown "$U" "$map" || fail "chown $map"
F=$TMP/planted.data
"$PROF" record --container "$CTR_ID" -g -d 1 -o "$F" 2>"$TMP/summary" >/dev/null || fail "prof record: $(tail -3 "$TMP/summary")"
grep -q 'of processes in containers or chroots: 0 copied into the file ([^)]*); not copied: 1 not owned by their process.s user or root' "$TMP/summary" ||
	fail "a map owned by $U was not counted as not owned: $(cat "$TMP/summary")"
"$PROF" report -i "$F" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
grep -q planted_by_tenant "$TMP/report" && fail "$U's map named root's process: $(cat "$TMP/report")"
top_is "$TMP/report" '\[unknown\] \(anon\)' || top_is "$TMP/report" '\[unknown\] \(//anon\)' ||
	fail "the JIT code is not [unknown]: $(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
pass "$U's map for root's process in a container: not copied, counted"
container_stop
