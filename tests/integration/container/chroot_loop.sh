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
# - with the objects' build ids unreadable (keep_objects off and build ids refused,
#   PROF_TEST_NO_BUILD_IDS is not a thing: instead the root's copy of the program
#   is stripped of its build-id note), perf report of prof's file names none of the
#   loop's samples after the decoy: its MMAP2s are written under /[chroot:ROOT].
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

# One recording of a loop of 30 ms processes; NAME, then prof record's options.
record_loop() {
	local name=$1
	shift
	F=$TMP/$name.data
	"$PROF" record "$@" -e cpu-clock -F 1000 -g -o "$F" -- \
		timeout 4 chroot "$R" /bin/sh -c "while :; do $D/ctr-hot 0.03; done" 2>"$TMP/$name.err"
	note "$name: $(grep -E '^prof: .*objects' "$TMP/$name.err" | tr '\n' ' ')"
	"$PROF" report -i "$F" -F json --sort comm,dso,sym >"$TMP/$name.json" 2>"$TMP/$name.rerr" ||
		fail "$name: prof report: $(cat "$TMP/$name.rerr")"
	perf_clean "$TMP/$name.perf" report -i "$F" --stdio --no-children -F sample,comm,dso,sym -g none -t '|'
}

# Shares of the loop's samples: at least MIN % named (prof report, perf report), none
# after the decoy.
check_loop() {
	local name=$1 min_prof=$2 min_perf=$3 reader comm n right wrong dec unknown min
	for reader in "prof-json $TMP/$name.json" "perf-report $TMP/$name.perf"; do
		min=$min_prof
		[ "${reader%% *}" = perf-report ] && min=$min_perf
		read -r comm n right wrong dec unknown < <(python3 "$CTR_SHARE" comms $reader ctr-hot)
		[ "$n" -ge 1000 ] || fail "$name ${reader%% *}: the loop has $n samples"
		[ "$wrong" -eq 0 ] || fail "$name ${reader%% *}: $wrong of $n samples named wrong ($dec after the host's decoy)"
		[ $((right * 100)) -ge $((n * min)) ] || fail "$name ${reader%% *}: $right of $n named ($unknown unknown)"
		note "$name ${reader%% *}: $right of $n samples named, $unknown unknown, 0 wrong"
	done
}

record_loop loop
check_loop loop 95 95
pass "chroot loop of 30 ms processes: >= 95 % named by prof report and perf report, none after the host's decoy"

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
pass "chroot loop, the program without a build id: its MMAP2s under /[chroot:$R], no reader names the host's decoy"
