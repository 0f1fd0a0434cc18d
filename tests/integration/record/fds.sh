#!/usr/bin/env bash
# File descriptors are O(CPUs x events): 2 per CPU, however many tasks the host runs
# (5 per CPU with --uid, for the three set*uid() tracepoints).
. "$(dirname "$0")/../lib.sh"
require_root

# The workload starts once recording is armed: it lists its parent's (prof's) fds.
measure() {
	"$PROF" record -q -o "$TMP/fds.data" "$@" -- bash -c \
		'for l in /proc/$PPID/fd/*; do readlink "$l"; done' >"$TMP/fds" || fail "prof record $* exited $?"
	grep -c '^anon_inode:\[perf_event\]$' "$TMP/fds"
}

ncpu=$(grep -c '^processor' /proc/cpuinfo)
online=$(nproc)
want=$((2 * online))
before=$(measure -a)
[ "$before" -eq "$want" ] || fail "$before perf fds, want $want (2 x $online CPUs)"
pass "$before perf fds with $(ls -d /proc/[0-9]* | wc -l) tasks on the host, $(wc -l <"$TMP/fds") fds in all ($ncpu CPUs)"

pids=()
for i in $(seq 300); do sleep 60 & pids+=($!); done
cleanup_hooks+=("kill ${pids[*]} 2>/dev/null")
after=$(measure -a)
[ "$after" -eq "$want" ] || fail "$after perf fds with 300 more tasks, want $want"
pass "$after perf fds with 300 more tasks"

scoped=$(measure --uid root)
[ "$scoped" -eq $((5 * online)) ] || [ "$scoped" -eq "$want" ] || fail "--uid: $scoped perf fds"
pass "--uid: $scoped perf fds (5 per CPU with the set*uid() tracepoints, else 2)"
