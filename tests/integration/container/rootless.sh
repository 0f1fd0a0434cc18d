#!/usr/bin/env bash
# Issue 17, item 5 and its Security section.  A tenant (test user U) runs rootless
# containers (user namespace, U's uid on the host, pivot_root into a root U owns);
# a copy of prof with the man page's file capabilities, run by U with --uid U:
# 1. names >= 99 % of each container's samples by its own functions (the one at a
#    path the host lacks, the one where the host has a decoy), never the decoy's, with
#    prof report and perf report, running and after; the objects are kept in U's
#    own cache ($HOME/.debug), U's files, 0600;
# 2. the symlink swap: U replaced the paths in its root, before the recording, by
#    symlinks to /etc/shadow and to another tenant's (V's) private object, and by
#    another ELF file: nothing but the mapped inodes is opened, hashed or copied (U's
#    cache and file hold none of those files' bytes or build ids); those samples are
#    [unknown], never another file's names, and the summary says why;
# 3. V's container, busy meanwhile: none of its objects reach U's cache or file;
# 4. the cache is written with U's rights only: HOME at a directory U cannot write
#    (V's home) leaves nothing there (a warning); an entry already in U's cache with
#    another file is not overwritten.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"
command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"
share=$(cd "$(dirname "$0")/../../.." && pwd)/bench/benchlib/ctrshare.py

U=prof-it-rl-u
V=prof-it-rl-v
make_user "$U"
make_user "$V"
chmod 755 "$TMP"
container_root "$TMP/root"
D=$CTR_DECOY_DIR
[ -n "$(ctr_build_id "$TMP/root/app/ctr-hot")" ] || skip "gcc writes no build ids here"
# Each tenant's root is its own (as a rootless image's files are).
cp -a "$TMP/root" "$TMP/uroot" && chown -R "$U:" "$TMP/uroot" || fail "U's root"
cp -a "$TMP/root" "$TMP/vroot" && chown -R "$V:" "$TMP/vroot" || fail "V's root"
UR=$TMP/uroot
mkdir -p "$TMP/bin" "$TMP/uhome" "$TMP/vhome" && chown "$U:" "$TMP/uhome" && chown "$V:" "$TMP/vhome" &&
	chmod 755 "$TMP/uhome" "$TMP/vhome" || fail "homes"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"
TG=prof-it-rl-tracing
groupadd -f "$TG" && usermod -aG "$TG" "$U" || fail "group"
cleanup_hooks+=("groupdel $TG")
tracefs_readable_by_group "$TG"

# V's private object: V's program with functions of its own (v_secret_*), 0600.
printf 'const char ctr_variant[] = "v";\n' >"$TMP/v.c"
gcc -O2 -g -fno-omit-frame-pointer -Dctr_app_spin=v_secret_spin -Dctr_lib_spin=v_secret_lib -Dctr_app_run=v_secret_run \
	-Dctr_lib_step=v_secret_step -o "$TMP/vroot/app/v-secret" "$(dirname "$0")/../../programs/container_app.c" \
	"$(dirname "$0")/../../programs/container_lib.c" "$TMP/v.c" || fail "build V's program"
chown "$V:" "$TMP/vroot/app/v-secret" && chmod 700 "$TMP/vroot/app/v-secret" || fail "chmod"
cp -p "$TMP/vroot/app/v-secret" "$TMP/vhome/secret.so" || fail "V's secret"
vbid=$(ctr_build_id "$TMP/vroot/app/v-secret")
container_run --quiet --rootless "$V" "$TMP/vroot" libpod -- /app/v-secret 0
vpid=$CTR_PID

# prof as U, bounded: a hang fails the test instead of blocking it.
prof_u() { runuser -u "$U" -- env HOME="$UHOME" timeout 30 "$TMP/bin/prof" "$@"; }

