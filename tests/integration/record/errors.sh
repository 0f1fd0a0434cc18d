#!/usr/bin/env bash
# Bad input gets a clear error and a meaningful exit code.
. "$(dirname "$0")/../lib.sh"

cd "$TMP" || fail "cd"
expect() {
	local want=$1 msg=$2; shift 2
	"$PROF" "$@" >out 2>err
	rc=$?
	[ "$rc" -eq "$want" ] || fail "'prof $*': exit $rc, want $want: $(cat err)"
	grep -q -- "$msg" err || fail "'prof $*': message lacks '$msg': $(cat err)"
	pass "'prof $*' -> $rc: $(head -n 1 err)"
}
expect 2 "unknown event 'nosuch'" record -e nosuch -a
expect 2 "known events: cycles" record -e nosuch -a
expect 2 "power of two" record -m 3 -a
# 4 GiB per CPU overflowed the ring buffer size: nothing recorded, "0 lost".
expect 2 "power of two number of pages from 1 to" record -m 1048576 -a -d 0.2
expect 2 "exclude each other" record -F 99 -c 1000 -a
expect 2 "nothing to record" record
expect 2 "unknown option" record --frobnicate
expect 2 "unknown command" frobnicate
"$PROF" --help | grep -q "usage: prof" || fail "prof --help"
[ "$("$PROF" record --help | wc -l)" -le 25 ] || fail "record --help does not fit a screen"
pass "help"

require_root
expect 1 "cannot create output file '/nonexistent/dir/f'" record -a -d 0.2 -o /nonexistent/dir/f
ln -s /etc/passwd link.data
expect 1 "not a regular file" record -a -d 0.2 -o link.data
[ -L link.data ] || fail "symlink replaced"

# Not privileged: name the capability and the sysctl.
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ] && command -v setpriv >/dev/null; then
	chmod 1777 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$PROF" record -a -d 0.2 -o "$TMP/nobody.data" >out 2>err
	rc=$?
	[ "$rc" -eq 1 ] || fail "unprivileged: exit $rc: $(cat err)"
	grep -q CAP_PERFMON err && grep -q perf_event_paranoid err || fail "unprivileged message: $(cat err)"
	[ ! -e "$TMP/nobody.data" ] || fail "unprivileged run left a file"
	pass "unprivileged: $(head -n 2 err | tr '\n' ' ')"
fi

# Out of file descriptors (hard limit too low to lift).

bash -c "ulimit -n 5; exec \"$PROF\" record -a -d 0.2 -o \"$TMP/fd.data\"" >out 2>err
rc=$?
[ "$rc" -eq 1 ] || fail "EMFILE: exit $rc: $(cat err)"
grep -q "out of file descriptors" err || fail "EMFILE message: $(cat err)"
[ ! -e "$TMP/fd.data" ] || fail "EMFILE left a file"
pass "EMFILE: $(head -n 1 err)"

# An existing recording is kept as .old.
"$PROF" record -a -q -d 0.2 -o keep.data || fail "first recording"
"$PROF" record -a -q -d 0.2 -o keep.data || fail "second recording"
[ -s keep.data.old ] || fail "no keep.data.old"
[ "$(stat -c %a keep.data)" = 600 ] || fail "output mode $(stat -c %a keep.data), want 600"
pass "old output kept as .old, mode 0600"

# A kernel older than prof's minimum (5.7): the UNAME26 personality makes uname(2)
# report a 2.6 release to prof, as an old kernel would.  prof names the release it
# saw and the minimum, and creates nothing (not "check -F/-c" after the kernel's EINVAL).
if command -v setarch >/dev/null && setarch "$(uname -m)" --uname-2.6 true 2>/dev/null; then
	setarch "$(uname -m)" --uname-2.6 "$PROF" record -a -d 0.2 -o "$TMP/old.data" >out 2>err
	rc=$?
	[ "$rc" -eq 1 ] || fail "an old kernel: exit $rc, want 1: $(cat err)"
	grep -q "runs Linux 2\.6\.[0-9].*prof needs Linux 5\.7 or later" err || fail "an old kernel's message: $(cat err)"
	grep -q "F/-c" err && fail "an old kernel's message blames -F/-c: $(cat err)"
	[ ! -e "$TMP/old.data" ] || fail "an old kernel: a file was created"
	pass "a kernel older than 5.7: $(head -n 1 err)"
else
	note "setarch --uname-2.6 does not run here: the old kernel's message is not checked"
fi
