#!/usr/bin/env bash
# Issue 22 item 7, a known defect measured (tests/integration/meson.build,
# expected_failures): a JIT in a container (prof-jit: code in anonymous executable
# memory, described in /tmp/perf-PID.map by the pid it sees, its pid namespace's,
# in the container's /tmp) is not named: prof report looks for the host's
# /tmp/perf-<host pid>.map after the recording.  Passes once the container's map is
# reached during the recording (docs/DESIGN.md, "Python frames": not done yet).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
container_root "$TMP/root"
R=$TMP/root
cp "$PROF_JIT" "$R/app/prof-jit" || fail "copy prof-jit"
while read -r _ _ path _; do
	case $path in /*) ctr_copy_object "$R" "$path" ;; esac
done < <(ldd "$PROF_JIT")
container_run "$R" docker -- /app/prof-jit 8
sleep 0.5
nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$CTR_PID/status")
[ -f "$R/tmp/perf-$nspid.map" ] || fail "the JIT wrote no $R/tmp/perf-$nspid.map: $(ls "$R/tmp")"
[ ! -e "/tmp/perf-$CTR_PID.map" ] || skip "the host has /tmp/perf-$CTR_PID.map"
F=$TMP/jit.data
"$PROF" record --container "$CTR_ID" -g -d 2 -o "$F" 2>"$TMP/summary" >/dev/null || fail "prof record: $(tail -3 "$TMP/summary")"
cat "$TMP/summary" >&2; cp "$F" /tmp/h6/jit.data
"$PROF" report -i "$F" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
note "$(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
grep -qE '^ +[0-9.]+% +[0-9]+ +\[\.\] jitted_spin$' "$TMP/report" ||
	fail "the container's JIT code is not named by its /tmp/perf-$nspid.map: $(grep -E '^ +[0-9.]+%' "$TMP/report" | head -1)"
pass "the container's perf map names its JIT code"
