#!/usr/bin/env bash
# --off-cpu under a CPU quota (20 ms every 100 ms): a hog waits ~80 % of its life,
# throttled, and prof counts that as offcpu-runq (runnable, waiting), never blocked,
# within 5 % of the kernel's run-queue delay (schedstat counts throttled time); the
# CPU's holder meanwhile is whoever ran there (idle on a quiet host; on this shared
# one, others' work), never "self".  The cgroup v2
# cpu controller where it is on,
# else the v1 cpu hierarchy (hybrid hosts); skips without either.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
: "${PROF_OFFCPU:?PROF_OFFCPU must name the prof-offcpu test program}"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"

root=$(cgroup2_root)
if [ -n "$root" ] && grep -qw cpu "$root/cgroup.subtree_control" 2>/dev/null; then
	Q=$root/prof-it-quota
	make_cgroup_tree "$Q"
	echo "20000 100000" >"$Q/cpu.max" || fail "cpu.max"
	throttled() { awk '/throttled_usec/ { print $2 * 1000 }' "$Q/cpu.stat"; }
elif [ -w /sys/fs/cgroup/cpu/cgroup.procs ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	Q=/sys/fs/cgroup/cpu/prof-it-quota
	mkdir -p "$Q" || fail "mkdir $Q"
	cleanup_hooks+=("for p in \$(cat $Q/cgroup.procs); do kill -KILL \$p; done; sleep 0.3; rmdir $Q")
	echo 100000 >"$Q/cpu.cfs_period_us" && echo 20000 >"$Q/cpu.cfs_quota_us" || fail "cfs quota"
	throttled() { awk '/throttled_time/ { print $2 }' "$Q/cpu.stat"; }
else
	skip "no cpu controller (cgroup v2 cpu.max or v1 cpu.cfs_quota_us)"
fi
CPU=$(($(nproc) - 1))

t0=$(throttled)
"$PROF" record --off-cpu -e cpu-clock -F 999 -o "$TMP/q.data" -- \
	sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c "$2" "$3" hog 3' sh "$Q" "$CPU" "$PROF_OFFCPU" \
	>"$TMP/truth" 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
t1=$(throttled)
note "$(tr '\n' ' ' <"$TMP/err")"
read -r _ exec wait life <"$TMP/truth" || fail "no ground truth: $(cat "$TMP/truth")"
perf_clean "$TMP/script" script -i "$TMP/q.data" -F period,event
runq=$(awk '$2 == "offcpu-runq:" { s += $1 } END { printf "%.0f", s }' "$TMP/script")
blocked=$(awk '$2 == "offcpu-blocked:" { s += $1 } END { printf "%.0f", s }' "$TMP/script")
pr=$(pct "$runq" "$life")
pk=$(pct "$wait" "$life")
note "lifetime $life ns, throttled $((t1 - t0)) ns; prof: runq $runq, blocked $blocked; schedstat: on $exec, wait $wait"
awk -v r="$runq" -v w="$wait" 'BEGIN { d = r - w; if (d < 0) d = -d; exit !(d <= 0.05 * w) }' ||
	fail "offcpu-runq $pr % of the life is not within 5 % of the kernel's run-queue delay $pk %"
awk -v p="$pr" 'BEGIN { exit !(p >= 75) }' || fail "offcpu-runq is $pr % of the life under a 20 % quota"
awk -v b="$blocked" -v l="$life" 'BEGIN { exit !(b <= 0.02 * l) }' || fail "the throttled hog was blocked $blocked ns"
pass "throttled at 20 %: offcpu-runq $pr % of the life (kernel: $pk %), blocked $(pct "$blocked" "$life") %"
"$PROF" report -i "$TMP/q.data" --event offcpu-runq --sort holder >"$TMP/rep" 2>&1 || fail "report: $(cat "$TMP/rep")"
# (no "self" at all: the hog is its scope's only task; the microsecond at a wait's
# end on a CPU whose runner before is not known is [unknown], never the waiting
# thread itself)
grep -qE "^ +[0-9.]+% .*self$" "$TMP/rep" && fail "a lone hog waited behind 'self': $(cat "$TMP/rep")"
pass "holders while throttled: $(grep -E '^ +[0-9.]+%' "$TMP/rep" | awk '{ printf "%s %s; ", $3, $1 }')"
