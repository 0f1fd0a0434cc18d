#!/usr/bin/env bash
# SIGINT and SIGTERM mid-run leave a complete file that perf report reads.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

"$PROF_HOT" 30 >/dev/null &
busy=$!
cleanup_hooks+=("kill $busy 2>/dev/null")

for sig in INT TERM; do
	F=$TMP/sig$sig.data
	"$PROF" record -a -o "$F" 2>"$TMP/err" &
	p=$!
	sleep 1.5
	kill -"$sig" "$p"
	wait "$p"
	rc=$?
	[ "$rc" -eq 0 ] || fail "SIG$sig without a workload: exit $rc, want 0: $(cat "$TMP/err")"
	grep -q 'samples written' "$TMP/err" || fail "SIG$sig: no summary"
	perf_clean "$TMP/report" report -i "$F" --stdio --no-children --sort comm
	grep -qE '^ +[0-9.]+% +prof-hot' "$TMP/report" || fail "SIG$sig: busy process missing from the file"
	pass "SIG$sig: valid file"
done

# With a workload, prof stops it and exits with the workload's status (128+15).
F=$TMP/sigwl.data
"$PROF" record -a -o "$F" -- sleep 60 2>"$TMP/err" &
p=$!
sleep 1.5
# The workload is prof's child: check that very process afterwards, not any "sleep 60"
# on the host (another test's, still dying on a loaded machine).
child=$(pgrep -P "$p")
[ -n "$child" ] || fail "no workload running under prof after 1.5 s"
kill -TERM "$p"
wait "$p"
rc=$?
[ "$rc" -eq 143 ] || fail "workload stopped by SIGTERM: exit $rc, want 143: $(cat "$TMP/err")"
perf_clean "$TMP/report" report -i "$F" --stdio
pass "SIGTERM with a workload: exit 143, valid file"
[ -d "/proc/$child" ] && fail "workload $child left running: $(cat "/proc/$child/stat")"
pass "workload stopped"
