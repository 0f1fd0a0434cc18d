#!/usr/bin/env bash
# Build ids: prof writes the HEADER_BUILD_ID feature, perf buildid-list lists the
# recorded program's build id as readelf gives it, and prof report names the
# program's functions while it is the recorded binary but never after it was rebuilt
# with another layout at the same path: [unknown] (the object's name) instead, and
# one line on stderr naming the object.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v cc >/dev/null || skip "needs a C compiler (cc)"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
export HOME=$TMP        # perf's build-id cache (~/.debug) stays in the test's directory

P=$TMP/bidprog
cat >"$TMP/v1.c" <<'C'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void alpha_spin(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1500000000L);
}
int main(void) { alpha_spin(); return 0; }
C
# The rebuild: an 8 KB function first, where alpha_spin was, so the recorded
# offsets of alpha_spin fall inside decoy_first in the new file.
cat >"$TMP/v2.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void decoy_first(void) { __asm__ volatile(".fill 8192, 1, 0x90"); sink++; }
__attribute__((noinline)) void decoy_second(void) { sink += 2; }
int main(void) { decoy_first(); decoy_second(); return 0; }
C
cc -O0 -g0 -o "$P" "$TMP/v1.c" || fail "cc v1"

F=$TMP/bid.data
"$PROF" record -q -o "$F" -- "$P" || fail "record"
want=$(readelf -n "$P" | awk '/Build ID:/ { print $3 }')
[ -n "$want" ] || skip "cc does not write build ids here"

# perf sees the program's build id, as readelf gives it, and the kernel's.
perf_clean "$TMP/bids" buildid-list -i "$F"
grep -qx "$want $P" "$TMP/bids" || fail "perf buildid-list does not list '$want $P': $(cat "$TMP/bids")"
kernel=$(grep -F ' [kernel.kallsyms]' "$TMP/bids" | cut -d' ' -f1)
[ -n "$kernel" ] || fail "no kernel build id: $(cat "$TMP/bids")"
pass "perf buildid-list: $want $P, kernel $kernel"

"$PROF" report -i "$F" --sort sym >"$TMP/before" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -q '\[\.\] alpha_spin$' "$TMP/before" || fail "before the rebuild, alpha_spin is not named: $(cat "$TMP/before")"
[ -s "$TMP/err" ] && fail "report before the rebuild said: $(cat "$TMP/err")"
pass "before the rebuild: $(grep -m1 alpha_spin "$TMP/before" | tr -s ' ')"

rm -f "$P"
cc -O0 -g0 -o "$P" "$TMP/v2.c" || fail "cc v2"
now=$(readelf -n "$P" | awk '/Build ID:/ { print $3 }')
[ "$now" != "$want" ] || fail "the rebuild has the same build id"
"$PROF" report -i "$F" --sort sym >"$TMP/after" 2>"$TMP/err" || fail "report after: $(cat "$TMP/err")"
if grep -qE 'decoy|alpha_spin' "$TMP/after"; then
	fail "after the rebuild, a name from a file that was not recorded: $(grep -E 'decoy|alpha_spin' "$TMP/after")"
fi
grep -qF '[.] [unknown] (bidprog)' "$TMP/after" || fail "after the rebuild, no '[unknown] (bidprog)': $(cat "$TMP/after")"
grep -qF "$P: not the file that was recorded (build id $want expected" "$TMP/err" ||
	fail "stderr does not name the object: $(cat "$TMP/err")"
[ "$(grep -c bidprog "$TMP/err")" -eq 1 ] || fail "said more than once: $(cat "$TMP/err")"
pass "after the rebuild: $(grep -m1 -F '(bidprog)' "$TMP/after" | tr -s ' '); stderr: $(cat "$TMP/err")"

# What perf report shows for the rebuilt binary (noted, not asserted: perf's own).
"$PERF" report -i "$F" --stdio --no-children --sort sym 2>"$TMP/perf.err" >"$TMP/perf.after" || true
note "perf report after the rebuild: $(grep -E '^ +[0-9.]+%' "$TMP/perf.after" | head -n 3 | tr -s ' ' | tr '\n' ';')"
if grep -qE 'decoy' "$TMP/perf.after"; then note "perf report names a function of the rebuilt file"; fi
