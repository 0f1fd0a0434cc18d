#!/usr/bin/env bash
# A child forked mid-run appears with its own comm and its own hot function, both in a
# system-wide recording and in the default scope (the workload's process tree); the
# workload's samples before its exec carry prof's name, not the program's.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

for mode in -a scope; do
	F=$TMP/fork$mode.data
	args=()
	[ "$mode" = -a ] && args=(-a)
	"$PROF" record "${args[@]}" -q -o "$F" -- "$PROF_HOT" 3 fork || fail "prof record $mode exited $?"
	perf_clean "$TMP/report" report -i "$F" --stdio --no-children --sort comm,sym
	child=$(pct_of "$TMP/report" 'prof-child +\[\.\] child_function')
	parent=$(pct_of "$TMP/report" 'prof-hot +\[\.\] hot_function')
	note "$mode: child_function $child%, hot_function $parent%"
	# each has a CPU's worth of work for two thirds of the run; what else runs (a
	# sanitizer build of prof recording everything) takes its share
	awk -v c="$child" 'BEGIN { exit !(c > 5) }' || fail "$mode: child's samples missing: $(grep -E '^ +[0-9]' "$TMP/report" | head)"
	awk -v p="$parent" 'BEGIN { exit !(p > 5) }' || fail "$mode: parent's samples missing"
	# The child's samples never carry the parent's comm for the child's function.
	grep -qE 'prof-hot +\[\.\] child_function' "$TMP/report" && fail "$mode: child_function attributed to the parent's comm"
	pass "$mode: child comm and symbols"
done

# Samples of the workload before its exec (a 1.8 MB environment makes the exec take
# milliseconds) are prof's, as perf names them: not the program's, whose name the
# kernel gives at the exec.
big=$(head -c 120000 /dev/zero | tr '\0' x)
envs=()
for i in $(seq 15); do envs+=("PROF_BIG$i=$big"); done
F=$TMP/preexec.data
for try in 1 2 3; do
	# 50,000 samples a second per CPU: a ring of 8 MiB per CPU holds ~2 s of them, so a
	# sanitizer build of prof stalled by the exec loses none (a lost chunk is honest,
	# but perf script then warns, and this test reads its output whole)
	env "${envs[@]}" "$PROF" record -q -e cpu-clock -c 20000 -m 2048 -o "$F" -- "$PROF_HOT" 0.3 || fail "prof record (pre-exec) exited $?"
	perf_clean "$TMP/tasks" script -i "$F" --show-task-events -F comm,pid,time,event
	# the workload's pid: the one whose COMM exec names the program
	wpid=$(awk '/PERF_RECORD_COMM exec: prof-hot:/ { print $2; exit }' "$TMP/tasks")
	[ -n "$wpid" ] || fail "no COMM exec for prof-hot: $(grep COMM "$TMP/tasks" | head -5)"
	# samples of that pid before its COMM exec, by the name they carry
	awk -v p="$wpid" '$2 == p && /COMM exec/ { exit } $2 == p && /cpu-clock/ { print $1 }' "$TMP/tasks" | sort | uniq -c >"$TMP/pre"
	[ -s "$TMP/pre" ] && break
	note "try $try: no sample before the exec"
done
[ -s "$TMP/pre" ] || skip "no sample of the workload before its exec in 3 tries"
cat "$TMP/pre"
grep -q prof-hot "$TMP/pre" && fail "samples before the exec are named after the program: $(cat "$TMP/pre")"
pass "before its exec the workload is $(awk '{print $2}' "$TMP/pre" | head -1) ($(awk '{s += $1} END {print s}' "$TMP/pre") samples)"