# U's recording of its own uid for 3 s; $1 names it.  Sets F.
record_u() {
	F=$TMP/uhome/$1.data
	prof_u record --uid "$U" -g -e cpu-clock -F 1000 -o "$F" -d 3 >/dev/null 2>"$TMP/$1.err" ||
		fail "$1: U's recording: exit $?: $(cat "$TMP/$1.err")"
	note "$1: $(grep -E '^prof: (objects|[0-9]+ of)' "$TMP/$1.err" | tr '\n' ' ')"
}

# PID LABEL... : each container's share of samples named, by prof report and perf report as U.
names_u() {
	local when=$1
	shift
	prof_u report -i "$F" -F json --sort pid,dso,sym >"$TMP/u.json" 2>"$TMP/u.rerr" || fail "prof report as U: $(cat "$TMP/u.rerr")"
	runuser -u "$U" -- env HOME="$UHOME" "$PERF" report -i "$F" --stdio --no-children -F sample,pid,dso,sym -g none -t '|' \
		>"$TMP/u.perf" 2>/dev/null || fail "perf report as U"
	ctr_check_names "$when" "$TMP/u.json" "$TMP/u.perf" "$@"
}

# Nothing of files[] (bytes or build id) in U's cache or U's file.
none_of() {
	local what=$1 f bid e
	shift
	for f in "$@"; do
		bid=$(ctr_build_id "$f")
		while IFS= read -r -d '' e; do
			cmp -s "$e" "$f" && fail "$what: U's cache holds $f: $e"
		done < <(find "$UHOME/.debug" -type f -print0 2>/dev/null)
		[ -z "$bid" ] && continue
		find "$UHOME/.debug" -path "*/.build-id/${bid:0:2}/${bid:2}*" | grep -q . && fail "$what: U's cache has the build id of $f"
		"$PERF" buildid-list -i "$F" 2>/dev/null | grep -q "^$bid" && fail "$what: U's file records the build id of $f"
	done
	return 0
}

# ---- 1. U's rootless containers, named ---------------------------------------------
UHOME=$TMP/uhome
container_run --quiet --rootless "$U" "$UR" libpod -- /app/ctr-hot 0
app=$CTR_PID app_n=$CTR_N
container_run --quiet --rootless "$U" "$UR" libpod -- "$D/ctr-hot" 0
decoy=$CTR_PID decoy_n=$CTR_N
record_u names
grep -qE "^prof: objects with samples: [0-9]+ kept in $UHOME/.debug" "$TMP/names.err" || fail "nothing kept: $(cat "$TMP/names.err")"
for obj in /app/ctr-hot /app/lib/libctr.so "$D/ctr-hot" "$D/libctr.so"; do
	bid=$(ctr_build_id "$UR$obj")
	e=$UHOME/.debug/.build-id/${bid:0:2}/${bid:2}/elf
	[ -f "$e" ] && cmp -s "$e" "$UR$obj" || fail "U's $obj is not in U's cache: $(find "$UHOME/.debug" | head)"
	[ "$(stat -Lc '%U %a' "$e")" = "$U 600" ] || fail "$e: $(stat -Lc '%U %a' "$e")"
done
bad=$(find "$UHOME/.debug" ! -user "$U" | head -n 3)
[ -z "$bad" ] || fail "files in U's cache that are not U's: $bad"
names_u running "$app" "$decoy"
container_stop "$app_n"
container_stop "$decoy_n"
names_u after "$app" "$decoy"
none_of "names" "$TMP/vroot/app/v-secret" "$D/ctr-hot" "$D/libctr.so"
pass "rootless: U's capability-installed prof --uid U names >= 99 % of its containers' samples (prof report, perf report), running and after; kept in U's cache as U's 0600 files; nothing of V's or the host decoy's"

