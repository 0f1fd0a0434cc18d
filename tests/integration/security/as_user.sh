#!/usr/bin/env bash
# Files a user names, and files prof reads for them, are opened with the user's own
# rights, not prof's capabilities.  A copy of prof installed with CAP_DAC_READ_SEARCH
# besides the usual ones (an admin who thinks it harmless, or one who added it for
# reading binaries) is run by an ordinary user: that capability reads any file and
# searches any directory, and setfsuid() alone does not take it away.  Each check
# below succeeded through the capability before prof cleared its effective
# capabilities for these opens (privs__as_user).
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"
: "${PROF_JIT:?PROF_JIT must name the prof-jit test program}"

U=prof-it-asuser
make_user "$U"
chmod 755 "$TMP"
mkdir "$TMP/bin" "$TMP/u" "$TMP/root" "$TMP/root/pub" || fail "dirs"
chown "$U" "$TMP/u" || fail chown
# root's own directory, and inside it one anyone could write to if they could reach it
chmod 700 "$TMP/root"
chmod 777 "$TMP/root/pub"
echo "root's" >"$TMP/root/pub/keep.data" && chmod 644 "$TMP/root/pub/keep.data" || fail "keep.data"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_dac_read_search=ep "$TMP/bin/prof" 2>/dev/null ||
	skip "file capabilities not supported here"
cp "$PROF_HOT" "$TMP/bin/prof-hot" && chmod 755 "$TMP/bin/prof-hot" || fail "copy"
cp "$PROF_JIT" "$TMP/bin/prof-jit" && chmod 755 "$TMP/bin/prof-jit" || fail "copy"
cd "$TMP/u" || fail cd

as_user() { runuser -u "$U" -- "$@"; }
# prof as the user, bounded: a hang fails the test instead of blocking it.
prof_user() { as_user timeout 30 "$TMP/bin/prof" "$@" >"$TMP/out" 2>"$TMP/err"; }

# The premise: on this file system a file capability does lend the user what prof
# must not pass on (else every check below would pass for nothing).
cp "$(command -v cat)" "$TMP/bin/cat" && setcap cap_dac_read_search=ep "$TMP/bin/cat" || fail "cat copy"
as_user test -e "$TMP/root/pub/keep.data" && fail "$U reaches into root's directory without a capability"
as_user "$TMP/bin/cat" "$TMP/root/pub/keep.data" >/dev/null 2>&1 ||
	skip "file capabilities are not honoured on $TMP (nosuid mount?)"
pass "premise: cap_dac_read_search=ep lets $U read $TMP/root/pub/keep.data"

# ---- record -o: the create and the rename to .old -------------------------------
prof_user record -q -o "$TMP/root/pub/u.data" -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ -e "$TMP/root/pub/u.data" ] && fail "record -o into root's directory created a file (exit $rc)"
[ "$rc" -eq 1 ] && grep -q "Permission denied" "$TMP/err" ||
	fail "record -o into root's directory: exit $rc: $(cat "$TMP/err")"
pass "record -o into root's directory: $(cat "$TMP/err")"
prof_user record -q -o "$TMP/root/pub/keep.data" -- "$TMP/bin/prof-hot" 0.2
rc=$?
[ -e "$TMP/root/pub/keep.data.old" ] && fail "record -o moved root's file to .old (exit $rc)"
[ "$(cat "$TMP/root/pub/keep.data")" = "root's" ] || fail "record -o replaced root's file (exit $rc)"
[ "$rc" -eq 1 ] || fail "record -o over root's file: exit $rc: $(cat "$TMP/err")"
pass "record -o over root's file: left alone: $(cat "$TMP/err")"

# Her own recording, for the report checks (and: the capability copy does work).
prof_user record -q -o u.data -- "$TMP/bin/prof-hot" 0.3 || fail "record by $U: $(cat "$TMP/err")"
[ "$(stat -c %U u.data)" = "$U" ] || fail "u.data is not $U's"
prof_user record -q -o u.data -- "$TMP/bin/prof-hot" 0.3 || fail "second record by $U: $(cat "$TMP/err")"
[ -f u.data.old ] || fail "her own file was not kept as u.data.old"
pass "her own recordings: u.data, u.data.old"
# ... and the files she may read are still read as hers: the build id of her program
want=$(readelf -n "$TMP/bin/prof-hot" | awk '/Build ID:/ { print $3 }')
[ -n "$want" ] || fail "readelf finds no build id in prof-hot"
perf_clean "$TMP/bids" buildid-list -f -i u.data
grep -qx "$want $TMP/bin/prof-hot" "$TMP/bids" || fail "her program's build id was not read: $(cat "$TMP/bids")"
pass "the build id of her own program is read (as hers): $want"

