#!/usr/bin/env bash
# The Debian package, end to end: built with dpkg-buildpackage from a clean clone of
# this tree (what is committed, not the work tree's changes), lintian, installed with
# apt-get, then what it promises: prof's file capabilities for the prof-admin group,
# the prof system user, the unit systemd-analyze accepts, enabled and not started, a
# recording by a user who is not root, and a purge that leaves nothing of it behind
# but the system accounts (which Debian leaves: files elsewhere may still be theirs).
. "$(dirname "$0")/../lib.sh"
require_root
src=$(cd "$(dirname "$0")/../../.." && pwd)
for c in git dpkg-buildpackage dpkg-checkbuilddeps lintian apt-get getcap runuser systemd-analyze; do
	command -v $c >/dev/null || skip "needs $c (scripts/dev's test_packages)"
done
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || skip "$src is not a git clone"
# Never replace or purge a prof the host has installed, nor state it keeps.
status() { dpkg-query -W -f='${db:Status-Status}' prof 2>/dev/null || true; }
case $(status) in '' | not-installed) ;; *) skip "the prof package is $(status) here; the test would purge it" ;; esac
for f in /usr/bin/prof /usr/sbin/profd /etc/prof.conf /etc/prof /var/lib/prof /run/prof /lib/systemd/system/profd.service; do
	[ ! -e "$f" ] || skip "$f exists; the test would remove it"
done

chmod 755 "$TMP"
accounts=()
for a in prof prof-admin; do getent group "$a" >/dev/null || accounts+=("$a"); done

# ---- build ---------------------------------------------------------------------
git clone -q "$src" "$TMP/b/prof" || fail "git clone $src"
note "building $(git -C "$TMP/b/prof" log -1 --format='%h %s')"
(cd "$TMP/b/prof" && dpkg-checkbuilddeps) >"$TMP/deps" 2>&1 || skip "build dependencies missing: $(cat "$TMP/deps")"
t0=$(date +%s)
(cd "$TMP/b/prof" && dpkg-buildpackage -b -us -uc -j2) >"$TMP/build.log" 2>&1 ||
	fail "dpkg-buildpackage: $(tail -n 30 "$TMP/build.log")"
