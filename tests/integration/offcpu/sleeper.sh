#!/usr/bin/env bash
# --off-cpu on a workload whose time is known by construction: spin 10 ms, sleep
# 30 ms.  Its wall time is on a CPU 25 %, asleep 75 % (offcpu-blocked, within 3
# points), runnable the rest; the sleeps' stacks end in nanosleep (frame pointers and
# --call-graph dwarf); on + runq + blocked is its lifetime within 2 %, with the
# kernel's own count (/proc/thread-self/schedstat) as the ground truth of its on-CPU
# time; also for a cgroup scope (the kernel's cgroup filter).  Debian's perf script and
# perf report read the files and name the events.
. "$(dirname "$0")/lib.sh"

# Sums of each event's periods in a perf script listing (ns): "event count ns".
sums() {
	awk '{ gsub(":", "", $2); n[$2]++; s[$2] += $1 } END { for (e in s) printf "%s %d %.0f\n", e, n[e], s[e] }' "$1"
}
sum_of() { awk -v e="$2" '$1 == e { print $3 }' "$1"; }
# a / b in percent, one decimal
# |a - b| <= tol

# cgroup: a cgroup scope, whose context-switch event is the kernel's cgroup event
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2 mount"
CG=$root/prof-it-offcpu
make_cgroup_tree "$CG"

for mode in fp dwarf cgroup; do
	g=-g scope=()
	[ $mode = dwarf ] && g="--call-graph dwarf"
	[ $mode = cgroup ] && scope=(-v --cgroup /prof-it-offcpu)
	"$PROF" record --off-cpu $g "${scope[@]}" -e cpu-clock -F 1999 -o "$TMP/$mode.data" -- \
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" sleeper 3' sh "$CG" "$PROF_OFFCPU" \
		>"$TMP/truth" 2>"$TMP/err" || fail "$mode: record: $(cat "$TMP/err")"
	note "$mode: $(tr '\n' ' ' <"$TMP/err")"
	[ $mode != cgroup ] || grep -q "filtered by the kernel to 1 cgroup" "$TMP/err" ||
		fail "cgroup: not the kernel's cgroup filter: $(cat "$TMP/err")"
	grep -q "off-CPU: .* intervals" "$TMP/err" || fail "$mode: no off-CPU summary: $(cat "$TMP/err")"
	read -r _ exec wait life <"$TMP/truth" || fail "$mode: no ground truth: $(cat "$TMP/truth")"

	perf_clean "$TMP/script" script -i "$TMP/$mode.data" -F period,event
	sums "$TMP/script" >"$TMP/sums"
	on=$(sum_of "$TMP/sums" cpu-clock)
	runq=$(sum_of "$TMP/sums" offcpu-runq)
	blocked=$(sum_of "$TMP/sums" offcpu-blocked)
	[ -n "$on" ] && [ -n "$blocked" ] || fail "$mode: perf script shows no cpu-clock or offcpu-blocked: $(cat "$TMP/sums")"
	runq=${runq:-0}
	note "$mode: lifetime $life ns; prof: on $on, runq $runq, blocked $blocked; schedstat: on $exec, run-queue $wait"
	# where the wake-ups are timed (root, tracefs), a sleep's wait for a CPU after its
	# wake-up is offcpu-runq: the summary says how many sleeps and how much; the sleep
	# of the construction is that wait plus its offcpu-blocked
	timed=$(sed -n 's/^prof: off-CPU: \([0-9]*\) sleeps timed to their wake-up: \([0-9.]*\) s .*/\1 \2/p' "$TMP/err")
	read -r ntimed after_s <<<"${timed:-0 0}"
	after=$(awk -v s="$after_s" 'BEGIN { printf "%.0f", s * 1e9 }')
	pb=$(pct "$((blocked + after))" "$life")
	near "$pb" 75 3 || fail "$mode: offcpu-blocked (+ $after ns of runq after wake-ups) is $pb % of the lifetime, not 75 +- 3"
	pass "$mode: offcpu-blocked $pb % of the lifetime (75 by construction; $ntimed sleeps timed to their wake-up)"
	# the spin is 10 ms of wall time: on a CPU, or preempted (a busy host) in it
	po=$(pct "$((on + runq - after))" "$life")
	near "$po" 25 3 || fail "$mode: on-CPU + offcpu-runq is $po % of the lifetime, not 25 +- 3"
	pe=$(pct "$exec" "$life")
	pr=$(pct "$runq" "$life")
	pon=$(pct "$on" "$life")
	near "$pon" "$pe" 3 || fail "$mode: cpu-clock says $pon % on a CPU, the kernel $pe %"
	pass "$mode: on a CPU $pon % (kernel: $pe %), offcpu-runq $pr % (kernel's run-queue wait $(pct "$wait" "$life") %)"
	# no runq beyond the kernel's run-queue wait (a sleep whose wake-up was not seen
	# keeps its wait after it in offcpu-blocked), but for each wait timed from a
	# wake-up the switch's own cost: the kernel marks the arrival before the switch,
	# prof's switch-in record is written after it (docs/DESIGN.md: 15-45 us a switch
	# in this VM, more with the cgroup events switched)
	awk -v r="$runq" -v w="$wait" -v n="$ntimed" 'BEGIN { exit !(r <= w * 1.05 + 1e6 + n * 60000) }' ||
		fail "$mode: offcpu-runq $runq ns is more than the kernel's run-queue wait $wait ns"
	total=$(pct "$((on + runq + blocked))" "$life")
	near "$total" 100 2 || fail "$mode: on + runq + blocked is $total % of the lifetime, not 100 +- 2"
	pass "$mode: on + runq + blocked = $total % of the lifetime"

	perf_clean "$TMP/report" report -i "$TMP/$mode.data" --stdio --sort comm
	grep -q "of event 'offcpu-blocked'" "$TMP/report" || fail "$mode: perf report names no offcpu-blocked"
	perf_clean "$TMP/stacks" script -i "$TMP/$mode.data" -F event,ip,sym
	awk '/offcpu-blocked:/ { n++; s = 1; next } /^ *$/ { s = 0 } s && /nanosleep/ { hit[n] = 1 }
	     s && /nap/ { nap[n] = 1 }
	     END { for (i in hit) h++; for (i in nap) k++; print n + 0, h + 0, k + 0 }' "$TMP/stacks" >"$TMP/n"
	read -r nb nh nn <"$TMP/n"
	# (frame pointers lose nap(), the caller of libc's clock_nanosleep, built without them)
	[ $mode = dwarf ] || nn=$nb
	[ "$nb" -gt 0 ] && [ "$((nh * 100))" -ge "$((nb * 95))" ] && [ "$((nn * 100))" -ge "$((nb * 90))" ] ||
		fail "$mode: of $nb offcpu-blocked stacks $nh have nanosleep and $nn nap: $(head -40 "$TMP/stacks")"
	pass "$mode: $nh of $nb offcpu-blocked stacks end in nanosleep$([ $mode = dwarf ] && echo ", $nn go through nap()")"
	"$PROF" report -i "$TMP/$mode.data" --event offcpu-blocked -F folded >"$TMP/rep" 2>"$TMP/err" ||
		fail "$mode: prof report: $(cat "$TMP/err")"
	grep -q nanosleep "$TMP/rep" || fail "$mode: prof report's offcpu-blocked has no nanosleep: $(head -30 "$TMP/rep")"
done
pass "perf script, perf report and prof report read the files"
