#!/usr/bin/env bash
# Issue 21: short processes of a chroot whose program is at a path where the host
# has another program.  A root directory with its own program (the container
# tests' root: $CTR_DECOY_DIR/ctr-hot and its library, its loader and libc, and a
# shell) runs, chrooted (the same mount namespace, another root), a loop of 30 ms
# processes of $CTR_DECOY_DIR/ctr-hot; the host's file at that path is the decoy
# (functions decoy_*).  Recorded with `prof record -g -- chroot ROOT sh -c LOOP`.
# Checks:
# - >= 95 % of the loop's samples named by their own functions by prof report and
#   by perf report of prof's file, none after the host's decoy;
# - the same without frame pointers, `--call-graph dwarf`: >= 95 % named, none after
#   the decoy, >= 90 % of their stacks reach main and _start (prof report -F folded,
#   perf script of prof's file);
# - two chroots at once, each of its own tenant (root, and nobody by chroot
#   --userspec), each with its own program at the same path (another tenant's root:
#   another program whose functions are ctr_b_*, its processes renamed ctr-other):
#   each loop's samples named after its own root's program by both readers (>= 95 %),
#   never after the other root's nor the host's decoy: an object whose task is gone
#   is read under its own place's held root only;
# - 70 chroots alive at once: at most 64 roots held, the others counted and said;
# - with the objects' build ids unreadable (keep_objects off and build ids refused,
#   PROF_TEST_NO_BUILD_IDS is not a thing: instead the root's copy of the program
#   is stripped of its build-id note), perf report, perf script and perf annotate
#   of prof's file name none of the loop's samples after the decoy: its MMAP2s are
#   written under /[chroot:ROOT].
# Before issue 21: 0 of them named by prof report, most after the decoy by perf.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
command -v chroot >/dev/null || skip "needs chroot (coreutils)"

container_root "$TMP/root"
R=$TMP/root
D=$CTR_DECOY_DIR
[ -n "$(ctr_build_id "$R$D/ctr-hot")" ] || skip "gcc writes no build ids here"
# a shell for the loop, with the loader and libc the root has
container_shell "$R"
export HOME=$TMP/home
mkdir -p "$HOME"

