#!/usr/bin/env bash
# A copy of prof with file capabilities, run by an ordinary user: their own uid records
# fine (tracefs readable by a group of theirs); another user's uid, a foreign cgroup,
# -a and another's pid are refused; with another user busy meanwhile, the file holds
# none of their samples, comms or maps and no kernel addresses; -o through a symlink is refused and the target is untouched.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"

A=prof-it-alice
B=prof-it-bob
make_user "$A"
make_user "$B"
chmod 755 "$TMP"
mkdir "$TMP/bin" "$TMP/a" && chown "$A" "$TMP/a" && chmod 700 "$TMP/a" || fail "dirs"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"
cp "$PROF_HOT" "$TMP/bin/prof-hot" && cp "$PROF_HOT" "$TMP/bin/bobsecret" && chmod 755 "$TMP/bin/"* || fail "copy"

as_alice() { runuser -u "$A" -- "$@"; }

# --uid needs the set*uid() tracepoints: tracefs readable by a group of hers, as
# prof's refusal tells admins to do.
TG=prof-it-tracing
groupadd -f "$TG" && usermod -aG "$TG" "$A" || fail "group"
cleanup_hooks+=("groupdel $TG")
tracefs_readable_by_group "$TG"

runuser -u "$B" -- "$TMP/bin/bobsecret" 20 >/dev/null &
cleanup_hooks+=("kill $! 2>/dev/null")
sleep 0.3
# Bob's own process, not runuser's (root's) pid: the one whose samples must not leak
# and whose pid alice must not be allowed to record.
bob=$(pgrep -u "$B" -x bobsecret) || fail "bob's busy process did not start"
cleanup_hooks+=("kill $bob 2>/dev/null")

# Her own uid, with her own workload.
F=$TMP/a/alice.data
as_alice "$TMP/bin/prof" record --uid "$A" -g -o "$F" -- "$TMP/bin/prof-hot" 2 >"$TMP/out" 2>"$TMP/err" ||
	fail "alice's own recording: exit $?: $(cat "$TMP/err")"
cat "$TMP/err"
[ "$(stat -c '%U %a' "$F")" = "$A 600" ] || fail "output owner/mode: $(stat -c '%U %a' "$F")"
as_alice perf script -i "$F" -F comm,pid,ip,sym >"$TMP/script" 2>"$TMP/perr" || fail "perf script as alice: $(cat "$TMP/perr")"
grep -q 'hot_function' "$TMP/script" || fail "her hot_function is missing"
grep -q bobsecret "$TMP/script" && fail "bob's samples are in alice's file"
awk -v b="$bob" '$2 == b' "$TMP/script" | grep -q . && fail "a sample with bob's pid"
as_alice perf script -i "$F" --show-task-events --show-mmap-events >"$TMP/raw" 2>/dev/null || fail "perf script raw"
grep -q bobsecret "$TMP/raw" && fail "bob's comm or maps are in alice's file"
# No kernel addresses: every sampled ip and call chain entry is a user address.
as_alice perf script -i "$F" -F ip >"$TMP/ips" 2>/dev/null || fail "perf script ips"
grep -qiE '^ *ffff' "$TMP/ips" && fail "kernel addresses in alice's file: $(grep -iE '^ *ffff' "$TMP/ips" | head -2)"
pass "alice: her samples only, none of bob's, no kernel addresses ($(wc -l <"$TMP/script") lines)"

refused() {
	as_alice "$TMP/bin/prof" record "$@" -o "$TMP/a/refused.data" -d 0.5 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -ne 0 ] || fail "'$*' was allowed"
	grep -q "policy" "$TMP/err" || fail "'$*': message does not name the policy: $(cat "$TMP/err")"
	[ ! -e "$TMP/a/refused.data" ] || fail "'$*' left a file"
	pass "refused '$*': $(head -n1 "$TMP/err")"
}
refused --uid "$B"
refused --uid "$A,$B"
refused -a
[ -d "/proc/$bob" ] || fail "bob's process $bob is gone before the --pid check"
refused --pid "$bob"
refused --cgroup /

# -o through a symlink to a file she cannot write: refused, target untouched.
echo "root's data" >"$TMP/rootfile" && chmod 644 "$TMP/rootfile"
ln -s "$TMP/rootfile" "$TMP/a/link.data" && chown -h "$A" "$TMP/a/link.data"
as_alice "$TMP/bin/prof" record --uid "$A" -o "$TMP/a/link.data" -d 0.3 >"$TMP/out" 2>"$TMP/err" && fail "symlink output accepted"
[ "$(cat "$TMP/rootfile")" = "root's data" ] || fail "the symlink's target was changed"
[ -L "$TMP/a/link.data" ] || fail "the symlink was replaced"
pass "symlink output refused: $(head -n1 "$TMP/err")"

# A file in a directory she cannot write is not created, nor an existing one renamed.
as_alice "$TMP/bin/prof" record --uid "$A" -o "$TMP/rootfile" -d 0.3 >"$TMP/out" 2>"$TMP/err" && fail "wrote into root's directory"
[ "$(cat "$TMP/rootfile")" = "root's data" ] && [ ! -e "$TMP/rootfile.old" ] || fail "root's file was touched"
pass "root's file untouched: $(head -n1 "$TMP/err")"
