#!/usr/bin/env bash
# --off-cpu under a CPU quota (20 ms every 100 ms): a hog waits ~80 % of its life,
# throttled, and prof counts that as offcpu-runq (runnable, waiting), never blocked,
# within 5 % of the kernel's run-queue delay (schedstat counts throttled time).  The
# wait while throttled is "idle"'s (nobody else kept the hog off: its quota was
# spent), within 5 points of its lifetime of the change in the cgroup's throttled
# time, and never "self".  Then again beside a neighbour: another user's hog pinned to
# the same CPU, outside the quota, running all along.  The hog's wait behind idle is
# still its throttled time (5 points), and the neighbour is charged only what the
# kernel says was contention: the wait less the throttled time (5 points of slack).
# The cgroup v2 cpu controller where it is on, else the v1 cpu hierarchy (hybrid
# hosts); skips without either.
. "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"
command -v python3 >/dev/null || skip "needs python3"
command -v runuser >/dev/null || skip "needs runuser"

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

# record NAME: the hog in the quota's cgroup, pinned to CPU, recorded with its
# ground truth (schedstat) and the cgroup's throttled time around it; sets life,
# exec, wait, thr (ns) and runq, blocked, idle (ns) and holders (the JSON rows).
record() {
	local t0 t1
	t0=$(throttled)
	"$PROF" record --off-cpu -e cpu-clock -F 999 -o "$TMP/$1.data" -- \
		sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c "$2" "$3" hog 3' sh "$Q" "$CPU" "$PROF_OFFCPU" \
		>"$TMP/$1.truth" 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
	t1=$(throttled)
	note "$(tr '\n' ' ' <"$TMP/err")"
	read -r _ exec wait life <"$TMP/$1.truth" || fail "no ground truth: $(cat "$TMP/$1.truth")"
	thr=$((t1 - t0))
	perf_clean "$TMP/script" script -i "$TMP/$1.data" -F period,event
	runq=$(awk '$2 == "offcpu-runq:" { s += $1 } END { printf "%.0f", s }' "$TMP/script")
	blocked=$(awk '$2 == "offcpu-blocked:" { s += $1 } END { printf "%.0f", s }' "$TMP/script")
	"$PROF" report -i "$TMP/$1.data" --event offcpu-runq --sort holder -F json >"$TMP/$1.json" 2>"$TMP/err" ||
		fail "report JSON: $(cat "$TMP/err")"
	python3 - "$TMP/$1.json" >"$TMP/$1.holders" <<'EOF' || fail "JSON: $(cat "$TMP/$1.holders")"
import json, sys
by = {}
for r in json.load(open(sys.argv[1]))["rows"]:
    by[r["holder"]] = by.get(r["holder"], 0) + r["period"]
for h, ns in sorted(by.items(), key=lambda x: -x[1]):
    print("%d\t%s" % (ns, h))
EOF
	idle=$(awk -F'\t' '$2 == "idle" { print $1 }' "$TMP/$1.holders")
	idle=${idle:-0}
	holders=$(awk -F'\t' -v l="$life" '{ printf "%s %.1f %%; ", $2, 100 * $1 / l }' "$TMP/$1.holders")
	note "$1: lifetime $life ns, throttled $thr ns ($(pct "$thr" "$life") %); prof: runq $runq, blocked $blocked," \
		"behind idle $idle ($(pct "$idle" "$life") %); schedstat: on $exec, wait $wait; holders: $holders"
}

# The hog alone on its CPU (or beside whatever of the host's runs there).
record q
pr=$(pct "$runq" "$life")
pk=$(pct "$wait" "$life")
awk -v r="$runq" -v w="$wait" 'BEGIN { d = r - w; if (d < 0) d = -d; exit !(d <= 0.05 * w) }' ||
	fail "offcpu-runq $pr % of the life is not within 5 % of the kernel's run-queue delay $pk %"
awk -v p="$pr" 'BEGIN { exit !(p >= 75) }' || fail "offcpu-runq is $pr % of the life under a 20 % quota"
awk -v b="$blocked" -v l="$life" 'BEGIN { exit !(b <= 0.02 * l) }' || fail "the throttled hog was blocked $blocked ns"
pass "throttled at 20 %: offcpu-runq $pr % of the life (kernel: $pk %), blocked $(pct "$blocked" "$life") %"
near "$(pct "$idle" "$life")" "$(pct "$thr" "$life")" 5 ||
	fail "the wait behind idle is $(pct "$idle" "$life") % of the life, the cgroup throttled $(pct "$thr" "$life") %"
pass "behind idle $(pct "$idle" "$life") % of the life, throttled $(pct "$thr" "$life") % (holders: $holders)"
# (no "self" at all: the hog is its scope's only task; the microsecond at a wait's
# end on a CPU whose runner before is not known is [unknown], never the waiting
# thread itself)
grep -qP '\tself$' "$TMP/q.holders" && fail "a lone hog waited behind 'self': $holders"

# Beside a neighbour: another user's hog on the same CPU all along, no quota.
N=prof-it-qnb
make_user "$N"
nbr=$(public_copy "$PROF_OFFCPU")
runuser -u "$N" -- taskset -c "$CPU" "$nbr" hog 6 >/dev/null &
sleep 0.3
pgrep -u "$N" >/dev/null || fail "the neighbour's hog did not start"
record n
wait
nb=$(awk -F'\t' -v n="$N" '$2 == n { s += $1 } END { printf "%.0f", s }' "$TMP/n.holders")
# the contention the kernel says there was: waiting while not throttled
cont=$((wait > thr ? wait - thr : 0))
near "$(pct "$idle" "$life")" "$(pct "$thr" "$life")" 5 ||
	fail "beside a neighbour: the wait behind idle is $(pct "$idle" "$life") % of the life," \
		"the cgroup throttled $(pct "$thr" "$life") % (holders: $holders)"
awk -v n="$nb" -v c="$cont" -v w="$wait" 'BEGIN { exit !(n <= c + 0.05 * w) }' ||
	fail "beside a neighbour: it is charged $(pct "$nb" "$wait") % of the wait, the kernel's contention is" \
		"$(pct "$cont" "$wait") % of it (throttled $(pct "$thr" "$wait") %)"
pass "beside a neighbour: throttled $(pct "$thr" "$life") %, behind idle $(pct "$idle" "$life") %, behind the" \
	"neighbour $(pct "$nb" "$life") % of the life (the kernel's contention $(pct "$cont" "$life") %)"
