#!/usr/bin/env bash
# --pid: the process, its threads and descendants (forked during the run or before).
. "$(dirname "$0")/lib.sh"
require_root
require_perf

cp "$PROF_HOT" "$TMP/outsider"
"$TMP/outsider" 6 >/dev/null &
out=$!
cleanup_hooks+=("kill $out 2>/dev/null")
bash -c "\"$PROF_HOT\" 6 fork & wait" &
target=$!
cleanup_hooks+=("kill $target 2>/dev/null")
sleep 0.3
F=$TMP/pid.data
"$PROF" record --pid "$target" -o "$F" -d 3 2>"$TMP/err" || fail "prof record exited $?: $(cat "$TMP/err")"
cat "$TMP/err"
perf_clean "$TMP/script" script -i "$F" -F comm,pid
awk '{print $1}' "$TMP/script" | sort | uniq -c
grep -q outsider "$TMP/script" && fail "outsider in the file"
grep -q '^ *prof-hot ' "$TMP/script" || fail "the pre-existing descendant is missing"
grep -q '^ *prof-child ' "$TMP/script" || fail "the child forked mid-run is missing"
pass "process tree only"