t1=$(date +%s)
deb=$(ls "$TMP"/b/prof_*_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no prof_*.deb in $TMP/b: $(ls "$TMP/b")"
pass "built $(basename "$deb") in $((t1 - t0)) s, $(du -k "$deb" | cut -f1) kB"

lintian -I --pedantic "$TMP"/b/prof_*.changes >"$TMP/lintian" 2>&1
grep -v "running with root privileges" "$TMP/lintian" | grep -q '^E:' && fail "lintian errors: $(cat "$TMP/lintian")"
pass "lintian -I --pedantic: no errors, $(grep -c '^W:' "$TMP/lintian") warnings, $(grep -c '^[IP]:' "$TMP/lintian") info/pedantic"
grep -E '^[WIP]:' "$TMP/lintian" | while read -r l; do note "$l"; done

# ---- install -------------------------------------------------------------------
# Where systemd runs, postinst would start profd: a policy-rc.d that says no (which
# deb-systemd-invoke obeys) keeps a whole-host sampler out of the tests that follow.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
	cleanup_hooks+=("rm -f /usr/sbin/policy-rc.d")
fi
cleanup_hooks+=("case \$(status) in '' | not-installed) ;; *) DEBIAN_FRONTEND=noninteractive dpkg --purge prof >/dev/null 2>&1 ;; esac")
# The system accounts the package makes stay after a purge: remove those this test
# made, so the host ends as it began.
for a in "${accounts[@]}"; do
	cleanup_hooks+=("getent passwd $a >/dev/null && userdel $a; getent group $a >/dev/null && groupdel $a")
done
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" >"$TMP/install.log" 2>&1 ||
	fail "apt-get install: $(tail -n 30 "$TMP/install.log")"
grep -i "setcap.*failed" "$TMP/install.log" && skip "no file capabilities on this filesystem: $(grep -A2 -i setcap "$TMP/install.log")"
pass "installed: $(dpkg-query -W -f='${Package} ${Version}, ${Installed-Size} kB' prof)"

caps=$(getcap /usr/bin/prof)
for c in cap_perfmon cap_sys_ptrace cap_syslog cap_bpf; do
	grep -q "$c" <<<"$caps" || fail "getcap /usr/bin/prof lacks $c: '$caps'"
done
grep -q '=ep$' <<<"$caps" || fail "getcap /usr/bin/prof: not =ep: '$caps'"
[ "$(stat -c '%U:%G %a' /usr/bin/prof)" = "root:prof-admin 750" ] ||
	fail "/usr/bin/prof is $(stat -c '%U:%G %a' /usr/bin/prof), not root:prof-admin 750"
pass "getcap: $caps, $(stat -c '%U:%G %a' /usr/bin/prof)"
# A filesystem without extended attributes, as setcap meets it: postinst still
# succeeds and says what that means; run again with the real setcap, as before.
mkdir "$TMP/noxattr" && printf '#!/bin/sh\necho "Failed to set capabilities on file \x27$2\x27 (Operation not supported)" >&2\nexit 1\n' \
	>"$TMP/noxattr/setcap" && chmod 755 "$TMP/noxattr/setcap" || fail "setcap shim"
postinst() { DPKG_MAINTSCRIPT_PACKAGE=prof DPKG_MAINTSCRIPT_NAME=postinst /var/lib/dpkg/info/prof.postinst configure; }
PATH=$TMP/noxattr:$PATH postinst >"$TMP/noxattr.out" 2>&1 ||
	fail "postinst fails where setcap does: $(cat "$TMP/noxattr.out")"
grep -q "only root can profile" "$TMP/noxattr.out" || fail "postinst where setcap fails: $(cat "$TMP/noxattr.out")"
postinst >"$TMP/postinst.out" 2>&1 && [ "$(getcap /usr/bin/prof)" = "$caps" ] ||
	fail "postinst again: $(cat "$TMP/postinst.out"), getcap '$(getcap /usr/bin/prof)'"
pass "where setcap fails, postinst succeeds and says: $(grep -A2 '^prof:' "$TMP/noxattr.out" | tr -s '\n\t ' ' ')"

pw=$(getent passwd prof) || fail "no prof user"
IFS=: read -r _ _ puid _ _ phome pshell <<<"$pw"
[ "$puid" -lt 1000 ] && [ "$phome" = /var/lib/prof ] && [ "$pshell" = /usr/sbin/nologin ] ||
	fail "prof user: $pw"
getent group prof-admin >/dev/null || fail "no prof-admin group"
pass "system user: $pw"

dpkg-query -W -f='${Conffiles}\n' prof | grep -q '^ /etc/prof.conf ' || fail "/etc/prof.conf is not a conffile"
grep -qx 'admin_group = prof-admin' /etc/prof.conf || fail "/etc/prof.conf: no admin_group = prof-admin"
[ "$(stat -c '%U %a' /etc/prof.conf)" = "root 644" ] || fail "/etc/prof.conf is $(stat -c '%U %a' /etc/prof.conf)"
for m in man1/prof.1 man1/prof-record.1 man1/prof-report.1 man1/prof-top.1 man5/prof.conf.5 man8/profd.8; do
	[ -s /usr/share/man/$m.gz ] || fail "no /usr/share/man/$m.gz"
done
zgrep -q /usr/local/etc /usr/share/man/man[158]/prof*.gz && fail "a man page names /usr/local/etc, not /etc"
pass "conffile /etc/prof.conf, 6 man pages"

unit=/lib/systemd/system/profd.service
grep -qx 'ExecStart=/usr/sbin/profd --foreground' $unit || fail "$unit: $(grep ExecStart $unit)"
systemd-analyze verify $unit >"$TMP/verify" 2>&1 || fail "systemd-analyze verify $unit: $(cat "$TMP/verify")"
[ -s "$TMP/verify" ] && fail "systemd-analyze verify $unit said: $(cat "$TMP/verify")"
[ -L /etc/systemd/system/multi-user.target.wants/profd.service ] || fail "profd.service is not enabled"
if [ -d /run/systemd/system ]; then
	systemctl is-active --quiet profd && fail "profd was started during the test's install"
	note "systemd runs here: profd enabled, its start held back by policy-rc.d"
else
	note "systemd is not running here (container): profd enabled, not started"
fi
pass "systemd-analyze verify: clean; profd.service enabled"
/usr/sbin/profd --version >/dev/null || fail "profd --version"

# ---- a user who is not root ----------------------------------------------------
U=prof-it-deb
O=prof-it-deb2
make_user "$U"
make_user "$O"
usermod -aG prof-admin "$U" || fail "usermod -aG prof-admin $U"
public_copy "$PROF_HOT" >/dev/null
mkdir "$TMP/u" && chown "$U" "$TMP/u" || fail "mkdir"
cd "$TMP/u" || fail cd
uid=$(id -u "$U")
runuser -u "$U" -- timeout 30 /usr/bin/prof record --uid "$uid" -o u.data -- "$TMP/pub/prof-hot" 0.5 \
	>"$TMP/out" 2>"$TMP/err" || fail "prof record --uid $uid as $U: exit $?: $(cat "$TMP/err")"
n=$(sed -n 's/.*prof record: \([0-9]*\) samples written.*/\1/p' "$TMP/err")
[ "${n:-0}" -gt 0 ] || fail "no samples: $(cat "$TMP/err")"
[ "$(stat -c %U u.data)" = "$U" ] || fail "u.data is $(stat -c %U u.data)'s"
runuser -u "$U" -- /usr/bin/prof report -i u.data --sort comm >"$TMP/report" 2>&1 || fail "prof report: $(cat "$TMP/report")"
grep -q prof-hot "$TMP/report" || fail "prof-hot is not in the report: $(head -n 20 "$TMP/report")"
pass "as $U (prof-admin): prof record --uid $uid: $n samples, prof-hot in the report"
runuser -u "$O" -- /usr/bin/prof --version >"$TMP/out" 2>&1 && fail "$O, not in prof-admin, ran /usr/bin/prof"
grep -q "Permission denied" "$TMP/out" || fail "$O: $(cat "$TMP/out")"
pass "$O, not in prof-admin, may not run it: $(cat "$TMP/out")"

# An operator's -g of a Python program: cap_bpf loads the program that reads each
# Python function's callers at the sample instant, so they get the callers root gets
# (not "[python: callers not proven]").  Debian's python3.11; root's recording with
# the same binary says first what prof shows of this build at all.
PY=/usr/bin/python3.11
cat >"$TMP/u/work.py" <<'PYW'
import sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def middle(n):
    return leaf(n)
def outer(n):
    return middle(n)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    outer(5000)
PYW
chmod 644 "$TMP/u/work.py"
# "GOOD TOTAL": python3.11's samples whose Python frames are outer, middle and leaf, of
# all of its samples in file $1, read by the command after it (a runuser prefix, or none)
py_chains() {
	local f=$1
	shift
	"$@" /usr/bin/prof report -i "$f" -F folded -g 2>/dev/null | awk '/^python3\.11;/ { t += $NF
		if ($0 ~ /outer_\(.*work\.py:[0-9]+\);middle_\(.*work\.py:[0-9]+\);leaf_\(/) g += $NF }
		END { print g + 0, t + 0 }'
}
if [ ! -x "$PY" ]; then
	note "no $PY (Debian's python3.11): the operators' Python callers are not checked"
else
	/usr/bin/prof record -g -o "$TMP/root-py.data" -- "$PY" "$TMP/u/work.py" 2 >"$TMP/out" 2>"$TMP/root-py.err" ||
		fail "root's prof record -g of $PY: $(cat "$TMP/root-py.err")"
	read -r rg rt <<<"$(py_chains "$TMP/root-py.data")"
	if [ "$rg" -lt $((rt / 4)) ] || [ "$rt" -eq 0 ]; then
		note "root's prof record -g of $PY has its callers in $rg of $rt samples: prof does not read" \
			"this build's frames ($(grep -m1 'Python' "$TMP/root-py.err")); the operators' Python callers are not checked"
	else
		# (HOME: the build-id cache that keeps the object naming the Python frames is
		# the user's own ~/.debug; runuser keeps root's HOME)
		as_u=(runuser -u "$U" -- env HOME="$TMP/u")
		"${as_u[@]}" /usr/bin/prof record -g -o py.data -- "$PY" "$TMP/u/work.py" 2 >"$TMP/out" 2>"$TMP/py.err" ||
			fail "prof record -g of $PY as $U: exit $?: $(cat "$TMP/py.err")"
		read -r ug ut <<<"$(py_chains "$TMP/u/py.data" "${as_u[@]}")"
		grep -q 'CAP_BPF' "$TMP/py.err" && fail "as $U (prof-admin): prof asks for CAP_BPF: $(cat "$TMP/py.err")"
		grep -q 'read in the kernel (BPF)' "$TMP/py.err" || fail "as $U: no callers read in the kernel: $(cat "$TMP/py.err")"
		[ "$ug" -ge $((ut / 4)) ] && [ "$ut" -gt 0 ] ||
			fail "as $U: outer, middle and leaf in $ug of $ut samples (root: $rg of $rt): $(cat "$TMP/py.err")"
		pass "as $U (prof-admin): prof record -g of $PY: outer;middle;leaf in $ug of $ut samples (root: $rg of $rt), read in the kernel (BPF)"
	fi
fi
cd / || fail cd

# ---- profd as its unit runs it -------------------------------------------------
# Without systemd here (and with its start held back where it runs), the installed
# profd is run as the unit would: the prof user, the unit's four capabilities, the
# directories of StateDirectory= and RuntimeDirectory=, /etc/prof.conf's defaults.
# Its history is then what purge has to remove.
command -v setpriv >/dev/null || fail "no setpriv (util-linux)"
install -d -o prof -g prof -m 0700 /var/lib/prof && install -d -o prof -g prof -m 0755 /run/prof || fail "state dirs"
CAPS=+perfmon,+sys_ptrace,+syslog,+dac_read_search
setpriv --reuid=prof --regid=prof --init-groups --inh-caps=$CAPS --ambient-caps=$CAPS --bounding-set=-all,$CAPS \
	/usr/sbin/profd --foreground 2>"$TMP/profd.log" &
pd=$!
cleanup_hooks+=("kill -KILL $pd 2>/dev/null")
for _ in $(seq 100); do
	kill -0 $pd 2>/dev/null || fail "profd exited at start: $(tail -n 5 "$TMP/profd.log")"
	runuser -u "$U" -- /usr/bin/prof daemon status >"$TMP/status" 2>&1 && break
	sleep 0.1
done
runuser -u "$U" -- /usr/bin/prof daemon status >"$TMP/status" 2>&1 || fail "prof daemon status as $U: $(cat "$TMP/status"); profd: $(tail -n 5 "$TMP/profd.log")"
[ -S /run/prof/profd.sock ] || fail "no /run/prof/profd.sock"
sleep 1.5
kill -TERM $pd && wait $pd || fail "profd exited $? on SIGTERM: $(tail -n 5 "$TMP/profd.log")"
[ -n "$(ls -A /var/lib/prof)" ] || fail "profd left no history in /var/lib/prof"
pass "profd as prof with the unit's capabilities: $U's 'prof daemon status' answered ($(head -n 1 "$TMP/status")); history in /var/lib/prof: $(ls /var/lib/prof | tr '\n' ' ')"

# ---- purge ---------------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get purge -y prof >"$TMP/purge.log" 2>&1 || fail "apt-get purge: $(tail -n 20 "$TMP/purge.log")"
case $(status) in '' | not-installed) ;; *) fail "prof is $(status) after the purge" ;; esac
for f in /usr/bin/prof /usr/sbin/profd /etc/prof.conf /etc/prof /var/lib/prof /run/prof $unit \
	/etc/systemd/system/multi-user.target.wants/profd.service /usr/share/doc/prof /usr/share/man/man1/prof.1.gz; do
	[ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f is left after the purge"
done
getent passwd prof >/dev/null || fail "the prof user was removed (Debian keeps system users)"
pass "purged: no files left; the prof user and prof-admin group stay, as Debian leaves system accounts"
