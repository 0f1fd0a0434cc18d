#!/usr/bin/env bash
# JIT code: samples in anonymous executable memory take their names from the
# process's /tmp/perf-PID.map, when the process's own user, the reader or root wrote
# it: anyone can create /tmp/perf-PID.map for any pid.
. "$(dirname "$0")/../lib.sh"
require_root

"$PROF" record -q -o "$TMP/jit.data" -- "$PROF_JIT" 1 >"$TMP/pid" || fail "record"
pid=$(cat "$TMP/pid")
map=/tmp/perf-$pid.map
cleanup_hooks+=("rm -f $map")
"$PROF" report -i "$TMP/jit.data" --sort sym --top 1 >"$TMP/report" || fail "report"
grep -qE '^ +[0-9.]+% +[0-9]+ +\[\.\] jitted_spin$' "$TMP/report" || fail "JIT symbol not on top: $(cat "$TMP/report")"
pass "$(grep jitted_spin "$TMP/report")"

# Another user's file for root's process: even root (who may read it) ignores it, and
# says so.
U=prof-it-jit
make_user "$U"
sed -i 's/jitted_spin/planted_by_tenant/' "$map" || fail "rewrite $map"
chown "$U" "$map" || fail "chown"
"$PROF" report -i "$TMP/jit.data" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -q planted_by_tenant "$TMP/report" && fail "root trusted $U's $map: $(cat "$TMP/report")"
grep -q '\[unknown\] (//anon)' "$TMP/report" || fail "the JIT code is not [unknown] (//anon): $(cat "$TMP/report")"
grep -q "warning: ignored 1 untrusted JIT map file: $map: owned by uid $(id -u "$U")" "$TMP/err" ||
	fail "no warning naming $map: $(cat "$TMP/err")"
pass "$U's map for root's process ignored: $(cat "$TMP/err")"

rm -f "$map"
"$PROF" report -i "$TMP/jit.data" --sort sym --top 1 >"$TMP/report" || fail "report"
grep -q '\[unknown\] (//anon)' "$TMP/report" || fail "without the map the JIT code is not [unknown] (//anon): $(cat "$TMP/report")"
pass "without its map file: [unknown]"

# The process's own user's file is trusted by root's report: the recording says
# whose the process was.
jit=$(public_copy "$PROF_JIT")
"$PROF" record -q --uid "$U" -o "$TMP/user.data" -- "$jit" 1 >"$TMP/pid" || fail "record as $U"
map=/tmp/perf-$(cat "$TMP/pid").map
cleanup_hooks+=("rm -f $map")
[ "$(stat -c %U "$map")" = "$U" ] || fail "$map is not $U's"
"$PROF" report -i "$TMP/user.data" --sort sym --top 1 >"$TMP/report" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -qE '\[\.\] jitted_spin$' "$TMP/report" || fail "$U's own map not used: $(cat "$TMP/report") $(cat "$TMP/err")"
[ -s "$TMP/err" ] && fail "a warning for a trusted map: $(cat "$TMP/err")"
pass "$U's own map for $U's process: $(grep jitted_spin "$TMP/report")"
