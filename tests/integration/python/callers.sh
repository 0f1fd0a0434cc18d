#!/usr/bin/env bash
# A wrong caller is provable: a() and b() both call helper(), which spins on one line
# when called from a() and on another from b(), switching every millisecond, their
# frames at the same addresses each time.  Read after the sample, about half of
# helper()'s callers were a later moment's; prof reads them at the sample instant
# (python/chain.h): over >= 20,000 samples of helper() at a line, every one shows the
# caller that line belongs to (a() under line 5, b() under line 7), then <module>,
# and nothing else of the program.
. "$(dirname "$0")/lib.sh"
cp "$(dirname "$0")/callers.py" "$TMP/pub/callers.py" && chmod 644 "$TMP/pub/callers.py" || fail "copy callers.py"
# >= 20,000 samples of helper() over up to three recordings (a loaded host gives the
# program less of a CPU), each checked alone.
total=0
for try in 1 2 3; do
	F=$TMP/callers-$try.data
	py_record "$F" "$TMP/pub/callers.py" 8
	py_folded "$F" "$TMP/prof-$try.folded"
	n=$(python3 - "$TMP/prof-$try.folded" <<'PY'
import sys
helper = right = wrong = marked = 0
want = {"5": "a", "7": "b"}
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    count = int(count)
    frames = [f for f in stack.split(";") if "callers.py:" in f or f.startswith("[python")]
    if not frames or not frames[-1].startswith("helper (") or "[python: unverified]" in frames:
        continue
    helper += count
    if frames[-2:-1] == ["[python: callers not proven]"]:
        marked += count     # no chain read for it (the first samples): nothing claimed
        continue
    names = [f.split(" (")[0] for f in frames]
    at = frames[-1].rsplit(":", 1)[1].rstrip(")")
    # lines 5 and 7 tell the caller; the others (3, 4, 6) are both callers'
    if names in ([["<module>", want[at], "helper"]] if at in want else [["<module>", c, "helper"] for c in "ab"]):
        right += count
    else:
        wrong += count
        print(f"# wrong: {';'.join(frames)} {count}", file=sys.stderr)
print(f"# samples of helper(): {helper}, with the caller of their line: {right}, wrong: {wrong}, "
      f"[python: callers not proven] above: {marked}", file=sys.stderr)
print(right)
sys.exit(1 if wrong or right * 100 < 95 * helper else 0)
PY
) || fail "wrong callers"
	total=$((total + n))
	[ "$total" -ge 20000 ] && break
done
[ "$total" -ge 20000 ] || fail "only $total samples of helper() with callers in three recordings (>= 20,000 wanted)"
pass "$total samples of helper(), each under the caller of the line it ran"
