#!/usr/bin/env bash
# profd with [daemon] off_cpu = yes: a tenant's CPU hog pinned (taskset) to one CPU
# beside two hogs of another user waits ~2/3 of its life, and profd's history says
# so long after: the tenant's `prof report --daemon --sort holder` shows the hog's
# offcpu-runq within 5 points of the kernel's own run-queue wait
# (/proc/.../schedstat), behind 'other tenants' (>= 95 %), and root's names the
# other user.  Neither user's answer holds the other's name, uid or commands.  The
# history survives a restart: the same window answers the same runq time after it.
# With off_cpu_sample = 2 (the switch event's period: a switch-out stack in 2) every
# interval is still timed: the same 5 points, about half of them without a stack.
# Those two run with off_cpu_window = 0 (every switch, always).  With windows
# (off_cpu_window = 1, off_cpu_period = 3: the switch records on 1 s in 3) the
# tenant's answer over whole seconds of her hog's life says it measured about a third
# of them, and her hog's runq over those seconds is the kernel's run-queue share of
# its life within the same 5 points; status counts the windows and the intervals cut
# at their ends.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
: "${PROF_OFFCPU:?PROF_OFFCPU must name the prof-offcpu test program}"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"
command -v python3 >/dev/null || skip "needs python3"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the hogs take one)"
CPU=$(($(nproc) - 1))

A=prof-it-pdoa
B=prof-it-pdob
make_user "$A"
make_user "$B"
uid_a=$(id -u "$A")
uid_b=$(id -u "$B")
public_prof
mine=$(public_named "$PROF_OFFCPU" tenant-hog)
theirs=$(public_named "$PROF_OFFCPU" nbr-hog)

profd_config "bucket = 2" "fine_span = 10" "off_cpu = yes" "off_cpu_window = 0"
start_profd
[ "$(pstatus off_cpu)" = 1 ] || fail "profd's status says off_cpu '$(pstatus off_cpu)' with off_cpu = yes"


