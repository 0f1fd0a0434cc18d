#!/usr/bin/env bash
# The unit's model without systemd: profd as a plain system user with exactly the five
# ambient capabilities etc/profd.service gives it (setpriv, as systemd would).  It samples
# the host, names user and kernel symbols, follows setuid() without exec (a root process
# that becomes a user is the user's only from the call on), shows a tenant's Python
# functions, keeps only CAP_PERFMON and CAP_SYS_PTRACE once sampling, and writes only its
# state directory.  Then the unit file itself: systemd-analyze verify, and its exposure.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
# the unit's user, [daemon] user's default (the clients trust only it or root)
SVC=prof
if ! id "$SVC" >/dev/null 2>&1; then
	useradd --system --no-create-home --shell /usr/sbin/nologin "$SVC" || fail "useradd $SVC"
	cleanup_hooks+=("pkill -KILL -u $SVC; sleep 0.2; userdel $SVC")
fi
make_user profdten
public_prof
HOT=$(public_named "$PROF_HOT" caps-hot)
SETUID=$(public_named "$PROF_SETUID" caps-setuid)

profd_config "bucket = 2" "fine_span = 10"
mkdir -p "$PD/state" && chown "$SVC:" "$PD/state" "$PD/run" && chmod 700 "$PD/state" || fail "state dir"
touch "$TMP/marker"
sleep 1
CAPS=+perfmon,+sys_ptrace,+syslog,+dac_read_search,+bpf
start_profd setpriv --reuid="$SVC" --regid="$SVC" --init-groups --inh-caps="$CAPS" --ambient-caps="$CAPS" \
	--bounding-set=-all,"$CAPS"
[ "$(stat -c %U /proc/$PROFD_PID)" = "$SVC" ] || fail "profd does not run as $SVC"
eff=$(awk '/^CapEff/ { print $2 }' /proc/$PROFD_PID/status)
bnd=$(awk '/^CapBnd/ { print $2 }' /proc/$PROFD_PID/status)
five=$(( (1 << 38) | (1 << 19) | (1 << 34) | (1 << 2) | (1 << 39) ))  # perfmon, sys_ptrace, syslog, dac_read_search, bpf
(( (0x$bnd & ~five) == 0 )) || fail "profd has capabilities beyond the unit's five: bounding $bnd"
# once sampling: only what it uses after the start
kept=$(( (1 << 38) | (1 << 19) ))
(( (0x$eff & ~kept) == 0 )) || fail "profd kept capabilities it needs only at the start: eff $eff"
[ "$(pstatus follows_setuid)" = 1 ] || fail "profd as $SVC cannot follow set*uid(): $(grep -i warning "$PD/log")"
pass "profd runs as $SVC with CapEff $eff and follows set*uid()"

"$HOT" 3 || fail "caps-hot"
"$SETUID" "$(id -u profdten)" 3 || fail "caps-setuid"
sleep 2.5
"$PROF" report --daemon --socket "$SOCK" --since 1m --sort comm,sym >"$TMP/root" 2>"$TMP/err" || fail "root: $(cat "$TMP/err")"
grep -qE 'caps-hot +\[\.\] hot_function' "$TMP/root" || fail "no user symbols as $SVC: $(head -20 "$TMP/root")"
grep -qE '\[k\] [A-Za-z_]' "$TMP/root" || fail "no kernel symbols as $SVC (kallsyms unread?): $(head -20 "$TMP/root")"
grep -qE '\[k\] 0x' "$TMP/root" && fail "kernel frames by address only: kallsyms showed zeros: $(grep -m3 '\[k\] 0x' "$TMP/root")"
pass "root's answer names user (hot_function) and kernel symbols"

as_user profdten "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m --sort comm,sym >"$TMP/ten" 2>"$TMP/err" ||
	fail "profdten: $(cat "$TMP/err")"
grep -qE 'caps-setuid +\[\.\] after_setuid' "$TMP/ten" || fail "profdten lacks after_setuid: $(head -20 "$TMP/ten")"
grep -q before_setuid "$TMP/ten" && fail "profdten gets before_setuid, which ran as root: $(grep before_setuid "$TMP/ten")"
grep -q before_setuid "$TMP/root" || fail "root lacks before_setuid: the check above proves nothing"
pass "setuid() without exec: profdten gets after_setuid, not root's before_setuid"

# Python frames with the unit's capabilities (CAP_BPF at the start only)
if [ -x /usr/bin/python3.11 ]; then
	printf 'import time\ndef caps_py_hot():\n    end = time.time() + 3\n    while time.time() < end: pass\ncaps_py_hot()\n' >"$TMP/pub/capspy.py"
	chmod 644 "$TMP/pub/capspy.py"
	as_user profdten /usr/bin/python3.11 "$TMP/pub/capspy.py" || fail "python as profdten"
	sleep 2.5
	as_user profdten "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m -F folded -g >"$TMP/py" 2>"$TMP/err" ||
		fail "profdten's folded: $(cat "$TMP/err")"
	grep -q 'caps_py_hot_(.*capspy\.py:[0-9]*)' "$TMP/py" || fail "no Python frames as $SVC: $(grep -i python "$PD/log"; head -3 "$TMP/py")"
	pass "profdten's Python function, with profd as $SVC: $(grep -c caps_py_hot "$TMP/py") stacks"
fi

stop_profd || fail "profd exited $? on SIGTERM: $(tail -3 "$PD/log")"
ls "$PD/state/history/"*.seg >/dev/null 2>&1 || fail "no history in the state directory"
written=$(find / -xdev \( -path /proc -o -path "$PD/state" \) -prune -o -user "$SVC" -newer "$TMP/marker" -print 2>/dev/null |
	grep -v "^$PD/run")
[ -z "$written" ] || fail "profd wrote outside its state directory: $written"
pass "profd wrote only $PD/state (and its socket)"

# the unit file, checked offline (PID 1 is not systemd here)
command -v systemd-analyze >/dev/null || skip "no systemd-analyze to check $PROF_UNIT"
out=$(systemd-analyze verify "$PROF_UNIT" 2>&1 | grep -vE "Command /usr/local/bin/profd is not executable|man profd\(8\)")
[ -z "$out" ] || fail "systemd-analyze verify: $out"
exposure=$(cd "$TMP" && systemd-analyze security --offline=true "$PROF_UNIT" 2>&1 | awk '/Overall exposure level/ { print $(NF-2) }')
[ -n "$exposure" ] || fail "no exposure from systemd-analyze security"
awk -v e="$exposure" 'BEGIN { exit !(e <= 3.5) }' || fail "the unit's exposure is $exposure, over 3.5"
for k in "ProtectKernelTunables=no" "ProtectKernelLogs=no" "PrivateUsers=no" "ProcSubset=all" "PrivateTmp=no" \
	 "SystemCallFilter=@system-service perf_event_open bpf" \
	 "AmbientCapabilities=CAP_PERFMON CAP_SYS_PTRACE CAP_SYSLOG CAP_DAC_READ_SEARCH CAP_BPF"; do
	grep -qx "$k" "$PROF_UNIT" || fail "the unit lacks '$k', which profd needs"
done
pass "etc/profd.service: verify clean, exposure $exposure"