# ---- report -F pprof -o ----------------------------------------------------------
prof_user report -i u.data -F pprof -o "$TMP/root/pub/u.pb.gz"
rc=$?
[ -e "$TMP/root/pub/u.pb.gz" ] && fail "report -o into root's directory created a file (exit $rc)"
[ "$rc" -ne 0 ] && grep -q "Permission denied" "$TMP/err" ||
	fail "report -o into root's directory: exit $rc: $(cat "$TMP/err")"
pass "report -F pprof -o into root's directory: $(cat "$TMP/err")"
prof_user report -i u.data -F pprof -o u.pb.gz || fail "report -o of her own: $(cat "$TMP/err")"
[ -s u.pb.gz ] && [ "$(stat -c %U u.pb.gz)" = "$U" ] || fail "u.pb.gz is not hers or empty"
pass "report -F pprof -o in her own directory"

# ---- report -i and --config of root's files (regressions) -------------------------
cp u.data "$TMP/root/root.data" && chmod 600 "$TMP/root/root.data" || fail "root.data"
prof_user report -i "$TMP/root/root.data"
[ $? -eq 1 ] && grep -q "Permission denied" "$TMP/err" || fail "report -i of root's file: $(cat "$TMP/err")"
pass "report -i of root's file: $(cat "$TMP/err")"
printf '[record]\nfrequency = 99\n' >"$TMP/root/pub/root.conf" && chmod 600 "$TMP/root/pub/root.conf" || fail conf
prof_user record --config "$TMP/root/pub/root.conf" -o c.data -- "$TMP/bin/prof-hot" 0.2
[ $? -eq 2 ] && grep -q "Permission denied" "$TMP/err" || fail "--config of root's file: $(cat "$TMP/err")"
[ ! -e c.data ] || fail "recorded with root's file as configuration"
pass "--config of root's file: $(cat "$TMP/err")"

# ---- a JIT map only root may read ---------------------------------------------------
prof_user record -q -o jit.data -- "$TMP/bin/prof-jit" 1 || fail "record of the JIT by $U: $(cat "$TMP/err")"
pid=$(cat "$TMP/out")
map=/tmp/perf-$pid.map
cleanup_hooks+=("rm -f $map")
[ "$(stat -c %U "$map")" = "$U" ] || fail "$map is not $U's"
prof_user report -i jit.data --sort sym --top 1 || fail "report of the JIT: $(cat "$TMP/err")"
grep -qE '\[\.\] jitted_spin$' "$TMP/out" || fail "her own JIT map is not used: $(cat "$TMP/out")"
# root's file now (root's maps are trusted by anyone's report), readable by root only
sed -i 's/jitted_spin/root_only_name/' "$map" && chown root "$map" && chmod 600 "$map" || fail "rewrite $map"
as_user test -r "$map" && fail "$U can still read $map"
prof_user report -i jit.data --sort sym --top 1 || fail "report of the JIT: $(cat "$TMP/err")"
grep -q root_only_name "$TMP/out" && fail "report read root's 0600 $map through the capability: $(cat "$TMP/out")"
grep -q '\[unknown\] (//anon)' "$TMP/out" || fail "the JIT code is not [unknown] (//anon): $(cat "$TMP/out")"
pass "a JIT map only root may read is not read: $(grep -F '(//anon)' "$TMP/out")"

# ---- the objects a recording names, read by report ---------------------------------
# Her recording names her program; made unreadable to her (execute only, as an
# admin's binary may be), its symbols must not be named through the capability.
prof_user report -i u.data --sort sym --top 3 || fail "report of u.data: $(cat "$TMP/err")"
grep -q '\[\.\] hot_function' "$TMP/out" || fail "her readable program is not named: $(cat "$TMP/out")"
chmod 711 "$TMP/bin/prof-hot" || fail chmod
cleanup_hooks+=("chmod 755 $TMP/bin/prof-hot")
as_user test -r "$TMP/bin/prof-hot" && fail "$U can still read prof-hot"
prof_user report -i u.data --sort sym --top 3 || fail "report of u.data: $(cat "$TMP/err")"
grep -q 'hot_function' "$TMP/out" && fail "report read the symbols of a file $U cannot read: $(cat "$TMP/out")"
grep -q '\[unknown\] (prof-hot)' "$TMP/out" || fail "prof-hot's samples are not [unknown] (prof-hot): $(cat "$TMP/out")"
chmod 755 "$TMP/bin/prof-hot"
pass "an object she cannot read is not symbolized for her: $(grep -F '(prof-hot)' "$TMP/out" | head -1)"