# the neighbour's two hogs on the CPU, for longer than the tenant's, in a cgroup of
# their own (root's answer names it as the holder's)
root_cg=$(cgroup2_root)
[ -n "$root_cg" ] || skip "no cgroup2"
CG=$root_cg/prof-it-pdo.$$
make_cgroup_tree "$CG"
mkdir "$CG/nbr" || fail "mkdir $CG/nbr"
cg_b=${CG#$root_cg}/nbr
run_in "$CG/nbr" "$B" taskset -c "$CPU" "$theirs" hog 6 >"$TMP/b1" &
b1=$!
run_in "$CG/nbr" "$B" taskset -c "$CPU" "$theirs" hog 6 >"$TMP/b2" &
b2=$!
sleep 0.3
runuser -u "$A" -- taskset -c "$CPU" "$mine" hog 4 >"$TMP/truth" || fail "the tenant's hog failed"
wait "$b1" "$b2"        # (not profd)
read -r _ exec wait life <"$TMP/truth" || fail "no ground truth: $(cat "$TMP/truth")"
pk=$(pct "$wait" "$life")
note "the tenant's hog: lifetime $life ns, schedstat on $exec ns, run-queue $wait ns ($pk %)"
sleep 4         # its buckets close (2 s coarse, 250 ms slack)

# rows of offcpu-runq by holder, in one's own answer: "holder period" per line
holders() {
	python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc.get("events", [doc]):
    if e.get("event", "") != "offcpu-runq":
        continue
    for r in e["rows"]:
        print(r["holder"].replace(" ", "_"), r["period"])
' "$1"
}
ask() {         # ask USER FILE ARGS...: prof report --daemon of the last 2 minutes (or --from ...) as USER
	local u=$1 out=$2 since="--since 120s"
	shift 2
	[ "${1:-}" = --from ] && since=""
	if [ "$u" = root ]; then
		"$PROF" report --daemon --socket "$SOCK" $since "$@" >"$out" 2>"$TMP/err"
	else
		as_user "$u" "$PUB_PROF" report --daemon --socket "$SOCK" $since "$@" >"$out" 2>"$TMP/err"
	fi || fail "prof report --daemon as $u $*: $(cat "$TMP/err")"
}

# ---- the tenant: her hog's wait, behind "other tenants" ---------------------------
ask "$A" "$TMP/a.json" --comm tenant-hog --sort holder -F json
holders "$TMP/a.json" >"$TMP/a.rows"
runq=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$TMP/a.rows")
others=$(awk '$1 == "other_tenants" { s += $2 } END { printf "%.0f\n", s }' "$TMP/a.rows")
[ "$runq" -gt 0 ] || fail "tenant: no offcpu-runq in her answer: $(head -c 2000 "$TMP/a.json")"
pr=$(pct "$runq" "$life")
note "tenant: runq $runq ns ($pr % of the hog's life), behind other tenants $others ns; rows: $(tr '\n' ' ' <"$TMP/a.rows")"
near "$pr" "$pk" 5 || fail "tenant: offcpu-runq is $pr % of the hog's life, the kernel's run-queue wait $pk %"
if near "$pk" 66.7 5; then
	near "$pr" 66.7 5 || fail "tenant: offcpu-runq is $pr % of the hog's life, not 2/3 +- 5 points"
else
	note "the host was busy: the kernel's run-queue wait is $pk % of the life, not 2/3 ($(uptime))"
fi
bad=$(awk '$1 !~ /^(self|other_tenants|system|idle|\[unknown\])$/' "$TMP/a.rows")
[ -z "$bad" ] || fail "tenant: holders named in her answer: $bad"
share=$(pct "$others" "$runq")
awk -v s="$share" 'BEGIN { exit !(s >= 95) }' || fail "tenant: other tenants held the CPU $share % of her wait, not >= 95"
pass "tenant: her hog waited $pr % of its life (the kernel: $pk %), behind 'other tenants' for $share %"

# the text: the summary line of her time, and the table by holder
ask "$A" "$TMP/a.txt" --comm tenant-hog --sort holder
grep -q "^# off-CPU time per user" "$TMP/a.txt" || fail "tenant: no off-CPU summary: $(head -20 "$TMP/a.txt")"
grep -E "^#   $A +on .* runq .* blocked" "$TMP/a.txt" >/dev/null || fail "tenant: no summary line of hers: $(head -20 "$TMP/a.txt")"
grep -q "other tenants" "$TMP/a.txt" || fail "tenant: the text names no 'other tenants': $(cat "$TMP/a.txt")"
pass "tenant: the text report sums her time up: $(grep -E "^#   $A " "$TMP/a.txt" | tr -s ' ')"

# ---- root: the neighbour by name ---------------------------------------------------
ask root "$TMP/r.json" --uid "$A" --comm tenant-hog --sort holder -F json
holders "$TMP/r.json" >"$TMP/r.rows"
rr=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$TMP/r.rows")
rb=$(awk -v b="$B" '$1 == b { s += $2 } END { printf "%.0f\n", s }' "$TMP/r.rows")
[ "$rr" = "$runq" ] || fail "root sees $rr ns of the tenant's runq, she $runq"
ro=$(awk -v b="$B" -v a="$A" '$1 != b && $1 != a && $1 !~ /^(self|idle|\[unknown\])$/ { s += $2 } END { printf "%.0f\n", s }' "$TMP/r.rows")
share=$(pct "$rb" "$rr")
oshare=$(pct "$ro" "$rr")
if near "$pk" 66.7 1; then
	awk -v s="$share" 'BEGIN { exit !(s >= 95) }' || fail "root: $B held the CPU $share % of the wait: $(cat "$TMP/r.rows")"
	pass "root: the tenant's hog waited behind $B for $share % of its wait"
else
	# others' work shared the CPU (this host is shared): theirs by name, never self or idle
	awk -v s="$share" -v o="$oshare" 'BEGIN { exit !(s >= 30 && s + o >= 95) }' ||
		fail "root: $B held the CPU $share % of the wait, other users $oshare %: $(cat "$TMP/r.rows")"
	pass "root: the tenant's hog waited behind $B for $share % of its wait, the busy host's other users $oshare %"
fi

# root's rows by the holder's cgroup: the neighbour's hogs' own
ask root "$TMP/rc.json" --uid "$A" --comm tenant-hog --sort holder_cgroup -F json
python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc.get("events", [doc]):
    if e.get("event", "") == "offcpu-runq":
        for r in e["rows"]:
            print(r["holder_cgroup"].replace(" ", "_") or "-", r["period"])
' "$TMP/rc.json" >"$TMP/rc.rows" || fail "root: no rows by holder_cgroup: $(head -c 2000 "$TMP/rc.json")"
rc=$(awk -v c="$cg_b" '$1 == c { s += $2 } END { printf "%.0f\n", s }' "$TMP/rc.rows")
note "root by holder_cgroup (the neighbour's: $cg_b): $(tr '\n' ' ' <"$TMP/rc.rows")"
awk -v c="$rc" -v b="$rb" 'BEGIN { exit !(c >= 0.99 * b && c <= 1.01 * b) }' ||
	fail "root: the neighbour's cgroup $cg_b held the CPU $rc ns of the wait, the neighbour by user $rb ns"
pass "root: the tenant's hog waited $(pct "$rc" "$rr") % of its wait behind the neighbour's cgroup $cg_b (holder_cgroup)"
if as_user "$A" "$PUB_PROF" report --daemon --socket "$SOCK" --since 120s --sort holder_cgroup >"$TMP/a-cg" 2>"$TMP/err"; then
	fail "tenant: --sort holder_cgroup answered her: $(head -5 "$TMP/a-cg")"
fi
grep -q "root and the admin group only" "$TMP/err" || fail "tenant: --sort holder_cgroup refused without saying why: $(cat "$TMP/err")"
pass "tenant: the holders' cgroups are refused to her ($(head -c 120 "$TMP/err"))"

# ---- each sees only themselves ----------------------------------------------------
ask "$A" "$TMP/a-all.json" --sort uid,comm,holder -F json
ask "$A" "$TMP/a-all.txt" --sort uid,comm,holder
ask "$B" "$TMP/b-all.json" --sort uid,comm,holder -F json
ask "$B" "$TMP/b-all.txt" --sort uid,comm,holder
for f in "$TMP/a-all.json" "$TMP/a-all.txt"; do
	for s in "$B" nbr-hog "uid $uid_b"; do
		grep -q -- "$s" "$f" && fail "the tenant's answer holds '$s': $(grep -- "$s" "$f" | head -3)"
	done
	python3 -c '
import json, sys
if sys.argv[1].endswith(".json"):
    doc = json.load(open(sys.argv[1]))
    for e in doc.get("events", [doc]):
        for r in e["rows"]:
            if r.get("uid") not in (None, int(sys.argv[2])):
                sys.exit("a row of uid %s" % r.get("uid"))
' "$f" "$uid_a" || fail "the tenant's answer: $(head -c 2000 "$f")"
done
for f in "$TMP/b-all.json" "$TMP/b-all.txt"; do
	for s in "$A" tenant-hog "uid $uid_a"; do
		grep -q -- "$s" "$f" && fail "the neighbour's answer holds '$s': $(grep -- "$s" "$f" | head -3)"
	done
done
grep -q "other tenants" "$TMP/b-all.txt" || note "the neighbour's hogs waited behind no other tenant (the tenant's hog ran 4 s of their 6)"
pass "neither user's answer names the other, their uid or their commands"

# ---- history survives a restart ----------------------------------------------------
stop_profd || fail "profd did not stop cleanly: $(tail -5 "$PD/log")"
start_profd
ask "$A" "$TMP/a2.json" --comm tenant-hog --sort holder -F json
runq2=$(holders "$TMP/a2.json" | awk '{ s += $2 } END { printf "%.0f\n", s }')
[ "$runq2" = "$runq" ] || fail "after a restart her hog's runq is $runq2 ns, before it $runq ns"
pass "after a restart the same window answers the same $runq ns of runq"
stop_profd || fail "profd did not stop cleanly"

# ---- off_cpu_sample = 2: a stack in 2, every interval still timed -----------------
# The switch event's period is 2 on each CPU (the kernel samples 1 switch-out in 2);
# the switch records still time every interval, those after an unsampled switch-out
# written with no stack.  So the runq is the kernel's within the same 5 points as with
# every stack (a scaled estimate of the kept half, or only the kept half, is not), and
# about half the host's intervals have no stack (with every stack: forks' only).
rm -rf "$PD/state"
profd_config "bucket = 2" "fine_span = 10" "off_cpu = yes" "off_cpu_window = 0" "off_cpu_sample = 2"
start_profd
runuser -u "$B" -- taskset -c "$CPU" "$theirs" hog 8 >"$TMP/b1" &
b1=$!
runuser -u "$B" -- taskset -c "$CPU" "$theirs" hog 8 >"$TMP/b2" &
b2=$!
sleep 0.3
runuser -u "$A" -- taskset -c "$CPU" "$mine" hog 6 >"$TMP/truth" || fail "the tenant's hog failed"
wait "$b1" "$b2"
read -r _ exec wait life <"$TMP/truth" || fail "no ground truth: $(cat "$TMP/truth")"
pk=$(pct "$wait" "$life")
sleep 4
ask "$A" "$TMP/s.json" --comm tenant-hog --sort holder -F json
holders "$TMP/s.json" >"$TMP/s.rows"
est=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$TMP/s.rows")
pr=$(pct "$est" "$life")
ivs=$(pstatus off_cpu_intervals)
nos=$(pstatus off_cpu_nostack_intervals)
note "1 in 2: her hog's runq $est ns ($pr % of its life), the kernel's $wait ns ($pk %); status: max_period $(pstatus off_cpu_max_period), $nos of $ivs intervals without a stack, period_errors $(pstatus off_cpu_period_errors); rows: $(tr '\n' ' ' <"$TMP/s.rows")"
[ "$(pstatus off_cpu_period_errors)" = 0 ] || fail "1 in 2: the switch event's period could not be set ($(pstatus off_cpu_period_errors) errors)"
[ "$(pstatus off_cpu_max_period)" -ge 2 ] || fail "1 in 2: status says max_period $(pstatus off_cpu_max_period), not 2"
awk -v n="$nos" -v i="$ivs" 'BEGIN { exit !(i > 0 && n >= 0.25 * i && n <= 0.75 * i) }' ||
	fail "1 in 2: $nos of the host's $ivs intervals have no stack, not about half"
near "$pr" "$pk" 5 || fail "1 in 2: her hog's runq is $pr % of its life, the kernel's run-queue wait $pk %"
bad=$(awk '$1 !~ /^(self|other_tenants|system|idle|\[unknown\])$/' "$TMP/s.rows")
[ -z "$bad" ] || fail "1 in 2: holders named in her answer: $bad"
pass "1 in 2 stacks: her hog's runq $pr % of its life (the kernel's $pk %), $nos of $ivs intervals without a stack"
stop_profd || fail "profd did not stop cleanly"

# ---- off_cpu_window = 1 every 3 s: measured over the windows, never scaled -----------
# The switch records (and the stacks) are on 1 s in 3 on every CPU.  What the answer
# says it measured is the windows' share of the seconds asked, and the tenant's runq
# over it is her hog's run-queue share of its life (the kernel's, over the whole life:
# the hogs are steady) within 5 points.  Unscaled: her answer's runq stays well below
# the kernel's whole wait.
rm -rf "$PD/state"
profd_config "bucket = 2" "fine_span = 30" "off_cpu = yes" "off_cpu_window = 1" "off_cpu_period = 3"
start_profd
[ "$(pstatus off_cpu_window_ns)" = 1000000000 ] && [ "$(pstatus off_cpu_window_period_ns)" = 3000000000 ] ||
	fail "windows: status says window $(pstatus off_cpu_window_ns) every $(pstatus off_cpu_window_period_ns) ns"
runuser -u "$B" -- taskset -c "$CPU" "$theirs" hog 14 >"$TMP/b1" &
b1=$!
runuser -u "$B" -- taskset -c "$CPU" "$theirs" hog 14 >"$TMP/b2" &
b2=$!
sleep 0.3
t0=$(date +%s.%N)
runuser -u "$A" -- taskset -c "$CPU" "$mine" hog 12 >"$TMP/truth" || fail "the tenant's hog failed"
t1=$(date +%s.%N)
wait "$b1" "$b2"
read -r _ exec wait life <"$TMP/truth" || fail "no ground truth: $(cat "$TMP/truth")"
pk=$(pct "$wait" "$life")
sleep 4
# whole seconds inside the hog's life: the 1 s buckets asked are all of it
from=$(awk -v t="$t0" 'BEGIN { printf "%d", int(t) + 2 }')
until=$(awk -v t="$t1" 'BEGIN { printf "%d", int(t) - 1 }')
ask "$A" "$TMP/w.json" --from "@$from" --until "@$until" --comm tenant-hog --sort holder -F json
holders "$TMP/w.json" >"$TMP/w.rows"
runq=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$TMP/w.rows")
measured=$(python3 -c '
import json, re, sys
doc = json.load(open(sys.argv[1]))
m = re.search(r"off-CPU time measured over ([0-9.]+) s of it", doc["file"])
print(doc["off_cpu_measured_s"] if m and "off_cpu_span_s" in doc else "")' "$TMP/w.json")
[ -n "$measured" ] || fail "windows: the answer does not say what it measured: $(head -c 600 "$TMP/w.json")"
span=$((until - from))
ms=$(pct "$measured" "$span")
pr=$(pct "$runq" "$(awk -v m="$measured" 'BEGIN { printf "%.0f", m * 1e9 }')")
whole=$(pct "$runq" "$wait")
note "windows: $measured s measured of the $span s asked ($ms %); her hog's runq $runq ns, $pr % of those seconds (the kernel: $pk % of its life), $whole % of its whole wait; status: $(pstatus off_cpu_windows) windows, $(pstatus off_cpu_cut_end) intervals cut at their ends ($(pstatus off_cpu_cut_end_ns) ns), $(pstatus off_cpu_cut_start) open at their starts; rows: $(tr '\n' ' ' <"$TMP/w.rows")"
awk -v m="$ms" 'BEGIN { exit !(m >= 20 && m <= 50) }' || fail "windows: $ms % of the seconds asked measured, not about a third"
near "$pr" "$pk" 5 || fail "windows: her hog's runq is $pr % of the measured seconds, the kernel's run-queue wait $pk % of its life"
awk -v w="$whole" 'BEGIN { exit !(w < 60) }' || fail "windows: her answer's runq is $whole % of the kernel's whole wait: scaled?"
[ "$(pstatus off_cpu_windows)" -ge 4 ] || fail "windows: status counts $(pstatus off_cpu_windows) windows in ~20 s"
[ "$(pstatus off_cpu_cut_end)" -gt 0 ] || fail "windows: no interval cut at a window's end (the hogs were runnable at every end)"
bad=$(awk '$1 !~ /^(self|other_tenants|system|idle|\[unknown\])$/' "$TMP/w.rows")
[ -z "$bad" ] || fail "windows: holders named in her answer: $bad"
ask "$A" "$TMP/w.txt" --from "@$from" --until "@$until" --comm tenant-hog --sort holder
grep -q "^# (runq and blocked measured over" "$TMP/w.txt" || fail "windows: the text's summary does not say what it measured: $(head -5 "$TMP/w.txt")"
pass "windows (1 s in 3): $measured of $span s measured, her hog's runq $pr % of them (the kernel's $pk %), unscaled ($whole % of its whole wait)"
stop_profd || fail "profd did not stop cleanly"
