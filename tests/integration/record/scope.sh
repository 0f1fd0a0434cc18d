#!/usr/bin/env bash
# Without -a the scope is the workload's process tree: a busy process outside it
# leaves no sample, comm or map in the file.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

cp "$PROF_HOT" "$TMP/outsider"
"$TMP/outsider" 30 >/dev/null &
out=$!
cleanup_hooks+=("kill $out 2>/dev/null")
sleep 0.3

F=$TMP/scope.data
"$PROF" record -o "$F" -- "$PROF_HOT" 2 fork 2>"$TMP/err" || fail "prof record exited $?: $(cat "$TMP/err")"
grep -qE 'samples written, [1-9][0-9]* outside scope' "$TMP/err" || fail "summary does not count out-of-scope samples: $(cat "$TMP/err")"
perf_clean "$TMP/script" script -i "$F" -F comm,pid,tid,ip,sym
grep -q outsider "$TMP/script" && fail "the outsider's samples are in the file"
grep -qE "^ *[^ ]+ +$out[ /]" "$TMP/script" && fail "a sample with the outsider's pid is in the file"
perf_clean "$TMP/raw" script -i "$F" --show-task-events --show-mmap-events
grep -q outsider "$TMP/raw" && fail "the outsider's comm or maps are in the file"
grep -q prof-child "$TMP/script" || fail "the workload's child is missing"
pass "only the workload tree: $(cut -c1-20 "$TMP/script" | awk '{print $1}' | sort | uniq -c | tr '\n' ' ')"
