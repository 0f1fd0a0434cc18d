#!/usr/bin/env bash
# File descriptors are O(CPUs x events): 2 per CPU, however many tasks the host runs.
. "$(dirname "$0")/lib.sh"
require_root

count_perf_fds() {
	local n=0 l
	for l in /proc/"$1"/fd/*; do
		[ "$(readlink "$l" 2>/dev/null)" = "anon_inode:[perf_event]" ] && n=$((n + 1))
	done
	echo "$n"
}

measure() {
	"$PROF" record -a -q -d 2 -o "$TMP/fds.data" &
	local p=$!
	sleep 1
	count_perf_fds "$p"
	ls /proc/"$p"/fd | wc -l >"$TMP/allfds"
	wait "$p"
}

want=$((2 * $(nproc)))
before=$(measure)
[ "$before" -eq "$want" ] || fail "$before perf fds, want $want (2 x $(nproc) CPUs)"
pass "$before perf fds with $(ls -d /proc/[0-9]* | wc -l) tasks on the host, $(cat "$TMP/allfds") fds in all"

pids=()
for i in $(seq 300); do sleep 30 & pids+=($!); done
cleanup_hooks+=("kill ${pids[*]} 2>/dev/null")
after=$(measure)
[ "$after" -eq "$want" ] || fail "$after perf fds with 300 more tasks, want $want"
pass "$after perf fds with 300 more tasks"
