#!/usr/bin/env bash
# A tenant with the capability install (prof(1), SETTING UP: cap_perfmon,
# cap_sys_ptrace, cap_syslog) records their own python3.11 with --call-graph dwarf
# and gets verified Python frames; another user's python3.11 spinning beside it is
# never attached to (the summary counts one interpreter: attaching reads the
# process's PyCode_Type) and none of its names reach the file.  With strace (root
# tracing the tenant's prof, which keeps its file capabilities: a tracer with
# CAP_SYS_PTRACE), every process_vm_readv prof makes is seen: they read one process,
# the tenant's, never the other's.
. "$(dirname "$0")/lib.sh"
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"
OTHER=prof_py_o$$
make_user "$OTHER"
mkdir "$TMP/bin" "$TMP/u" && chown "$PYUSER" "$TMP/u" || fail "dirs"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"
cat >"$TMP/pub/mine.py" <<'PY'
import sys, time
def tenant_spin():
    end = time.process_time() + float(sys.argv[1])
    while time.process_time() < end: pass
tenant_spin()
PY
cat >"$TMP/pub/theirs.py" <<'PY'
import sys, time
def other_tenant_secret():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end: pass
other_tenant_secret()
PY
runuser -u "$OTHER" -- "$PY" "$TMP/pub/theirs.py" 15 &
other=$!
cleanup_hooks+=("kill $other 2>/dev/null")
sleep 0.5
cd "$TMP/u" || fail cd
# strace follows prof alone (setpriv and env exec it in their own process; prof
# records in one thread): its workload's system calls are not slowed.
STRACE=()
if command -v strace >/dev/null && command -v setpriv >/dev/null; then
	STRACE=(strace -qq -e trace=process_vm_readv -o "$TMP/strace")
else
	note "strace or setpriv not installed: the reads of prof are not checked one by one"
fi
"${STRACE[@]}" setpriv --reuid="$PYUSER" --regid="$(id -g "$PYUSER")" --init-groups -- env HOME="$TMP/u" \
	"$TMP/bin/prof" record --call-graph dwarf -F 1000 -v -o u.data -- "$PY" "$TMP/pub/mine.py" 5 >/dev/null \
	2>"$TMP/summary" || fail "prof record by the tenant: $(cat "$TMP/summary")"
sed "s/^/# /" "$TMP/summary"
read -r samples procs verified < <(sed -nE 's/^prof: Python: ([0-9]+) samples of ([0-9]+) interpreter.*, ([0-9]+) of them all verified.*/\1 \2 \3/p' "$TMP/summary")
[ -n "${samples:-}" ] || fail "no Python line: $(cat "$TMP/summary")"
[ "$procs" -eq 1 ] || fail "$procs interpreters attached, not the tenant's one"
[ "$((verified * 100))" -ge "$((samples * 90))" ] || fail "only $verified of $samples verified"
! grep -q 'no Python frames' "$TMP/summary" || fail "an interpreter refused: $(cat "$TMP/summary")"
runuser -u "$PYUSER" -- env HOME="$TMP/u" "$TMP/bin/prof" report -i u.data -F folded -g >"$TMP/folded" 2>"$TMP/err" ||
	fail "prof report by the tenant: $(cat "$TMP/err")"
grep -qE 'tenant_spin_\(.*mine\.py:def_2\)' "$TMP/folded" || fail "no tenant_spin frame: $(head -3 "$TMP/folded")"
! grep -q other_tenant_secret "$TMP/folded" u.data "$TMP/u/.debug" -r || fail "the other tenant's function name reached the tenant"
kill -0 "$other" 2>/dev/null || fail "the other tenant's process did not run beside it"
if [ ${#STRACE[@]} -gt 0 ]; then
	# "process_vm_readv(PID, ..." for each call: the pids read
	sed -nE 's/^process_vm_readv\(([0-9]+),.*/\1/p' "$TMP/strace" | sort | uniq -c >"$TMP/read_pids"
	note "process_vm_readv calls by pid read: $(tr -s ' \n' ' ' <"$TMP/read_pids")(the other tenant's: $other)"
	[ "$(wc -l <"$TMP/read_pids")" -eq 1 ] || fail "prof read $(wc -l <"$TMP/read_pids") processes, not the tenant's one"
	! awk '{ print $2 }' "$TMP/read_pids" | grep -qx "$other" || fail "prof read the other tenant's process $other"
	[ "$(awk '{ print $1 }' "$TMP/read_pids")" -ge 100 ] || fail "too few reads to judge by: $(cat "$TMP/read_pids")"
fi
pass "the tenant's own Python frames ($verified of $samples verified), the other's process never attached"
