#!/usr/bin/env bash
# The benchmark world (bench/run --world): it makes its users, cgroups and processes,
# and leaves nothing behind when stopped by SIGTERM, or, after a SIGKILL of the
# harness, once `bench/run --cleanup` has run.
. "$(dirname "$0")/../lib.sh"
require_root
RUN=$(cd "$(dirname "$0")/../../.." && pwd)/bench/run
[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3"
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2 hierarchy"
USERS="prof-bench-a prof-bench-b prof-bench-tenant"
for u in $USERS; do
	id "$u" >/dev/null 2>&1 && skip "user $u exists: a benchmark is running"
done
[ -e "$root/prof-bench" ] && skip "$root/prof-bench exists: a benchmark is running"
cleanup_hooks+=("'$RUN' --cleanup --prof '$PROF' --hot '$PROF_HOT' >/dev/null 2>&1")

uid_procs() { # live processes whose real uid is one of the world's users
	local n=0 u
	for u in $USERS; do
		id -u "$u" >/dev/null 2>&1 || continue
		n=$((n + $(ps -o stat= -U "$u" 2>/dev/null | grep -vc '^Z')))
	done
	echo "$n"
}

start_world() {
	"$RUN" --world 40 --prof "$PROF" --hot "$PROF_HOT" >"$TMP/world.out" 2>"$TMP/world.err" &
	world=$!
	for _ in $(seq 300); do
		grep -q '^world ready' "$TMP/world.out" && return 0
		kill -0 "$world" 2>/dev/null || fail "bench/run --world exited: $(cat "$TMP/world.err")"
		sleep 0.1
	done
	fail "the world was not ready in 30 s: $(cat "$TMP/world.err")"
}

start_world
for u in $USERS; do id "$u" >/dev/null 2>&1 || fail "user $u missing"; done
# 40 idle processes, 1 idle sleep of the tenant, and one spawner per user
n=$(uid_procs)
[ "$n" -eq 44 ] || fail "expected 44 processes of the world's users, found $n"
[ "$(wc -l <"$root/prof-bench/a/cgroup.procs")" -eq 21 ] || fail "cgroup a: $(cat "$root/prof-bench/a/cgroup.procs" | wc -l) processes"
[ "$(wc -l <"$root/prof-bench/tenant/cgroup.procs")" -eq 2 ] || fail "tenant cgroup: not 2 processes"
pass "world built: users, cgroups, 44 processes"

kill -TERM "$world"
wait "$world"
rc=$?
[ "$rc" -eq 143 ] || fail "bench/run --world exited $rc after SIGTERM (want 143): $(cat "$TMP/world.err")"
for u in $USERS; do id "$u" >/dev/null 2>&1 && fail "user $u left behind"; done
[ -e "$root/prof-bench" ] && fail "cgroup $root/prof-bench left behind"
ps -eo user= | grep -q '^prof-bench' && fail "processes of the world left behind"
pass "SIGTERM: users, cgroups and processes removed"

# SIGKILL: the harness cannot clean up, but its spawners see their stdin close and
# take their children with them; --cleanup removes the users and cgroups.
start_world
kill -KILL "$world"
wait "$world" 2>/dev/null
for _ in $(seq 100); do [ "$(uid_procs)" -eq 0 ] && break; sleep 0.1; done
[ "$(uid_procs)" -eq 0 ] || fail "$(uid_procs) processes of the world outlived a SIGKILLed harness"
"$RUN" --cleanup --prof "$PROF" --hot "$PROF_HOT" || fail "bench/run --cleanup failed"
for u in $USERS; do id "$u" >/dev/null 2>&1 && fail "user $u left behind by --cleanup"; done
[ -e "$root/prof-bench" ] && fail "cgroup left behind by --cleanup"
pass "SIGKILL: the spawners took their processes; --cleanup removed the rest"