# ---- 2. the symlink swap, 3. V's container ----------------------------------------
UHOME=$TMP/uhome2
mkdir -p "$UHOME" && chown "$U:" "$UHOME" || fail "home 2"
container_run --quiet --rootless "$U" "$UR" libpod -- /app/ctr-hot-nofp 0
swapped=$CTR_PID
container_run --quiet --rootless "$U" "$UR" libpod -- "$D/ctr-hot-nofp" 0
other=$CTR_PID
# What a hostile tenant does in its own root once its programs run.
runuser -u "$U" -- bash -c "
	ln -sfn /etc/shadow '$UR/app/ctr-hot-nofp.new' && mv -T '$UR/app/ctr-hot-nofp.new' '$UR/app/ctr-hot-nofp' &&
	ln -sfn '$TMP/vhome/secret.so' '$UR/app/lib/libctr-nofp.so.new' && mv -T '$UR/app/lib/libctr-nofp.so.new' '$UR/app/lib/libctr-nofp.so' &&
	cp '$D/ctr-hot-nofp' '$UR$D/ctr-hot-nofp.new' && mv -T '$UR$D/ctr-hot-nofp.new' '$UR$D/ctr-hot-nofp' &&
	ln -sfn /proc/$vpid/root/app/v-secret '$UR$D/libctr-nofp.so.new' && mv -T '$UR$D/libctr-nofp.so.new' '$UR$D/libctr-nofp.so'" ||
	fail "the swap"
record_u swap
grep -qE "replaced at their path" "$TMP/swap.err" || fail "swap: the summary does not say the objects were replaced: $(cat "$TMP/swap.err")"
none_of "swap" /etc/shadow "$TMP/vhome/secret.so" "$TMP/vroot/app/v-secret" "$D/ctr-hot-nofp" "$D/libctr-nofp.so"
prof_u report -i "$F" -F json --sort pid,dso,sym >"$TMP/s.json" 2>"$TMP/s.rerr" || fail "swap: prof report: $(cat "$TMP/s.rerr")"
while read -r p n right wrong dec unknown; do
	[ "$n" -ge 100 ] || fail "swap: container $p has $n samples"
	[ "$wrong" -eq 0 ] || fail "swap: $p: $wrong of $n samples named by another file ($dec the host decoy's)"
	note "swap: $p: $n samples, $unknown [unknown], 0 named by another file"
done < <(python3 "$share" names prof-json "$TMP/s.json" "$swapped" "$other")
grep -q v_secret "$TMP/s.json" && fail "swap: V's functions in U's report"
python3 "$share" names prof-json "$TMP/s.json" "$vpid" | awk '$2 != 0 { exit 1 }' || fail "swap: V's samples in U's file"
pass "symlink swap: links to /etc/shadow and V's object, another ELF at the path: none opened or copied, their samples [unknown], none named wrong; V's container absent from U's file and cache"

# ---- 4. the cache: U's rights only, never overwritten ----------------------------------
UHOME=$TMP/vhome        # V's, which U cannot write
container_run --quiet --rootless "$U" "$TMP/root" libpod -- /app/ctr-hot 0
record_u foreign
[ ! -e "$TMP/vhome/.debug" ] || fail "U's prof wrote into V's home: $(find "$TMP/vhome/.debug" | head)"
grep -q "could not be written" "$TMP/foreign.err" || fail "no warning for a cache U cannot write: $(cat "$TMP/foreign.err")"
pass "HOME at V's home: nothing written there, and prof says so: $(grep 'could not be written' "$TMP/foreign.err")"

UHOME=$TMP/uhome3
bid=$(ctr_build_id "$TMP/root/app/ctr-hot")
e=$UHOME/.debug/.build-id/${bid:0:2}/${bid:2}
runuser -u "$U" -- bash -c "mkdir -p '$UHOME' && mkdir -p '$e' && cp /bin/true '$e/elf'" 2>/dev/null ||
	{ mkdir -p "$e" && cp /bin/true "$e/elf" && chown -R "$U:" "$TMP/uhome3"; } || fail "pre-placed entry"
record_u conflict
cmp -s "$e/elf" /bin/true || fail "an entry of another file was overwritten"
grep -q "another file at their place in the cache" "$TMP/conflict.err" || fail "conflict not said: $(cat "$TMP/conflict.err")"
pass "an entry of another file at the object's place stays as it was, and prof says so"
