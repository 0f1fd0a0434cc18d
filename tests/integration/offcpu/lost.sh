#!/usr/bin/env bash
# --off-cpu with ring buffers too small for a storm of context switches (perf bench
# sched messaging beside the sleeper, -m 1): records are lost, the summary counts the
# intervals open across the gaps as lost, and none of that becomes waiting: no
# thread's on + runq + blocked in the file exceeds its lifetime (the sleeper's by
# its own clock, within 2 %; the others' the recording's length).  perf script reads
# the file to its end (a LOST or THROTTLE record naming the context-switch event,
# which is not in the file, would stop it).
. "$(dirname "$0")/lib.sh"

start=$(date +%s%N)
"$PROF" record --off-cpu -g -e cpu-clock -F 999 -m 1 -o "$TMP/l.data" -- \
	sh -c "$PERF bench sched messaging -g 4 -l 400 >/dev/null & \"\$1\" sleeper 2; wait" sh "$PROF_OFFCPU" \
	>"$TMP/truth" 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
span=$(($(date +%s%N) - start))
note "$(tr '\n' ' ' <"$TMP/err")"
grep -q "records lost" "$TMP/err" || skip "no records were lost (a fast host): nothing to check"
grep -qE "off-CPU: [0-9]+ intervals \([0-9.]+ s\) open across lost records: not written" "$TMP/err" ||
	fail "records were lost but no interval is counted as lost: $(cat "$TMP/err")"
read -r _ exec wait life <"$TMP/truth" || fail "no ground truth: $(cat "$TMP/truth")"

# (perf warns of the lost records: that is all it may say)
"$PERF" script -i "$TMP/l.data" -F comm,tid,period,event >"$TMP/script" 2>"$TMP/perf.err" ||
	fail "perf script: $(head -c 2000 "$TMP/perf.err")"
grep -qiE "failed|can't parse|error" "$TMP/perf.err" && fail "perf script: $(head -c 2000 "$TMP/perf.err")"
n=$(grep -c "offcpu-" "$TMP/script")
[ "$n" -gt 100 ] || fail "perf script shows $n off-CPU samples: $(head "$TMP/script")"
awk -v span="$span" -v life="$life" '
	{ gsub(":", "", $4); t[$2] += $3; if ($1 == "prof-offcpu") s += $3 }
	END {
		for (k in t) if (t[k] > span * 1.02) { print "tid " k ": " t[k] " ns in a " span " ns recording"; bad = 1 }
		if (s > life * 1.02) { print "the sleeper: " s " ns in a " life " ns life"; bad = 1 }
		printf "sleeper %.1f %% of its life\n", 100 * s / life
		exit bad
	}' "$TMP/script" >"$TMP/check" || fail "more time than there was: $(cat "$TMP/check")"
pass "$n off-CPU samples read by perf script; no thread has more time than it lived ($(cat "$TMP/check"))"
