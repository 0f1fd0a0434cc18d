#!/usr/bin/env bash
# -F folded and -F svg show the same stacks as the text report counts: the folded
# stacks' counts add up to the samples in the header, and every frame the SVG draws
# holds exactly the samples of the folded stacks through it, on prof's file and on
# perf's.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

check() {
	local what=$1 file=$2
	"$PROF" report -i "$file" >"$TMP/text" 2>"$TMP/err" || fail "$what: text report: $(cat "$TMP/err")"
	"$PROF" report -i "$file" -F folded >"$TMP/folded" 2>"$TMP/err" || fail "$what: folded: $(cat "$TMP/err")"
	"$PROF" report -i "$file" -F svg >"$TMP/svg" 2>"$TMP/err" || fail "$what: svg: $(cat "$TMP/err")"
	python3 - "$TMP/text" "$TMP/folded" "$TMP/svg" "$what" <<'PY' || fail "$what: folded, svg and text disagree"
import collections, html, re, sys
text, folded, svg, what = sys.argv[1:]
total = int(re.search(r"^# event: .*?, (\d+) samples", open(text).read(), re.M).group(1))
stacks = collections.Counter()
for line in open(folded):
    k, _, n = line.rstrip("\n").rpartition(" ")
    assert k and k not in stacks, f"a stack twice or empty: {line!r}"
    stacks[k] = int(n)
assert sum(stacks.values()) == total, f"folded counts {sum(stacks.values())}, the header {total}"
assert len(stacks) > 2, f"only {len(stacks)} stacks"
# each prefix of each stack: the samples through that frame
through = collections.Counter()
for k, n in stacks.items():
    parts = k.split(";")
    for i in range(1, len(parts) + 1):
        through[";".join(parts[:i])] += n
# the SVG's frames in drawing order (depth first), each with its depth
path, drawn = [], 0
for m in re.finditer(r'<g class="f" data-x="[0-9.]+" data-w="[0-9.]+" data-d="(\d+)"><title>(.*?) \((\d+) samples', open(svg).read()):
    d, name, n = int(m.group(1)), html.unescape(m.group(2)), int(m.group(3))
    del path[d:]
    path.append(name)
    drawn += 1
    if d == 0:
        assert name == "all" and n == total, f"root {name} {n}, want all {total}"
        continue
    key = ";".join(path[1:])
    assert through[key] == n, f"frame {key!r}: {n} samples in the SVG, {through[key]} in the folded stacks"
assert drawn > 3, f"{drawn} frames drawn"
print(f"# {what}: {len(stacks)} stacks, {total} samples, {drawn} frames drawn, all agree")
PY
}

"$PROF" record -q -g -o "$TMP/prof.data" -- "$PROF_HOT" 1 fork >/dev/null 2>"$TMP/err" || fail "prof record: $(cat "$TMP/err")"
check "prof's file" "$TMP/prof.data"
pass "prof's file: folded stacks, SVG frames and the report's samples agree"
perf record -q -g -o "$TMP/perf.data" -- "$PROF_HOT" 1 >/dev/null 2>&1 || fail "perf record"
check "perf's file" "$TMP/perf.data"
pass "perf's file: folded stacks, SVG frames and the report's samples agree"
