#!/usr/bin/env bash
# perf's other tools on a prof file: perf inject (plain and -b) rewrite it without
# crashing and what they write is read by perf report and prof report; perf
# buildid-list lists the build ids prof wrote; perf archive packs the objects.
# prof's own section (after the features, found by a trailer) is still read by
# prof report from the original file.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
export HOME=$TMP        # perf's build-id cache (~/.debug) stays in the test's directory

F=$TMP/p.data
"$PROF" record -q -g -o "$F" -- "$PROF_HOT" 1 || fail "record"
hot=$(basename "$PROF_HOT")

# prof's section is read from where it is now, and the file says so at its end.
[ "$(tail -c 8 "$F")" = PROFSEC1 ] || fail "the file does not end with prof's trailer"
"$PROF" report -i "$F" >"$TMP/prof.txt" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
grep -q '^# scope: workload [0-9]' "$TMP/prof.txt" || fail "prof report lost the scope: $(head -5 "$TMP/prof.txt")"
pass "prof report reads prof's section from the trailer: $(grep '^# scope' "$TMP/prof.txt")"

check_readable() {      # $1: a file perf wrote from ours; $2: what made it
	perf_clean "$TMP/rep.txt" report -i "$1" --stdio --no-children --sort comm,sym -g none
	grep -qE "^ +[0-9.]+% +$hot +\[\.\] hot_function" "$TMP/rep.txt" ||
		fail "$2: perf report does not show hot_function: $(grep -E '^ +[0-9]' "$TMP/rep.txt" | head -5)"
	"$PROF" report -i "$1" --sort sym >"$TMP/prep.txt" 2>"$TMP/err" || fail "$2: prof report: $(cat "$TMP/err")"
	grep -q '\[\.\] hot_function$' "$TMP/prep.txt" || fail "$2: prof report does not show hot_function"
}

for args in "" "-b"; do
	rm -f "$TMP/inj.data"
	"$PERF" inject $args -i "$F" -o "$TMP/inj.data" 2>"$TMP/perf.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "perf inject $args exited $rc$([ "$rc" -ge 128 ] && echo " (signal $((rc - 128)))"): $(head -c 2000 "$TMP/perf.err")"
	check_readable "$TMP/inj.data" "perf inject $args"
	pass "perf inject $args: exit 0, perf report and prof report read what it wrote"
done

perf_clean "$TMP/bids" buildid-list -i "$F"
# The test program's build id, from readelf (binutils, which gcc brings): a check
# that cannot run is a failure, not a silent pass.
command -v readelf >/dev/null || fail "readelf (binutils) is missing: the build ids cannot be checked"
want=$(readelf -n "$PROF_HOT" | awk '/Build ID:/ { print $3 }')
[ -n "$want" ] || fail "readelf finds no build id in $PROF_HOT (gcc links one by default): $(readelf -n "$PROF_HOT" 2>&1 | head -20)"
grep -qx "$want $PROF_HOT" "$TMP/bids" || fail "perf buildid-list: no '$want $PROF_HOT' in: $(cat "$TMP/bids")"
grep -q ' \[kernel.kallsyms\]$' "$TMP/bids" || fail "perf buildid-list: no kernel build id in: $(cat "$TMP/bids")"
grep -qE '^ ' "$TMP/bids" && fail "perf buildid-list: an object without a build id: $(cat "$TMP/bids")"
pass "perf buildid-list: $(wc -l <"$TMP/bids") build ids, $hot's as readelf gives it"

# perf archive packs what the build-id cache holds: perf inject -b above filled it.
# perf runs it from its exec path; a perf built without it has no archive command.
archive=$("$PERF" --exec-path 2>/dev/null)/perf-archive
if [ ! -x "$archive" ]; then
	note "perf archive is not installed with this perf ($archive): not checked"
else
	( cd "$TMP" && "$PERF" archive "$F" ) >"$TMP/arch.out" 2>&1 || fail "perf archive: $(cat "$TMP/arch.out")"
	[ -s "$F.tar.bz2" ] || fail "perf archive wrote no $F.tar.bz2: $(cat "$TMP/arch.out")"
	command -v bzip2 >/dev/null || fail "bzip2 is missing: perf archive's tar.bz2 cannot be listed"
	tar tjf "$F.tar.bz2" >"$TMP/arch.list" || fail "perf archive's tar file does not list"
	grep -q "^.build-id/${want:0:2}/${want:2}" "$TMP/arch.list" ||
		fail "perf archive did not pack $hot ($want): $(head -20 "$TMP/arch.list")"
	pass "perf archive: $(grep -c '^.build-id/' "$TMP/arch.list") objects packed"
fi
