# SPDX-License-Identifier: GPL-2.0-or-later
# builds.sh's checks of one build in one mode: builds_check.py WHAT SHARES-SUMMARY
# SHARES-FOLDED CALLERS-SUMMARY CALLERS-FOLDED HOW MODE.  The summary says the
# interpreter was read as HOW.  shares.py's recording: >= 95 % of
# its samples with all their Python frames verified; shares.py's sixty/thirty/ten
# within 3 points of 60/30/10; callers.py's helper() under the caller of the line
# it ran, never the other, in >= 95 % of its samples.  Prints one line of figures.
import re, sys

what, s_sum, s_fold, c_sum, c_fold, want_how, mode = sys.argv[1:8]
bad = []


def verified(path):
    for line in open(path):
        m = re.match(r"prof: Python: (\d+) samples of \d+ interpreter\(s\), \d+ with Python frames, (\d+) of them all "
                     r"verified;.*; read: (.*)$", line)
        if m:
            return int(m[1]), int(m[2]), m[3]
    sys.exit(f"# {what}: no Python line with how the interpreter was read in {path}: "
             + "".join(l for l in open(path) if "Python" in l))


def stacks(path, mark):
    for line in open(path):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        frames = [f for f in stack.split(";") if mark in f or f.startswith("[python")]
        yield frames, int(count)


worst = 0.0
n = {"sixty": 0, "thirty": 0, "ten": 0}
for frames, count in stacks(s_fold, "shares.py:"):
    mine = [f.split(" (")[0] for f in frames if f.split(" (")[0] in n]
    if mine and "[python: unverified]" not in frames:
        n[mine[-1]] += count
total = sum(n.values())
for k, want in (("sixty", 60), ("thirty", 30), ("ten", 10)):
    worst = max(worst, abs(100 * n[k] / max(total, 1) - want))
if total < 1000 or worst > 3:
    bad.append(f"shares off by {worst:.1f} points over {total} samples: {n}")

helper = right = wrong = marked = 0
want = {"5": "a", "7": "b"}
for frames, count in stacks(c_fold, "callers.py:"):
    if not frames or not frames[-1].startswith("helper (") or "[python: unverified]" in frames:
        continue
    helper += count
    if frames[-2:-1] == ["[python: callers not proven]"]:
        marked += count     # the stack copy alone (no chain read for it): nothing claimed above
        continue
    names = [f.split(" (")[0] for f in frames]
    at = frames[-1].rsplit(":", 1)[1].rstrip(")")
    if names in ([["<module>", want[at], "helper"]] if at in want else [["<module>", c, "helper"] for c in "ab"]):
        right += count
    else:
        wrong += count
        print(f"# {what}: wrong: {';'.join(frames)} {count}", file=sys.stderr)
if wrong or helper < 1000 or (right + marked) * 100 < 95 * helper:
    bad.append(f"helper(): {right} of {helper} samples under their caller, {wrong} wrong")

figures = []
for name, path in (("shares", s_sum), ("callers", c_sum)):
    samples, ok, how = verified(path)
    figures.append(f"{name} {ok}/{samples} verified ({100 * ok / max(samples, 1):.1f} %)")
    # the program of known profile; callers.py's share is printed (a loaded host gives
    # it fewer samples, so its first ones, before each code object is proven, weigh more)
    if name == "shares" and ok * 100 < 95 * samples:
        bad.append(f"{name}: only {ok} of {samples} samples verified")
    if how != want_how:
        bad.append(f"{name}: read {how!r}, not {want_how!r}")
print(f"# {what}: {', '.join(figures)}; worst share error {worst:.1f} points; helper() {right}/{helper} "
      f"under their caller ({marked} with [python: callers not proven]), {wrong} wrong; read: {how}")
if bad:
    sys.exit(f"# {what}: " + "; ".join(bad))
