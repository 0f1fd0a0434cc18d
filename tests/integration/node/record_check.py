# SPDX-License-Identifier: GPL-2.0-or-later
# Checks the JavaScript frames of a prof record --call-graph dwarf file of shares.js,
# from its stacks folded (perf_folded.py: comm;outermost;...;leaf count):
#  - every frame named in shares.js is one of its functions, at the line and column
#    of its '(' (V8's start position, 1-based; the top-level code at 1:1; an
#    anonymous arrow function "(anonymous)" at its "()");
#  - every pair of adjacent named frames of shares.js is a call the program makes
#    (decoy() only under the top level, spin() under sixty, thirty, inner or decoy,
#    inner under outer, the rest under round or the top level);
#  - the shares of sixty/thirty/outer among the samples naming one of them within
#    POINTS of 60/30/10;
#  - at least MIN % of the node samples name a frame of shares.js.
# Usage: record_check.py FOLDED SHARES_JS POINTS MIN
import re
import sys

folded, src, points, least = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
pos = {"(anonymous)": (1, 1)}
arrows = set()              # where an anonymous arrow function starts: its "("
for n, line in enumerate(open(src), 1):
    m = re.match(r"function (\w+)\(", line)
    if m:
        pos[m.group(1)] = (n, line.index("(") + 1)
    for m in re.finditer(r"\(\)\s*=>", line):
        arrows.add((n, m.start() + 1))
calls = {("sixty", "spin"), ("thirty", "spin"), ("inner", "spin"), ("decoy", "spin"), ("outer", "inner"),
         ("round", "sixty"), ("round", "thirty"), ("round", "outer"), ("(anonymous)", "decoy"),
         ("(anonymous)", "round")}
frame_re = re.compile(r"^(.*) \((.*):(\d+):(\d+)\)$")

total = named = wrong = unverified = 0
share = {"sixty": 0, "thirty": 0, "outer": 0}
for line in open(folded):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if frames[0] != "node":
        continue
    n = int(count)
    total += n
    unverified += n if "[js: unverified]" in frames else 0
    mine = []               # (index, name) of shares.js's frames, outermost first
    for i, f in enumerate(frames[1:], 1):
        m = frame_re.match(f)
        if not m or not m.group(2).endswith("/shares.js"):
            continue
        name, at = m.group(1), (int(m.group(3)), int(m.group(4)))
        if pos.get(name) != at and not (name == "(anonymous)" and at in arrows):
            print(f"# WRONG: {f}: shares.js has {name} at {pos.get(name)}")
            wrong += n
        mine.append((i, name))
    for (i, a), (j, b) in zip(mine, mine[1:]):
        if j == i + 1 and (a, b) not in calls:
            print(f"# WRONG: {b} under {a}: {stack}")
            wrong += n
    if mine:
        named += n
    for _, name in reversed(mine):
        if name in ("sixty", "thirty", "outer"):
            share[name] += n
            break
hot = sum(share.values())
pct = {k: 100 * v / max(hot, 1) for k, v in share.items()}
err = max(abs(pct["sixty"] - 60), abs(pct["thirty"] - 30), abs(pct["outer"] - 10))
print(f"node samples {total}, naming shares.js {named} ({100 * named / max(total, 1):.1f} %), "
      f"with [js: unverified] {unverified}; sixty/thirty/outer {pct['sixty']:.1f}/{pct['thirty']:.1f}/"
      f"{pct['outer']:.1f} % of {hot} (truth 60/30/10, worst {err:.1f} points); wrong {wrong}")
sys.exit(1 if wrong or hot < 200 or err > points or named * 100 < total * least else 0)
