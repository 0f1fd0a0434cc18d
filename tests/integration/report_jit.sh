#!/usr/bin/env bash
# JIT code: samples in anonymous executable memory take their names from the
# process's /tmp/perf-PID.map.
. "$(dirname "$0")/lib.sh"
require_root

"$PROF" record -q -o "$TMP/jit.data" -- "$PROF_JIT" 1 >"$TMP/pid" || fail "record"
pid=$(cat "$TMP/pid")
cleanup_hooks+=("rm -f /tmp/perf-$pid.map")
"$PROF" report -i "$TMP/jit.data" --sort sym --top 1 >"$TMP/report" || fail "report"
grep -qE '^ +[0-9.]+% +[0-9]+ +\[\.\] jitted_spin$' "$TMP/report" || fail "JIT symbol not on top: $(cat "$TMP/report")"
pass "$(grep jitted_spin "$TMP/report")"
rm -f "/tmp/perf-$pid.map"
"$PROF" report -i "$TMP/jit.data" --sort sym --top 1 >"$TMP/report" || fail "report"
grep -q '\[unknown\] (//anon)' "$TMP/report" || fail "without the map the JIT code is not [unknown] (//anon): $(cat "$TMP/report")"
pass "without its map file: [unknown]"
