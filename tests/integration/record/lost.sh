#!/usr/bin/env bash
# Ring-buffer overflow: PERF_RECORD_LOST records reach the file, prof counts them
# exactly, and the summary warns.  (Forced with a one-page buffer at a high rate;
# skipped if this machine is fast enough to lose nothing.)
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

"$PROF_HOT" 6 >/dev/null &
cleanup_hooks+=("kill $! 2>/dev/null")
"$PROF_HOT" 6 >/dev/null &
cleanup_hooks+=("kill $! 2>/dev/null")
F=$TMP/lost.data
"$PROF" record -a -g -m 1 -F 20000 -o "$F" -d 2 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
cat "$TMP/err"
lost=$(sed -n 's/.* \([0-9]*\) lost, .*/\1/p' "$TMP/err")
[ -n "$lost" ] || fail "no lost count in the summary"
[ "$lost" -gt 0 ] || skip "nothing was lost at this rate on this machine"
grep -q "warning: $lost records lost" "$TMP/err" || fail "no warning for $lost lost records"
"$PERF" script -i "$F" --show-lost-events 2>/dev/null >"$TMP/script" || fail "perf script"
sum=$(awk '/PERF_RECORD_LOST lost/ { s += $NF } END { print s + 0 }' "$TMP/script")
[ "$sum" -eq "$lost" ] || fail "the file's LOST records sum to $sum, the summary says $lost"
pass "$lost lost records, all in the file and in the summary"
