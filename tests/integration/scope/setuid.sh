#!/usr/bin/env bash
# A process that calls setuid() without exec is the user's from that call on, and
# not before; the uid is the real uid.  (root runs the program: --run-as self.)
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

U=prof-it-setuid
make_user "$U"
F=$TMP/setuid.data
"$PROF" record --uid "$U" --run-as self -o "$F" -- "$PROF_SETUID" "$(id -u "$U")" 1 2>"$TMP/err" || fail "prof record exited $?: $(cat "$TMP/err")"
cat "$TMP/err"
perf_clean "$TMP/report" report -i "$F" --stdio --no-children --sort sym
after=$(pct_of "$TMP/report" 'after_setuid')
grep -q before_setuid "$TMP/report" && fail "samples from before setuid() are in the file: $(grep -E '^ +[0-9]' "$TMP/report" | head -3)"
awk -v a="$after" 'BEGIN { exit !(a > 90) }' || fail "after_setuid is $after%"
pass "only after setuid(): after_setuid $after%"

# The root scope sees the other half.
"$PROF" record --uid root --run-as self -o "$F" -- "$PROF_SETUID" "$(id -u "$U")" 1 2>"$TMP/err" || fail "prof record --uid root exited $?"
perf_clean "$TMP/report" report -i "$F" --stdio --no-children --comm prof-setuid --sort sym
grep -q after_setuid "$TMP/report" && fail "--uid root has samples from after setuid()"
grep -q before_setuid "$TMP/report" || fail "--uid root lacks before_setuid"
pass "--uid root: only before setuid()"
