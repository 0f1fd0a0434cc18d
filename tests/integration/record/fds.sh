#!/usr/bin/env bash
# File descriptors are O(CPUs x events): 2 per CPU, however many tasks the host runs,
# and 5 per CPU with --uid (the three set*uid() tracepoints), exactly.  None of them
# reaches the workload, and none outlives prof for long: the tracepoints' last
# references go to a child ("prof-closing") that holds nothing else and is gone soon.
. "$(dirname "$0")/../lib.sh"
require_root

# The workload starts once recording is armed: it lists its parent's (prof's) fds,
# then its own.
measure() {
	"$PROF" record -q -o "$TMP/fds.data" "$@" -- bash -c \
		'for l in /proc/$PPID/fd/*; do readlink "$l"; done; for l in /proc/$$/fd/*; do echo "self $(readlink "$l")"; done' \
		>"$TMP/fds" || fail "prof record $* exited $?"
	if grep -q '^self anon_inode:\[perf_event\]$' "$TMP/fds"; then
		fail "the workload holds perf_event fds: $(grep -c '^self anon_inode' "$TMP/fds")"
	fi
	grep -c '^anon_inode:\[perf_event\]$' "$TMP/fds"
}

ncpu=$(grep -c '^processor' /proc/cpuinfo)
online=$(nproc)
want=$((2 * online))
before=$(measure -a) || exit 1
[ "$before" -eq "$want" ] || fail "$before perf fds, want $want (2 x $online CPUs)"
pass "$before perf fds with $(ls -d /proc/[0-9]* | wc -l) tasks on the host, $(grep -vc '^self' "$TMP/fds") fds in all ($ncpu CPUs)"

pids=()
for i in $(seq 300); do sleep 60 & pids+=($!); done
cleanup_hooks+=("kill ${pids[*]} 2>/dev/null")
after=$(measure -a) || exit 1
[ "$after" -eq "$want" ] || fail "$after perf fds with 300 more tasks, want $want"
pass "$after perf fds with 300 more tasks"

# What --uid asks for: the tracepoints when the kernel has them (prof, as root, mounts
# tracefs if it is not), else (an admin is warned and judged at exec) none.
scoped=$(measure --uid root) || exit 1
tracefs=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "tracefs") print $5; break } }' /proc/self/mountinfo | head -n 1)
if [ -n "$tracefs" ] && [ -r "$tracefs/events/syscalls/sys_enter_setuid/id" ]; then
	[ "$scoped" -eq $((5 * online)) ] || fail "--uid: $scoped perf fds, want $((5 * online)) (5 x $online CPUs)"
	pass "--uid: $scoped perf fds (2 + 3 set*uid() tracepoints per CPU)"
else
	[ "$scoped" -eq "$want" ] || fail "--uid without the tracepoints: $scoped perf fds, want $want"
	"$PROF" record -o "$TMP/fds.data" --uid root -- true 2>"$TMP/err" || fail "prof record --uid exited $?"
	grep -q 'cannot trace set\*uid() calls' "$TMP/err" || fail "no tracepoints and no warning: $(cat "$TMP/err")"
	note "no syscalls tracepoints here: $scoped perf fds, and nothing to hand over at the end"
	exit 0
fi

# After prof exits: whatever holds the tracepoints' last references holds nothing
# else (not the file, not prof's stdout), and is gone soon.
closers() {
	local p comm
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$p/comm" || continue
		[ "$comm" = prof-closing ] && echo "${p#/proc/}"
	done
	return 0
}
for i in 1 2 3 4 5; do
	: >"$TMP/out"
	"$PROF" record -q -o "$TMP/fds.data" --uid root -- true >>"$TMP/out" 2>&1 || fail "prof record --uid exited $?"
	seen=""
	for c in $(closers); do
		seen="$seen $c"
		others=$(for l in /proc/"$c"/fd/*; do readlink "$l"; done 2>/dev/null |
			grep -v -e '^anon_inode:\[perf_event\]$' -e '^pipe:' || true)
		[ -z "$others" ] || fail "the closing child $c holds more than the tracepoints: $others"
		held=$(for l in /proc/"$c"/fd/*; do readlink "$l"; done 2>/dev/null | grep -c '^anon_inode' || true)
		[ "$held" -le $((3 * online)) ] || fail "the closing child $c holds $held perf_event fds, more than $((3 * online))"
	done
	[ -n "$seen" ] && break
done
# (each last close waits for an RCU tasks-trace grace period: ~40 ms on a quiet host,
# more than a second on a loaded one)
start=$SECONDS
while [ -n "$(closers)" ] && [ $((SECONDS - start)) -lt 20 ]; do
	sleep 0.1
done
[ -z "$(closers)" ] || fail "the closing child still runs 20 s after prof exited: $(closers)"
pass "the tracepoints' last references: ${seen:+a child that held only them,} gone within $((SECONDS - start + 1)) s of prof's exit"
