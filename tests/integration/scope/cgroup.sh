#!/usr/bin/env bash
# --cgroup: the subtree, including a child cgroup made mid-run and a task moved in
# mid-run; a busy sibling is out.  The scope is a kernel cgroup filter: the busy
# sibling's samples never reach prof (0 outside scope) while the subtree's, the
# mid-run cgroup's among them, do.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2 hierarchy"
T=$root/prof-it-$$
make_cgroup_tree "$T"
mkdir -p "$T/app" "$T/other" || fail "mkdir"
cp "$PROF_HOT" "$TMP/sibling"

( echo "$BASHPID" >"$T/other/cgroup.procs"; exec "$TMP/sibling" 8 ) &
( echo "$BASHPID" >"$T/app/cgroup.procs"; exec sleep 30 ) &
sleeper=$!
F=$TMP/cg.data
"$PROF" record -v --cgroup "prof-it-$$/app" -o "$F" -d 5 2>"$TMP/err" &
rec=$!
sleep 1.5
( mkdir "$T/app/worker" && echo "$BASHPID" >"$T/app/worker/cgroup.procs" && exec "$PROF_HOT" 1 ) &
"$TMP/sibling" 4 >/dev/null &
mover=$!
sleep 1
echo "$mover" >"$T/app/cgroup.procs" || fail "move into app"
wait "$rec" || fail "prof record exited $?: $(cat "$TMP/err")"
cat "$TMP/err"
grep -q ' 0 unattributed' "$TMP/err" || fail "unattributed samples"
if grep -q "the kernel would not sample by cgroup" "$TMP/err"; then
	note "no kernel cgroup filter here: $(grep 'would not' "$TMP/err")"
else
	grep -q "samples filtered by the kernel to 1 cgroup" "$TMP/err" || fail "no kernel filter: $(cat "$TMP/err")"
	grep -qE ' [1-9][0-9]* samples written, 0 outside scope,' "$TMP/err" ||
		fail "samples outside the scope reached prof: $(grep 'prof record:' "$TMP/err")"
	pass "kernel filter: the busy sibling's samples never reached prof: $(grep 'prof record:' "$TMP/err")"
fi

perf_clean "$TMP/report" report -i "$F" --stdio --no-children --sort cgroup,comm
grep -E '^ +[0-9]' "$TMP/report"
grep -qE "/prof-it-$$/app/worker +prof-hot" "$TMP/report" || fail "the child cgroup made mid-run is missing"
grep -qE "/prof-it-$$/app +sibling" "$TMP/report" || fail "the task moved in mid-run is missing"
grep -q "/prof-it-$$/other" "$TMP/report" && fail "the sibling cgroup is in the file"
grep -qE "^ +[0-9.]+% +/prof-it-$$/app " "$TMP/report" || true
awk -v root="/prof-it-$$/app" '$2 !~ "^"root { bad=1 } END { exit bad }' <(grep -E '^ +[0-9]' "$TMP/report") ||
	fail "samples outside the subtree"
pass "subtree only, child cgroup and moved task included"
kill "$sleeper" 2>/dev/null

# A unit-style name is found by searching the hierarchy.
mkdir -p "$T/app/prof-it-$$.service"
"$PROF" record --cgroup "prof-it-$$.service" -q -o "$F" -d 0.3 || fail "search by name"
mkdir -p "$T/other/prof-it-$$.service"
"$PROF" record --cgroup "prof-it-$$.service" -q -o "$F" -d 0.3 2>"$TMP/err" && fail "ambiguous name accepted"
grep -q "ambiguous" "$TMP/err" && grep -q "/other/prof-it-$$.service" "$TMP/err" || fail "ambiguity message: $(cat "$TMP/err")"
pass "names: found, or ambiguous with candidates: $(cat "$TMP/err")"
