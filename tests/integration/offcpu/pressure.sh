#!/usr/bin/env bash
# A cgroup scope's pressure over the recording (cpu.stat's throttling, PSI): quota.sh's
# cgroup (cpu.max 20000 100000, a hog pinned in it) recorded with --cgroup --off-cpu.
# The report's header says the throttled time, within 5 points of wall time of what
# this test reads from cpu.stat itself around the recording; its JSON has the same;
# prof's own offcpu-runq time behind "idle" is the throttled time within 5 points (the
# CPU idle while the hog was runnable only while throttled, and the throttled part of
# its wait charged to idle whoever ran on the CPU meanwhile).  The cgroup v2 cpu controller where it is on,
# else (a hybrid host) the v1 cpu hierarchy's cgroup of the same path beside the v2
# one, which prof reads when it holds the same processes; skips without either.
# The top header shows the same line; a file without the lines (older) still reads.
. "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"
command -v python3 >/dev/null || skip "needs python3"

root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup v2 mount"
Q=$root/prof-it-pressure
make_cgroup_tree "$Q"
if grep -qw cpu "$root/cgroup.subtree_control" 2>/dev/null; then
	echo "20000 100000" >"$Q/cpu.max" || fail "cpu.max"
	throttled() { awk '/throttled_usec/ { print $2 }' "$Q/cpu.stat"; }
	join() { echo "$1" >"$Q/cgroup.procs"; }
elif [ -w /sys/fs/cgroup/cpu/cgroup.procs ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	V=/sys/fs/cgroup/cpu/prof-it-pressure
	mkdir -p "$V" || fail "mkdir $V"
	cleanup_hooks+=("for p in \$(cat $V/cgroup.procs); do kill -KILL \$p; done; sleep 0.3; rmdir $V")
	echo 100000 >"$V/cpu.cfs_period_us" && echo 20000 >"$V/cpu.cfs_quota_us" || fail "cfs quota"
	throttled() { awk '/throttled_time/ { print int($2 / 1000) }' "$V/cpu.stat"; }
	join() { echo "$1" >"$Q/cgroup.procs" && echo "$1" >"$V/cgroup.procs"; }
	note "hybrid host: the v1 cpu cgroup $V beside $Q"
else
	skip "no cpu controller (cgroup v2 cpu.max or v1 cpu.cfs_quota_us)"
fi
CPU=$(($(nproc) - 1))
now_us() { echo $(($(date +%s%N) / 1000)); }

taskset -c "$CPU" "$PROF_OFFCPU" hog 6 >/dev/null &
hog=$!
join "$hog" || fail "the hog did not join the cgroup"
sleep 0.5
t0=$(throttled); w0=$(now_us)
"$PROF" record --off-cpu -e cpu-clock -F 999 --cgroup /prof-it-pressure -d 3 -o "$TMP/p.data" 2>"$TMP/rec" ||
	fail "record: $(cat "$TMP/rec")"
t1=$(throttled); w1=$(now_us)
note "$(tr '\n' ' ' <"$TMP/rec")"
mine=$(awk -v t=$((t1 - t0)) -v w=$((w1 - w0)) 'BEGIN { printf "%.1f", 100 * t / w }')
note "this test's own reading: throttled $(((t1 - t0) / 1000)) ms of $(((w1 - w0) / 1000)) ms ($mine %)"
grep -q "cgroup /prof-it-pressure over" "$TMP/rec" || fail "record's summary has no pressure line: $(cat "$TMP/rec")"

"$PROF" report -i "$TMP/p.data" >"$TMP/rep" 2>&1 || fail "report: $(cat "$TMP/rep")"
hdr=$(grep '^# cgroup /prof-it-pressure over' "$TMP/rep") || fail "no pressure line in the header: $(head -12 "$TMP/rep")"
note "header: $hdr"
read -r ms wall < <(echo "$hdr" | sed -nE 's/.* over ([0-9.]+) s: cpu.stat: throttled ([0-9]+) ms in .*/\2 \1/p')
[ -n "$ms" ] || fail "the header says no throttling: $hdr"
theirs=$(awk -v m="$ms" -v w="$wall" 'BEGIN { printf "%.1f", 100 * m / (1000 * w) }')
awk -v a="$theirs" -v b="$mine" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 5) }' ||
	fail "the header's throttled time is $theirs % of its wall time, cpu.stat's around it $mine %"
