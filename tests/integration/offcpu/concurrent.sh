#!/usr/bin/env bash
# Two recordings of context switches at once.  The kernel fills one sample for every
# software event that fires at once on a CPU (kernel/events/core.c,
# do_perf_sw_event): the event opened last computes its id, time and stack, and the
# others' samples carry them, so a recording's ring can hold samples with another
# recording's id, which perf script cannot place ("failed to process type: 9").
# Two prof record --off-cpu of one cgroup, and prof beside perf record -e
# context-switches -c 1 -a started after it: every file prof writes is read by perf
# script and perf report without a word on stderr, each sample's id is one of its
# file's events, a sample with another's id is told for its own switch sample by the
# switch record after it (or dropped, counted), the intervals keep their stacks
# (under 0.3 s written without one), and they are all there (on + runq + blocked of
# each of the sleeper's threads = its lifetime within 3 %).
. "$(dirname "$0")/lib.sh"

root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2 mount"
CG=$root/prof-it-offcpu-two
make_cgroup_tree "$CG"

# record N: prof --off-cpu of the cgroup, its sleeper in it
record() {
	"$PROF" record --off-cpu -g --cgroup /prof-it-offcpu-two -e cpu-clock -F 1999 -o "$TMP/$1.data" -- \
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" sleeper 3' sh "$CG" "$PROF_OFFCPU" \
		>"$TMP/$1.truth" 2>"$TMP/$1.err"
}

# check N: the file reads cleanly, its intervals cover the sleeper's lifetime
check() {
	local n=$1 life total
	perf_clean "$TMP/$n.script" script -i "$TMP/$n.data" -F tid,period,event
	perf_clean "$TMP/$n.report" report -i "$TMP/$n.data" --stdio --sort comm
	carried=$(sed -n 's/^prof: \([0-9]*\) samples carried another recording.s event id.*/\1/p' "$TMP/$n.err")
	# the time of the intervals written without their stack
	nostack=$(sed -n 's/^prof: off-CPU: [0-9]* intervals (\([0-9.]*\) s) without their switch-out stack.*/\1/p' "$TMP/$n.err")
	read -r _ _ _ life <"$TMP/$n.truth" || fail "$n: no ground truth: $(cat "$TMP/$n.err")"
	# the cgroup holds the sleeper only (its sh execs it): each of its threads' three
	# events add up to its wall time; the busiest thread is checked
	total=$(awk '{ s[$1] += $2 } END { for (t in s) if (s[t] > m) m = s[t]; printf "%.0f", m }' "$TMP/$n.script")
	p=$(pct "$total" "$life")
	near "$p" 100 3 || fail "$n: on + runq + blocked of the sleeper's thread is $p % of its lifetime, not 100 +- 3 ($(cat "$TMP/$n.err"))"
	carried=${carried:-0}
	awk -v s="${nostack:-0}" 'BEGIN { exit !(s < 0.3) }' ||
		fail "$n: $nostack s of intervals without their stack ($carried samples with another's id): $(cat "$TMP/$n.err")"
	pass "$n: perf script and perf report read it; the sleeper's three events $p % of its lifetime; $carried samples with another recording's id, ${nostack:-0} s without a stack"
}

for pair in 1 2; do
	record a$pair &
	a=$!
	record b$pair &
	b=$!
	wait $a || fail "a$pair: record: $(cat "$TMP/a$pair.err")"
	wait $b || fail "b$pair: record: $(cat "$TMP/b$pair.err")"
	check a$pair
	ca=$carried
	check b$pair
	note "pair $pair: $ca and $carried samples with the other's id"
done

# prof first, perf's context-switch sampling opened after it (first in the kernel's list)
record p &
p=$!
sleep 0.5
"$PERF" record -q -e context-switches -c 1 -a -g -o "$TMP/perf.data" -- sleep 2 >/dev/null 2>"$TMP/perf-record.err" ||
	fail "perf record: $(cat "$TMP/perf-record.err")"
wait $p || fail "p: record: $(cat "$TMP/p.err")"
check p
pass "beside perf record -e context-switches: prof's file is clean and whole"

# A tenant's recording (the capability install, no kernel addresses for her) beside
# root's perf record -g of the same event: her stacks are computed for perf's event
# (kernel frames included) but her file holds no kernel address.
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"
A=prof-it-occ
make_user "$A"
mine=$(public_copy "$PROF_OFFCPU")
mkdir "$TMP/bin" "$TMP/u" && chown "$A" "$TMP/u" && chmod 755 "$TMP/bin" || fail dirs
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail copy
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"
(cd "$TMP/u" && runuser -u "$A" -- timeout 30 "$TMP/bin/prof" record --off-cpu -g -e cpu-clock -F 999 -o u.data -- \
	"$mine" sleeper 3 >"$TMP/u.truth" 2>"$TMP/u.err") &
u=$!
sleep 0.5
"$PERF" record -q -e context-switches -c 1 -a -g -o "$TMP/perf2.data" -- sleep 2 >/dev/null 2>"$TMP/perf-record.err" ||
	fail "perf record: $(cat "$TMP/perf-record.err")"
wait $u || fail "tenant: record: $(cat "$TMP/u.err")"
perf_clean "$TMP/u.script" script -f -i "$TMP/u/u.data" -F event,ip
grep -E 'offcpu' "$TMP/u.script" >/dev/null || fail "tenant: no off-CPU samples: $(cat "$TMP/u.err")"
# the chains' addresses (perf script prints each frame's on its own line)
kernel=$(awk 'NF && $1 ~ /^[0-9a-f]+$/ && length($1) == 16 && substr($1, 1, 4) == "ffff"' "$TMP/u.script" | wc -l)
[ "$kernel" -eq 0 ] || fail "tenant: $kernel kernel addresses in her file's stacks: $(grep -m3 ffff "$TMP/u.script")"
pass "tenant beside perf record -g: her file is clean and holds no kernel address"
