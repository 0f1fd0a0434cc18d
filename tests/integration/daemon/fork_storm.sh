#!/usr/bin/env bash
# A fork storm with pid reuse: the daemon's memory stays flat (keys hold no pid, the
# live model forgets exited tasks, the dictionary drops what no bucket uses), and what
# it holds stays within memory_max.  A shorter run than bench/daemon's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
SECS=${PROF_STORM_SECS:-75}
profd_config "bucket = 2" "fine_span = 10" "history = 60" "frequency = 99" "memory_max = 8M"
start_profd

storm() {       # fork, exec and exit as fast as the shell goes, each time a new pid
	while [ ! -e "$TMP/stop" ]; do
		(:)
		/bin/true
		sh -c 'exec /bin/true'
	done
}
storm &
S1=$!
storm &
S2=$!
cleanup_hooks+=("touch $TMP/stop; kill $S1 $S2 2>/dev/null")
forks0=$(awk '/^processes/ { print $2 }' /proc/stat)
pid0=$(sh -c 'echo $$')
rss() { awk '/^VmRSS/ { print $2 }' /proc/"$PROFD_PID"/status; }
sleep 20        # warm-up: the first minute of history, the first compactions
rss_warm=$(rss)
tasks_warm=$(pstatus dict_items | awk '{ print $5 }')
max=$rss_warm
for _ in $(seq $(( (SECS - 20) / 5 ))); do
	sleep 5
	r=$(rss)
	[ "$r" -gt "$max" ] && max=$r
	[ "$(pstatus memory_bytes)" -le $((8 << 20)) ] || fail "history holds $(pstatus memory_bytes) bytes, over memory_max"
done
touch "$TMP/stop"
wait $S1 $S2
forks=$(( $(awk '/^processes/ { print $2 }' /proc/stat) - forks0 ))
pid_max=$(cat /proc/sys/kernel/pid_max)
[ "$forks" -gt "$pid_max" ] || note "only $forks forks for pid_max $pid_max: pids were not all reused"
rss_end=$(rss)
tasks_end=$(pstatus dict_items | awk '{ print $5 }')
note "forks $forks (pid_max $pid_max), RSS warm ${rss_warm} kB, max ${max} kB, end ${rss_end} kB; dictionary tasks $tasks_warm -> $tasks_end; samples $(pstatus samples), compactions $(pstatus compactions)"
# flat: within 15 % (and 3 MiB) of the warm RSS
[ "$max" -le $(( rss_warm * 115 / 100 + 3072 )) ] || fail "RSS grew from $rss_warm kB to $max kB in the storm"
# keys hold no pid: the storm's new processes add no dictionary task (a pid in the key
# would add one per sampled process, thousands here); dropping unused items is
# test_history's compaction case
[ "$tasks_end" -le $(( tasks_warm * 2 + 64 )) ] || fail "dictionary tasks grew from $tasks_warm to $tasks_end in the storm"
[ "$forks" -gt $(( tasks_end * 100 )) ] || fail "only $forks forks for $tasks_end dictionary tasks: the storm proves nothing"
[ "$(pstatus lost)" = 0 ] || note "the kernel lost $(pstatus lost) records in the storm"
"$PROF" report --daemon --socket "$SOCK" --since 30s --sort comm >"$TMP/out" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -qE ' (true|sh|bash) *$' "$TMP/out" || fail "the storm is not in the answer: $(head "$TMP/out")"
pass "fork storm of $forks forks over ${SECS} s: RSS ${rss_warm} -> max ${max} kB, history within memory_max"
stop_profd || fail "profd exited $? on SIGTERM"
