#!/usr/bin/env bash
# --off-cpu conserves time: for every thread of the scope, on a CPU (cpu-clock) +
# offcpu-runq + offcpu-blocked is its life in the recording (from its FORK to its EXIT
# in the file) within 2 %, read by perf script from prof's file, under perf bench sched
# messaging (160 threads, ~100,000 switches/s) with the stacks sampled 1 in N
# (--off-cpu-max-rate 2000: the intervals without a stack still written, and timed).
# Then with ring buffers too small (-m 1): records are lost, the intervals open across
# the gaps are counted in the summary and never written, so no thread has more time
# than it lived, and what the threads miss is no more than what the summary says was
# lost (intervals across gaps, open at the start) and the on-CPU samples lost with the
# records.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
check=$(dirname "$0")/conservation.py
P=100000        # cpu-clock's period (ns): on-CPU time in steps of 100 us

# ---- enough ring buffer: every thread within 2 % -----------------------------------
"$PROF" record --off-cpu --off-cpu-max-rate 2000 -e cpu-clock -c $P -g -m 1024 -o "$TMP/c.data" -- \
	"$PERF" bench sched messaging -g 4 -l 200 >/dev/null 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
note "$(tr '\n' ' ' <"$TMP/err")"
grep -q " 0 lost," "$TMP/err" || skip "records were lost with the default ring buffers (a slow host): $(head -1 "$TMP/err")"
grep -qE "stacks sampled 1 in up to [0-9]+ switches" "$TMP/err" ||
	fail "no 1-in-N stack sampling past 2000 switches/s: $(cat "$TMP/err")"
perf_clean "$TMP/s" script -i "$TMP/c.data" --show-task-events -F tid,time,period,event
python3 "$check" "$TMP/s" 100000000 >"$TMP/rows" || fail "conservation.py: $(head -c 2000 "$TMP/rows")"
n=$(wc -l <"$TMP/rows")
[ "$n" -ge 150 ] || fail "only $n threads with a FORK, an EXIT and 100 ms of life: $(head "$TMP/rows")"
awk '{ r = $3 / $2; if (r < 0.98 || r > 1.02) { print "tid " $1 ": " 100 * r " % of its life " $2 " ns (on " $4 ", runq " $5 ", blocked " $6 ")"; bad = 1 } }
     END { exit bad }' "$TMP/rows" >"$TMP/bad" || fail "$(wc -l <"$TMP/bad") threads off by more than 2 %: $(head -5 "$TMP/bad")"
# (a test that cannot fail is none: the stackless intervals were written, and timed)
# (perf script -g: a sample's chain on the lines after it, none for those without)
nostack=$("$PERF" script -i "$TMP/c.data" -F event,ip 2>/dev/null | awk 'prev && /^[ \t]*$/ { n++ } { prev = /offcpu-/ } END { print n + 0 }')
[ "$nostack" -gt 0 ] || fail "no off-CPU sample without a stack, though 1 in N had one"
pass "$n threads: on + runq + blocked within 2 % of each one's life ($(head -1 "$TMP/rows" | awk '{ printf "%.2f", 100 * $3 / $2 }') to $(tail -1 "$TMP/rows" | awk '{ printf "%.2f", 100 * $3 / $2 }') %), $nostack intervals written without their stack"

# ---- records lost: never more than lived, the rest counted --------------------------
"$PROF" record --off-cpu -e cpu-clock -c $P -g -m 1 -o "$TMP/l.data" -- \
	"$PERF" bench sched messaging -g 4 -l 200 >/dev/null 2>"$TMP/err" || fail "lossy: record: $(cat "$TMP/err")"
note "lossy: $(tr '\n' ' ' <"$TMP/err")"
lost=$(sed -n 's/.* \([0-9][0-9]*\) lost, .*/\1/p' "$TMP/err")
[ "${lost:-0}" -gt 0 ] || skip "no records were lost with -m 1 (a fast host): nothing to check"
secs() { sed -n "s/.*off-CPU: [0-9]* intervals (\([0-9.]*\) s) $1.*/\1/p" "$TMP/err"; }
gaps=$(secs "open across lost records")
start=$(secs "open at the start")
[ -n "$gaps" ] || fail "lossy: $lost records lost but no interval counted as lost: $(cat "$TMP/err")"
# (perf warns of the lost records: that is all it may say)
"$PERF" script -i "$TMP/l.data" --show-task-events -F tid,time,period,event >"$TMP/ls" 2>"$TMP/perf.err" ||
	fail "lossy: perf script: $(head -c 2000 "$TMP/perf.err")"
grep -qiE "failed|can't parse|error" "$TMP/perf.err" && fail "lossy: perf script: $(head -c 2000 "$TMP/perf.err")"
python3 "$check" "$TMP/ls" 0 >"$TMP/lrows" || fail "conservation.py: $(head -c 2000 "$TMP/lrows")"
n=$(wc -l <"$TMP/lrows")
[ "$n" -ge 5 ] || fail "lossy: only $n threads with a FORK and an EXIT in the file"
# 2 % or one cpu-clock period of slack (a thread's on-CPU time is counted in steps of P)
awk -v p=$P '{ if ($3 > $2 * 1.02 + p) { print "tid " $1 ": " $3 " ns in a life of " $2 " (on " $4 ", runq " $5 ", blocked " $6 ")"; bad = 1 } }
     END { exit bad }' "$TMP/lrows" >"$TMP/bad" || fail "lossy: threads with more time than they lived: $(head -5 "$TMP/bad")"
# what they miss: the intervals the summary counts (across gaps, open at the start: of
# these threads and others), and at most one cpu-clock sample per lost record
read -r miss bound < <(awk -v g="$gaps" -v s="${start:-0}" -v l="$lost" -v p=$P '
	{ d = $2 - $3; if (d > 0) m += d } END { printf "%.0f %.0f\n", m, (g + s) * 1e9 + l * p }' "$TMP/lrows")
awk -v m="$miss" -v b="$bound" 'BEGIN { exit !(m <= b) }' ||
	fail "lossy: the threads miss $miss ns, more than the summary's lost intervals and samples ($bound ns)"
pass "lossy ($lost records lost): none of $n threads has more time than it lived; they miss $(awk -v m="$miss" 'BEGIN { printf "%.3f", m / 1e9 }') s, within the $gaps s of intervals across gaps, ${start:-0} s open at the start and $lost lost records' samples"