pass "header: throttled $theirs % of the recording, cpu.stat read by the test $mine %"
if [ -r /proc/pressure/cpu ]; then
	echo "$hdr" | grep -qE 'pressure cpu some [0-9.]+% full [0-9.]+%, io some [0-9.]+%' ||
		fail "PSI is on, the header has no pressure: $hdr"
	pass "PSI in the header"
fi

"$PROF" report -i "$TMP/p.data" --event offcpu-runq --sort holder -F json >"$TMP/r.json" 2>"$TMP/err" ||
	fail "report JSON: $(cat "$TMP/err")"
python3 - "$TMP/r.json" <<'EOF' >"$TMP/check" || fail "JSON: $(cat "$TMP/check")"
import json, re, sys
doc = json.load(open(sys.argv[1]))
p = [x for x in doc.get("pressure", []) if x["cgroup"] == "/prof-it-pressure"]
if not p or "throttled_usec" not in p[0] or "wall_ns" not in p[0]:
    sys.exit("no pressure for the cgroup in the JSON: %s" % doc.get("pressure"))
p = p[0]
rows = doc["rows"]
idle = sum(r["period"] for r in rows if r["holder"] == "idle")
runq = sum(r["period"] for r in rows)
print(p["throttled_usec"] * 1000, p["wall_ns"], idle, runq)
EOF
read -r thr wall_ns idle runq <"$TMP/check"
nostack=$(sed -nE 's/.*\(([0-9.]+) s\) without their switch-out stack.*/\1/p' "$TMP/rec" | head -1)
note "JSON: throttled $thr ns of $wall_ns; offcpu-runq $runq ns, behind idle $idle ns; without a stack ${nostack:-0} s"
# idle while runnable happens only while throttled: never more than it (5 points of slack)
awk -v i="$idle" -v t="$thr" -v w="$wall_ns" 'BEGIN { exit !(i <= t + 0.05 * w) }' ||
	fail "prof's wait behind idle ($idle ns) is more than the throttled time ($thr ns)"
# and a throttled runnable hog waits: prof's runq covers the throttled time (less what
# it could not write: intervals without their stack)
awk -v r="$runq" -v n="${nostack:-0}" -v t="$thr" -v w="$wall_ns" 'BEGIN { exit !(r + n * 1e9 >= t - 0.05 * w) }' ||
	fail "prof's offcpu-runq ($runq ns) is short of the throttled time ($thr ns)"
ip=$(awk -v i="$idle" -v w="$wall_ns" 'BEGIN { printf "%.1f", 100 * i / w }')
tp=$(awk -v t="$thr" -v w="$wall_ns" 'BEGIN { printf "%.1f", 100 * t / w }')
# and the throttled part of the wait is idle's whoever ran on the CPU meanwhile (the
# cgroup's own quota kept it off, nobody else): within 5 points, quiet CPU or busy
awk -v a="$ip" -v b="$tp" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 5) }' ||
	fail "the wait behind idle is $ip % of the wall, throttled $tp % ($(uptime))"
pass "the wait behind idle $ip % of the recording, throttled $tp %"

# prof top's header: the same line, per refresh
"$PROF" top --cgroup /prof-it-pressure --stdio -d 1 -n 1 >"$TMP/top" 2>&1 || fail "top: $(cat "$TMP/top")"
grep -qE '^cgroup /prof-it-pressure: cpu.stat: throttled [0-9]+ ms in' "$TMP/top" ||
	fail "top's header has no pressure: $(head -5 "$TMP/top")"
pass "top: $(grep '^cgroup /prof-it-pressure' "$TMP/top")"
kill "$hog" 2>/dev/null
wait
