#!/usr/bin/env bash
# Disk full mid-recording: a clear error, exit 1, and the file written so far is a
# valid perf.data that perf report reads.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

mkdir "$TMP/small"
mount -t tmpfs -o size=256k prof-it-full "$TMP/small" || skip "cannot mount a tmpfs"
cleanup_hooks+=("umount '$TMP/small'")
"$PROF_HOT" 10 >/dev/null &
cleanup_hooks+=("kill $! 2>/dev/null")
F=$TMP/small/full.data
"$PROF" record -a -g -o "$F" -d 5 >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ "$rc" -eq 1 ] || fail "exit $rc, want 1"
grep -q "No space left on device" "$TMP/err" || fail "no disk-full message"
perf_clean "$TMP/report" report -i "$F" --stdio --no-children --sort comm
grep -qE '^ +[0-9.]+% +prof-hot' "$TMP/report" || fail "the samples written before are not readable"
pass "disk full: $(head -n1 "$TMP/err")"
