#!/usr/bin/env bash
# A child forked mid-run appears with its own comm and its own hot function, both in a
# system-wide recording and in the default scope (the workload's process tree).
. "$(dirname "$0")/lib.sh"
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
