#!/usr/bin/env bash
# A copy of prof with the man page's file capabilities, run by an ordinary user: what
# the capabilities must not lend them.  The sampling rate is capped ([policy]
# user_max_frequency); files named on the command line (--config, report -i) are
# opened with the user's own rights, and FIFOs are refused without hanging.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"

U=prof-it-caps
make_user "$U"
chmod 755 "$TMP"
mkdir "$TMP/bin" "$TMP/u" && chown "$U" "$TMP/u" || fail "dirs"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"
cp "$PROF_HOT" "$TMP/bin/prof-hot" && chmod 755 "$TMP/bin/prof-hot" || fail "copy"
cd "$TMP/u" || fail cd

as_user() { runuser -u "$U" -- "$@"; }
# prof as the user, bounded: a hang fails the test instead of blocking it.
prof_user() { as_user timeout 20 "$TMP/bin/prof" "$@" >"$TMP/out" 2>"$TMP/err"; }

# ---- the sampling rate ---------------------------------------------------------
kmax=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
cap=$((kmax < 10000 ? kmax : 10000))
prof_user record -F 50000 -o u.data -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ "$rc" -eq 1 ] || fail "-F 50000 by a user: exit $rc: $(cat "$TMP/err")"
grep -q "user_max_frequency" "$TMP/err" && grep -q "10000 Hz" "$TMP/err" || fail "-F 50000: message: $(cat "$TMP/err")"
[ ! -e u.data ] || fail "-F 50000 left a file"
pass "-F 50000 refused: $(cat "$TMP/err")"
prof_user record -c 1000 -o u.data -- "$TMP/bin/prof-hot" 0.2
[ $? -eq 1 ] && grep -q "user_max_frequency" "$TMP/err" || fail "-c 1000 (cycles) by a user: $(cat "$TMP/err")"
prof_user record -e cpu-clock -c 10000 -o u.data -- "$TMP/bin/prof-hot" 0.2
[ $? -eq 1 ] && grep -q "c 100000 or more" "$TMP/err" || fail "-c 10000 (cpu-clock, 100 kHz) by a user: $(cat "$TMP/err")"
pass "-c above the rate refused: $(cat "$TMP/err")"
prof_user record -F max -o u.data -- "$TMP/bin/prof-hot" 0.2 || fail "-F max by a user: $(cat "$TMP/err")"
perf_clean "$TMP/header" report -f -i u.data --header-only
grep -q "sample_freq } = $cap," "$TMP/header" || fail "-F max by a user is not $cap Hz: $(grep -o 'sample_freq } = [0-9]*' "$TMP/header")"
pass "-F max by a user: $cap Hz"
rm -f u.data u.data.old
"$PROF" record -q -F 20000 -o root.data -- "$PROF_HOT" 0.2 || fail "-F 20000 by root"
perf_clean "$TMP/header" report -i root.data --header-only
want=$((kmax < 20000 ? kmax : 20000))
grep -q "sample_freq } = $want," "$TMP/header" || fail "root's -F 20000 was capped: $(grep -o 'sample_freq } = [0-9]*' "$TMP/header")"
pass "root is not capped: $want Hz"

# ---- files the user names are opened with the user's rights ---------------------
sleep 60 &
rootpid=$!
cleanup_hooks+=("kill $rootpid 2>/dev/null")
[ -r /proc/$rootpid/maps ] || fail "root cannot read /proc/$rootpid/maps"
prof_user record --config /proc/$rootpid/maps -o u.data -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ "$rc" -eq 2 ] || fail "--config /proc/$rootpid/maps (root's): exit $rc: $(cat "$TMP/err")"
grep -q "Permission denied" "$TMP/err" || fail "--config of root's maps: no permission error: $(cat "$TMP/err")"
grep -qE '[0-9a-f]{8,}-|outside a section|sleep' "$TMP/err" && fail "--config echoed root's maps: $(cat "$TMP/err")"
[ ! -e u.data ] || fail "recorded with root's maps as configuration"
pass "--config /proc/<root's pid>/maps: $(cat "$TMP/err")"
as_user "$TMP/bin/prof-hot" 30 >/dev/null &
for _ in $(seq 50); do upid=$(pgrep -u "$U" -x prof-hot) && break; sleep 0.1; done
[ -n "$upid" ] || fail "her process did not start"
prof_user record --config /proc/$upid/maps -o u.data -- "$TMP/bin/prof-hot" 0.2
[ $? -eq 2 ] && grep -q "maps:1:" "$TMP/err" || fail "--config of her own maps is not read as hers: $(cat "$TMP/err")"
kill $upid
pass "--config of her own process's maps is read (and refused as a configuration)"

