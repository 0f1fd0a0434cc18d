#!/usr/bin/env bash
# A scope of cgroups only is filtered by the kernel (cgroup events, PERF_FLAG_PID_CGROUP):
# a busy task outside it costs prof no sample at all, where a system-wide recording
# drops thousands; an ancestor and its descendant given together are one event (no
# sample twice); a union with another kind of scope samples system-wide.
. "$(dirname "$0")/../lib.sh"
require_root
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2 hierarchy"
T=$root/prof-it-$$
make_cgroup_tree "$T"
mkdir -p "$T/idle/sub" "$T/busy" || fail "mkdir"
cp "$PROF_HOT" "$TMP/outside"
( echo "$BASHPID" >"$T/busy/cgroup.procs"; exec "$TMP/outside" 8 ) &
( echo "$BASHPID" >"$T/idle/sub/cgroup.procs"; exec sleep 8 ) &
sleep 0.3

"$PROF" record -v --cgroup "prof-it-$$/idle" -F 10000 -o "$TMP/a.data" -d 2 2>"$TMP/err" ||
	fail "prof record: $(cat "$TMP/err")"
grep -q "the kernel would not sample by cgroup" "$TMP/err" &&
	skip "this kernel has no cgroup events: $(grep 'would not' "$TMP/err")"
grep -q "samples filtered by the kernel to 1 cgroup" "$TMP/err" || fail "no kernel filter: $(cat "$TMP/err")"
grep -q " 0 samples written, 0 outside scope" "$TMP/err" ||
	fail "samples of the busy task outside reached prof: $(grep 'prof record:' "$TMP/err")"
pass "an idle cgroup beside a busy task: $(grep 'prof record:' "$TMP/err")"

"$PROF" record -v --cgroup "prof-it-$$/idle" --cgroup "prof-it-$$/idle/sub" --cgroup "prof-it-$$/busy" \
	-F 1000 -o "$TMP/b.data" -d 0.5 2>"$TMP/err" || fail "prof record: $(cat "$TMP/err")"
grep -q "samples filtered by the kernel to 2 cgroups" "$TMP/err" ||
	fail "idle/sub under idle is not one event with it: $(cat "$TMP/err")"
pass "a cgroup and its descendant are one event: $(grep 'filtered' "$TMP/err")"

# with --uid too, the union is not a cgroup filter: every CPU, judged per sample
"$PROF" record -v --cgroup "prof-it-$$/idle" --uid root -F 10000 -o "$TMP/c.data" -d 1 2>"$TMP/err" ||
	fail "prof record: $(cat "$TMP/err")"
grep -q "samples filtered by the kernel" "$TMP/err" && fail "a union with --uid was filtered by cgroup"
pass "a union with --uid samples every CPU: $(grep 'prof record:' "$TMP/err")"
