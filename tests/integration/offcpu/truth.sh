#!/usr/bin/env bash
# --off-cpu against the kernel's own count, thread by thread: two never-sleeping hogs,
# two sleepers (spin 10 ms, sleep 30 ms) and a napper (spin 1 ms, sleep 2 ms: most of
# its run-queue wait comes after its wake-ups), threads of one process pinned to one
# CPU, each reading its /proc/thread-self/schedstat at its end (run_delay, field 2: the
# time it waited on a run queue, from its creation: after preemptions and after
# wake-ups).  With the wake-ups timed (sched:sched_wakeup, which root may open) every
# thread's offcpu-runq is its run_delay within 5 %, the sleepers' and the napper's
# too; without them (the summary says so) a sleeper's is never more than its
# run_delay, the wait after its wake-ups being inside its offcpu-blocked.  Each
# thread's on (cpu-clock) + runq + blocked is its life by its own clock within 2 %.
. "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"
CPU=$(($(nproc) - 1))

"$PROF" record --off-cpu -g -e cpu-clock -c 100000 -o "$TMP/t.data" -- \
	taskset -c "$CPU" "$PROF_OFFCPU" mix 3 >"$TMP/truth" 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
note "$(tr '\n' ' ' <"$TMP/err")"
[ "$(grep -c '^thread ' "$TMP/truth")" -eq 5 ] || fail "no ground truth from the 5 threads: $(cat "$TMP/truth")"
timed=1
if grep -q 'wake-ups could not be timed' "$TMP/err"; then
	timed=0
	note "wake-ups not timed here: sleepers' offcpu-runq checked as never more than their run_delay only"
else
	grep -q 'sleeps timed to their wake-up' "$TMP/err" || fail "the summary says nothing of the sleepers' wake-ups"
fi
perf_clean "$TMP/script" script -i "$TMP/t.data" -F tid,period,event
awk '{ gsub(":", "", $3); s[$1 " " $3] += $2 } END { for (k in s) printf "%s %.0f\n", k, s[k] }' "$TMP/script" >"$TMP/sums"
sum() { awk -v k="$1 $2" '$1 " " $2 == k { print $3 }' "$TMP/sums"; }
while read -r _ kind tid exec wait life; do
	on=$(sum "$tid" cpu-clock) runq=$(sum "$tid" offcpu-runq) blocked=$(sum "$tid" offcpu-blocked)
	on=${on:-0} runq=${runq:-0} blocked=${blocked:-0}
	note "$kind $tid: life $life; prof: on $on, runq $runq, blocked $blocked; schedstat: on $exec, run_delay $wait"
	[ "$runq" -gt 0 ] || fail "$kind $tid: no offcpu-runq, though 5 threads shared one CPU"
	if [ "$kind" = hog ] || [ "$timed" = 1 ]; then
		awk -v r="$runq" -v w="$wait" 'BEGIN { d = r - w; if (d < 0) d = -d; exit !(d <= 0.05 * w) }' ||
			fail "$kind $tid: offcpu-runq $runq ns is not within 5 % of its run_delay $wait ns"
		pass "$kind $tid: offcpu-runq $(pct "$runq" "$wait") % of its run_delay ($(pct "$wait" "$life") % of its life)"
	else
		# (1 ms: the run_delay is read a moment before the thread's last switch-out)
		awk -v r="$runq" -v w="$wait" 'BEGIN { exit !(r <= w + 1e6) }' ||
			fail "$kind $tid: offcpu-runq $runq ns is more than its run_delay $wait ns"
		pass "$kind $tid: offcpu-runq $(pct "$runq" "$wait") % of its run_delay; the rest ($(pct "$((wait - runq))" "$life") % of its life) waited after a wake-up, in offcpu-blocked"
	fi
	total=$(pct "$((on + runq + blocked))" "$life")
	awk -v t="$total" 'BEGIN { exit !(t >= 98 && t <= 102) }' ||
		fail "$kind $tid: on + runq + blocked is $total % of its life"
done < <(grep '^thread ' "$TMP/truth")
pass "each thread's on + runq + blocked within 2 % of its life"
