#!/usr/bin/env bash
# --pid: the process, its threads and descendants (forked during the run or before, at
# any depth: a leaf 40 levels down a pre-existing chain).
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

cp "$PROF_HOT" "$TMP/outsider"
"$TMP/outsider" 6 >/dev/null &
out=$!
cleanup_hooks+=("kill $out 2>/dev/null")
bash -c "\"$PROF_HOT\" 6 fork & wait" &
target=$!
cleanup_hooks+=("kill $target 2>/dev/null")
sleep 0.3
F=$TMP/pid.data
"$PROF" record --pid "$target" -o "$F" -d 3 2>"$TMP/err" || fail "prof record exited $?: $(cat "$TMP/err")"
cat "$TMP/err"
perf_clean "$TMP/script" script -i "$F" -F comm,pid
awk '{print $1}' "$TMP/script" | sort | uniq -c
grep -q outsider "$TMP/script" && fail "outsider in the file"
grep -q '^ *prof-hot ' "$TMP/script" || fail "the pre-existing descendant is missing"
grep -q '^ *prof-child ' "$TMP/script" || fail "the child forked mid-run is missing"
pass "process tree only"

# A chain of 40 processes, each the parent of the next, started before the recording:
# the busy leaf, 40 levels below the --pid root, is found through /proc at any depth.
cp "$PROF_HOT" "$TMP/deepleaf" || fail "copy"
cat >"$TMP/chain.sh" <<'SH'
n=$1; shift
if [ "$n" -gt 0 ]; then bash "$0" $((n - 1)) "$@" & wait; else exec "$@"; fi
SH
bash "$TMP/chain.sh" 40 "$TMP/deepleaf" 8 >/dev/null &
top=$!
cleanup_hooks+=("pkill -KILL -x deepleaf")
for _ in $(seq 100); do pgrep -x deepleaf >/dev/null && break; sleep 0.1; done
leaf=$(pgrep -x deepleaf) || fail "the chain's leaf did not start"
depth=0 p=$leaf
while [ "$p" != "$top" ] && [ "$p" -gt 1 ]; do p=$(awk '/^PPid:/ {print $2}' /proc/$p/status); depth=$((depth + 1)); done
[ "$p" = "$top" ] && [ "$depth" -eq 40 ] || fail "the leaf is not 40 levels below $top (depth $depth, reached $p)"
"$PROF" record --pid "$top" -o "$F" -d 2 2>"$TMP/err" || fail "prof record --pid (chain) exited $?: $(cat "$TMP/err")"
cat "$TMP/err"
perf_clean "$TMP/script" script -i "$F" -F comm,pid
n=$(awk -v l="$leaf" '$1 == "deepleaf" && $2 == l' "$TMP/script" | wc -l)
[ "$n" -gt 0 ] || fail "no samples of the leaf 40 levels below --pid $top: $(awk '{print $1}' "$TMP/script" | sort | uniq -c)"
pass "a leaf 40 levels below --pid: $n samples"