# One recording of a loop of 30 ms processes; NAME, then prof record's options (-g
# unless they say otherwise), then -- and the workload (the loop by default).
record_loop() {
	local name=$1 opts=() work
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	[ ${#opts[@]} -gt 0 ] || opts=(-g)
	work=("$@")
	[ ${#work[@]} -gt 0 ] || work=(timeout 4 chroot "$R" /bin/sh -c "while :; do $D/ctr-hot 0.03; done")
	F=$TMP/$name.data
	"$PROF" record "${opts[@]}" -e cpu-clock -F 1000 -o "$F" -- "${work[@]}" 2>"$TMP/$name.err"
	note "$name: $(grep -E '^prof: .*objects' "$TMP/$name.err" | tr '\n' ' ')"
	"$PROF" report -i "$F" -F json --sort comm,dso,sym >"$TMP/$name.json" 2>"$TMP/$name.rerr" ||
		fail "$name: prof report: $(cat "$TMP/$name.rerr")"
	perf_clean "$TMP/$name.perf" report -i "$F" --stdio --no-children -F sample,comm,dso,sym -g none -t '|'
}

# Shares of the loop's samples (of COMM, ctr-hot unless given; at least LEAST, 1000
# unless given): at least MIN % named (prof report, perf report), none after the decoy.
check_loop() {
	local name=$1 min_prof=$2 min_perf=$3 want=${4:-ctr-hot} least=${5:-1000} reader comm n right wrong dec unknown min
	for reader in "prof-json $TMP/$name.json" "perf-report $TMP/$name.perf"; do
		min=$min_prof
		[ "${reader%% *}" = perf-report ] && min=$min_perf
		read -r comm n right wrong dec unknown < <(python3 "$CTR_SHARE" comms $reader "$want")
		[ "$n" -ge "$least" ] || fail "$name ${reader%% *}: the loop ($want) has $n samples"
		[ "$wrong" -eq 0 ] || fail "$name ${reader%% *}: $wrong of $n samples named wrong ($dec after the host's decoy)"
		[ $((right * 100)) -ge $((n * min)) ] || fail "$name ${reader%% *}: $right of $n named ($unknown unknown)"
		note "$name ${reader%% *}: $right of $n samples of $want named, $unknown unknown, 0 wrong"
	done
}

record_loop loop
check_loop loop 95 95
pass "chroot loop of 30 ms processes: >= 95 % named by prof report and perf report, none after the host's decoy"

# The same without frame pointers: prof unwinds each sample while the objects are
# reachable (under the chroot's held root once their process is gone).
record_loop dwarf --call-graph dwarf -- timeout 4 chroot "$R" /bin/sh -c "while :; do $D/ctr-hot-nofp 0.03; done"
check_loop dwarf 95 95 ctr-hot-nofp
ctr_check_dwarf_stacks "$F"
pass "chroot loop, --call-graph dwarf: >= 95 % named, >= 90 % of stacks reach main and _start, none after the decoy"

# Another tenant's root: a copy of the root whose program and library at the same
# paths are other code (ctr_b_*; the program renames its process ctr-other), run
# by nobody, beside the first, both chrooted from this mount namespace.
R2=$TMP/root2
cp -a "$R" "$R2" || fail "copy the root"
cat >"$TMP/other.c" <<'EOF2'
#include <sys/prctl.h>
__attribute__((constructor)) static void other_name(void) { prctl(PR_SET_NAME, "ctr-other"); }
EOF2
bflags=(-O2 -g -fno-optimize-sibling-calls -fno-omit-frame-pointer -Dctr_app_spin=ctr_b_app_spin
	-Dctr_app_run=ctr_b_app_run -Dctr_lib_spin=ctr_b_lib_spin -Dctr_lib_step=ctr_b_lib_step)
gcc "${bflags[@]}" -fPIC -shared -Wl,-soname,libctr.so -o "$R2$D/libctr.so" "$CTR_SRC/container_lib.c" &&
	gcc "${bflags[@]}" -o "$R2$D/ctr-hot" "$CTR_SRC/container_app.c" "$TMP/other.c" -L"$R2$D" -lctr \
		-Wl,-rpath,"$D" -Wl,--enable-new-dtags || fail "build the other tenant's program"
chmod -R a+rX "$R2"
[ "$(ctr_build_id "$R2$D/ctr-hot")" != "$(ctr_build_id "$R$D/ctr-hot")" ] || fail "the two programs have one build id"
nobody=$(id -u nobody 2>/dev/null || echo 65534)
record_loop two -g -- sh -c "timeout 4 chroot '$R' /bin/sh -c 'while :; do $D/ctr-hot 0.03; done' &
	timeout 4 chroot --userspec=$nobody:$nobody '$R2' /bin/sh -c 'while :; do $D/ctr-hot 0.03; done' & wait"
check_loop two 95 95 ctr-hot 400
check_loop two 95 95 ctr-other 400
# ctrshare counts ctr_* as right for both: whose they are is told by the names
for f in "$TMP/two.json" "$TMP/two.perf"; do
	python3 - "$f" <<'PY' || fail "two: a loop named after the other root's program ($f)"
import json, re, sys
path = sys.argv[1]
if path.endswith(".json"):
    rows = [(r.get("comm", ""), r.get("sym", ""), r["samples"]) for r in json.load(open(path))["rows"]]
else:
    rows = []
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split("|")
        if len(f) >= 4 and f[0].strip().isdigit():
            rows.append((f[1].strip(), re.sub(r"^\[.\] ", "", f[3].strip()), int(f[0])))
bad = {"ctr-hot": re.compile(r"ctr_b_"), "ctr-other": re.compile(r"^ctr_(app|lib)_")}
wrong = [(c, s, n) for c, s, n in rows if c in bad and bad[c].search(s)]
print("# two %s: %d rows named after the other root's program" % (path.rsplit(".", 1)[-1], len(wrong)))
sys.exit(1 if wrong else 0)
PY
done
pass "two chroots of two tenants, one path, two programs: each loop named after its own root's program, never the other's or the decoy's"

# The bound: 70 chroots alive at once, each one process; prof holds at most 64
# roots at a time and says how many it could not hold, without -v.  Each root is
# hard links of the first but for its own copy of the program: a place is met when
# one of its objects is reached, and an object (device, inode) is reached once.
for i in $(seq 70); do
	cp -al "$R" "$TMP/r$i" && rm "$TMP/r$i$D/ctr-hot" && cp "$R$D/ctr-hot" "$TMP/r$i$D/ctr-hot" ||
		fail "root $i"
done
F=$TMP/bound.data
"$PROF" record -e cpu-clock -F 1000 -o "$F" -- sh -c "for i in \$(seq 70); do timeout 5 chroot '$TMP'/r\$i $D/ctr-hot pause & done; wait" \
	2>"$TMP/bound.err"
line=$(grep '^prof: [0-9]* containers or chroots met' "$TMP/bound.err") ||
	fail "bound: the summary does not say the roots not held: $(cat "$TMP/bound.err")"
note "bound: $line"
echo "$line" | grep -qE '^prof: (7[0-9]) containers or chroots met, their roots held: at most 64 at once; [1-9][0-9]* not held \(64 at once at most\)' ||
	fail "bound: not 70 chroots met, 64 roots held, the rest not held: $line"
pass "70 chroots at once: at most 64 roots held, the others counted and said"

# Without a build id prof cannot identify the program: every reader shows it unknown.
objcopy --remove-section .note.gnu.build-id "$R$D/ctr-hot" || fail "objcopy"
[ -z "$(ctr_build_id "$R$D/ctr-hot")" ] || fail "the build id is still there"
record_loop nobid
grep -q "^prof: [0-9]* mappings of objects of containers or chroots without a build id written as /\[PLACE\]PATH" "$TMP/nobid.err" ||
	fail "nobid: the summary does not say so: $(cat "$TMP/nobid.err")"
grep -qF "/[chroot:$R]$D/ctr-hot" <("$PERF" script -i "$F" --show-mmap-events 2>/dev/null) ||
	fail "nobid: no MMAP2 under /[chroot:$R]: $("$PERF" script -i "$F" --show-mmap-events 2>/dev/null | grep MMAP2 | grep ctr-hot | head -3)"
check_loop nobid 0 0
grep -q decoy_ "$TMP/nobid.perf" && fail "nobid: perf report names the decoy: $(grep decoy_ "$TMP/nobid.perf" | head -3)"
"$PERF" script -i "$F" -F comm,ip,sym 2>/dev/null | grep -q decoy_ && fail "nobid: perf script names the decoy"
# perf annotate disassembles what it can open for each sampled symbol: none of the decoy's
timeout 120 "$PERF" annotate -i "$F" --stdio >"$TMP/nobid.annotate" 2>/dev/null
grep -q decoy_ "$TMP/nobid.annotate" && fail "nobid: perf annotate shows the decoy: $(grep decoy_ "$TMP/nobid.annotate" | head -3)"
pass "chroot loop, the program without a build id: its MMAP2s under /[chroot:$R], no reader names the host's decoy"