# A FIFO as --config, as report -i and as -o: an error at once, never a hang.
as_user mkfifo fifo || fail mkfifo
prof_user record --config fifo -o u.data -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ "$rc" -eq 2 ] && grep -q "not a regular file" "$TMP/err" || fail "FIFO as --config: exit $rc: $(cat "$TMP/err")"
pass "FIFO as --config: $(cat "$TMP/err")"
prof_user report -i fifo
rc=$?
[ "$rc" -eq 1 ] && grep -q "not a regular file" "$TMP/err" || fail "FIFO as report -i: exit $rc: $(cat "$TMP/err")"
pass "FIFO as report -i: $(cat "$TMP/err")"
prof_user record -o fifo -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ "$rc" -eq 1 ] && [ -p fifo ] || fail "FIFO as -o: exit $rc: $(cat "$TMP/err")"
pass "FIFO as -o: $(head -n1 "$TMP/err")"
# report -i of root's maps: refused as hers, not read with prof's capabilities.
prof_user report -i /proc/$rootpid/maps
[ $? -eq 1 ] && grep -q "Permission denied" "$TMP/err" || fail "report -i of root's maps: $(cat "$TMP/err")"
pass "report -i /proc/<root's pid>/maps: $(cat "$TMP/err")"

# ---- --uid needs the set*uid() tracepoints -----------------------------------------
tfs=$(tracefs_dir)
[ -n "$tfs" ] || skip "tracefs is not mounted"
if as_user test -r "$tfs/events/syscalls/sys_enter_setuid/id"; then
	tracefs_root_only
fi
as_user test -r "$tfs/events/syscalls/sys_enter_setuid/id" && fail "tracefs still readable by $U"
prof_user record --uid "$U" -o u.data -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ "$rc" -eq 1 ] || fail "--uid without readable tracefs: exit $rc: $(cat "$TMP/err")"
grep -q "set\*uid() calls" "$TMP/err" && grep -q "tracefs" "$TMP/err" && grep -q "remount,gid=" "$TMP/err" ||
	fail "--uid without readable tracefs: message: $(cat "$TMP/err")"
[ ! -e u.data ] || fail "--uid without readable tracefs left a file"
pass "--uid refused without the set*uid() tracepoints: $(head -n1 "$TMP/err")"

# ---- set-user-ID and set-group-ID programs ------------------------------------------
for bits in 4755 2755; do
	rm -f "$TMP/bin/setid-hot"
	cp "$PROF_HOT" "$TMP/bin/setid-hot" && chmod "$bits" "$TMP/bin/setid-hot" || fail "setid copy"
	if findmnt -n -o OPTIONS -T "$TMP/bin" | grep -qw nosuid; then
		note "$TMP is mounted nosuid: set-ID programs are not tested"
		break
	fi
	prof_user record -o u.data -- "$TMP/bin/setid-hot" 0.2
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "set-.*-ID" "$TMP/err" && grep -q CAP_SYS_ADMIN "$TMP/err" ||
		fail "a mode $bits program by a user: exit $rc: $(cat "$TMP/err")"
	[ ! -e u.data ] || fail "a mode $bits program by a user left a file"
	pass "mode $bits program refused: $(head -n1 "$TMP/err")"
	"$PROF" record -q -o root.data -- "$TMP/bin/setid-hot" 0.2 || fail "a mode $bits program by root: exit $?"
done
pass "root profiles them"
