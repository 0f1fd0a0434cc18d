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

profd_config "bucket = 2" "fine_span = 10" "off_cpu = yes"
start_profd
[ "$(pstatus off_cpu)" = 1 ] || fail "profd's status says off_cpu '$(pstatus off_cpu)' with off_cpu = yes"


# the neighbour's two hogs on the CPU, for longer than the tenant's
runuser -u "$B" -- taskset -c "$CPU" "$theirs" hog 6 >"$TMP/b1" &
b1=$!
runuser -u "$B" -- taskset -c "$CPU" "$theirs" hog 6 >"$TMP/b2" &
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
ask() {         # ask USER FILE ARGS...: prof report --daemon of the last 2 minutes as USER
	local u=$1 out=$2
	shift 2
	if [ "$u" = root ]; then
		"$PROF" report --daemon --socket "$SOCK" --since 120s "$@" >"$out" 2>"$TMP/err"
	else
		as_user "$u" "$PUB_PROF" report --daemon --socket "$SOCK" --since 120s "$@" >"$out" 2>"$TMP/err"
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
profd_config "bucket = 2" "fine_span = 10" "off_cpu = yes" "off_cpu_sample = 2"
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
