#!/usr/bin/env bash
# A copy of prof with the man page's file capabilities, run by an ordinary user: what
# the capabilities must not lend them.  The sampling rate is capped ([policy]
# user_max_frequency); files named on the command line (--config, report -i) are
# opened with the user's own rights, and FIFOs are refused without hanging.
. "$(dirname "$0")/lib.sh"
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
"$PROF" record -q -F 20000 -o root.data -- "$PROF_HOT" 0.2 || fail "-F 20000 by root"
perf_clean "$TMP/header" report -i root.data --header-only
want=$((kmax < 20000 ? kmax : 20000))
grep -q "sample_freq } = $want," "$TMP/header" || fail "root's -F 20000 was capped: $(grep -o 'sample_freq } = [0-9]*' "$TMP/header")"
pass "root is not capped: $want Hz"
