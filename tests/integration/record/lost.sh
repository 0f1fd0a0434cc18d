#!/usr/bin/env bash
# Ring-buffer overflow: PERF_RECORD_LOST records reach the file, prof counts them
# exactly, and the summary warns.  Loss is forced, not hoped for: both CPUs busy,
# a one-page buffer at 20 kHz with call chains, and prof itself stopped (SIGSTOP)
# for half a second while the kernel keeps sampling, so the buffers must overflow.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

"$PROF_HOT" 8 >/dev/null &
cleanup_hooks+=("kill $! 2>/dev/null")
"$PROF_HOT" 8 >/dev/null &
cleanup_hooks+=("kill $! 2>/dev/null")
F=$TMP/lost.data
"$PROF" record -a -g -m 1 -F 20000 -o "$F" -d 3 2>"$TMP/err" &
prof=$!
cleanup_hooks+=("kill -CONT $prof 2>/dev/null; kill $prof 2>/dev/null")
# the header is written once the events are open: stop prof only then
for _ in $(seq 100); do [ -s "$F" ] && break; sleep 0.05; done
[ -s "$F" ] || fail "prof did not start recording: $(cat "$TMP/err")"
sleep 0.3
kill -STOP "$prof" || fail "SIGSTOP"
sleep 0.5
kill -CONT "$prof" || fail "SIGCONT"
wait "$prof" || fail "exit $?: $(cat "$TMP/err")"
cat "$TMP/err"
lost=$(sed -n 's/.* \([0-9]*\) lost, .*/\1/p' "$TMP/err")
[ -n "$lost" ] || fail "no lost count in the summary"
[ "$lost" -gt 0 ] || fail "nothing lost though prof was stopped for 0.5 s with 4 KiB buffers at 20 kHz"
grep -q "warning: $lost records lost" "$TMP/err" || fail "no warning for $lost lost records"
"$PERF" script -i "$F" --show-lost-events 2>/dev/null >"$TMP/script" || fail "perf script"
sum=$(awk '/PERF_RECORD_LOST lost/ { s += $NF } END { print s + 0 }' "$TMP/script")
[ "$sum" -eq "$lost" ] || fail "the file's LOST records sum to $sum, the summary says $lost"
samples=$(grep -c . "$TMP/script")
[ "$samples" -gt 100 ] || fail "only $samples lines in perf script: the recording itself failed"
pass "$lost lost records, all in the file and in the summary"
